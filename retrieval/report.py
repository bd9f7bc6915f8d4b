"""report.md (Markdown tables) and PNG plots from an evaluation's metrics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pipeline.runfolder import ReportFolder
from pipeline.schemas import AtomicWriter
from retrieval.metrics import MEASURES

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


def _seconds(value: float | None) -> str | None:
    return None if value is None else f"{value:.1f}"


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


def markdown(metrics: Mapping[str, Any]) -> str:
    retrievers = metrics["retrievers"]
    names = list(retrievers)
    measures = _measures(retrievers)
    data = metrics.get("dataset", {})
    lines = [f"# Retrieval evaluation: {data.get('beir', '?')} ({data.get('split', '?')})", "",
             f"{data.get('queries', '?')} queries, {data.get('passages', '?')} passages; "
             f"violation labels: {'yes' if data.get('violation_labels') else 'no (no LSNC@K)'}.", "",
             "## Overall", ""]
    lines += _table(["retriever", *measures], [[n, *(retrievers[n]["overall"].get(m) for m in measures)] for n in names])
    for key, title in (("by_type", "query type"), ("by_negations", "number of negations")):
        _, rows = _by(retrievers, key, "nDCG@10")
        if rows:
            lines += [f"## nDCG@10 by {title}", ""] + _table([title, "queries", *names], rows)
    lsnc = [m for m in measures if m.startswith("LSNC")]
    if lsnc:
        _, rows = _by(retrievers, "by_type", lsnc[0])
        rows = [row for row in rows if any(v is not None for v in row[2:])]  # types without negation have none
        lines += [f"## {lsnc[0]} by query type", ""] + _table(["query type", "queries", *names], rows)
    significant = [(n, m, s) for n in names for m, s in retrievers[n].get("significance", {}).items()
                   if s["t_p"] is not None or s["wilcoxon_p"] is not None]  # identical results say nothing
    if significant:
        lines += ["## Paired tests against bm25", "",
                  "Two-sided paired t-test and Wilcoxon signed-rank test over the queries; "
                  "mean difference = retriever - bm25.", ""]
        lines += _table(["retriever", "measure", "mean diff", "t-test p", "Wilcoxon p"],
                        [[n, m, s["mean_diff"], _p(s["t_p"]), _p(s["wilcoxon_p"])] for n, m, s in significant])
    lines += ["## Timing", ""] + _table(
        ["retriever", "index s", "retrieve s", "texts encoded"],
        [[n, *(_seconds(retrievers[n].get("timing", {}).get(k)) for k in ("index_s", "retrieve_s")),
          retrievers[n].get("timing", {}).get("texts_encoded")] for n in names])
    for name, reason in metrics.get("skipped", {}).items():
        lines.append(f"Skipped **{name}**: {reason}")
    here = ReportFolder(".")  # the plots sit next to report.md
    lines += ["", f"![nDCG@10 by query type]({here.plot(PLOT_TYPE).name})", "",
              f"![nDCG@10 by number of negations]({here.plot(PLOT_NEGATIONS).name})", ""]
    return "\n".join(lines)


def plot_groups(retrievers: Mapping[str, Any], key: str, path: Path, xlabel: str, bars: bool) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups, rows = _by(retrievers, key, "nDCG@10")
    fig, ax = plt.subplots(figsize=(max(6.0, 0.6 * len(groups) * max(1, len(retrievers)) ** 0.5 + 2), 4))
    width = 0.8 / max(1, len(retrievers))
    for i, name in enumerate(retrievers):
        values = [row[2 + i] if row[2 + i] is not None else float("nan") for row in rows]
        if bars:
            ax.bar([x + (i - (len(retrievers) - 1) / 2) * width for x in range(len(groups))], values, width, label=name)
        else:
            ax.plot(range(len(groups)), values, marker="o", label=name)
    ax.set_xticks(range(len(groups)), [f"{g}\n(n={row[1]})" for g, row in zip(groups, rows)], fontsize=8)
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
    plot_groups(retrievers, "by_type", report.plot(PLOT_TYPE), "query type", bars=True)
    plot_groups(retrievers, "by_negations", report.plot(PLOT_NEGATIONS), "number of negations", bars=False)
    with AtomicWriter(report.markdown) as handle:
        handle.write(markdown(metrics))
