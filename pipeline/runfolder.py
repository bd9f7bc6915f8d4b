"""The run folder's floor plan: every path of a run, what each stage reads and writes, and
where runs are found. No other module spells a run path; stages meet only through this one.

    RUN/
      passages.jsonl  items.jsonl  rejected.jsonl  stats.json  ledger.json (llm)
      chunks/TYPES/   one generation chunk's files, when generation runs in several chunks
      review/         push_log.jsonl, reviewed.jsonl, agreement.json
                      (runs waiting for review are also listed in review_registry(), outside the run)
      export/         dataset/ (DatasetDict), data/SPLIT-00000-of-00001.parquet, beir/, README.md (card)
      models/         reranker/ (a CrossEncoder trained on the export, with train.jsonl, comlq.json, README.md)
      report/         metrics.json, per_query.json, report.md, runs/NAME.trec, *.png
      cache/          llm/ (LLM call cache), prefect/ (persisted task results)
      .comlq/         STAGE.json done-markers, run.lock (held by the run working here)
      .prefect/       the temporary Prefect API's home

`ExportFolder`, `BeirFolder` and `ReportFolder` are also used on their own: `comlq export --out`
and `comlq evaluate --beir/--out` take any folder, laid out the same way.
"""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

MARKER_DIR = ".comlq"
# What a run folder shows its user, in the order the stages write it (RunFolder path names).
OUTPUTS = ("passages", "items", "rejected", "stats", "ledger", "review", "export", "models", "report")
HOME_ENV = "COMLQ_HOME"  # comlq's own state outside run folders (default ~/.comlq)


@dataclass(frozen=True)
class Folder:
    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root))  # a str is welcome


@dataclass(frozen=True)
class BeirFolder(Folder):
    """A BEIR data folder (corpus, queries, graded qrels) plus the project's logic labels:
    violations (passages that break a query's negation), partial (passages that satisfy only part
    of a conjunction) and branches (the passages each branch of a union needs)."""

    # the header line of each TSV file (BEIR's for the qrels), written by the export, checked by the reader
    QRELS_HEADER = ("query-id", "corpus-id", "score")
    VIOLATIONS_HEADER = ("query-id", "corpus-id", "violates")
    PARTIAL_HEADER = ("query-id", "corpus-id", "partial")
    BRANCHES_HEADER = ("query-id", "corpus-id", "branch")

    @property
    def corpus(self) -> Path:
        return self.root / "corpus.jsonl"

    @property
    def queries(self) -> Path:
        return self.root / "queries.jsonl"

    @property
    def qrels_dir(self) -> Path:
        return self.root / "qrels"

    def qrels(self, split: str, variant: str | None = None) -> Path:
        """The split's qrels; a variant (e.g. "audited", written by an audit) sits beside them."""
        return self.qrels_dir / (f"{split}.{variant}.tsv" if variant else f"{split}.tsv")

    def violations(self, split: str) -> Path:
        return self.root / "violations" / f"{split}.tsv"

    def partial(self, split: str) -> Path:
        """AND consistency: passages meeting only part of a query's conjunction."""
        return self.root / "partial" / f"{split}.tsv"

    def branches(self, split: str) -> Path:
        """OR consistency: the passages each branch of a query's union needs."""
        return self.root / "branches" / f"{split}.tsv"

    def splits(self) -> list[str]:
        """The splits that have qrels (a variant such as dev.audited.tsv is not a split of its own)."""
        return sorted(p.stem for p in self.qrels_dir.glob("*.tsv") if "." not in p.stem)

    def audit(self, split: str) -> AuditFolder:
        """What an audit of the split's qrels by pooled judging keeps (`comlq review push --beir`)."""
        return AuditFolder(self.root / "audit" / split)

    # what an audit's --out folder links to in the audited folder, besides the qrels
    def linked(self, split: str) -> list[Path]:
        return [self.corpus, self.queries, self.qrels(split), self.violations(split), self.partial(split),
                self.branches(split)]


