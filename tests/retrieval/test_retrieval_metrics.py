import math

import numpy as np
import pytest

from retrieval.base import Query, cut, ranked, read_trec, top_k, write_trec
from retrieval.metrics import breakdown, conjunctive, lsnc, lsoc, mean, not_applicable, per_query, significance

# q1: d1 (grade 2) and d2 (grade 1) relevant, tied at 0.8; trec_eval puts d2 first (id descending),
# so the ranking is d4, d2, d1, d3.
QRELS = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d5": 1}, "q3": {"d11": 1}}
RUN = {
    "q1": {"d4": 0.9, "d1": 0.8, "d2": 0.8, "d3": 0.1},
    "q3": {f"d{i:02d}": 1.0 - i / 100 for i in range(1, 11)} | {"d11": 0.5},  # relevant at rank 11
}  # q2 is not answered at all


def test_trec_eval_order_is_score_then_id_descending():
    assert [pid for pid, _ in ranked(RUN["q1"])] == ["d4", "d2", "d1", "d3"]
    assert list(cut(RUN, 2)["q1"]) == ["d4", "d2"]


def test_top_k_keeps_ties_in_trec_eval_order():
    ids = ["a", "b", "c", "d", "e"]
    scores = np.array([0.5, 0.9, 0.5, 0.1, 0.5])
    assert list(top_k(ids, scores, 2)) == ["b", "e"]  # a, c, e tie at 0.5: e is first
    assert top_k(ids, np.array([0.2, 0.7]), 5, rows=np.array([3, 0])) == {"a": 0.7, "d": 0.2}
    assert top_k(ids, np.array([0.5, 0.5]), 1, rows=np.array([4, 1])) == {"e": 0.5}  # ties by id, not row


@pytest.mark.parametrize("seed", range(5))
def test_top_k_equals_a_full_sort_when_most_scores_tie(seed):
    rng = np.random.default_rng(seed)
    ids = [f"p{i}" for i in rng.permutation(300)]  # ids out of row order
    scores = np.where(rng.random(300) < 0.1, rng.integers(1, 4, 300), 0).astype(float)  # BM25-like: mostly 0
    for k in (1, 5, 30, 100, 299, 300, 400):
        assert list(top_k(ids, scores, k).items()) == ranked(dict(zip(ids, scores.tolist())))[:k]


