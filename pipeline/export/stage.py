"""Export stage: a run folder -> EXPORT/ (DatasetDict, Parquet, BEIR folder, dataset card).

    EXPORT/dataset/          DatasetDict.save_to_disk, splits train/validation/test
    EXPORT/data/             <split>-00000-of-00001.parquet (the Hub's layout; `load_dataset(EXPORT)` reads it)
    EXPORT/beir/             corpus.jsonl, queries.jsonl, qrels/<split>.tsv, violations/<split>.tsv
    EXPORT/README.md         dataset card

EXPORT is built in a temporary sibling folder and renamed into place, so a failed or killed
export leaves the previous one untouched; one export at a time writes it (pipeline/runlock.py).
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.config import ExportConfig
from pipeline.errors import ComlqError
from pipeline.export.beir import corpus_ids, write_beir
from pipeline.export.card import CardFacts, render_card
from pipeline.export.inputs import read_run
from pipeline.export.rows import annotator_pseudonyms, export_row
from pipeline.export.split import SPLITS, SplitUnit, assign_splits, check_evaluated_split, leakage_groups, parse_ratios
from pipeline.passages import SAMPLE_PATH, load_passages
from pipeline.runfolder import ExportFolder, RunFolder
from pipeline.runlock import check_replaceable, staged_folder
from pipeline.schemas import validate

log = logging.getLogger(__name__)


@dataclass
class ExportResult:
    out: Path
    splits: dict[str, int] = field(default_factory=dict)  # split -> queries
    corpus: int = 0
    dropped_items: int = 0

    def describe(self) -> str:
        counts = ", ".join(f"{split} {n}" for split, n in self.splits.items())
        return (f"exported {sum(self.splits.values())} queries ({counts}) over {self.corpus} passages to {self.out}; "
                f"{self.dropped_items} left out (see README.md)")


def default_passages(run_dir: Path) -> Path:
    """The run's own passages.jsonl, else the shipped sample (the offline default)."""
    own = RunFolder(run_dir).passages
    return own if own.is_file() else SAMPLE_PATH


EXPORT_FOLDER = "an export folder"  # what --out may replace (only export entries in it), or empty


def _is_export(folder: Path) -> bool:
    return set(os.listdir(folder)) <= set(ExportFolder.ENTRIES)


def check_export_folder(out: Path) -> None:
    """An export replaces an earlier export, nothing else; its parent folder must be writable."""
    check_replaceable(out, _is_export, EXPORT_FOLDER)


def export(run_dir: str | Path, out: str | Path, config: ExportConfig,
           passages_path: str | Path | None = None) -> ExportResult:
    run_dir, out = Path(run_dir), Path(out)
    check_export_folder(out)  # before any work
    ratios = parse_ratios(config.ratios)
    if config.distractors < 0:
        raise ComlqError(f"distractors: {config.distractors} is negative")
    with staged_folder(out, _is_export, EXPORT_FOLDER) as staging:  # one export writes `out` at a time
        return _export(run_dir, ExportFolder(staging), config, ratios, passages_path, out)


def _export(run_dir: Path, staged: ExportFolder, config: ExportConfig, ratios: tuple[float, float, float],
            passages_path: str | Path | None, out: Path) -> ExportResult:
    run = read_run(run_dir)
    if not run.candidates:
        reasons = "; ".join(f"{stage}: {reason} ({n})" for (stage, reason), n in sorted(run.dropped.items()))
        raise ComlqError(f"{run_dir}: nothing to export, every item was left out ({reasons or 'no items'})")
    # the split first: one that leaves the test split empty is refused before any work
    units = [SplitUnit(c.item.id, c.item.type, c.item.n_passages,
                       frozenset(c.item.source_passages) | {p for p, grade in c.qrels.items() if grade > 0})
             for c in run.candidates]
    split_of = assign_splits(units, ratios, config.seed)
    untested = check_evaluated_split({s: Counter(u.type for u in units if split_of[u.id] == s) for s in SPLITS}, ratios)
    if untested:
        log.warning("not in the test split (their items share passages in groups too few or too large to reach it): %s",
                    ", ".join(untested))
    groups = leakage_groups(units)
    passages_path = Path(passages_path) if passages_path else default_passages(run_dir)
    pool = load_passages(passages_path)

    rows, needed = [], set()
    pseudonyms = annotator_pseudonyms(run.candidates)
    for candidate in sorted(run.candidates, key=lambda c: c.item.id):
        needed |= candidate.passages
        missing = sorted(candidate.passages - pool.keys())
        if missing:
            raise ComlqError(f"item {candidate.item.id}: passage {missing[0]!r} is not in {passages_path} "
                             f"(pass the run's passages with --passages)")
        row = export_row(candidate, pool, config.licence, pseudonyms)
        validate(row, "export_item", f"export row {row['id']}")
        rows.append(row)

    rows_by_split = {split: [r for r in rows if split_of[r["id"]] == split] for split in SPLITS}
    corpus = [pool[i] for i in corpus_ids(needed, pool, config.distractors, config.seed)]
    facts = CardFacts(title=f"comlq benchmark: {run_dir.resolve().name}", licence=config.licence, ratios=ratios,
                      seed=config.seed, groups=len(groups), largest_group=max(len(g) for g in groups),
                      corpus=corpus, pool_size=len(pool), distractors=len(corpus) - len(needed), untested=untested)

    from pipeline.export.hf import dataset_dict, write_hf  # datasets is slow to import

    write_beir(staged.beir, rows_by_split, corpus)
    write_hf(dataset_dict(rows_by_split), staged)
    staged.card.write_text(render_card(facts, run, rows_by_split), encoding="utf-8")
    return ExportResult(out, {s: len(r) for s, r in rows_by_split.items()}, len(corpus), run.dropped_items)