@dataclass(frozen=True)
class AuditFolder(Folder):
    """One split's audit: what was pushed, and what the votes decided (the audited qrels themselves
    are BeirFolder.qrels(split, "audited"))."""

    @property
    def push(self) -> Path:
        return self.root / "push.json"  # the sample, the pool, the settings and the Label Studio project

    @property
    def result(self) -> Path:
        return self.root / "audit.json"  # figures per query type, agreement, disputed passages

    @property
    def markdown(self) -> Path:
        return self.root / "audit.md"


@dataclass(frozen=True)
class ExportFolder(Folder):
    ENTRIES = ("dataset", "data", "beir", "README.md")  # what an export writes, and all it may replace

    @property
    def dataset(self) -> Path:
        return self.root / "dataset"

    @property
    def data(self) -> Path:
        return self.root / "data"

    def parquet(self, split: str) -> Path:
        return self.data / f"{split}-00000-of-00001.parquet"  # the Hub's layout: load_dataset(EXPORT) reads it

    @property
    def beir(self) -> BeirFolder:
        return BeirFolder(self.root / "beir")

    @property
    def card(self) -> Path:
        return self.root / "README.md"


@dataclass(frozen=True)
class ModelFolder(Folder):
    """A model trained here: the model's own files (sentence-transformers layout) plus what it
    was trained on and how (`comlq train`)."""

    @property
    def info(self) -> Path:
        return self.root / "comlq.json"  # settings, counts, validation results, export digest

    @property
    def training_data(self) -> Path:
        return self.root / "train.jsonl"

    @property
    def card(self) -> Path:
        return self.root / "README.md"

    def read_info(self) -> dict:
        return json.loads(self.info.read_text(encoding="utf-8")) if self.info.is_file() else {}


@dataclass(frozen=True)
class ModelsFolder(Folder):
    @property
    def reranker(self) -> ModelFolder:
        return ModelFolder(self.root / "reranker")


@dataclass(frozen=True)
class ReportFolder(Folder):
    @property
    def metrics(self) -> Path:
        return self.root / "metrics.json"

    @property
    def per_query(self) -> Path:
        return self.root / "per_query.json"

    @property
    def markdown(self) -> Path:
        return self.root / "report.md"

    def trec(self, name: str) -> Path:
        return self.root / "runs" / f"{name}.trec"

    @property
    def shuffled_ids(self) -> Path:
        """opaque id -> original passage id, written when the corpus was shuffled (--shuffle-corpus)."""
        return self.root / "shuffled_ids.tsv"

    def plot(self, name: str) -> Path:
        return self.root / f"{name}.png"


@dataclass(frozen=True)
class ReviewFolder(Folder):
    @property
    def push_log(self) -> Path:
        return self.root / "push_log.jsonl"

    @property
    def reviewed(self) -> Path:
        return self.root / "reviewed.jsonl"

    @property
    def agreement(self) -> Path:
        return self.root / "agreement.json"


@dataclass(frozen=True)
class RunFolder(Folder):
    # the line's files, in the order the stages write them
    @property
    def passages(self) -> Path:
        return self.root / "passages.jsonl"

    @property
    def items(self) -> Path:
        return self.root / "items.jsonl"

    @property
    def rejected(self) -> Path:
        return self.root / "rejected.jsonl"

    @property
    def stats(self) -> Path:
        return self.root / "stats.json"

    @property
    def ledger(self) -> Path:
        return self.root / "ledger.json"

    @property
    def review(self) -> ReviewFolder:
        return ReviewFolder(self.root / "review")

    @property
    def export(self) -> ExportFolder:
        return ExportFolder(self.root / "export")

    @property
    def models(self) -> ModelsFolder:
        return ModelsFolder(self.root / "models")

    @property
    def report(self) -> ReportFolder:
        return ReportFolder(self.root / "report")

    # working files
    def chunk(self, types: Iterable[str]) -> RunFolder:
        """The folder one generation chunk writes its files to."""
        return RunFolder(self.root / "chunks" / "-".join(types))

    @property
    def llm_cache(self) -> Path:
        return self.root / "cache" / "llm"

    @property
    def prefect_results(self) -> Path:
        return self.root / "cache" / "prefect"

    @property
    def prefect_home(self) -> Path:
        return self.root / ".prefect"

    def marker(self, stage: str) -> Path:
        return self.root / MARKER_DIR / f"{stage}.json"

    @property
    def lock(self) -> Path:
        """Held by the `comlq run` working in this folder (pipeline/runlock.py)."""
        return self.root / MARKER_DIR / "run.lock"

    def paths(self, names: Iterable[str]) -> list[Path]:
        """The paths named by a stage's `reads` or `writes` (see STAGES)."""
        return [_resolve(self, name) for name in names]


