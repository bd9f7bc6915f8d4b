"""The judged sample of what BM25 ranks above ComLQ's gold passages (benchmarks/comlq_distractors.py):
complete, one note per judgement, no ComLQ text kept, and the counts docs/results.md reports."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).parents[2]
SHEET = ROOT / "benchmarks" / "judged" / "comlq_negation_distractors.jsonl"


def test_the_judged_distractors_are_complete_and_in_the_results():
    rows = [json.loads(line) for line in SHEET.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 79 and len({r["query_id"] for r in rows}) == 40
    for row in rows:
        assert isinstance(row["meets_positive"], bool) and isinstance(row["answers_question"], bool)
        assert row["meets_negation"] in ("meets", "violates", "silent")
        assert row["entity_real"] in ("real", "invented", "unclear")
        assert row["same_as_reference"] in (True, False, "partly")
        assert row["note"] and len(row["note"]) < 450 and "text" not in row  # notes, not ComLQ's passages
        assert 1 <= row["bm25_rank"] <= 10
    answering = [r for r in rows if r["answers_question"]]
    counts = {
        "state an entity meeting every positive condition": sum(r["meets_positive"] for r in rows),
        "say the negated condition does not hold for it (meet the NOT)":
            sum(r["meets_negation"] == "meets" for r in rows),
        "break the NOT (a violating passage)": sum(r["meets_negation"] == "violates" for r in rows),
        "**answer the question as written**, for a reader who trusts the passage": len(answering),
        "of those, at BM25 rank 1 or 2": sum(r["bm25_rank"] <= 2 for r in answering),
    }
    results = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    for what, count in counts.items():
        value = f"**{count}**" if what.startswith("**") else str(count)
        assert f"| {what} | {value} |" in results, what
