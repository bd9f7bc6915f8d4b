"""Measures, computed exactly as trec_eval computes them (through pytrec_eval), plus three
logic-consistency scores in ComLQ's LSNC@K form (K = 10, 100):

    nDCG@10     ndcg_cut_10 (gain = relevance grade)
    MAP@100     map_cut_100
    Recall@100  recall_100
    MRR@10      recip_rank on the run cut at 10
    nDCG'@10    condensed nDCG@10 (Sakai 2007): the ranking with every unjudged passage removed, then
                ndcg_cut_10 (trec_eval -J; ir_measures nDCG(judged_only=True)@10)
    Judged@10   the share of the top 10 that has a label of any grade, 0 included (ir_measures
                Judged@10: over the passages retrieved when fewer than 10)
    LSNC@K      -log((v + 1)/(K + 1)) / log(K + 1), v = passages in the top K that violate the query's NOT
    LSAC@K      -log((p + 1)/(K + 1)) / log(K + 1), p = passages in the top K that satisfy only part of
                the query's conjunction
    LSOC@K      -log((u + 1)/(B + 1)) / log(B + 1), B = the union's branches, u = branches not covered:
                a branch is covered when the top K holds one of its own passages (see `lsoc`)

nDCG'@10 and Judged@10 are for incomplete judgements: a retriever that finds passages nobody
judged loses plain nDCG@10 silently, shows a low Judged@10, and keeps its condensed nDCG'@10.

Each of the three is 1.0 when the top K holds no inconsistency (no violator, no partial
passage, every branch covered) and 0.0 at the worst (K violators, K partial passages, no branch
covered); log-scaled, so the first few mistakes cost the most. LSNC is ComLQ's; LSAC is the same
formula over the partial labels; LSOC applies it to the uncovered branches out of B.

Ranking order is trec_eval's (score descending, ties by passage id descending), also for the
cut behind MRR@10 and for the top K of the consistency scores. A judged query the run does not
answer scores 0 on every trec measure (trec_eval -c); means are over the judged queries. Each
consistency score needs its label file and is computed only for the queries it concerns:
LSNC for queries with a negation (negations > 0, or listed in the violation labels); LSAC for
queries with a conjunction (AND in the logical form, else a type whose indicator has ∧ or ∩,
or listed in the partial labels); LSOC for queries listed in the branch labels. LSNC and LSAC
leave out a query type none of whose queries has a label (`not_applicable`): with nothing that
could be a mistake, each of its queries would score 1.0 whatever the ranking.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container, Iterable, Sequence

import pytrec_eval

from pipeline.errors import ComlqError
from retrieval.base import Branches, Qrels, Query, Run, Violations, cut, ranked

PerQuery = dict[str, dict[str, float]]  # query id -> measure -> value

TREC_MEASURES = {"nDCG@10": "ndcg_cut_10", "MAP@100": "map_cut_100", "Recall@100": "recall_100"}
CONDENSED = "nDCG'@10"  # ndcg_cut_10 on the judged passages only
JUDGED = "Judged@10"
JUDGEMENT_MEASURES = (CONDENSED, JUDGED)  # reported next to nDCG@10; not tested for significance
LSNC_KS = (10, 100)
CONSISTENCY = ("LSNC", "LSAC", "LSOC")  # NOT violators, AND partial passages, OR branches uncovered
MEASURES = ("nDCG@10", *JUDGEMENT_MEASURES, *list(TREC_MEASURES)[1:], "MRR@10",
            *(f"{name}@{k}" for name in CONSISTENCY for k in LSNC_KS))
TESTED = tuple(m for m in MEASURES if m not in JUDGEMENT_MEASURES)  # the paired tests' measures


def log_scaled(mistakes: int, n: int) -> float:
    """-log((mistakes + 1)/(n + 1)) / log(n + 1): 1.0 with no mistake, 0.0 with n of n (LSNC's form)."""
    return -math.log((mistakes + 1) / (n + 1)) / math.log(n + 1)


def lsnc(ranking: Sequence[str], violators: set[str], k: int) -> float:
    """LSNC@K of one ranking (passage ids best first): 1.0 with no violator in the top K, 0.0 with K.
    LSAC@K is the same function of the partial passages."""
    return log_scaled(sum(1 for pid in ranking[:k] if pid in violators), k)


def lsoc(ranking: Sequence[str], branches: dict[str, set[str]], k: int) -> float:
    """LSOC@K of one ranking: the LSNC form over the union's B branches, a mistake being a branch
    not covered. 1.0: all covered; 0.0: none.

    A branch lists the passages its answers need. It is covered when the top K holds one of its
    *own* passages, those not needed by every branch: a passage all branches share (e.g. the
    projection step of `up`) shows none of them in particular. A branch with no own passage (one
    passage states every branch, as in 2u_1) is covered by any of its passages.
    """
    top = set(ranking[:k])
    shared = set.intersection(*branches.values()) if branches else set()
    uncovered = sum(1 for needed in branches.values() if not ((needed - shared) or needed) & top)
    return log_scaled(uncovered, len(branches))


def judged_share(ranking: Sequence[str], judged: Container[str], k: int = 10) -> float:
    """Judged@k of one ranking: the share of its first k passages (of all of them when it has fewer)
    that have a label; 0.0 for an empty ranking."""
    top = ranking[:k]
    return sum(1 for pid in top if pid in judged) / len(top) if top else 0.0


def conjunctive(query: Query) -> bool:
    """Whether the query has an AND: in its parsed logical form, else by its type's indicator."""
    from pipeline.logical_form import And, Not, Term, parse
    from pipeline.querytypes import CATALOGUE

    def has_and(node) -> bool:
        if isinstance(node, Term):
            return False
        if isinstance(node, Not):
            return has_and(node.child)
        return isinstance(node, And) or any(has_and(child) for child in node.children)

    if query.logical_form:
        try:
            return has_and(parse(query.logical_form))
        except ComlqError:
            pass
    indicator = CATALOGUE[query.type].indicator if query.type in CATALOGUE else ""
    return "∧" in indicator or "∩" in indicator


def per_query(run: Run, qrels: Qrels, queries: Sequence[Query] | None = None,
              violations: Violations | None = None, partial: Violations | None = None,
              branches: Branches | None = None) -> PerQuery:
    """Every measure for every judged query (a consistency score only where its labels apply)."""
    trec = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_MEASURES.values()))
    mrr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"})
    condensed = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"}, judged_docs_only_flag=True)
    # pytrec_eval leaves out queries the run does not answer; they count 0 (trec_eval -c)
    answered = {qid: scores for qid, scores in run.items() if scores}
    full = trec.evaluate(answered)
    top10 = mrr.evaluate({qid: scores for qid, scores in cut(run, 10).items() if scores})
    judged_only = condensed.evaluate(answered)
    scope = consistency_scope(queries or (), violations, partial)
    negated, conjunctions = scope.get("LSNC", set()), scope.get("LSAC", set())
    result: PerQuery = {}
    for qid in qrels:
        values = {name: full.get(qid, {}).get(measure, 0.0) for name, measure in TREC_MEASURES.items()}
        values["MRR@10"] = top10.get(qid, {}).get("recip_rank", 0.0)
        ranking = [pid for pid, _ in ranked(run.get(qid, {}))]
        values[CONDENSED] = judged_only.get(qid, {}).get("ndcg_cut_10", 0.0)
        values[JUDGED] = judged_share(ranking, qrels[qid])
        for k in LSNC_KS:
            if violations is not None and qid in negated:
                values[f"LSNC@{k}"] = lsnc(ranking, violations.get(qid, set()), k)
            if partial is not None and qid in conjunctions:
                values[f"LSAC@{k}"] = lsnc(ranking, partial.get(qid, set()), k)
            if branches and branches.get(qid):
                values[f"LSOC@{k}"] = lsoc(ranking, branches[qid], k)
        result[qid] = values
    return result