def _resolve(run: RunFolder, name: str) -> Path:
    value: object = run
    for part in name.split("."):
        value = getattr(value, part)
    return value.root if isinstance(value, Folder) else value


@dataclass(frozen=True)
class Stage:
    """What a stage reads and writes, as RunFolder path names ("review.reviewed", "export.beir").

    The flows key a stage's done-marker on the contents of what it reads, and count it done
    only while what it writes exists.
    """

    name: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]


STAGES = {stage.name: stage for stage in (
    Stage("passages", reads=(), writes=("passages",)),
    Stage("generate", reads=("passages",), writes=("items", "rejected", "stats")),
    Stage("review-push", reads=("items", "passages"), writes=()),  # what it writes lives on the server
    Stage("review", reads=(), writes=("review.reviewed", "review.agreement")),
    # everything the dataset card reads
    Stage("export", reads=("items", "passages", "stats", "rejected", "review.reviewed", "review.agreement"),
          writes=("export.beir",)),
    Stage("train", reads=("export.beir", "export.data"), writes=("models.reranker.info",)),
    Stage("evaluate", reads=("export.beir",), writes=("report.metrics",)),
)}


def output_lock(folder: str | Path) -> Path:
    """The lock of an output folder that is replaced whole (`evaluate`/`export`/`train --out`):
    a hidden sibling, as anything inside goes with the folder (pipeline/runlock.py)."""
    folder = Path(folder)
    return folder.parent / f".{folder.name}.lock"


STAGING = ("tmp", "old")  # an output folder being written, and the earlier one set aside meanwhile


def staging_folder(folder: str | Path, kind: str, pid: int) -> Path:
    """A temporary sibling of an output folder replaced whole: `.NAME.tmp-PID`, in which process
    `pid` writes it, or `.NAME.old-PID`, where its earlier version waits to be removed."""
    folder = Path(folder)
    return folder.parent / f".{folder.name}.{kind}-{pid}"


def staging_folders(folder: str | Path) -> list[Path]:
    """The staging folders of `folder` that exist (after a kill -9 they are left over)."""
    folder = Path(folder)
    return sorted(p for kind in STAGING for p in folder.parent.glob(f".{glob.escape(folder.name)}.{kind}-*")
                  if p.is_dir())


# ---------------------------------------------------------------------------- finding runs


def runs_under(root: str | Path) -> Iterator[RunFolder]:
    """The run folders directly under `root` (any folder; the stages' markers tell what they hold)."""
    for path in sorted(Path(root).glob("*")):
        if path.is_dir():
            yield RunFolder(path)


def review_registry(configured: str | None = None) -> Path:
    """The list of runs waiting for review (`run --review` adds to it, the scheduled collect
    reads it): review.registry when set, else $COMLQ_HOME/review-runs.json (~/.comlq/...)."""
    if configured:
        return Path(configured).expanduser().absolute()
    return Path(os.environ.get(HOME_ENV) or Path.home() / ".comlq").expanduser().absolute() / "review-runs.json"


def latest_export(root: str | Path) -> RunFolder | None:
    """The run under `root` whose export was written last, if any."""
    exported = [run for run in runs_under(root) if run.export.beir.root.is_dir()]
    return max(exported, key=lambda run: run.export.beir.root.stat().st_mtime, default=None)


def latest_model(root: str | Path, kind: str = "reranker") -> Path | None:
    """The newest finished model of `kind` trained by a run under `root` (its comlq.json is written last)."""
    trained = [getattr(run.models, kind) for run in runs_under(root)]
    finished = [model.info for model in trained if model.info.is_file()]
    newest = max(finished, key=lambda info: info.stat().st_mtime, default=None)
    return newest.parent if newest else None
