"""The runs waiting for review, wherever they live, with the configuration each was made with.

`run --review` (push-review) records a run here; the scheduled collect-review reads the list,
so a run outside `runs/`, made with its own configuration file, is collected with that file.
A recorded run is never forgotten: it stays listed, marked collected once it is, and a run the
collect cannot reach (folder gone, configuration missing) is reported at every collect.

The list is one small JSON file (pipeline.runfolder.review_registry), rewritten atomically
under a lock, since a push and a collect may touch it at the same time.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline.config import Config
from pipeline.errors import ComlqError
from pipeline.orchestration import markers
from pipeline.runfolder import RunFolder, review_registry
from pipeline.schemas import read_json, write_json

PUSH_STAGE = "review-push"


@dataclass(frozen=True)
class ReviewRun:
    run: str  # absolute run folder
    config: str | None  # absolute configuration file, or None for the defaults
    registered: str
    collected: str | None = None

    def problem(self) -> str | None:
        """Why a collect cannot reach this run, or None."""
        if not RunFolder(self.run).items.is_file():
            return f"{self.run}: run folder not found (moved or deleted?)"
        if self.config and not Path(self.config).is_file():
            return f"{self.run}: its configuration file {self.config} is gone"
        return None


def collect_command(run_dir: str | Path, config: str | Path | None, verb: str = "collect") -> str:
    """The command that resumes a run waiting for review (`verb`: or another `comlq review` verb on it)."""
    return f"comlq review {verb} {run_dir}" + (f" --config {config}" if config else "")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@contextmanager
def _locked(path: Path) -> Iterator[list[ReviewRun]]:
    """The registry's runs, to read or change in place; written back when the block ends."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        runs = load(path)
        before = list(runs)
        yield runs
        if runs != before:
            write_json(path, {"runs": [asdict(r) for r in runs]})


def load(path: Path) -> list[ReviewRun]:
    if not path.is_file():
        return []
    data: Any = read_json(path)
    try:
        return [ReviewRun(**entry) for entry in data["runs"]]
    except (KeyError, TypeError) as exc:
        raise ComlqError(f"{path}: not a list of review runs ({exc}); fix or remove it") from None


def register(run_dir: str | Path, config: str | Path | None, registry: str | None = None) -> ReviewRun:
    """Record a pushed run (again: its collected mark is cleared, a new push needs new votes)
    with its configuration file (given, or $COMLQ_CONFIG, as load_config reads it)."""
    config = config or os.environ.get("COMLQ_CONFIG")
    entry = ReviewRun(str(Path(run_dir).absolute()), str(Path(config).absolute()) if config else None, _now())
    with _locked(review_registry(registry)) as runs:
        runs[:] = [r for r in runs if r.run != entry.run] + [entry]
    return entry


# [evaluate] settings that cannot change which passages a pool retriever ranks high
NOT_POOL_SETTINGS = ("retrievers", "split", "depth", "shuffle_corpus", "cache_dir")


def push_settings(config: Config) -> tuple[Any, ...]:
    """What a push's tasks depend on besides its input files: the review settings and, with pooled
    judging on, the [evaluate] settings its retrievers are built with (model, precision, ...)."""
    if config.review.pool_k <= 0 or not config.review.pool_retrievers:
        return (config.review,)
    return config.review, {k: v for k, v in asdict(config.evaluate).items() if k not in NOT_POOL_SETTINGS}


def push_key(run_dir: str | Path, config: Config, passages: str | Path | None = None) -> str:
    """The done-marker key of a push: its settings and the items and passages pushed (the run's
    passages, or the file `review push --passages` named)."""
    return markers.stage_key(RunFolder(run_dir), PUSH_STAGE, *push_settings(config),
                             instead={"passages": passages} if passages else None)


def record_push(run_dir: str | Path, config_file: str | Path | None, config: Config, counts: dict[str, Any],
                passages: str | Path | None = None) -> None:
    """After a push by hand (`comlq review push`): what the push-review flow leaves, so that
    `comlq review collect` and the scheduled collect take the run over."""
    markers.mark(run_dir, PUSH_STAGE, push_key(run_dir, config, passages), counts)
    register(run_dir, config_file, config.review.registry)


def mark_collected(run_dir: str | Path, registry: str | None = None) -> None:
    run = str(Path(run_dir).absolute())
    with _locked(review_registry(registry)) as runs:
        runs[:] = [ReviewRun(r.run, r.config, r.registered, r.collected or _now()) if r.run == run else r for r in runs]


def waiting(registry: str | None = None) -> list[ReviewRun]:
    """The recorded runs not collected yet."""
    return [r for r in load(review_registry(registry)) if r.collected is None]
