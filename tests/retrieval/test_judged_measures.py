"""Judged@10 and condensed nDCG'@10 (measures for incomplete judgements) against hand-computed
values, and against ir_measures (Judged@10, nDCG(judged_only=True)@10) where it is installed."""

from __future__ import annotations

import math

import pytest

from retrieval.metrics import CONDENSED, JUDGED, judged_share, mean, per_query, significance

# q1's qrels judge a (2), b (0), c (1); the run (trec_eval order: by score) holds unjudged x, y, z too:
#   rank  1  2  3  4  5  6  7  8  9  10  11
#         x  a  y  b  u1 u2 u3 u4 u5 u6  c
# q2: only z is retrieved, unjudged; its judged passage d is not retrieved. q3 is not answered.
QRELS = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"d": 1}, "q3": {"e": 2}}
RUN = {"q1": {"x": 0.99, "a": 0.9, "y": 0.8, "b": 0.7, **{f"u{i}": 0.6 - i / 100 for i in range(1, 7)}, "c": 0.1},
       "q2": {"z": 0.5}}
LOG2 = math.log2


def test_judged_at_10_is_the_labelled_share_of_the_top_10():
    values = per_query(RUN, QRELS)
    assert values["q1"][JUDGED] == pytest.approx(2 / 10)  # a and b (grade 0 counts as judged); c is at 11
    assert values["q2"][JUDGED] == 0.0
    assert values["q3"][JUDGED] == 0.0  # not answered
    assert judged_share(["a", "x"], {"a"}) == 0.5  # fewer than 10 retrieved: the share of those
    assert judged_share([], {"a"}) == 0.0


def test_condensed_ndcg_drops_unjudged_passages_then_cuts_at_10():
    values = per_query(RUN, QRELS)
    # plain: a (gain 2) at rank 2, c beyond 10; ideal a, c
    ideal = 2 / LOG2(2) + 1 / LOG2(3)
    assert values["q1"]["nDCG@10"] == pytest.approx((2 / LOG2(3)) / ideal)
    # condensed: the list is a, b, c: a at 1, b (0) at 2, c at 3
    assert values["q1"][CONDENSED] == pytest.approx((2 / LOG2(2) + 1 / LOG2(4)) / ideal)
    assert values["q1"][CONDENSED] == pytest.approx(0.950234, abs=1e-6)
    assert values["q2"][CONDENSED] == 0.0 and values["q3"][CONDENSED] == 0.0  # nothing judged retrieved
    overall = mean(values)
    assert overall[CONDENSED] == pytest.approx(values["q1"][CONDENSED] / 3)
    assert overall[JUDGED] == pytest.approx(0.2 / 3)


def test_a_retriever_finding_unjudged_passages_keeps_its_condensed_score():
    # the same judged order, unjudged passages on top: plain nDCG@10 falls, nDCG'@10 does not
    clean = {"q": {"a": 0.9, "c": 0.8}}
    crowded = {"q": {**{f"new{i}": 1.0 - i / 100 for i in range(9)}, "a": 0.5, "c": 0.4}}
    qrels = {"q": {"a": 2, "c": 1}}
    first, second = per_query(clean, qrels)["q"], per_query(crowded, qrels)["q"]
    assert first["nDCG@10"] == pytest.approx(1.0) and first[CONDENSED] == pytest.approx(1.0)
    assert second["nDCG@10"] < 0.3 and second[CONDENSED] == pytest.approx(1.0)
    assert (first[JUDGED], second[JUDGED]) == (1.0, 0.1)


def test_judgement_measures_are_not_tested_for_significance():
    values = {str(i): {"nDCG@10": 0.5 + i / 100, JUDGED: 1.0, CONDENSED: 0.3} for i in range(5)}
    assert set(significance(values, values)) == {"nDCG@10"}


def test_equal_to_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    values = per_query(RUN, QRELS)
    judged, condensed = ir_measures.parse_measure("Judged@10"), ir_measures.parse_measure("nDCG(judged_only=True)@10")
    found = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc([judged, condensed], QRELS, RUN)}
    for qid in RUN:  # ir_measures leaves out queries the run does not answer
        assert values[qid][JUDGED] == pytest.approx(found[(qid, str(judged))])
        assert values[qid][CONDENSED] == pytest.approx(found.get((qid, str(condensed)), 0.0))
