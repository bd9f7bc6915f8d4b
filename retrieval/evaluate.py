"""`comlq evaluate`: run retrievers on one split of a BEIR folder and write a report folder.

REPORT/metrics.json     schemas/metrics.schema.json: per retriever overall, by_type, by_negations,
                        significance (paired tests against bm25, Holm-corrected), confidence
                        (bootstrap 95% intervals), config, timing
REPORT/per_query.json   retriever -> query id -> measure -> value (for further analysis)
REPORT/runs/NAME.trec   TREC run files
REPORT/report.md        tables; REPORT/*.png plots
REPORT/shuffled_ids.tsv opaque id -> original passage id, when the corpus was shuffled
(paths from pipeline.runfolder.ReportFolder)

The report folder is written whole into a temporary sibling and moved into place, one evaluation
at a time (pipeline/runlock.py): no file of an earlier report survives.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.config import Config
from pipeline.errors import ComlqError
from pipeline.progress import Progress
from pipeline.runfolder import BeirFolder, ReportFolder
from pipeline.runlock import staged_folder
from pipeline.schemas import AtomicWriter, read_json, write_json
from retrieval.base import Qrels, RetrieverUnavailable, Run, describe, write_trec
from retrieval.beir import BeirData, load_beir, load_qrels
from retrieval.metrics import BOOTSTRAP, MEASURES, bootstrap_ci, holm, mean, not_applicable, per_query, summarize
from retrieval.shuffle import shuffle_corpus

log = logging.getLogger(__name__)
REFERENCE = "bm25"  # significance tests compare every retriever with this one, when it ran
REPORT_FOLDER = "a report folder written by `comlq evaluate`"  # what --out may replace (it has metrics.json), or empty


def file_name(name: str) -> str:
    """A retriever name as a file name: rrf(bm25,dense) -> rrf_bm25_dense."""
    return re.sub(r"[^A-Za-z0-9.=-]+", "_", name).strip("_")


def run_evaluation(beir: str | Path, out: str | Path, config: Config | None = None, split: str | None = None,
                   retrievers: Sequence[str] | None = None, progress: bool = True) -> dict[str, Any]:
    """Evaluate, write the report folder, return the metrics (as written to metrics.json)."""
    from retrieval.registry import canonical, check_settings

    config = config or Config()
    split = split or config.evaluate.split
    specs = [canonical(s) for s in (config.evaluate.retrievers if retrievers is None else retrievers)]
    if not specs:
        raise ComlqError("no retrievers given")
    check_settings(config.evaluate)
    with staged_folder(out, _is_report, REPORT_FOLDER) as staging:  # checks `out` first; one writer; replaced whole
        return _evaluate(beir, ReportFolder(staging), config, split, specs, progress)


def input_warnings(data: BeirData, results: dict[str, dict[str, Any]]) -> list[str]:
    """What the evaluation found that probably means a wrong input, for the report's top: judged
    queries with nothing relevant, and gold logical forms asked for but missing (parsed by rules)."""
    found = []
    empty = sorted(qid for qid, judged in data.qrels.items() if not any(score > 0 for score in judged.values()))
    if empty:
        found.append(f"{len(empty)} of {len(data.qrels)} judged queries have no relevant passage (no score above 0 "
                     f"in qrels/{data.split}.tsv; e.g. '{empty[0]}'): every measure is 0 for them")
    for name, result in results.items():
        parse = result["config"].get("parse")
        if isinstance(parse, dict) and parse.get("source") == "gold" and parse.get("counts", {}).get("rules"):
            found.append(f"{name}: parse=gold, but {parse['counts']['rules']} of {sum(parse['counts'].values())} "
                         "queries have no logical form in queries.jsonl; their forms were parsed by rules from the "
                         "question text (--parse rules says so up front)")
    return found


def _is_report(folder: Path) -> bool:
    return ReportFolder(folder).metrics.is_file()


def _evaluate(beir: str | Path, report: ReportFolder, config: Config, split: str, specs: list[str],
              progress: bool) -> dict[str, Any]:
    from retrieval.registry import Factory
    from retrieval.report import write_report

    data = load_beir(beir, split, config.evaluate.qrels_variant)
    comparison = AuditComparison.of(data)
    seed = config.evaluate.shuffle_corpus
    names = None
    if seed is not None:  # no retriever may profit from corpus order or id form
        data, names = shuffle_corpus(data, seed)
        comparison.rename(names)
    factory = Factory(config.evaluate, config.llm, progress=progress)
    built, skipped = {}, {}
    for spec in specs:  # build all first: a bad spec fails before anything runs
        try:
            built[spec] = factory.build(spec)
        except RetrieverUnavailable as exc:
            log.warning("skipping %s: %s", spec, exc)
            skipped[spec] = str(exc)
    results: dict[str, dict[str, Any]] = {}
    values: dict[str, dict] = {}
    # retrievers take unlike times (bm25 seconds, dense minutes): no time-left estimate
    with Progress("evaluate", total=len(built), unit="retriever", enabled=progress, estimate=False) as bar:
        for spec, retriever in built.items():
            bar.set_postfix_str(spec)
            encoded_before = factory.texts_encoded()
            started = time.perf_counter()
            try:  # e.g. an LLM endpoint failing mid-run: report the others, name this one as skipped
                retriever.index(data.corpus)
                indexed = time.perf_counter()
                run = retriever.retrieve(data.queries, config.evaluate.depth)
            except ComlqError as exc:
                log.warning("skipping %s: %s", spec, exc)
                skipped[spec] = f"failed while running: {exc}"
                bar.set_postfix_str(f"{spec} failed")
                bar.update()
                continue
            done = time.perf_counter()
            write_trec(run, report.trec(file_name(spec)), file_name(spec))
            values[spec] = per_query(run, data.qrels, data.queries, data.violations, data.partial, data.branches)
            comparison.add(spec, run, values[spec], data)
            results[spec] = {
                "config": describe(retriever),
                "timing": {"index_s": round(indexed - started, 3), "retrieve_s": round(done - indexed, 3),
                           "texts_encoded": factory.texts_encoded() - encoded_before},
            }
            log.info("%s: nDCG@10 %.4f (index %.1fs, retrieve %.1fs)", spec,
                     summarize(values[spec], data.queries)["overall"]["nDCG@10"], indexed - started, done - indexed)
            bar.set_postfix_str(f"{spec} done")
            bar.update()
    if not results:
        raise ComlqError("no retriever could run: " + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    reference = values.get(REFERENCE)
    for spec in results:
        results[spec] = {**summarize(values[spec], data.queries, reference if spec != REFERENCE else None),
                         **results[spec]}
    holm(results)
    dataset = {**data.describe(), "not_applicable": not_applicable(data.queries, data.violations, data.partial)}
    metrics: dict[str, Any] = {"dataset": dataset, "bootstrap": BOOTSTRAP, "retrievers": results}
    if skipped:
        metrics["skipped"] = skipped
    warnings = input_warnings(data, results)
    for warning in warnings:
        log.warning(warning)
    if warnings:
        metrics["warnings"] = warnings
    metrics.update(comparison.summary())
    if names is not None:
        with AtomicWriter(report.shuffled_ids) as handle:
            handle.write("opaque-id\toriginal-id\n")
            handle.writelines(f"{opaque}\t{original}\n" for original, opaque in names.items())
    write_json(report.metrics, metrics, "metrics")
    write_json(report.per_query, values)
    write_report(report.root, metrics)
    return metrics


@dataclass
class AuditComparison:
    """With `--qrels-variant audited`: every retriever's means on the audited queries (audit.json's
    `queries`), under the original qrels and under the audited ones, with bootstrap intervals,
    so a change in the ranking of systems shows on exactly the queries the audit judged."""

    source: str | None = None  # audit.json; None: nothing to compare (no variant, or no audit.json)
    queries: list[str] = field(default_factory=list)
    original: Qrels = field(default_factory=dict)  # restricted to the audited queries
    retrievers: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def of(cls, data: BeirData) -> AuditComparison:
        if not data.qrels_variant:
            return cls()
        folder = BeirFolder(data.path)
        path = folder.audit(data.split).result
        if not path.is_file():
            log.warning("%s: no audit.json, so no comparison of original and audited qrels", path)
            return cls()
        audited = [q for q in read_json(path, "audit")["queries"] if q in data.qrels]
        original = load_qrels(folder.qrels(data.split))
        return cls(str(path), audited, {q: original[q] for q in audited if q in original})

    def rename(self, names: dict[str, str]) -> None:
        self.original = {q: {names[p]: g for p, g in judged.items()} for q, judged in self.original.items()}

    def add(self, name: str, run: Run, audited: dict[str, dict[str, float]], data: BeirData) -> None:
        if self.source is None:
            return
        before = per_query(run, self.original, data.queries, data.violations, data.partial, data.branches)
        rows = {"original": before, "audited": {q: audited[q] for q in self.queries if q in audited}}
        self.retrievers[name] = {
            variant: {"mean": mean(values), "confidence": {m: bootstrap_ci([v[m] for v in values.values() if m in v])
                                                           for m in MEASURES if any(m in v for v in values.values())}}
            for variant, values in rows.items()}

    def summary(self) -> dict[str, Any]:
        """metrics.json's `audit` entry ({} when there is nothing to compare)."""
        if self.source is None:
            return {}
        return {"audit": {"audit": self.source, "queries": len(self.queries), "retrievers": self.retrievers}}
