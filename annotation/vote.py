"""Majority vote over the annotators' judgements of one item, and the accept/reject decision.

Rules (docs/review.md states them for users):
- fewer votes than `needed` (3): pending, no decision;
- only the first `needed` votes count (counted_votes; agreement.py counts the same ones), so a
  late extra annotation cannot turn a 2-1 majority into a tie; the item is flagged `extra_votes`;
- yes/no/unsure questions: the answer more than half of the counted votes give ("unsure" counts
  as an answer, so yes-yes-unsure is yes and yes-no-unsure has no majority);
- passage grades: the strict majority; without one (a 0/1/2 three-way split) the median, flagged;
- accepted when a majority says the structure holds, the evidence is spread (where asked:
  annotation.tasks.asks_spread), the answers are correct and the item is not trivial, and a
  passage is relevant;
- "answers incomplete" keeps the item only when its pooled judgements repaired the qrels (an
  other-candidate passage got a majority grade of 1 or 2), else rejects it;
- the final qrels are the passages graded 1 or 2;
- a vote another account changed counts in its author's own earlier version, or not at all
  (annotation/pull.py); the item lists the edit and is flagged `edited_by_another_account`.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

from annotation.tasks import asks_spread
from pipeline.records import REVIEW_QUESTIONS, ReviewVote

EDITED = "edited_by_another_account"  # the flag of an item with a vote another account changed

# question -> (the answer an accepted item needs, reason when the majority says otherwise, reason without majority)
REQUIRED = {
    "structure_ok": ("yes", "structure inconsistent with the type", "no majority saying the structure holds"),
    "evidence_spread": ("yes", "evidence not spread over the passages", "no majority saying the evidence is spread"),
    "answers_correct": ("yes", "answers not correct", "no majority saying the answers are correct"),
    "trivial": ("no", "trivial or circular", "no majority saying the item is not trivial"),
}


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


def _as_bool(answer: str | None) -> bool | None:
    return None if answer in (None, "unsure") else answer == "yes"


def decide(item: dict[str, Any], votes: Sequence[ReviewVote], needed: int,
           candidates: Sequence[str] = (), edits: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The `review` block of a reviewed item (schemas/reviewed_item.schema.json); it lists every
    vote, but only counted_votes decide. `candidates`: the other-candidate passages the task
    showed (pooled judging), whose relevant ones repair an incomplete item's qrels. `edits`: votes
    another account changed (annotation.pull.task_votes), listed and flagged."""
    comments = [{"annotator": v.annotator, "comment": v.comment} for v in votes if v.comment]
    edited = [EDITED] if edits else []
    review: dict[str, Any] = {"status": "pending", "votes": [v.to_dict() for v in votes],
                              **{q: None for q in REVIEW_QUESTIONS}, "relevance": {}, "flags": edited, "qrels": {},
                              "reason": None, "candidates": list(candidates), "comments": comments}
    if edits:
        review["edits"] = list(edits)
    if len(votes) < needed:
        review["reason"] = f"{len(votes)} of {needed} votes"
        return review
    flags: list[str] = edited + (["extra_votes"] if len(votes) > needed else [])
    votes = counted_votes(votes, needed)
    asked = [q for q in REVIEW_QUESTIONS if q != "evidence_spread" or asks_spread(item)]
    answers = {}
    for question in asked:
        given = [a for a in (v.answer(question) for v in votes) if a is not None]
        answers[question] = majority(given)
        if given and answers[question] is None:
            flags.append(f"tie:{question}")
    passage_ids = list(dict.fromkeys(pid for v in votes for pid in v.relevance))
    relevance: dict[str, int] = {}
    for pid in passage_ids:
        grade, split = majority_grade([v.relevance[pid] for v in votes if pid in v.relevance])
        relevance[pid] = grade
        if split:
            flags.append(f"{split}:{pid}")
    qrels = {pid: grade for pid, grade in relevance.items() if grade > 0}
    flags += [f"excluded_relevant:{pid}" for pid in item["violating"] if qrels.get(pid)]
    reasons = []
    for question, (wanted, against, undecided) in REQUIRED.items():
        if question in asked and answers[question] != wanted:
            reasons.append(undecided if answers[question] in (None, "unsure") else against)
    if answers["answers_complete"] == "no":
        if any(qrels.get(pid) for pid in candidates):
            flags.append("incomplete_repaired")
        else:
            reasons.append("answers incomplete")
    if not qrels:
        reasons.append("no passage judged relevant")
    review.update({q: _as_bool(a) for q, a in answers.items()})
    review.update(status="rejected" if reasons else "accepted", relevance=relevance, flags=flags,
                  qrels={} if reasons else qrels, reason="; ".join(reasons) or None)
    return review
