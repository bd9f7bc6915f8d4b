"""`comlq evaluate`: run retrievers on one split of a BEIR folder and write a report folder.

REPORT/metrics.json     schemas/metrics.schema.json: per retriever overall, by_type, by_negations,
                        significance (paired tests against bm25), config, timing
REPORT/per_query.json   retriever -> query id -> measure -> value (for further analysis)
REPORT/runs/NAME.trec   TREC run files
REPORT/report.md        tables; REPORT/*.png plots
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pipeline.config import Config, load_config
from pipeline.errors import ComlqError
from pipeline.schemas import write_json
from retrieval.base import RetrieverUnavailable, describe, write_trec
from retrieval.beir import load_beir
from retrieval.metrics import per_query, summarize

REFERENCE = "bm25"  # significance tests compare every retriever with this one, when it ran


def file_name(name: str) -> str:
    """A retriever name as a file name: rrf(bm25,dense) -> rrf_bm25_dense."""
    return re.sub(r"[^A-Za-z0-9.=-]+", "_", name).strip("_")


def run_evaluation(beir: str | Path, out: str | Path, config: Config | None = None, split: str | None = None,
                   retrievers: Sequence[str] | None = None, progress: bool = True) -> dict[str, Any]:
    """Evaluate, write the report folder, return the metrics (as written to metrics.json)."""
    from retrieval.registry import Factory, canonical
    from retrieval.report import write_report

    config = config or Config()
    split = split or config.evaluate.split
    specs = [canonical(s) for s in (retrievers or config.evaluate.retrievers)]
    if not specs:
        raise ComlqError("no retrievers given")
    out = Path(out)
    data = load_beir(beir, split)
    factory = Factory(config.evaluate, config.llm, progress=progress)
    built, skipped = {}, {}
    for spec in specs:  # build all first: a bad spec fails before anything runs
        try:
            built[spec] = factory.build(spec)
        except RetrieverUnavailable as exc:
            print(f"skipping {spec}: {exc}", file=sys.stderr)
            skipped[spec] = str(exc)
    results: dict[str, dict[str, Any]] = {}
    values: dict[str, dict] = {}
    for spec, retriever in built.items():
        encoded_before = factory.texts_encoded()
        started = time.perf_counter()
        try:  # e.g. an LLM endpoint failing mid-run: report the others, name this one as skipped
            retriever.index(data.corpus)
            indexed = time.perf_counter()
            run = retriever.retrieve(data.queries, config.evaluate.depth)
        except ComlqError as exc:
            print(f"skipping {spec}: {exc}", file=sys.stderr)
            skipped[spec] = f"failed while running: {exc}"
            continue
        done = time.perf_counter()
        write_trec(run, out / "runs" / f"{file_name(spec)}.trec", file_name(spec))
        values[spec] = per_query(run, data.qrels, data.queries, data.violations)
        results[spec] = {
            "config": describe(retriever),
            "timing": {"index_s": round(indexed - started, 3), "retrieve_s": round(done - indexed, 3),
                       "texts_encoded": factory.texts_encoded() - encoded_before},
        }
        print(f"{spec}: nDCG@10 {summarize(values[spec], data.queries)['overall']['nDCG@10']:.4f} "
              f"(index {indexed - started:.1f}s, retrieve {done - indexed:.1f}s)", file=sys.stderr)
    if not results:
        raise ComlqError("no retriever could run: " + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    reference = values.get(REFERENCE)
    for spec in results:
        results[spec] = {**summarize(values[spec], data.queries, reference if spec != REFERENCE else None),
                         **results[spec]}
    metrics: dict[str, Any] = {"dataset": data.describe(), "retrievers": results}
    if skipped:
        metrics["skipped"] = skipped
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "metrics.json", metrics, "metrics")
    write_json(out / "per_query.json", values)
    write_report(out, metrics)
    return metrics


def _evaluate(args: argparse.Namespace) -> None:
    from retrieval.registry import split_top_level

    config = load_config(args.config)
    overrides = {"parse": args.parse, "model": args.model, "cache_dir": args.cache, "depth": args.depth}
    config.evaluate = dataclasses.replace(config.evaluate, **{k: v for k, v in overrides.items() if v is not None})
    retrievers = split_top_level(args.retrievers) if args.retrievers else None
    metrics = run_evaluation(args.beir, args.out, config, args.split, retrievers, progress=not args.quiet)
    print(f"wrote {Path(args.out) / 'metrics.json'} and {Path(args.out) / 'report.md'} "
          f"({len(metrics['retrievers'])} retrievers, {metrics['dataset']['queries']} queries)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("evaluate", help="evaluate retrievers on a BEIR folder (metrics.json, TREC runs, report.md, plots)")
    p.add_argument("--beir", required=True, help="BEIR folder: corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv")
    p.add_argument("--split", default=None, help="qrels split (default: [evaluate] split, 'test')")
    p.add_argument("--retrievers", default=None,
                   help="comma-separated specs, e.g. bm25,dense,itlr,itlr-bm25,rewrite,'rrf(bm25,dense)'")
    p.add_argument("--parse", choices=("gold", "rules", "llm"), default=None, help="where ITLR's logical forms come from")
    p.add_argument("--model", default=None, help="sentence-transformers model name or path (default: all-MiniLM-L6-v2)")
    p.add_argument("--cache", default=None, help="embedding cache folder (default: ~/.cache/comlq/embeddings)")
    p.add_argument("--depth", type=int, default=None, help="passages retrieved per query (default 100)")
    p.add_argument("--config", default=None, help="TOML configuration file")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--out", required=True, help="report folder")
    p.set_defaults(handler=_evaluate)
