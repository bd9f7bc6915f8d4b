"""`comlq evaluate`: retrievers on one split of a BEIR folder, into a report folder."""

from __future__ import annotations

import argparse

from pipeline.cli import add_config, config_of
from pipeline.config import EvaluateConfig, choices_of
from pipeline.runfolder import ReportFolder


def _evaluate(args: argparse.Namespace) -> None:
    from pipeline.errors import ComlqError
    from retrieval.evaluate import run_evaluation
    from retrieval.registry import split_top_level

    try:
        retrievers = split_top_level(args.retrievers) if args.retrievers is not None else None  # '': none, an error
    except ComlqError as exc:
        raise ComlqError(f"--retrievers: {exc}") from None
    config = config_of(args).with_overrides({"evaluate.retrievers": retrievers},
                                            labels={"evaluate.retrievers": "--retrievers"})
    metrics = run_evaluation(args.beir, args.out, config, args.split, progress=not args.quiet)
    report = ReportFolder(args.out)
    print(f"wrote {report.metrics} and {report.markdown} "
          f"({len(metrics['retrievers'])} retrievers, {metrics['dataset']['queries']} queries)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("evaluate",
                       help="evaluate retrievers on a BEIR folder (metrics.json, TREC runs, report.md, plots)")
    p.add_argument("--beir", required=True, help="BEIR folder: corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv")
    p.add_argument("--split", default=None, help="qrels split (default: [evaluate] split, 'test')")
    p.add_argument("--retrievers", default=None,
                   help="comma-separated specs, e.g. bm25,dense,itlr,itlr-bm25,rewrite,'rrf(bm25,dense)'")
    p.add_argument("--parse", dest="evaluate.parse", choices=choices_of(EvaluateConfig, "parse"), default=None,
                   help="where ITLR's logical forms come from")
    p.add_argument("--model", dest="evaluate.model", default=None,
                   help="sentence-transformers model name or path (default: all-MiniLM-L6-v2)")
    p.add_argument("--precision", dest="evaluate.precision", choices=choices_of(EvaluateConfig, "precision"),
                   default=None,
                   help="dense encoding precision (default auto: bf16 where the CPU has it natively, else fp32)")
    p.add_argument("--cache", dest="evaluate.cache_dir", default=None,
                   help="embedding cache folder (default: ~/.cache/comlq/embeddings)")
    p.add_argument("--depth", dest="evaluate.depth", type=int, default=None,
                   help="passages retrieved per query (default 100)")
    p.add_argument("--shuffle-corpus", dest="evaluate.shuffle_corpus", type=int, default=None, metavar="SEED",
                   help="permute the corpus and rename every passage id to an opaque one (seeded), so no retriever "
                        "can profit from corpus order or ids; the report says so")
    p.add_argument("--qrels-variant", dest="evaluate.qrels_variant", choices=("audited",), default=None,
                   help="evaluate on qrels/SPLIT.audited.tsv (an audit's: `comlq review collect --beir`); the report "
                        "then also compares original and audited qrels on the audited queries")
    add_config(p)
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--out", required=True, help="report folder")
    p.set_defaults(handler=_evaluate)
