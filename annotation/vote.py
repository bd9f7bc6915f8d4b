"""Majority vote over the annotators' judgements of one item, and the accept/reject decision.

Rules (docs/review.md states them for users):
- fewer votes than `needed` (3): pending, no decision;
- only the first `needed` votes count (counted_votes; agreement.py counts the same ones), so a
  late extra annotation cannot turn a 2-1 majority into a tie; the item is flagged `extra_votes`;
- yes/no questions: the strict majority; a tie (only possible with an even count) gives no answer;
- passage grades: the strict majority; without one (a 0/1/2 three-way split) the median, flagged;
- accepted when the structure is consistent and, for multi-passage items, the evidence is spread,
  and at least one passage is relevant; the final qrels are the passages graded 1 or 2.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

from pipeline.records import ReviewVote


def majority(values: Sequence[Any]) -> Any | None:
    """The value more than half of `values` agree on, else None."""
    if not values:
        return None
    value, count = Counter(values).most_common(1)[0]
    return value if count * 2 > len(values) else None


def majority_grade(grades: Sequence[int]) -> tuple[int | None, str | None]:
    """The majority grade, or the median with a flag naming the kind of split."""
    if not grades:
        return None, None
    grade = majority(grades)
    if grade is not None:
        return grade, None
    kind = "three_way_split" if len(set(grades)) == 3 else "no_majority"
    return statistics.median_low(grades), kind


def counted_votes(votes: Sequence[ReviewVote], needed: int) -> list[ReviewVote]:
    """The votes a decision counts: the first `needed` by annotation id (Label Studio numbers
    annotations in the order they are created; votes without an id keep their order, first)."""
    return sorted(votes, key=lambda v: v.annotation_id or 0)[:needed]


def decide(item: dict[str, Any], votes: Sequence[ReviewVote], needed: int) -> dict[str, Any]:
    """The `review` block of a reviewed item (schemas/reviewed_item.schema.json); it lists every
    vote, but only counted_votes decide."""
    review: dict[str, Any] = {"status": "pending", "votes": [v.to_dict() for v in votes], "structure_ok": None,
                              "evidence_spread": None, "relevance": {}, "flags": [], "qrels": {}, "reason": None}
    if len(votes) < needed:
        review["reason"] = f"{len(votes)} of {needed} votes"
        return review
    flags: list[str] = ["extra_votes"] if len(votes) > needed else []
    votes = counted_votes(votes, needed)
    multi = item["n_passages"] > 1
    structure = majority([v.structure_ok for v in votes if v.structure_ok is not None])
    if structure is None:
        flags.append("tie:structure_ok")
    spread = None
    if multi:
        spread = majority([v.evidence_spread for v in votes if v.evidence_spread is not None])
        if spread is None:
            flags.append("tie:evidence_spread")
    passage_ids = list(dict.fromkeys(pid for v in votes for pid in v.relevance))
    relevance: dict[str, int] = {}
    for pid in passage_ids:
        grade, split = majority_grade([v.relevance[pid] for v in votes if pid in v.relevance])
        relevance[pid] = grade
        if split:
            flags.append(f"{split}:{pid}")
    reasons = []
    if structure is not True:
        reasons.append("structure inconsistent with the type" if structure is False else "no majority on structure")
    if multi and spread is not True:
        reasons.append("evidence not spread over the passages" if spread is False else "no majority on evidence spread")
    qrels = {pid: grade for pid, grade in relevance.items() if grade > 0}
    if not qrels:
        reasons.append("no passage judged relevant")
    review.update(status="rejected" if reasons else "accepted", structure_ok=structure, evidence_spread=spread,
                  relevance=relevance, flags=flags, qrels={} if reasons else qrels,
                  reason="; ".join(reasons) or None)
    return review