def test_measures_equal_hand_computed_values():
    values = per_query(RUN, QRELS)
    dcg = 1 / math.log2(3) + 2 / math.log2(4)  # d2 (gain 1) at rank 2, d1 (gain 2) at rank 3
    ideal = 2 / math.log2(2) + 1 / math.log2(3)
    assert values["q1"]["nDCG@10"] == pytest.approx(dcg / ideal)
    assert values["q1"]["MAP@100"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert values["q1"]["Recall@100"] == pytest.approx(1.0)
    assert values["q1"]["MRR@10"] == pytest.approx(1 / 2)
    assert values["q2"] == {"nDCG@10": 0.0, "MAP@100": 0.0, "Recall@100": 0.0, "MRR@10": 0.0, "nDCG'@10": 0.0,
                            "Judged@10": 0.0}
    assert values["q3"]["MRR@10"] == 0.0  # rank 11 is outside the cut at 10
    assert values["q3"]["MAP@100"] == pytest.approx(1 / 11)
    assert values["q3"]["nDCG@10"] == 0.0
    overall = mean(values)
    assert overall["nDCG@10"] == pytest.approx(dcg / ideal / 3)  # unanswered q2 counts 0
    assert overall["queries"] == 3
    assert "LSNC@10" not in overall  # no violation labels


@pytest.mark.parametrize("violating, expected", [
    (0, 1.0),
    (10, 0.0),
    (3, math.log(11 / 4) / math.log(11)),  # -log((3+1)/11) / log(11) = 0.42187...
])
def test_lsnc_at_10(violating, expected):
    ranking = [f"v{i}" for i in range(violating)] + [f"d{i}" for i in range(20)]
    violators = {f"v{i}" for i in range(violating)}
    assert lsnc(ranking, violators, 10) == pytest.approx(expected)


def test_lsnc_counts_only_the_top_k_in_trec_eval_order():
    # three passages tied at 0.5: the violator 'a' comes last by id, outside the top 2
    run = {"q": {"a": 0.5, "b": 0.5, "c": 0.5}}
    values = per_query(run, {"q": {"b": 1}}, [Query("q", "x", negations=1)], {"q": {"a"}})
    assert values["q"]["LSNC@10"] == pytest.approx(-math.log(2 / 11) / math.log(11))
    assert lsnc([pid for pid, _ in ranked(run["q"])], {"a"}, 2) == 1.0
    assert values["q"]["LSNC@100"] == pytest.approx(-math.log(2 / 101) / math.log(101))


def test_lsnc_only_for_negated_queries():
    queries = [Query("q1", "x", negations=1), Query("q2", "y", negations=0), Query("q3", "z", negations=0)]
    values = per_query(RUN, QRELS, queries, {"q1": {"d4"}})
    assert values["q1"]["LSNC@10"] == pytest.approx(-math.log(2 / 11) / math.log(11))
    assert "LSNC@10" not in values["q2"]
    assert mean(values)["LSNC@10"] == values["q1"]["LSNC@10"]


# LSAC@K: the LSNC form over passages that satisfy only part of a conjunction.
# q: "A" AND "B"; the ranking (trec_eval order) is g1 a1 b1 g2 a2 x1..x20; a*, b* are partial.
CONJ_RUN = {"q": {"g1": 0.99, "a1": 0.98, "b1": 0.97, "g2": 0.96, "a2": 0.95}
                 | {f"x{i:02d}": 0.5 - i / 100 for i in range(20)}}
CONJ = [Query("q", "A and B?", logical_form='"A" AND "B"')]


def test_lsac_by_hand():
    values = per_query(CONJ_RUN, {"q": {"g1": 1, "g2": 1}}, CONJ, partial={"q": {"a1", "b1", "a2"}})
    # top 10 holds a1, b1, a2: -log((3 + 1)/(10 + 1)) / log(11) = log(11/4)/log(11) = 0.42187
    assert values["q"]["LSAC@10"] == pytest.approx(math.log(11 / 4) / math.log(11))
    assert values["q"]["LSAC@10"] == pytest.approx(0.421870, abs=1e-6)
    # top 100 holds the same 3 of 100: log(101/4)/log(101) = 0.69962
    assert values["q"]["LSAC@100"] == pytest.approx(0.699619, abs=1e-6)
    assert "LSNC@10" not in values["q"] and "LSOC@10" not in values["q"]
    top3 = per_query({"q": {"a1": 0.9, "b1": 0.8, "a2": 0.7}}, {"q": {"g1": 1}}, CONJ,
                     partial={"q": {"a1", "b1", "a2"}})
    # fewer than K retrieved: still 3 of K
    assert top3["q"]["LSAC@10"] == pytest.approx(math.log(11 / 4) / math.log(11))


def test_lsac_concerns_conjunctive_queries_only():
    queries = [*CONJ, Query("u", "A or B?", logical_form='"A" OR "B"'), Query("t", "x", type="3i"),
               Query("p", "x", type="2u"), Query("n", "x", type="2in")]
    assert [conjunctive(q) for q in queries] == [True, False, True, False, True]
    qrels = {q.id: {"g1": 1} for q in queries}
    run = {q.id: CONJ_RUN["q"] for q in queries}
    values = per_query(run, qrels, queries, partial={"q": {"a1"}})
    assert "LSAC@10" in values["q"] and "LSAC@10" not in values["u"] and "LSAC@10" not in values["p"]
    # conjunctions of types (3i, 2in) none of whose queries has a partial label: 1.0 by construction, so none
    assert "LSAC@10" not in values["t"] and "LSAC@10" not in values["n"]
    assert not_applicable(queries, None, {"q": {"a1"}}) == {"LSAC": ["3i", "2in"]}
    assert "LSAC@10" not in per_query(run, qrels, queries)["q"]  # no partial labels at all


def test_a_type_with_one_labelled_query_keeps_the_measure_for_all_its_queries():
    """Whether a measure applies is decided per type: a 2i query without a partial passage of its own
    still has LSAC when another 2i query has one (it could have ranked a partial passage high)."""
    queries = [Query("a", "x", type="2i"), Query("b", "y", type="2i"), Query("c", "z", type="2in", negations=1)]
    qrels = {q.id: {"g1": 1} for q in queries}
    run = {q.id: CONJ_RUN["q"] for q in queries}
    values = per_query(run, qrels, queries, violations={"c": set()}, partial={"a": {"a1"}, "b": set()})
    assert values["b"]["LSAC@10"] == 1.0 and values["a"]["LSAC@10"] < 1.0
    assert "LSNC@10" not in values["c"] and not_applicable(queries, {"c": set()}, {"a": {"a1"}}) == {
        "LSNC": ["2in"], "LSAC": ["2in"]}
    assert mean(values)["LSAC@10"] == pytest.approx((1.0 + values["a"]["LSAC@10"]) / 2)  # 2in left out


# the top 10 of CONJ_RUN: g1 a1 b1 g2 a2 x00..x04; x15, x16, x17, x18 only in the top 100
@pytest.mark.parametrize("branches, k, expected", [
    ({"1": {"g1"}, "2": {"g2"}}, 10, 1.0),  # both branches' passages in the top 10
    ({"1": {"g1"}, "2": {"x15"}}, 10, math.log(3 / 2) / math.log(3)),  # 1 of 2 uncovered: 0.36907
    ({"1": {"x15"}, "2": {"x16"}}, 10, 0.0),  # none covered
    ({"1": {"x15"}, "2": {"x16"}}, 100, 1.0),
    # one of a branch's passages is enough (several answers): 1 of 3 uncovered, 0.5
    ({"1": {"g1", "x15", "x16"}, "2": {"x17", "x18"}, "3": {"a2"}}, 10, math.log(4 / 2) / math.log(4)),
    # a1 is needed by both branches (a shared projection step): it covers neither
    ({"1": {"x15", "a1"}, "2": {"x16", "a1"}}, 10, 0.0),
    ({"1": {"x15", "a1"}, "2": {"x16", "a1"}}, 100, 1.0),
    # one passage states both branches (2u_1): it covers both
    ({"1": {"g1"}, "2": {"g1"}}, 10, 1.0),
    ({"1": {"x15"}, "2": {"x15"}}, 10, 0.0),
])
def test_lsoc_by_hand(branches, k, expected):
    ranking = [pid for pid, _ in ranked(CONJ_RUN["q"])]
    assert lsoc(ranking, branches, k) == pytest.approx(expected)
    values = per_query(CONJ_RUN, {"q": {"g1": 1}}, None, branches={"q": branches})
    assert values["q"][f"LSOC@{k}"] == pytest.approx(expected)


def test_consistency_means_are_per_labelled_query():
    queries = [Query("q1", "x", logical_form='"A" AND "B"'), Query("q2", "y", logical_form='"A" OR "B"')]
    run = {"q1": {"a": 0.9, "g": 0.8}, "q2": {"g": 0.9, "h": 0.8}}
    values = per_query(run, {"q1": {"g": 1}, "q2": {"g": 1}}, queries, partial={"q1": {"a"}},
                       branches={"q2": {"1": {"g"}, "2": {"z"}}})
    overall = mean(values)
    assert overall["LSAC@10"] == pytest.approx(math.log(11 / 2) / math.log(11))  # q1 only
    assert overall["LSOC@10"] == pytest.approx(math.log(3 / 2) / math.log(3))  # q2 only
    by_type = breakdown(values, [Query("q1", "x", type="2i"), Query("q2", "y", type="2u")], lambda q: q.type)
    assert "LSOC@10" not in by_type["2i"] and "LSAC@10" not in by_type["2u"]


def test_breakdown_by_type_and_negations():
    values = {"a": {"nDCG@10": 1.0}, "b": {"nDCG@10": 0.0}, "c": {"nDCG@10": 0.5}}
    queries = [Query("a", "", type="2in", negations=1), Query("b", "", type="2in", negations=1),
               Query("c", "", type="1p", negations=0)]
    by_type = breakdown(values, queries, lambda q: q.type)
    assert by_type["2in"]["nDCG@10"] == 0.5 and by_type["2in"]["queries"] == 2
    assert list(by_type) == ["1p", "2in"]  # the catalogue's order
    assert list(breakdown(values, queries, lambda q: q.negations)) == ["0", "1"]


def test_significance_paired():
    ours = {str(i): {"nDCG@10": 0.5 + i / 100} for i in range(10)}
    base = {str(i): {"nDCG@10": 0.5} for i in range(10)}
    result = significance(ours, base, ["nDCG@10"])["nDCG@10"]
    assert result["n"] == 10
    assert result["mean_diff"] == pytest.approx(0.045)
    assert result["t_p"] < 0.01 and result["wilcoxon_p"] < 0.01
    same = significance(base, base, ["nDCG@10"])["nDCG@10"]
    assert same["t_p"] is None and same["wilcoxon_p"] is None


def test_trec_file_round_trip_keeps_scores_exactly(tmp_path):
    path = write_trec(RUN, tmp_path / "run.trec", "test")
    assert read_trec(path) == RUN
    first = path.read_text().splitlines()[0].split()
    assert first[:4] == ["q1", "Q0", "d4", "1"] and first[5] == "test"