def _listed(labels: Violations | None) -> set[str]:
    return {qid for qid, pids in (labels or {}).items() if pids}


def _operator_queries(queries: Sequence[Query]) -> dict[str, set[str]]:
    """The queries with a NOT (for LSNC) and with an AND (for LSAC)."""
    return {"LSNC": {q.id for q in queries if q.negations}, "LSAC": {q.id for q in queries if conjunctive(q)}}


def consistency_scope(queries: Sequence[Query], violations: Violations | None,
                      partial: Violations | None) -> dict[str, set[str]]:
    """The queries LSNC and LSAC apply to (a measure without its label file applies to none): those
    with the operator, or listed in the labels, of a type at least one of whose queries has a label.
    A type without any (2in, pin, pni have no partial passages) would score 1.0 by construction."""
    scope, operator = {}, _operator_queries(queries)
    for name, labels in (("LSNC", violations), ("LSAC", partial)):
        if labels is None:
            continue
        listed = _listed(labels)
        labelled = {q.type for q in queries if q.id in listed and q.type is not None}
        wanted = operator[name] | listed
        scope[name] = {q.id for q in queries if q.id in wanted and (q.id in listed or q.type in labelled)} | listed
    return scope


def not_applicable(queries: Sequence[Query], violations: Violations | None,
                   partial: Violations | None) -> dict[str, list[str]]:
    """Per consistency measure, the query types that have its operator but no labels: the report
    shows "–" for them, and they are not in its means."""
    scope = consistency_scope(queries, violations, partial)
    out = {}
    for name, wanted in _operator_queries(queries).items():
        if name in scope:
            types = {q.type for q in queries if q.id in wanted - scope[name] and q.type is not None}
            if types:
                out[name] = sorted(types, key=_natural)
    return out


def mean(values: PerQuery, qids: Iterable[str] | None = None) -> dict[str, float | None]:
    """Mean of each measure over `qids` (default: all), plus the query count; a consistency score
    is left out when none of the queries has it (no such operator or no labels), else
    `negated_queries` counts the queries LSNC@K's mean is over."""
    rows = [values[q] for q in (values if qids is None else qids) if q in values]
    out: dict[str, float | None] = {}
    for name in MEASURES:
        present = [row[name] for row in rows if name in row]
        if name.startswith(CONSISTENCY) and not present:
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
                 measures: Iterable[str] = TESTED) -> dict[str, dict[str, float | int | None]]:
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
