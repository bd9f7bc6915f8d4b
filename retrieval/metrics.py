"""Measures, computed exactly as trec_eval computes them (through pytrec_eval), plus LSNC@K.

| name       | trec_eval measure                    |
|------------|--------------------------------------|
| nDCG@10    | ndcg_cut_10 (gain = relevance grade) |
| MAP@100    | map_cut_100                          |
| Recall@100 | recall_100                           |
| MRR@10     | recip_rank on the run cut at 10      |
| LSNC@K     | -log((sum_{top K} V(d) + 1)/(K + 1)) / log(K + 1), K = 10, 100 |

Ranking order is trec_eval's (score descending, ties by passage id descending), also for the
cut behind MRR@10 and for LSNC@K. A judged query the run does not answer scores 0 on every
measure (trec_eval -c); means are over the judged queries. LSNC@K is computed only for
queries with a negation (negations > 0, or listed in the violation labels), and only when the
folder has violation labels.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import pytrec_eval

from retrieval.base import Qrels, Query, Run, Violations, cut, ranked

PerQuery = dict[str, dict[str, float]]  # query id -> measure -> value

TREC_MEASURES = {"nDCG@10": "ndcg_cut_10", "MAP@100": "map_cut_100", "Recall@100": "recall_100"}
LSNC_KS = (10, 100)
MEASURES = (*TREC_MEASURES, "MRR@10", *(f"LSNC@{k}" for k in LSNC_KS))


def lsnc(ranking: Sequence[str], violators: set[str], k: int) -> float:
    """LSNC@K of one ranking (passage ids best first): 1.0 with no violator in the top K, 0.0 with K."""
    violating = sum(1 for pid in ranking[:k] if pid in violators)
    return -math.log((violating + 1) / (k + 1)) / math.log(k + 1)


def per_query(run: Run, qrels: Qrels, queries: Sequence[Query] | None = None,
              violations: Violations | None = None) -> PerQuery:
    """Every measure for every judged query."""
    trec = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_MEASURES.values()))
    mrr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"})
    # pytrec_eval leaves out queries the run does not answer; they count 0 (trec_eval -c)
    full = trec.evaluate({qid: scores for qid, scores in run.items() if scores})
    top10 = mrr.evaluate({qid: scores for qid, scores in cut(run, 10).items() if scores})
    negated = _negated(queries, violations)
    result: PerQuery = {}
    for qid in qrels:
        values = {name: full.get(qid, {}).get(measure, 0.0) for name, measure in TREC_MEASURES.items()}
        values["MRR@10"] = top10.get(qid, {}).get("recip_rank", 0.0)
        if violations is not None and qid in negated:
            ranking = [pid for pid, _ in ranked(run.get(qid, {}))]
            for k in LSNC_KS:
                values[f"LSNC@{k}"] = lsnc(ranking, violations.get(qid, set()), k)
        result[qid] = values
    return result


def _negated(queries: Sequence[Query] | None, violations: Violations | None) -> set[str]:
    negated = {q.id for q in queries or () if q.negations}
    if violations:
        negated |= {qid for qid, pids in violations.items() if pids}
    return negated


def mean(values: PerQuery, qids: Iterable[str] | None = None) -> dict[str, float | None]:
    """Mean of each measure over `qids` (default: all), plus the query count; LSNC@K is left out
    when none of the queries has it (no negation or no labels), else `negated_queries` counts the
    queries its mean is over."""
    rows = [values[q] for q in (values if qids is None else qids) if q in values]
    out: dict[str, float | None] = {}
    for name in MEASURES:
        present = [row[name] for row in rows if name in row]
        if name.startswith("LSNC") and not present:
            continue
        out[name] = sum(present) / len(present) if present else None
    out["queries"] = len(rows)
    negated = sum(any(name.startswith("LSNC") for name in row) for row in rows)
    if negated:
        out["negated_queries"] = negated
    return out


def groups_of(queries: Sequence[Query], key: Callable[[Query], object]) -> dict[str, list[str]]:
    """Query ids per group (e.g. key=lambda q: q.type), groups in natural order; a None key is left out."""
    groups: dict[str, list[str]] = {}
    for query in queries:
        group = key(query)
        if group is not None:
            groups.setdefault(str(group), []).append(query.id)
    return dict(sorted(groups.items(), key=lambda kv: _natural(kv[0])))


def breakdown(values: PerQuery, queries: Sequence[Query],
              key: Callable[[Query], object]) -> dict[str, dict[str, float | None]]:
    """Means per group of queries (e.g. key=lambda q: q.type); queries whose key is None are left out."""
    return {name: mean(values, qids) for name, qids in groups_of(queries, key).items()}


def _natural(name: str) -> tuple[int, int, str]:
    """Numbers in numeric order, then query types in the catalogue's order (1p 2p 3p 2i ...), then others."""
    from pipeline.querytypes import CATALOGUE

    if name.isdigit():
        return (0, int(name), "")
    order = list(CATALOGUE)
    return (1, order.index(name), "") if name in order else (2, 0, name)


