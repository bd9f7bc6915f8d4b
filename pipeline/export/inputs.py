"""What an export reads from a run folder: the items it may export and those it leaves out.

With `review/reviewed.jsonl` (pulled from Label Studio) only accepted items are exported and
the review's final qrels are their graded relevance. Without it (the offline line) items that
passed the automatic check are exported with their evidence grades. Every other item is
counted under (stage, reason), so the dataset card can say what was dropped and why.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any, TypeVar

from pipeline.errors import ComlqError
from pipeline.records import Item
from pipeline.runfolder import RunFolder
from pipeline.schemas import read_json, read_jsonl

Reason = tuple[str, str]  # (stage, reason), e.g. ("check", "answer_not_in_passage")


@dataclass(frozen=True)
class Candidate:
    item: Item
    qrels: dict[str, int]  # final graded relevance: passage id -> 0/1/2
    review: dict[str, Any] | None = None  # the review block of schemas/reviewed_item, None when not reviewed

    @property
    def passages(self) -> set[str]:
        """Every passage the item points to; all of them go into the BEIR corpus."""
        item = self.item
        return (set(item.source_passages) | {e.passage_id for e in item.evidence} | set(self.qrels)
                | set(item.violating))


@dataclass
class RunInput:
    candidates: list[Candidate]
    dropped: Counter[Reason] = field(default_factory=Counter)  # items left out, per reason
    dropped_items: int = 0
    generation_failures: Counter[str] = field(default_factory=Counter)  # rejected.jsonl: attempts per reason
    stats: dict[str, Any] = field(default_factory=dict)  # stats.json of the generation stage
    agreement: dict[str, Any] | None = None  # review/agreement.json (schemas/agreement)
    reviewed: bool = False


def read_run(folder: str | Path) -> RunInput:
    run_folder = RunFolder(folder)
    path = run_folder.items
    items = _by_id(path, ((r["id"], Item.from_dict(r)) for r in read_jsonl(path, "item")))
    path = run_folder.review.reviewed
    if path.is_file():
        reviewed = _by_id(path, ((r["item"]["id"], (Item.from_dict(r["item"]), r["review"]))
                                 for r in read_jsonl(path, "reviewed_item")))
        run = _from_review(items, reviewed)
    else:
        run = _from_check(list(items.values()))
    if run_folder.rejected.is_file():
        for record in read_jsonl(run_folder.rejected, "rejected"):  # a record may stand for many attempts
            run.generation_failures[record["reason"]] += record.get("attempts") or 1
    if run_folder.stats.is_file():
        run.stats = read_json(run_folder.stats)
    if run_folder.review.agreement.is_file():
        run.agreement = read_json(run_folder.review.agreement, "agreement")
    return run


T = TypeVar("T")


def _by_id(path: Path, records: Iterable[tuple[str, T]]) -> dict[str, T]:
    by_id: dict[str, T] = {}
    for item_id, record in records:
        if item_id in by_id:
            raise ComlqError(f"{path}: duplicate item id {item_id!r}")
        by_id[item_id] = record
    return by_id


def _failed_check(run: RunInput, item: Item) -> None:
    _drop(run, [("check", r) for r in item.check.reasons] or [("check", "failed")])


def _from_check(items: list[Item]) -> RunInput:
    run = RunInput([])
    for item in items:
        if item.check.ok:
            run.candidates.append(Candidate(item, {e.passage_id: e.grade for e in item.evidence}))
        else:
            _failed_check(run, item)
    return run


def _from_review(items: dict[str, Item], reviewed: dict[str, tuple[Item, dict[str, Any]]]) -> RunInput:
    run = RunInput([], reviewed=True)
    for item, review in reviewed.values():
        status = review["status"]
        if status == "rejected":
            reasons = (review.get("reason") or "no reason given").split("; ")  # the pull joins reasons with '; '
            _drop(run, [("review", f"rejected: {reason}") for reason in reasons])
        elif status == "pending":
            _drop(run, [("review", "pending")])
        elif not any(grade > 0 for grade in review["qrels"].values()):
            _drop(run, [("review", "accepted without a relevant passage")])
        else:
            run.candidates.append(Candidate(item, dict(review["qrels"]), review))
    for item in items.values():  # generated but never sent to review
        if item.id in reviewed:
            continue
        if item.check.ok:
            _drop(run, [("review", "not reviewed")])
        else:
            _failed_check(run, item)
    return run


def _drop(run: RunInput, reasons: list[Reason]) -> None:
    run.dropped.update(reasons)
    run.dropped_items += 1


def pairwise_agreement(votes: list[dict[str, Any]]) -> float | None:
    """Share of agreeing annotator pairs over an item's judgements (structure, spread, each grade)."""
    units: list[list[Any]] = [[v[key] for v in votes if v.get(key) is not None]
                              for key in ("structure_ok", "evidence_spread")]
    passages = sorted({p for v in votes for p in v["relevance"]})
    units += [[v["relevance"][p] for v in votes if p in v["relevance"]] for p in passages]
    pairs = [(a == b) for unit in units for a, b in combinations(unit, 2)]
    return sum(pairs) / len(pairs) if pairs else None
