"""Shared by the review tests: the fixture run folder and the hand-computed case."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def load_case() -> dict[str, Any]:
    return json.loads((FIXTURES / "review_case.json").read_text(encoding="utf-8"))


def make_run(path: Path) -> Path:
    """A run folder holding the fixture items (one with a failed check) and their passages."""
    path.mkdir(parents=True, exist_ok=True)
    for name in ("items.jsonl", "passages.jsonl"):
        shutil.copy(FIXTURES / name, path / name)
    return path


def assert_matches_case(reviewed: list[dict[str, Any]], agreement: dict[str, Any], case: dict[str, Any]) -> None:
    """reviewed.jsonl records and agreement.json against the hand-computed expectations."""
    by_id = {r["item"]["id"]: r["review"] for r in reviewed}
    assert set(by_id) == set(case["expected_review"])
    for item_id, expected in case["expected_review"].items():
        review = by_id[item_id]
        assert {k: review[k] for k in expected} == expected, item_id
        votes = {v["annotator"]: v for v in review["votes"]}
        wanted = {v["annotator"]: v for v in case["votes"][item_id]}
        assert set(votes) == set(wanted), item_id
        for who, vote in wanted.items():
            assert {k: votes[who][k] for k in vote} == vote, (item_id, who)

    expected = case["expected_agreement"]
    assert agreement["items"] == expected["items"]
    for scope, got in (("overall", agreement["overall"]), *((t, agreement["by_type"][t]) for t in expected["by_type"])):
        want = expected["overall"] if scope == "overall" else expected["by_type"][scope]
        for question, stats in want.items():
            for key, value in stats.items():
                actual = got[question][key]
                assert actual == (value if value is None else pytest.approx(value, abs=1e-6)), (scope, question, key)
    assert set(agreement["by_type"]) == set(expected["by_type"])
    assert sorted([d["item_id"], d["question"], d["passage_id"]] for d in agreement["disagreements"]) == \
        sorted(expected["disagreements"])