def significance(values: PerQuery, reference: PerQuery,
                 measures: Iterable[str] = MEASURES) -> dict[str, dict[str, float | int | None]]:
    """Paired tests of `values` against `reference` on the queries both have, per measure.

    t_p: two-sided paired t-test; wilcoxon_p: two-sided Wilcoxon signed-rank (zero differences
    dropped). A p-value is None when it is undefined (fewer than 2 pairs, or all differences 0).
    """
    from scipy import stats

    out: dict[str, dict[str, float | int | None]] = {}
    for name in measures:
        pairs = [(values[q][name], reference[q][name]) for q in values
                 if q in reference and name in values[q] and name in reference[q]]
        if not pairs:
            continue
        diffs = [a - b for a, b in pairs]
        nonzero = [d for d in diffs if d != 0]
        t_p = w_p = None
        if len(pairs) >= 2 and nonzero:
            t_p = _finite(stats.ttest_rel([a for a, _ in pairs], [b for _, b in pairs]).pvalue)
            w_p = _finite(stats.wilcoxon(nonzero).pvalue)
        out[name] = {"n": len(pairs), "mean_diff": sum(diffs) / len(diffs), "t_p": t_p, "wilcoxon_p": w_p}
    return out


def _finite(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def summarize(values: PerQuery, queries: Sequence[Query], reference: PerQuery | None = None) -> dict[str, object]:
    """overall / by_type / by_negations / significance / confidence, the shape metrics.json holds per retriever."""
    out: dict[str, object] = {
        "overall": mean(values),
        "by_type": breakdown(values, queries, lambda q: q.type),
        "by_negations": breakdown(values, queries, lambda q: q.negations),
    }
    if reference is not None:
        out["significance"] = significance(values, reference)
    out["confidence"] = confidence(values, queries)
    return out


# ---------------------------------------------------------------------------- uncertainty

# Per-query means are summaries of a sample of queries: each carries a 95% interval from a
# percentile bootstrap over the queries (seeded, so a report is reproducible).
BOOTSTRAP = {"method": "percentile bootstrap over queries", "level": 0.95, "resamples": 2000, "seed": 0}


def bootstrap_ci(values: Sequence[float], level: float = BOOTSTRAP["level"], resamples: int = BOOTSTRAP["resamples"],
                 seed: int = BOOTSTRAP["seed"]) -> list[float] | None:
    """[low, high] of the mean: the (1-level)/2 and (1+level)/2 quantiles of the means of `resamples`
    resamples (with replacement, same size) of `values`. None for fewer than 2 values."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    if len(data) < 2:
        return None
    rng = np.random.default_rng(seed)
    means = np.concatenate([data[rng.integers(0, len(data), size=(min(256, resamples - start), len(data)))].mean(axis=1)
                            for start in range(0, resamples, 256)])  # in blocks: 2000 x 10k queries is 160 MB at once
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return [float(low), float(high)]


def confidence(values: PerQuery, queries: Sequence[Query]) -> dict[str, dict]:
    """BOOTSTRAP intervals of every measure's mean: overall, by type and by number of negations
    (the groups of `summarize`); a measure only where queries have it."""
    def intervals(qids: Iterable[str]) -> dict[str, list[float] | None]:
        rows = [values[q] for q in qids if q in values]
        return {name: bootstrap_ci([row[name] for row in rows if name in row])
                for name in MEASURES if any(name in row for row in rows)}

    return {"overall": intervals(values),
            "by_type": {g: intervals(ids) for g, ids in groups_of(queries, lambda q: q.type).items()},
            "by_negations": {g: intervals(ids) for g, ids in groups_of(queries, lambda q: q.negations).items()}}


def holm(results: dict[str, dict]) -> None:
    """Add Holm-corrected p-values (`t_p_holm`, `wilcoxon_p_holm`) to every retriever's significance.

    The family of each test is every (retriever, measure) comparison with bm25 that has a p-value,
    so the report's table as a whole keeps a 5% family-wise error rate.
    """
    from statsmodels.stats.multitest import multipletests

    for test in ("t_p", "wilcoxon_p"):
        tested = [s for r in results.values() for s in r.get("significance", {}).values() if s[test] is not None]
        corrected = multipletests([s[test] for s in tested], method="holm")[1] if tested else []
        for entry, value in zip(tested, corrected):
            entry[f"{test}_holm"] = float(value)
        for entry in (s for r in results.values() for s in r.get("significance", {}).values() if s[test] is None):
            entry[f"{test}_holm"] = None
