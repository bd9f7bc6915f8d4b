"""The extraction cache: one reading per passage, keyed by the passage's title and text and the reader's version.

Reading a passage (spaCy, `reading.py`) is the expensive part of the kg generator and depends on
nothing but the passage, so it is done once: by the flow's `generate-prepare` tasks in batches
(spread over threads or a Dask cluster), or by `generate` itself for whatever is missing. Files
live under `$COMLQ_CACHE/kg-readings/<version>/` (default `~/.cache/comlq/kg-readings`), one JSON
file per passage, renamed into place, so concurrent workers never see half a file.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import threading
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from pipeline.kg import nlp
from pipeline.kg.lexicon import vocabulary_digest
from pipeline.kg.mentions import title_and_body
from pipeline.kg.reading import VERSION, read_docs
from pipeline.records import Passage

log = logging.getLogger(__name__)


def default_cache_dir() -> Path:
    root = os.environ.get("COMLQ_CACHE")
    return Path(root) / "kg-readings" if root else Path.home() / ".cache" / "comlq" / "kg-readings"


def reader_version() -> str:
    """The reader's version, the class lists it reads, and the installed spaCy pipeline's version
    (found without loading it)."""
    own = f"{VERSION}-{vocabulary_digest()}"
    for name in nlp.MODELS:
        if importlib.util.find_spec(name) is not None:
            try:
                return f"{own}-{name}-{version(name.replace('_', '-'))}"
            except PackageNotFoundError:
                return f"{own}-{name}"
    return own


class ReadingCache:
    def __init__(self, root: str | Path | None = None):
        self.root = Path(root) if root else default_cache_dir() / reader_version()

    @staticmethod
    def key(passage: Passage) -> str:
        return hashlib.sha256(f"{passage.title}\0{passage.text}".encode()).hexdigest()

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        try:
            return json.loads(self.path(key).read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None

    def put(self, key: str, reading: dict) -> None:
        """Written to a temporary sibling and renamed: a reader sees the whole file or none. No
        fsync (unlike AtomicWriter): an entry lost in a crash is only read again."""
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
        tmp.write_text(json.dumps(reading, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)


def read_passages(passages: Sequence[Passage], cache: ReadingCache, processes: int = 1,
                  batch_size: int = 64) -> dict[str, dict]:
    """passage id -> reading, from the cache where it has them, else read now (and cached)."""
    readings: dict[str, dict] = {}
    missing: list[tuple[Passage, str]] = []
    for passage in passages:
        key = cache.key(passage)
        reading = cache.get(key)
        if reading is None:
            missing.append((passage, key))
        else:
            readings[passage.id] = reading
    if missing:
        log.info("reading %d of %d passages (%d cached)", len(missing), len(passages), len(readings))
        titled = [title_and_body(p.title, p.text) for p, _ in missing]
        docs = nlp.load().pipe([t.body for t in titled], batch_size=batch_size,
                               n_process=processes if len(missing) >= 4 * batch_size else 1)
        for (passage, key), reading in zip(missing, read_docs(titled, docs)):
            cache.put(key, reading)
            readings[passage.id] = reading
    return readings
