"""Majority vote, agreement, task data and result regions: no server needed."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from annotation.agreement import agreement
from annotation.client import labeling_config
from annotation.push import review_items, task_data
from annotation.results import read_vote, regions
from annotation.vote import decide, majority, majority_grade
from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError
from pipeline.passages import load_passages
from pipeline.records import ReviewVote
from pipeline.schemas import validate


@pytest.fixture()
def run(tmp_path, make_run):
    return make_run(tmp_path / "run")


def _reviewed(run, case):
    items, _ = review_items(run, ReviewConfig())
    votes = {item_id: [ReviewVote.from_dict({"item_id": item_id, **v}) for v in vs] for item_id, vs in case["votes"].items()}
    return [{"item": item, "review": decide(item, votes.get(item["id"], []), 3)} for item in items]


def test_vote_and_agreement_match_the_hand_computed_case(run, case, assert_matches_case):
    reviewed = _reviewed(run, case)
    for record in reviewed:
        validate(record, "reviewed_item")
    result = agreement(reviewed, 3)
    validate(result, "agreement")
    assert_matches_case(reviewed, result, case)


@pytest.mark.parametrize(("grades", "expected"), [
    ([2, 2, 1], (2, None)),
    ([0, 1, 2], (1, "three_way_split")),
    ([2, 0, 1], (1, "three_way_split")),
    ([0, 0, 2, 2], (0, "no_majority")),
    ([], (None, None)),
])
def test_majority_grade_takes_the_median_on_a_split(grades, expected):
    assert majority_grade(grades) == expected


def test_majority_needs_more_than_half():
    assert majority([True, False, True]) is True
    assert majority([True, False]) is None
    assert majority([]) is None


def test_a_tie_on_structure_rejects_with_a_flag(run):
    item = next(i for i in review_items(run, ReviewConfig())[0] if i["id"] == "r-1p-1")
    votes = [ReviewVote("r-1p-1", who, ok, None, {"p1": 2}) for who, ok in
             (("a", True), ("b", False), ("c", True), ("d", False))]
    review = decide(item, votes, 4)  # a tie needs an even number of annotators per item
    assert review["status"] == "rejected"
    assert review["structure_ok"] is None
    assert "tie:structure_ok" in review["flags"]
    assert review["reason"] == "no majority on structure"


def test_only_the_first_needed_votes_count_for_decision_and_agreement(run):
    item = next(i for i in review_items(run, ReviewConfig())[0] if i["id"] == "r-1p-1")
    # a 2-1 accept by the first three annotations, then a late fourth "no" (say, the admin's)
    votes = [ReviewVote("r-1p-1", who, ok, None, {"p1": grade}, annotation_id=annotation_id)
             for who, ok, grade, annotation_id in (("late", False, 0, 40), ("b", False, 2, 12),
                                                   ("a", True, 2, 11), ("c", True, 1, 13))]
    review = decide(item, votes, 3)
    assert (review["status"], review["structure_ok"], review["relevance"]) == ("accepted", True, {"p1": 2})
    assert review["flags"] == ["extra_votes"]
    assert len(review["votes"]) == 4  # every vote is kept in reviewed.jsonl
    result = agreement([{"item": item, "review": review}], 3)
    units = [d["votes"] for d in result["disagreements"]]
    assert units == [{"a": 1, "b": 0, "c": 1}, {"a": 2, "b": 2, "c": 1}]


def test_all_passages_graded_zero_rejects(run):
    item = next(i for i in review_items(run, ReviewConfig())[0] if i["id"] == "r-1p-1")
    votes = [ReviewVote("r-1p-1", who, True, None, {"p1": 0}) for who in "abc"]
    review = decide(item, votes, 3)
    assert (review["status"], review["reason"], review["qrels"]) == ("rejected", "no passage judged relevant", {})


def test_failed_checks_are_left_out_unless_configured(run):
    items, left_out = review_items(run, ReviewConfig())
    assert ("r-1p-bad" in {i["id"] for i in items}, left_out) == (False, 1)
    items, left_out = review_items(run, ReviewConfig(include_failed_checks=True))
    assert ("r-1p-bad" in {i["id"] for i in items}, left_out) == (True, 0)


def test_a_repeated_item_id_is_a_clear_error(run):
    lines = (run / "items.jsonl").read_text().splitlines()
    (run / "items.jsonl").write_text("\n".join([*lines, lines[0]]) + "\n")
    with pytest.raises(ComlqError, match=r"items.jsonl: item id 'r-1p-1' appears 2 times"):
        review_items(run, ReviewConfig())


def test_task_data_shows_the_evidence_question_only_for_multi_passage_items(run):
    passages = load_passages(run / "passages.jsonl")
    items = {i["id"]: i for i in review_items(run, ReviewConfig())[0]}
    single, triple = task_data(items["r-1p-1"], passages), task_data(items["r-3p-3"], passages)
    assert single["spread"] == [] and len(triple["spread"]) == 1
    assert [p["id"] for p in triple["passages"]] == ["p4", "p5", "p6"]
    assert triple["passages"][0]["text"].startswith("[1] Danube: ")
    assert single["item_id"] == "r-1p-1" and single["query_type"] == "1p (1 passage)"


def test_a_missing_passage_is_a_clear_error(run):
    passages = load_passages(run / "passages.jsonl")
    del passages["p5"]
    item = next(i for i in review_items(run, ReviewConfig())[0] if i["id"] == "r-3p-3")
    with pytest.raises(ComlqError, match="item r-3p-3: passage 'p5' is not in the passages file"):
        task_data(item, passages)


def test_result_regions_read_back_as_the_same_vote(run):
    passages = load_passages(run / "passages.jsonl")
    item = next(i for i in review_items(run, ReviewConfig())[0] if i["id"] == "r-2in-2")
    task = {"id": 7, "data": task_data(item, passages)}
    annotation = {"id": 70, "result": regions(task["data"], False, True, {"p2": 0, "p3": 2})}
    vote = read_vote(task, annotation, "x@example.org")
    assert vote == ReviewVote("r-2in-2", "x@example.org", False, True, {"p2": 0, "p3": 2}, 7, 70)


def test_labeling_config_names_the_controls_the_results_use():
    root = ET.fromstring(labeling_config())
    controls = {c.get("name"): c for c in root.iter("Choices")}
    assert set(controls) == {"structure", "evidence_{{idx}}", "relevance_{{idx}}"}
    assert [c.get("value") for c in controls["relevance_{{idx}}"]] == ["0", "1", "2"]
    assert all(c.get("required") == "true" for c in controls.values())
    repeaters = {r.get("on") for r in root.iter("Repeater")}
    assert repeaters == {"$spread", "$passages"}
