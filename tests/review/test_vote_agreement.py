"""Majority vote, agreement, task data and result regions: no server needed."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from annotation.agreement import agreement
from annotation.client import instructions, labeling_config
from annotation.push import Pool, layout_prediction, review_items
from annotation.results import read_vote, regions
from annotation.tasks import Span, highlight, task_data
from annotation.vote import decide, majority, majority_grade
from pipeline.config import Config, ReviewConfig
from pipeline.errors import ComlqError
from pipeline.passages import load_passages
from pipeline.records import ReviewVote
from pipeline.schemas import validate


@pytest.fixture()
def run(tmp_path, make_run):
    return make_run(tmp_path / "run")


@pytest.fixture()
def items(run):
    return {i["id"]: i for i in review_items(run, ReviewConfig())[0]}


@pytest.fixture()
def passages(run):
    return load_passages(run / "passages.jsonl")


def vote(who: str, relevance: dict[str, int], item: str = "r-1p-1", annotation_id: int | None = None,
         **answers: str) -> ReviewVote:
    """A complete vote: every question 'yes' (trivial 'no') unless `answers` says otherwise."""
    given = {"structure_ok": "yes", "answers_correct": "yes", "answers_complete": "yes", "trivial": "no"} | answers
    flags = {q: None if a == "unsure" else a == "yes" for q, a in given.items()}
    return ReviewVote(item, who, flags["structure_ok"], flags.get("evidence_spread"), relevance,
                      annotation_id=annotation_id, answers_correct=flags["answers_correct"],
                      answers_complete=flags["answers_complete"], trivial=flags["trivial"],
                      unsure=tuple(q for q, a in given.items() if a == "unsure"))


def _reviewed(run, case):
    items, _ = review_items(run, ReviewConfig())
    votes = {item_id: [ReviewVote.from_dict({"item_id": item_id, **v}) for v in vs]
             for item_id, vs in case["votes"].items()}
    return [{"item": item, "review": decide(item, votes.get(item["id"], []), 3, case["pool"].get(item["id"], []))}
            for item in items]


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


def test_a_tie_on_structure_rejects_with_a_flag(items):
    votes = [vote(who, {"p1": 2}, structure_ok=ok)
             for who, ok in (("a", "yes"), ("b", "no"), ("c", "yes"), ("d", "no"))]
    review = decide(items["r-1p-1"], votes, 4)  # a tie needs an even number of annotators per item
    assert (review["status"], review["structure_ok"], review["reason"]) == \
        ("rejected", None, "no majority saying the structure holds")
    assert "tie:structure_ok" in review["flags"]


@pytest.mark.parametrize(("answers", "status", "reason"), [
    ({}, "accepted", None),
    ({"answers_correct": ["no", "no", "yes"]}, "rejected", "answers not correct"),
    ({"answers_correct": ["yes", "unsure", "unsure"]}, "rejected", "no majority saying the answers are correct"),
    ({"answers_correct": ["yes", "yes", "unsure"]}, "accepted", None),  # unsure counts, and 2 of 3 still say yes
    ({"answers_correct": ["yes", "no", "unsure"]}, "rejected", "no majority saying the answers are correct"),
    ({"trivial": ["yes", "yes", "no"]}, "rejected", "trivial or circular"),
    ({"structure_ok": ["no", "no", "no"], "trivial": ["yes", "yes", "yes"]}, "rejected",
     "structure inconsistent with the type; trivial or circular"),
    ({"answers_complete": ["no", "no", "yes"]}, "rejected", "answers incomplete"),  # nothing pooled repaired it
    ({"answers_complete": ["unsure", "unsure", "yes"]}, "accepted", None),  # only a "no" majority counts
])
def test_the_decision_uses_every_question(items, answers, status, reason):
    votes = [vote(who, {"p1": 2}, **{q: a[n] for q, a in answers.items()}) for n, who in enumerate("abc")]
    review = decide(items["r-1p-1"], votes, 3)
    assert (review["status"], review["reason"]) == (status, reason)
    assert review["qrels"] == ({"p1": 2} if status == "accepted" else {})


def test_answers_incomplete_are_kept_only_when_a_pooled_passage_repaired_the_qrels(items):
    item = items["r-2in-1"]
    grades = {"p3": 2, "p2": 0, "p10": 2, "p11": 0}
    incomplete = [vote(who, grades, item="r-2in-1", answers_complete="no") for who in "abc"]
    repaired = decide(item, incomplete, 3, ["p10", "p11"])
    assert (repaired["status"], repaired["qrels"]) == ("accepted", {"p3": 2, "p10": 2})
    assert "incomplete_repaired" in repaired["flags"]
    irrelevant = [vote(who, grades | {"p10": 0}, item="r-2in-1", answers_complete="no") for who in "abc"]
    assert decide(item, irrelevant, 3, ["p10", "p11"])["reason"] == "answers incomplete"


def test_a_passage_excluded_by_not_judged_relevant_is_flagged(items):
    votes = [vote(who, {"p3": 2, "p2": 1}, item="r-2in-1") for who in "abc"]
    review = decide(items["r-2in-1"], votes, 3)
    assert "excluded_relevant:p2" in review["flags"] and review["qrels"] == {"p3": 2, "p2": 1}


def test_only_the_first_needed_votes_count_for_decision_and_agreement(items):
    item = items["r-1p-1"]
    # a 2-1 accept by the first three annotations, then a late fourth "no" (say, the admin's)
    votes = [vote(who, {"p1": grade}, annotation_id=annotation_id, structure_ok=ok)
             for who, ok, grade, annotation_id in (("late", "no", 0, 40), ("b", "no", 2, 12),
                                                   ("a", "yes", 2, 11), ("c", "yes", 1, 13))]
    review = decide(item, votes, 3)
    assert (review["status"], review["structure_ok"], review["relevance"]) == ("accepted", True, {"p1": 2})
    assert review["flags"] == ["extra_votes"]
    assert len(review["votes"]) == 4  # every vote is kept in reviewed.jsonl
    result = agreement([{"item": item, "review": review}], 3)
    units = [d["votes"] for d in result["disagreements"]]
    assert units == [{"a": 1, "b": 0, "c": 1}, {"a": 2, "b": 2, "c": 1}]


def test_all_passages_graded_zero_rejects(items):
    review = decide(items["r-1p-1"], [vote(who, {"p1": 0}) for who in "abc"], 3)
    assert (review["status"], review["reason"], review["qrels"]) == ("rejected", "no passage judged relevant", {})


def test_unsure_votes_and_comments_reach_the_disagreement_list(items):
    votes = [vote(who, {"p1": 2}, trivial="unsure") for who in "abc"]  # unanimous, but unsure
    votes[0] = ReviewVote.from_dict(votes[0].to_dict() | {"comment": "is 'born' a relation?"})
    review = decide(items["r-1p-1"], votes, 3)
    assert review["comments"] == [{"annotator": "a", "comment": "is 'born' a relation?"}]
    listed = agreement([{"item": items["r-1p-1"], "review": review}], 3)["disagreements"]
    assert [(d["question"], d["votes"]) for d in listed] == [("trivial", {"a": 2, "b": 2, "c": 2}), ("comment", {})]
    assert listed[1]["comment"] == "is 'born' a relation?" and listed[1]["annotator"] == "a"


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


# ---------------------------------------------------------------- what a task shows


def _text(markup: str) -> str:
    """The text a browser shows for `markup` (what Label Studio's global offsets count)."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def test_passages_come_in_groups_with_headings_the_regions_cover(items, passages):
    data = task_data(items["r-2in-1"], passages, ["p10", "p3", "p11"], ("bm25", "dense"))
    assert [(p["group"], p["label"], p["id"]) for p in data["passages"]] == [
        ("evidence", "E1", "p3"), ("excluded", "X1", "p2"), ("candidate", "C1", "p10"), ("candidate", "C2", "p11")]
    text = _text(data["html"])
    for passage in data["passages"]:
        start, end = data["offsets"][passage["region"]]
        assert text[start:end] == f"[{passage['label']}] {passages[passage['id']].title}"
    assert "Evidence for the answers (1)" in text and "Other candidates (2)" in text
    assert ('Excluded by NOT (1)1 passage about entities that meet the other conditions but also '
            '"writers of War and Peace"') in text
    assert "retrieved by bm25, dense" in text
    assert data["query_type"] == "2in: evidence in 1 passage" and data["spread"] == []


def test_evidence_spread_is_asked_only_where_an_answer_rests_on_several_passages(items, passages):
    # a 1p item with two answers in two passages: each passage holds all of its answer's facts
    one_hop = items["r-1p-1"] | {"n_passages": 2, "answers": ["Warsaw", "Paris"],
                                 "evidence": [{"passage_id": "p1", "grade": 1}, {"passage_id": "p2", "grade": 1}]}
    assert task_data(one_hop, passages)["spread"] == []
    assert task_data(items["r-2u-2"], passages)["spread"] == []  # a union's answer meets either branch
    assert len(task_data(items["r-2i-2"], passages)["spread"]) == 1  # an intersection needs both facts
    # a spread answer left on an older task is not counted where the question is no longer asked
    votes = [vote(who, {"p1": 2, "p2": 0}, evidence_spread="no") for who in "abc"]
    review = decide(one_hop, votes, 3)
    assert (review["status"], review["evidence_spread"]) == ("accepted", None)
    assert agreement([{"item": one_hop, "review": review}], 3)["overall"]["evidence_spread"]["units"] == 0


def test_offsets_count_code_points_past_characters_outside_the_bmp(items, passages):
    data = task_data(items["r-3p-3"], passages)  # the Danube passage holds a character outside the BMP
    text = _text(data["html"])
    start, end = data["offsets"]["passage-E2"]
    assert "𝔇" in text[:start] and text[start:end] == "[E2] Vienna"
    assert len(data["spread"]) == 1


def test_fact_sentences_answers_and_anchors_are_marked(items, passages):
    data = task_data(items["r-1p-1"], passages)
    assert '<mark class="comlq-fact"><span class="comlq-anchor">Marie Curie</span> was born in ' \
           '<span class="comlq-answer">Warsaw</span>, then part of the Russian Empire.</mark>' in data["html"]
    assert data["facts"] == "Marie Curie born_in Warsaw" and data["anchors"] == "Marie Curie"


def test_an_item_without_facts_shows_its_passages_unmarked_but_names_still_marked(items, passages):
    data = task_data(items["r-2i-2"], passages)  # an LLM item: no facts
    assert "<mark" not in data["html"] and data["facts"] == "(not recorded)"
    assert '<span class="comlq-answer">Johann Sebastian Bach</span>' in data["html"]
    assert '<span class="comlq-anchor">Bonn</span>' in data["html"]


def test_highlight_escapes_text_and_nests_names_inside_sentences():
    text = "A <b> & C. Paris is in France."
    marked = highlight(text, [Span(11, 30, "fact"), Span(11, 16, "answer"), Span(0, 1, "anchor"),
                              Span(8, 13, "anchor")])  # crosses the sentence's edge: dropped
    assert marked == ('<span class="comlq-anchor">A</span> &lt;b&gt; &amp; C. <mark class="comlq-fact">'
                      '<span class="comlq-answer">Paris</span> is in France.</mark>')
    assert _text(marked) == text


def test_a_missing_passage_is_a_clear_error(items, passages):
    del passages["p5"]
    with pytest.raises(ComlqError, match="item r-3p-3: passage 'p5' is not in the passages file"):
        task_data(items["r-3p-3"], passages)


def test_result_regions_read_back_as_the_same_vote(items, passages):
    task = {"id": 7, "data": task_data(items["r-2in-1"], passages, ["p10"])}
    given = ReviewVote("r-2in-1", "x@example.org", False, None, {"p3": 2, "p10": 1}, 7, 70, None,
                       answers_correct=None, answers_complete=False, trivial=False, unsure=("answers_correct",),
                       comment="Turgenev is missing", ungraded=("p2",))
    read = read_vote(task, {"id": 70, "result": regions(task["data"], given)}, "x@example.org")
    assert read == given
    validate(read.to_dict(), "review_vote")


def test_the_layout_prediction_has_an_ungraded_region_per_passage(items, passages):
    item = items["r-3p-3"]
    data = task_data(item, passages)
    prediction = layout_prediction(item, data, check=True)
    grades = [r for r in prediction["result"] if r["from_name"] == "grade"]
    assert [r["id"] for r in grades] == ["passage-E1", "passage-E2", "passage-E3"]
    assert {r["value"]["hypertextlabels"][0] for r in grades} == {"?"}
    assert prediction["result"][-1]["value"] == {"choices": ["yes"]}  # the automatic check, when asked for
    assert len(layout_prediction(item, data, check=False)["result"]) == 3


def test_the_labeling_config_asks_every_question_with_distinct_hotkeys():
    root = ET.fromstring(labeling_config())
    controls = {c.get("name"): c for c in root.iter("Choices")}
    assert set(controls) == {"structure", "evidence_{{idx}}", "answers_correct", "answers_complete", "trivial"}
    for control in controls.values():
        assert [c.get("value") for c in control] == ["yes", "no", "unsure"] and control.get("required") == "true"
    (grade,) = root.iter("HyperTextLabels")
    hotkeys = {label.get("value"): label.get("hotkey") for label in grade}
    assert hotkeys == {"?": "shift+/", "0": "0", "1": "1", "2": "2"}
    keys = Counter(e.get("hotkey") for e in root.iter() if e.get("hotkey"))
    assert max(keys.values()) == 1  # one key, one answer
    assert not {"u", "h"} & set(keys)  # Label Studio's own keys (unselect region, ...)
    assert [t.get("name") for t in root.iter("TextArea")] == ["comment"]
    assert {r.get("on") for r in root.iter("Repeater")} == {"$spread"}
    # the instructions name the same keys
    text = instructions()
    for keys_of_question in ("q w e", "a s d", "z x c", "i o p", "j k l", "0 / 1 / 2", "Alt+."):
        assert keys_of_question in text


def test_pooled_candidates_come_from_two_retrievers_and_skip_evidence_and_violating(run, items, passages):
    from pipeline.orchestration.pool import pooled_candidates

    config = Config()
    config.review.pool_k = 2
    pool = pooled_candidates(list(items.values()), passages, config)
    assert pool.retrievers == ("bm25", "dense")
    for item_id, candidates in pool.candidates.items():
        item = items[item_id]
        assert 2 <= len(candidates) <= 4 and len(set(candidates)) == len(candidates)
        assert not set(candidates) & ({e["passage_id"] for e in item["evidence"]} | set(item["violating"]))
    assert "p10" in pool.candidates["r-2in-1"]  # the other Russian novelist: the missing answer
    config.review.pool_retrievers = ("bm25",)
    with pytest.raises(ComlqError, match="pooling needs two or more retrievers"):
        pooled_candidates(list(items.values()), passages, config)
    config.review.pool_k = 0
    assert pooled_candidates(list(items.values()), passages, config) == Pool({})


# The new questions and the pooled grades against statistics worked out by hand. Three annotators
# A, B, C; four one-passage items (no evidence-spread question); each has an evidence passage eN
# and one pooled candidate cN. Codes: no 0, yes 1, unsure 2 (annotation/agreement.py CODES).
#
#          answers_correct   answers_complete   trivial      grades eN   grades cN
#   i1     yes yes yes       yes yes yes        no no no     2 2 2       0 0 1
#   i2     yes no  yes       no  no  yes        no yes no    2 1 2       2 2 1
#   i3     no  no  unsure    yes unsure yes     yes yes yes  1 1 1       0 0 0
#   i4     yes yes unsure    no  no  no         no no no     2 2 2       1 2 0
#
# Fleiss' kappa (n = 3 raters, N units): P_i = (sum_j n_ij^2 - 3) / 6, P = mean P_i,
# p_j = category share of all ratings, Pe = sum_j p_j^2, kappa = (P - Pe) / (1 - Pe).
# Krippendorff's alpha with three values per unit: every ordered pair of values within a unit
# weighs 1/(3-1); alpha = 1 - (n-1) * sum_{c!=k} o_ck d_ck / sum_{c!=k} n_c n_k d_ck, n = values.
#
# answers_correct: counts (no, yes, unsure) i1 (0,3,0) i2 (1,2,0) i3 (2,0,1) i4 (0,2,1)
#   P_i = 1, 1/3, 1/3, 1/3 -> P = 2/4 = 0.5; totals 3, 7, 2 of 12 -> Pe = (9+49+4)/144 = 62/144
#   kappa = (72-62)/144 / (82/144) = 10/82
#   alpha (nominal, d = 1 when c != k): disagreeing ordered pairs 0+4+4+4 = 12, weighed 1/2 -> 6;
#   sum n_c n_k = 144 - 62 = 82 -> alpha = 1 - 11*6/82 = 16/82
# answers_complete: i1 (0,3,0) i2 (2,1,0) i3 (0,2,1) i4 (3,0,0)
#   P = (1 + 1/3 + 1/3 + 1)/4 = 2/3; totals 5, 6, 1 -> Pe = (25+36+1)/144 = 62/144
#   kappa = (96-62)/144 / (82/144) = 34/82; pairs 0+4+4+0 -> 4 -> alpha = 1 - 11*4/82 = 38/82
# trivial: i1 (3,0,0) i2 (2,1,0) i3 (0,3,0) i4 (3,0,0)
#   P = (3 + 1/3)/4 = 5/6; totals 8, 4, 0 -> Pe = (64+16)/144 = 80/144
#   kappa = (120-80)/144 / (64/144) = 40/64; pairs 4 -> 2 -> alpha = 1 - 11*2/64 = 42/64
# relevance (8 passages, 24 grades; alpha ordinal): counts (0, 1, 2) e1 (0,0,3) c1 (2,1,0)
#   e2 (0,1,2) c2 (0,1,2) e3 (0,3,0) c3 (3,0,0) e4 (0,0,3) c4 (1,1,1)
#   P_i = 1, 1/3, 1/3, 1/3, 1, 1, 1, 0 -> P = 5/8; totals 6, 7, 11 -> Pe = (36+49+121)/576 = 206/576
#   kappa = (360-206)/576 / (370/576) = 154/370
#   ordinal d_ck = (sum_{g=c..k} n_g - (n_c+n_k)/2)^2: d01 = 6.5^2 = 42.25, d12 = 9^2 = 81,
#   d02 = (24 - 8.5)^2 = 240.25
#   o01 = o10 = 1 (c1) + 1/2 (c4) = 1.5; o12 = o21 = 1 (e2) + 1 (c2) + 1/2 (c4) = 2.5; o02 = o20 = 0.5 (c4)
#   sum o d = 2 * (1.5*42.25 + 2.5*81 + 0.5*240.25) = 772
#   sum n_c n_k d = 2 * (6*7*42.25 + 7*11*81 + 6*11*240.25) = 47736
#   alpha = 1 - 23*772/47736 = 29980/47736
# structure_ok: yes everywhere -> both undefined (null).
# Majorities: answers_correct yes, yes, no (2 of 3), yes; answers_complete yes, no, yes, no;
#   trivial no, no, yes, no; grades e 2, 2, 1, 2; c 0, 2, 0, and c4 a 0/1/2 split -> median 1.
# Decisions: i1 accepted; i2 incomplete but c2 relevant -> accepted, incomplete_repaired;
#   i3 rejected (answers not correct; trivial); i4 incomplete, c4 graded 1 -> accepted, repaired.
# Pool: 4 candidates judged, 2 relevant (c2, c4), 2 items repaired.
HAND_TABLE = {  # item -> per annotator (answers_correct, answers_complete, trivial, grade eN, grade cN)
    "i1": [("yes", "yes", "no", 2, 0), ("yes", "yes", "no", 2, 0), ("yes", "yes", "no", 2, 1)],
    "i2": [("yes", "no", "no", 2, 2), ("no", "no", "yes", 1, 2), ("yes", "yes", "no", 2, 1)],
    "i3": [("no", "yes", "yes", 1, 0), ("no", "unsure", "yes", 1, 0), ("unsure", "yes", "yes", 1, 0)],
    "i4": [("yes", "no", "no", 2, 1), ("yes", "no", "no", 2, 2), ("unsure", "no", "no", 2, 0)],
}
HAND_STATS = {
    "answers_correct": (10 / 82, 16 / 82),
    "answers_complete": (34 / 82, 38 / 82),
    "trivial": (40 / 64, 42 / 64),
    "relevance": (154 / 370, 29980 / 47736),
    "structure_ok": (None, None),
}


def test_agreement_on_the_new_questions_and_pooled_grades_matches_a_hand_computation():
    reviewed = []
    for item_id, rows in HAND_TABLE.items():
        n = item_id[1:]
        item = {"id": item_id, "type": "2in", "n_passages": 1, "violating": [], "evidence": [{"passage_id": f"e{n}"}]}
        votes = [vote(who, {f"e{n}": e, f"c{n}": c}, item_id, answers_correct=correct, answers_complete=complete,
                      trivial=trivial)
                 for who, (correct, complete, trivial, e, c) in zip("ABC", rows)]
        reviewed.append({"item": item, "review": decide(item, votes, 3, [f"c{n}"])})
    result = agreement(reviewed, 3)
    for scope in (result["overall"], result["by_type"]["2in"]):
        for question, (kappa, alpha) in HAND_STATS.items():
            got = scope[question]
            assert got["units"] == (8 if question == "relevance" else 4)
            assert got["fleiss_kappa"] == (None if kappa is None else pytest.approx(kappa, abs=1e-6)), question
            assert got["krippendorff_alpha"] == (None if alpha is None else pytest.approx(alpha, abs=1e-6)), question
    decided = {r["item"]["id"]: r["review"] for r in reviewed}
    assert {i: (r["answers_correct"], r["answers_complete"], r["trivial"]) for i, r in decided.items()} == {
        "i1": (True, True, False), "i2": (True, False, False), "i3": (False, True, True), "i4": (True, False, False)}
    assert {i: r["relevance"] for i, r in decided.items()} == {
        "i1": {"e1": 2, "c1": 0}, "i2": {"e2": 2, "c2": 2}, "i3": {"e3": 1, "c3": 0}, "i4": {"e4": 2, "c4": 1}}
    assert {i: r["status"] for i, r in decided.items()} == {
        "i1": "accepted", "i2": "accepted", "i3": "rejected", "i4": "accepted"}
    assert decided["i3"]["reason"] == "answers not correct; trivial or circular"
    assert decided["i4"]["flags"] == ["three_way_split:c4", "incomplete_repaired"]
    assert decided["i2"]["qrels"] == {"e2": 2, "c2": 2} and decided["i4"]["qrels"] == {"e4": 2, "c4": 1}
    assert result["pool"]["overall"] == {"judged": 4, "relevant": 2, "items_repaired": 2}
    assert sorted((d["item_id"], d["question"], d["passage_id"] or "") for d in result["disagreements"]) == sorted([
        ("i2", "answers_correct", ""), ("i3", "answers_correct", ""), ("i4", "answers_correct", ""),
        ("i2", "answers_complete", ""), ("i3", "answers_complete", ""), ("i2", "trivial", ""),
        ("i1", "relevance", "c1"), ("i2", "relevance", "e2"), ("i2", "relevance", "c2"), ("i4", "relevance", "c4")])


def test_the_generator_s_possible_missed_answers_come_first_in_the_pool(items, passages):
    """A kg item kept for review with possible missed answers (`[generate] completeness = "review"`) shows
    them to the annotators before the retrievers' pool, also with pooling off; unknown ids are left out."""
    from pipeline.orchestration.pool import pooled_candidates

    item = dict(items["r-2in-1"], possible_missed=["p10", "nowhere"])
    config = Config()
    config.review.pool_k = 0
    assert pooled_candidates([item], passages, config) == Pool({"r-2in-1": ["p10"]})
    config.review.pool_k = 2
    pool = pooled_candidates([item], passages, config)
    assert pool.candidates["r-2in-1"][0] == "p10" and len(pool.candidates["r-2in-1"]) == len(
        set(pool.candidates["r-2in-1"]))
