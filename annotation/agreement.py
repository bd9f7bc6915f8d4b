"""Inter-annotator agreement: Fleiss' kappa (statsmodels) and Krippendorff's alpha (krippendorff).

A unit is one judgement several annotators made: an item's answer to one yes/no/unsure question
(evidence spread: only where asked, annotation.tasks.asks_spread) or one passage's grade. Only
items with all their votes count (pending items are left out); each unit keeps the votes the
decision counted (the first `needed`, vote.counted_votes), so Fleiss' kappa sees a constant number
of raters. The questions are nominal data with three categories (yes 1, no 0, unsure 2: "unsure"
is an answer, not a missing one); grades 0/1/2 are ordinal for alpha. A statistic that is
undefined (every rating the same, or no units) is null.

The disagreement list holds every unit the annotators did not answer alike, every unit with an
"unsure" in it, and every comment. `edits` lists every vote another account changed, pending
items' too (annotation/pull.py). `pool` counts what pooled judging found: the other-candidate
passages judged, those judged relevant (passages the generator had missed) and the items whose
qrels they repaired, overall and per query type.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import krippendorff
import numpy as np
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from annotation.tasks import asks_spread
from annotation.vote import counted_votes
from pipeline.records import REVIEW_QUESTIONS, ReviewVote

QUESTIONS = {**{q: "nominal" for q in REVIEW_QUESTIONS}, "relevance": "ordinal"}
CODES = {"no": 0, "yes": 1, "unsure": 2}


@dataclass
class Units:
    """The ratings of one question: per unit, annotator -> value (0/1 for yes/no, or the grade)."""

    ratings: list[dict[str, int]] = field(default_factory=list)

    def fleiss(self, raters: int) -> float | None:
        rows = [list(unit.values())[:raters] for unit in self.ratings if len(unit) >= raters]
        if not rows:
            return None
        table, _ = aggregate_raters(np.array(rows))
        with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            kappa = float(fleiss_kappa(table, method="fleiss"))
        return None if np.isnan(kappa) else round(kappa, 6)

    def alpha(self, level: str) -> float | None:
        rows = {a: row for row, a in enumerate(sorted({a for unit in self.ratings for a in unit}))}
        data = np.full((len(rows), len(self.ratings)), np.nan)  # annotators x units, nan = not rated
        for col, unit in enumerate(self.ratings):
            for annotator, value in unit.items():
                data[rows[annotator], col] = value
        try:
            value = float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
        except ValueError:  # fewer than two distinct values, or no unit with two ratings
            return None
        return None if np.isnan(value) else round(value, 6)

    def summary(self, raters: int, level: str) -> dict[str, Any]:
        return {"units": len(self.ratings), "fleiss_kappa": self.fleiss(raters),
                "krippendorff_alpha": self.alpha(level)}


def _units(votes: list[ReviewVote], question: str, passage_ids: list[str]) -> list[tuple[str | None, dict[str, int]]]:
    if question == "relevance":
        return [(pid, {v.annotator: v.relevance[pid] for v in votes if pid in v.relevance}) for pid in passage_ids]
    return [(None, {v.annotator: CODES[v.answer(question)] for v in votes if v.answer(question) is not None})]


def _pool_counts(records: list[dict[str, Any]]) -> dict[str, int]:
    """Other-candidate passages judged, judged relevant, and items whose qrels they repaired."""
    judged = [(pid, r["review"]["relevance"].get(pid)) for r in records for pid in r["review"].get("candidates", [])
              if pid in r["review"]["relevance"]]
    return {"judged": len(judged), "relevant": sum(1 for _, grade in judged if grade),
            "items_repaired": sum("incomplete_repaired" in r["review"]["flags"] for r in records)}


def agreement(reviewed: list[dict[str, Any]], needed: int) -> dict[str, Any]:
    """agreement.json: statistics overall and per query type, disagreements, and pooled judging."""
    overall = {q: Units() for q in QUESTIONS}
    by_type: dict[str, dict[str, Units]] = defaultdict(lambda: {q: Units() for q in QUESTIONS})
    disagreements = []
    complete: list[dict[str, Any]] = []
    edits = [{"item_id": r["item"]["id"], "type": r["item"]["type"], **edit}
             for r in reviewed for edit in r["review"].get("edits", [])]
    for record in reviewed:
        item, review = record["item"], record["review"]
        if review["status"] == "pending":
            continue
        complete.append(record)
        votes = counted_votes([ReviewVote.from_dict(v) for v in review["votes"]], needed)
        for question in QUESTIONS:
            if question == "evidence_spread" and not asks_spread(item):
                continue
            for passage_id, unit in _units(votes, question, list(review["relevance"])):
                if len(unit) < 2:
                    continue
                overall[question].ratings.append(unit)
                by_type[item["type"]][question].ratings.append(unit)
                if len(set(unit.values())) > 1 or (question != "relevance" and CODES["unsure"] in unit.values()):
                    disagreements.append({"item_id": item["id"], "type": item["type"], "question": question,
                                          "passage_id": passage_id, "votes": unit})
        for entry in review.get("comments", []):
            disagreements.append({"item_id": item["id"], "type": item["type"], "question": "comment",
                                  "passage_id": None, "votes": {}, "comment": entry["comment"],
                                  "annotator": entry["annotator"]})
    types = sorted({r["item"]["type"] for r in complete})
    return {
        "annotators_per_item": needed,
        "items": {"total": len(reviewed), "complete": len(complete), "pending": len(reviewed) - len(complete)},
        "overall": {q: units.summary(needed, QUESTIONS[q]) for q, units in overall.items()},
        "by_type": {t: {q: units.summary(needed, QUESTIONS[q]) for q, units in questions.items()}
                    for t, questions in sorted(by_type.items())},
        "disagreements": disagreements,
        "edits": edits,
        "pool": {"overall": _pool_counts(complete),
                 "by_type": {t: _pool_counts([r for r in complete if r["item"]["type"] == t]) for t in types}},
    }
