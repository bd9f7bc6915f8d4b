"""The report tells the truth: bootstrap intervals and Holm-corrected p-values equal hand-computed
values, LSNC@K is defined, the models are named, and the plots have titles, error bars and no
line joining categories."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from retrieval.base import Query
from retrieval.metrics import bootstrap_ci, confidence, holm
from retrieval.report import markdown, plot_groups


def test_bootstrap_interval_of_constant_values_is_the_value() -> None:
    assert bootstrap_ci([0.3] * 5) == pytest.approx([0.3, 0.3])
    assert bootstrap_ci([0.7]) is None  # one query: no interval


def test_bootstrap_interval_of_two_values_spans_both() -> None:
    # resampled means of [0, 1] are 0, 0.5, 1 with chances 1/4, 1/2, 1/4: the 2.5% and 97.5%
    # quantiles are 0 and 1
    assert bootstrap_ci([0.0, 1.0]) == [0.0, 1.0]


def test_bootstrap_interval_matches_the_normal_approximation() -> None:
    # 400 queries, 100 of them 1: mean 0.25, standard error sqrt(0.25 * 0.75 / 400) = 0.02165,
    # so 0.25 -+ 1.96 * 0.02165 = [0.2076, 0.2924]
    values = [1.0] * 100 + [0.0] * 300
    low, high = bootstrap_ci(values)
    assert low == pytest.approx(0.2076, abs=0.006) and high == pytest.approx(0.2924, abs=0.006)
    assert bootstrap_ci(values) == [low, high]  # seeded
    assert bootstrap_ci(values, seed=1) != [low, high]


def test_confidence_per_type_only_where_a_measure_exists() -> None:
    values = {"a": {"nDCG@10": 0.0, "LSNC@10": 1.0}, "b": {"nDCG@10": 1.0, "LSNC@10": 1.0}, "c": {"nDCG@10": 0.5}}
    queries = [Query("a", "", type="2in", negations=1), Query("b", "", type="2in", negations=1),
               Query("c", "", type="1p", negations=0)]
    result = confidence(values, queries)
    assert result["by_type"]["2in"] == {"nDCG@10": [0.0, 1.0], "LSNC@10": [1.0, 1.0]}
    assert result["by_type"]["1p"] == {"nDCG@10": None}  # a single query
    assert list(result["by_negations"]) == ["0", "1"] and set(result["overall"]) == {"nDCG@10", "LSNC@10"}


def test_holm_correction_equals_hand_computation() -> None:
    # p = 0.01, 0.04, 0.03, 0.005; sorted 0.005 0.01 0.03 0.04 times 4 3 2 1 = 0.02 0.03 0.06 0.04,
    # then made monotone: 0.02 0.03 0.06 0.06
    def entry(p: float | None) -> dict[str, Any]:
        return {"n": 10, "mean_diff": 0.1, "t_p": p, "wilcoxon_p": p}

    results = {"bm25": {"overall": {}},
               "dense": {"significance": {"nDCG@10": entry(0.01), "MAP@100": entry(0.04)}},
               "itlr": {"significance": {"nDCG@10": entry(0.03), "MAP@100": entry(0.005), "MRR@10": entry(None)}}}
    holm(results)
    corrected = {(name, measure): s["t_p_holm"] for name, r in results.items()
                 for measure, s in r.get("significance", {}).items() if s["t_p"] is not None}
    assert corrected == pytest.approx({("dense", "nDCG@10"): 0.03, ("dense", "MAP@100"): 0.06,
                                       ("itlr", "nDCG@10"): 0.06, ("itlr", "MAP@100"): 0.02})
    assert results["itlr"]["significance"]["MRR@10"]["wilcoxon_p_holm"] is None
    assert results["itlr"]["significance"]["MAP@100"]["wilcoxon_p_holm"] == pytest.approx(0.02)


def metrics() -> dict[str, Any]:
    def result(value: float, config: dict[str, Any], significance: dict[str, Any] | None = None) -> dict[str, Any]:
        out = {"overall": {"nDCG@10": value, "LSNC@10": 0.8, "queries": 4, "negated_queries": 2},
               "by_type": {"1p": {"nDCG@10": value, "queries": 2}, "2in": {"nDCG@10": value / 2, "LSNC@10": 0.8,
                                                                          "queries": 2}},
               "by_negations": {"0": {"nDCG@10": value, "queries": 2}, "1": {"nDCG@10": value / 2, "queries": 2}},
               "confidence": {"by_type": {"1p": {"nDCG@10": [value - 0.1, value + 0.1]}, "2in": {"nDCG@10": None}},
                              "by_negations": {"0": {"nDCG@10": [value - 0.1, value + 0.1]}}},
               "config": config}
        return out | ({"significance": significance} if significance else {})

    test = {"n": 4, "mean_diff": 0.2, "t_p": 0.012, "wilcoxon_p": 0.125, "t_p_holm": 0.024, "wilcoxon_p_holm": 0.25}
    return {"dataset": {"beir": "b", "split": "test", "queries": 4, "passages": 9, "violation_labels": True},
            "retrievers": {
                "bm25": result(0.5, {"class": "BM25Retriever", "k1": 1.5}),
                "dense": result(0.6, {"class": "DenseRetriever", "model": "mini-lm"}, {"nDCG@10": test}),
                "rerank": result(0.7, {"class": "RerankRetriever", "model": "runs/x/models/reranker", "first": "bm25"},
                                 {"nDCG@10": test}),
                "itlr": result(0.4, {"class": "ITLRRetriever", "parse": {"source": "gold", "counts": {"gold": 4}}})}}


def test_report_defines_lsnc_names_models_and_shows_intervals_and_holm() -> None:
    text = markdown(metrics())
    assert "**LSNC@K**: Log-Scaled Negation Consistency (ComLQ): LSNC@K = −log((V + 1)/(K + 1)) / log(K + 1)" in text
    assert "1.0: no violator in the top K; 0.0: all K are violators" in text
    assert "Encoder: `mini-lm`; reranker: `runs/x/models/reranker`." in text
    assert "| rerank | RerankRetriever | model `runs/x/models/reranker` | first=bm25 |" in text
    assert "| 1p | 2 | 0.5000 (0.40–0.60) | 0.6000 (0.50–0.70) | 0.7000 (0.60–0.80) | 0.4000 (0.30–0.50) |" in text
    assert "| 2in | 2 | 0.2500 | 0.3000 | 0.3500 | 0.2000 |" in text  # no interval: printed as the mean alone
    assert "| dense | nDCG@10 | 4 | 0.2000 | 0.012 | 0.024 | 0.12 | 0.25 |" in text
    assert "each test on its own (2 t-tests, 2 Wilcoxon tests;" in text
    assert "violation labels: yes;" in text and "; LSNC@K is over the 2 queries with a negation." in text
    assert "| itlr | ITLRRetriever | – | parse=gold |" in text  # the logical forms' origin, named
    assert "Where the logical forms came from: itlr (parse=gold): 4 shipped with the queries (gold)." in text
    assert "## Timing" not in text and "index s" not in text  # timings differ between runs: metrics.json only
    assert "## Warnings" not in text


def test_report_counts_where_the_logical_forms_came_from_and_shows_the_warnings() -> None:
    """A BEIR folder without logical forms, evaluated with parse=gold: the report used to say
    "parse=gold, the logical forms shipped with the queries" while every form was parsed by rules."""
    data = metrics()
    data["retrievers"]["itlr"]["config"]["parse"] = {"source": "gold", "counts": {"rules": 4}}
    data["warnings"] = ["itlr: parse=gold, but 4 of 4 queries have no logical form in queries.jsonl; ..."]
    text = markdown(data)
    assert "itlr (parse=gold): 4 parsed by rules from the question text." in text
    assert "shipped with the queries" not in text
    assert "## Warnings\n\n- itlr: parse=gold, but 4 of 4 queries have no logical form" in text
    assert text.index("## Warnings") < text.index("## Overall")


def test_a_consistency_measure_that_does_not_apply_to_a_type_shows_a_dash() -> None:
    data = metrics()
    for result in data["retrievers"].values():
        result["by_type"]["2in"]["LSAC@10"] = None  # as metrics.json has it: absent from the type's means
        result["overall"]["LSAC@10"] = 0.7
        result["by_type"]["1p"]["LSAC@10"] = 0.7
    data["dataset"]["partial_labels"] = True
    data["dataset"]["not_applicable"] = {"LSAC": ["2in"]}
    text = markdown(data)
    assert "partial labels: yes" in text and "; LSAC@K does not apply to 2in (no labels for their queries)." in text
    section = text[text.index("## LSAC@10 by query type"):]
    assert "LSAC@10 does not apply to 2in: no query of this type has a label" in section
    assert "| 2in | 2 | – | – | – | – |" in section and "| 1p | 2 | 0.7000 |" in section


def test_plots_have_a_title_error_bars_and_no_line_between_categories(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from matplotlib.figure import Figure

    figures: list[Figure] = []
    real = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: (figures.append(self), real(self, *a, **k))[1])
    retrievers = metrics()["retrievers"]
    for key in ("by_type", "by_negations"):
        plot_groups(retrievers, key, tmp_path / f"{key}.png", key, f"nDCG@10 {key}")
        assert (tmp_path / f"{key}.png").read_bytes()[:4] == b"\x89PNG"
    for figure in figures:
        ax = figure.axes[0]
        assert ax.get_title().startswith("nDCG@10 by_") and "95% bootstrap interval" in ax.get_title()
        bars = [c for c in ax.containers if type(c).__name__ == "BarContainer"]
        assert len(bars) == 4 and all(c.errorbar is not None for c in bars)  # one bar set per retriever
        # the only Line2D objects are error-bar caps, drawn without a connecting line
        assert all(line.get_linestyle() in ("None", "", " ") for line in ax.get_lines())
        whiskers = [c for c in ax.collections if type(c).__name__ == "LineCollection"]
        assert whiskers and all(len(w.get_segments()) == 2 for w in whiskers)  # one per group
        segments = [s for w in whiskers for s in w.get_segments() if len(s) and not any(map(math.isnan, s.ravel()))]
        assert {round(float(s[1][1] - s[0][1]), 6) for s in segments} == {0.2}  # value -+ 0.1
