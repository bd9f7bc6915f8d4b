"""Done-markers in the run folder: a stage that finished with the same inputs is not run again.

A marker is `RUN/.comlq/STAGE.json` holding a key (a hash of the stage's settings and the
digests of its input files) and the stage's counts. A stage whose key matches its marker is
skipped; change a setting or an input file and the key changes, so the stage runs again and,
because its output digest changes too, so does every stage after it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, is_dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline.runfolder import STAGES, RunFolder
from pipeline.schemas import read_json, write_json


def digest(path: str | Path) -> str:
    """sha256 of a file, or of a folder's files (relative names and contents); '' if missing."""
    path = Path(path)
    if path.is_file():
        return _file_sha(path)
    if path.is_dir():
        h = hashlib.sha256()
        for entry in sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            h.update(str(entry.relative_to(path)).encode())
            h.update(_file_sha(entry).encode())
        return h.hexdigest()
    return ""


def _file_sha(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def key(*parts: Any) -> str:
    """A stable hash of settings (dataclasses, dicts, strings, numbers)."""
    plain = [asdict(p) if is_dataclass(p) and not isinstance(p, type) else p for p in parts]
    return hashlib.sha256(json.dumps(plain, sort_keys=True, default=str).encode()).hexdigest()


def stage_key(run: RunFolder, stage: str, *settings: Any, inputs: tuple[str | Path, ...] = (),
              instead: dict[str, str | Path] | None = None) -> str:
    """A stage's key: its settings and the contents of what it reads (`STAGES`, plus `inputs`);
    `instead` names a file read in place of one of the run's (e.g. `review push --passages`)."""
    instead = instead or {}
    read = [instead.get(name) or path for name, path in zip(STAGES[stage].reads, run.paths(STAGES[stage].reads))]
    read += inputs
    return key(*settings, *(digest(path) for path in read))


def marker_path(run_dir: str | Path, stage: str) -> Path:
    return RunFolder(run_dir).marker(stage)


def read_marker(run_dir: str | Path, stage: str) -> dict[str, Any] | None:
    path = marker_path(run_dir, stage)
    return read_json(path) if path.is_file() else None


def done(run_dir: str | Path, stage: str, stage_key: str) -> dict[str, Any] | None:
    """The stage's marker if it finished with this key, else None."""
    marker = read_marker(run_dir, stage)
    return marker if marker is not None and marker.get("key") == stage_key else None


def mark(run_dir: str | Path, stage: str, stage_key: str, counts: dict[str, Any]) -> dict[str, Any]:
    marker = {
        "stage": stage,
        "key": stage_key,
        "counts": counts,
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    write_json(marker_path(run_dir, stage), marker)
    return marker
