"""report.md (Markdown tables) and PNG plots from an evaluation's metrics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pipeline.runfolder import ReportFolder
from pipeline.schemas import AtomicWriter
from retrieval.metrics import CONSISTENCY, MEASURES

PLOT_TYPE = "ndcg_by_type"
PLOT_NEGATIONS = "ndcg_by_negations"


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    def cell(value: object) -> str:
        if value is None:
            return "-"
        return f"{value:.4f}" if isinstance(value, float) else str(value)

    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return lines + [""]


def _p(value: float | None) -> str | None:
    return None if value is None else f"{value:.2g}"


def _measures(retrievers: Mapping[str, Any]) -> list[str]:
    present = {m for r in retrievers.values() for m, v in r["overall"].items() if v is not None}
    return [m for m in MEASURES if m in present]


def _by(retrievers: Mapping[str, Any], key: str, measure: str) -> tuple[list[str], list[list[object]]]:
    """Groups (rows) x retrievers (columns) of one measure, plus the query count per group."""
    groups: dict[str, int] = {}
    for result in retrievers.values():
        for group, values in result.get(key, {}).items():
            groups[group] = values.get("queries", 0)
    rows = [[group, count, *(r.get(key, {}).get(group, {}).get(measure) for r in retrievers.values())]
            for group, count in groups.items()]
    return list(groups), rows


def _with_interval(value: object, interval: Sequence[float] | None) -> str | None:
    """'0.5123 (0.41–0.60)': a mean and its bootstrap interval."""
    if value is None:
        return None
    text = f"{value:.4f}" if isinstance(value, float) else str(value)
    return f"{text} ({interval[0]:.2f}–{interval[1]:.2f})" if interval else text


def _cells(retrievers: Mapping[str, Any], key: str, measure: str) -> list[list[object]]:
    """_by's rows, each value with its 95% interval (metrics' `confidence`)."""
    _, rows = _by(retrievers, key, measure)
    for row in rows:
        for i, result in enumerate(retrievers.values()):
            interval = result.get("confidence", {}).get(key, {}).get(row[0], {}).get(measure)
            row[2 + i] = _with_interval(row[2 + i], interval)
    return rows


# What each measure means, as the report states it (LSNC@K is ComLQ's).
DEFINITIONS = {
    "nDCG@10": "normalised discounted cumulative gain of the top 10, the relevance grade (0-2) as gain "
               "(trec_eval `ndcg_cut_10`)",
    "MAP@100": "mean average precision of the top 100 (trec_eval `map_cut_100`)",
    "Recall@100": "share of the relevant passages in the top 100 (trec_eval `recall_100`)",
    "MRR@10": "reciprocal rank of the first relevant passage in the top 10 (0 when none)",
    "nDCG'@10": "condensed nDCG@10 (Sakai): every passage without a label of any grade removed from the ranking, "
                "then nDCG@10 (trec_eval `-J ndcg_cut_10`). Next to nDCG@10 it shows what a retriever loses only "
                "because it finds passages nobody judged",
    "Judged@10": "share of the top 10 that has a label of any grade, 0 included (ir_measures `Judged@10`); "
                 "a low value means nDCG@10 rests on guesses about unjudged passages",
    "LSNC@K": "Log-Scaled Negation Consistency (ComLQ): LSNC@K = −log((V + 1)/(K + 1)) / log(K + 1), V = the number "
              "of passages in the top K that violate the query's negation (they support an answer the NOT "
              "excludes; `violations/SPLIT.tsv`). 1.0: no violator in the top K; 0.0: all K are violators; "
              "log-scaled, so the first violators cost the most. Only for queries with a negation; "
              "its means are over those queries",
    "LSAC@K": "Log-Scaled AND Consistency: LSNC's form with V = the passages in the top K that meet only part "
              "of the query's conjunction (`partial/SPLIT.tsv`). Only for queries with an AND",
    "LSOC@K": "Log-Scaled OR Consistency: LSNC's form over the union's B branches, a mistake being a branch "
              "none of whose own passages is in the top K (`branches/SPLIT.tsv`): −log((U + 1)/(B + 1)) / "
              "log(B + 1), U = branches not covered. Only for queries with an OR",
}


def _definitions(measures: Sequence[str]) -> list[str]:
    shown = {m if m in DEFINITIONS else f"{m.split('@')[0]}@K" for m in measures}
    lines = ["## Measures", ""] + [f"- **{name}**: {text}." for name, text in DEFINITIONS.items() if name in shown]
    return lines + ["", "A judged query the retriever does not answer scores 0. Means are over the queries; "
                        "in the tables by type and by negations each mean is followed by its 95% confidence "
                        "interval (percentile bootstrap over the queries, 2000 resamples, seeded).", ""]


MODEL_KEYS = ("model", "llm")  # config keys (retriever `describe()`) that name a model
# where a logical form came from: the keys of a parser's counts (retrieval/logical_forms.py)
FORM_SOURCES = {"gold": "shipped with the queries (gold)", "rules": "parsed by rules from the question text",
                "llm": "parsed by the LLM", "rules (LLM answer did not parse)": "parsed by rules (the LLM's answer "
                                                                                "did not parse)"}


def _forms(name: str, parse: Mapping[str, Any]) -> str:
    """'itlr: 120 shipped with the queries (gold), 15 parsed by rules ...' (the parser's counts)."""
    counts = parse.get("counts") or {}
    told = [f"{n} {FORM_SOURCES.get(source, source)}" for source, n in counts.items() if n]
    return f"{name} (parse={parse.get('source', '?')}): {', '.join(told) or 'no query parsed'}"


def _models(retrievers: Mapping[str, Any]) -> list[str]:
    """Which retriever ran on which model: the encoder, the reranker (if any) and LLMs."""
    rows, encoders, rerankers, forms = [], set(), set(), []
    for name, result in retrievers.items():
        config = result.get("config", {})
        models = [f"{key} `{config[key]}`" for key in MODEL_KEYS if config.get(key)]
        settings = [f"{k}={v}" for k, v in config.items() if k not in (*MODEL_KEYS, "class")
                    and isinstance(v, (str, int, float, bool)) and not str(k).endswith("_scored")]
        parse = config.get("parse")
        if isinstance(parse, Mapping) and parse.get("source"):
            settings.append(f"parse={parse['source']}")
            forms.append(_forms(name, parse))
        rows.append([name, config.get("class", "?"), ", ".join(models) or "–", ", ".join(settings) or "–"])
        if "rerank" in str(config.get("class", "")).lower():
            rerankers.add(str(config.get("model")))
        elif config.get("model"):
            encoders.add(str(config["model"]))
    summary = (f"Encoder: {', '.join(f'`{m}`' for m in sorted(encoders)) or 'none (no dense retriever)'}; "
               f"reranker: {', '.join(f'`{m}`' for m in sorted(rerankers)) or 'none'}.")
    if forms:  # counted, not inferred from the setting: parse=gold falls back to rules where a query has no form
        summary += " Where the logical forms came from: " + "; ".join(forms) + "."
    return ["## Models", "", summary, ""] + _table(["retriever", "class", "models", "settings"], rows)


def _negated(retrievers: Mapping[str, Any]) -> str:
    negated = {r["overall"].get("negated_queries") for r in retrievers.values()} - {None}
    return f"; LSNC@K is over the {negated.pop()} queries with a negation" if len(negated) == 1 else ""


def _not_applicable(data: Mapping[str, Any]) -> str:
    return "".join(f"; {name}@K does not apply to {', '.join(types)} (no labels for their queries)"
                   for name, types in data.get("not_applicable", {}).items())


def markdown(metrics: Mapping[str, Any]) -> str:
    retrievers = metrics["retrievers"]
    names = list(retrievers)
    measures = _measures(retrievers)
    data = metrics.get("dataset", {})
    shuffled = data.get("shuffled")
    kinds = (("violation", "violation_labels", "LSNC"), ("partial", "partial_labels", "LSAC"),
             ("branch", "branch_labels", "LSOC"))
    labels = "; ".join(f"{what} labels: {'yes' if data.get(key) else f'no (no {measure}@K)'}"
                       for what, key, measure in kinds) + _negated(retrievers) + _not_applicable(data)
    lines = [f"# Retrieval evaluation: {data.get('beir', '?')} ({data.get('split', '?')})", "",
             f"{data.get('queries', '?')} queries, {data.get('passages', '?')} passages; {labels}.", "",
             (f"Corpus **shuffled** (seed {shuffled['seed']}): passages in a random order, every passage id renamed "
              "to an opaque one (runs/*.trec use them; shuffled_ids.tsv maps them back)." if shuffled else
              "Corpus **not shuffled**: passages in file order with their original ids "
              "(`--shuffle-corpus SEED` checks that no retriever profits from order or ids)."), ""]
    if metrics.get("warnings"):
        lines += ["## Warnings", "", *(f"- {warning}" for warning in metrics["warnings"]), ""]
    lines += ["## Overall", ""]
    lines += _table(["retriever", *measures],
                    [[n, *(retrievers[n]["overall"].get(m) for m in measures)] for n in names])
    lines += _definitions(measures) + _models(retrievers)
    for key, title in (("by_type", "query type"), ("by_negations", "number of negations")):
        rows = _cells(retrievers, key, "nDCG@10")
        if rows:
            lines += [f"## nDCG@10 by {title}", ""] + _table([title, "queries", *names], rows)
    for name in CONSISTENCY:
        present = [m for m in measures if m.startswith(f"{name}@")]
        if present:
            rows = _cells(retrievers, "by_type", present[0])
            unlabelled = data.get("not_applicable", {}).get(name, [])
            rows = [[*row[:2], *(["–"] * len(names) if row[0] in unlabelled else row[2:])] for row in rows
                    if row[0] in unlabelled or any(v is not None for v in row[2:])]  # else: no such operator
            note = ([f"{present[0]} does not apply to {', '.join(unlabelled)}: no query of "
                     f"{'these types' if len(unlabelled) > 1 else 'this type'} has a label for it in this split "
                     "(each would score 1.0 whatever the ranking); shown as –, left out of the overall figure.", ""]
                    if unlabelled else [])
            lines += [f"## {present[0]} by query type", "", *note] + _table(["query type", "queries", *names], rows)
    lines += _significance(retrievers)
    lines += _audit(metrics)
    # no timing here: it differs between two runs of the same data (and with the cache's state), so
    # the report of a seed stays the same; metrics.json keeps it per retriever ("timing")
    for name, reason in metrics.get("skipped", {}).items():
        lines.append(f"Skipped **{name}**: {reason}")
    here = ReportFolder(".")  # the plots sit next to report.md
    lines += ["", f"![nDCG@10 by query type]({here.plot(PLOT_TYPE).name})", "",
              f"![nDCG@10 by number of negations]({here.plot(PLOT_NEGATIONS).name})", ""]
    return "\n".join(lines)


AUDIT_MEASURES = ("nDCG@10", "nDCG'@10", "Judged@10")


def _audit(metrics: Mapping[str, Any]) -> list[str]:
    """With `--qrels-variant audited`: original against audited qrels on the audited queries."""
    data = metrics.get("dataset", {})
    if not data.get("qrels_variant"):
        return []
    lines = [f"## Original and {data['qrels_variant']} qrels", ""]
    comparison = metrics.get("audit")
    if not comparison:
        return lines + ["The tables above use the audited qrels; no audit.json names the audited queries, so "
                        "there is no comparison on them.", ""]
    lines += [f"The tables above use `qrels/{data.get('split')}.{data['qrels_variant']}.tsv` on every query. Here, "
              f"only the {comparison['queries']} queries the audit judged ({comparison['audit']}), each mean with its "
              "95% bootstrap interval: the same runs under the original qrels and under the audited ones.", ""]
    header = ["retriever", *(f"{m} {variant}" for m in AUDIT_MEASURES for variant in ("original", "audited"))]
    rows = []
    for name, result in comparison["retrievers"].items():
        rows.append([name, *(_with_interval(result[variant]["mean"].get(m), result[variant]["confidence"].get(m))
                             for m in AUDIT_MEASURES for variant in ("original", "audited"))])
    return lines + _table(header, rows)


def _significance(retrievers: Mapping[str, Any]) -> list[str]:
    significant = [(n, m, s) for n, r in retrievers.items() for m, s in r.get("significance", {}).items()
                   if s["t_p"] is not None or s["wilcoxon_p"] is not None]  # identical results say nothing
    if not significant:
        return []
    counts = {test: sum(s[test] is not None for _, _, s in significant) for test in ("t_p", "wilcoxon_p")}
    lines = ["## Paired tests against bm25", "",
             "Two-sided paired t-test and Wilcoxon signed-rank test over the queries; mean difference = "
             f"retriever - bm25. Holm's correction is over all the comparisons of this table, each test on its "
             f"own ({counts['t_p']} t-tests, {counts['wilcoxon_p']} Wilcoxon tests; a test with no p, such as "
             "Wilcoxon on identical values, is not counted): a corrected p below 0.05 keeps the chance of any "
             "false finding of that test in the table under 5%.", ""]
    return lines + _table(
        ["retriever", "measure", "n", "mean diff", "t-test p", "t-test p (Holm)", "Wilcoxon p", "Wilcoxon p (Holm)"],
        [[n, m, s["n"], s["mean_diff"], _p(s["t_p"]), _p(s.get("t_p_holm")), _p(s["wilcoxon_p"]),
          _p(s.get("wilcoxon_p_holm"))] for n, m, s in significant])


def plot_groups(retrievers: Mapping[str, Any], key: str, path: Path, xlabel: str, title: str) -> None:
    """Grouped bars of nDCG@10 per group (categories: no line joins them), with 95% interval error bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups, rows = _by(retrievers, key, "nDCG@10")
    fig, ax = plt.subplots(figsize=(max(6.0, 0.6 * len(groups) * max(1, len(retrievers)) ** 0.5 + 2), 4))
    width = 0.8 / max(1, len(retrievers))
    for i, (name, result) in enumerate(retrievers.items()):
        values = [row[2 + i] if row[2 + i] is not None else float("nan") for row in rows]
        intervals = [result.get("confidence", {}).get(key, {}).get(g, {}).get("nDCG@10") for g in groups]
        nan = float("nan")  # no whisker at all where there is no interval (a single query)
        errors = [[v - ci[0] if ci else nan for v, ci in zip(values, intervals)],
                  [ci[1] - v if ci else nan for v, ci in zip(values, intervals)]]
        ax.bar([x + (i - (len(retrievers) - 1) / 2) * width for x in range(len(groups))], values, width,
               yerr=errors, capsize=2, error_kw={"elinewidth": 0.8}, label=name)
    ax.set_xticks(range(len(groups)), [f"{g}\n(n={row[1]})" for g, row in zip(groups, rows)], fontsize=8)
    ax.set_title(f"{title}\nbars: mean; whiskers: 95% bootstrap interval (none for a single query)", fontsize=9)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("nDCG@10")
    ax.set_ylim(0, 1.05)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # outside: never hides a bar
    fig.tight_layout()
    tmp = path.with_name(f".{path.name}.tmp")
    fig.savefig(tmp, format="png", dpi=120)
    plt.close(fig)
    tmp.replace(path)  # atomic, like every other output


def write_report(out: str | Path, metrics: Mapping[str, Any]) -> None:
    report = ReportFolder(out)
    retrievers = metrics["retrievers"]
    split = metrics.get("dataset", {}).get("split", "?")
    plot_groups(retrievers, "by_type", report.plot(PLOT_TYPE), "query type", f"nDCG@10 by query type ({split} split)")
    plot_groups(retrievers, "by_negations", report.plot(PLOT_NEGATIONS), "number of negations in the query",
                f"nDCG@10 by number of negations ({split} split)")
    with AtomicWriter(report.markdown) as handle:
        handle.write(markdown(metrics))
