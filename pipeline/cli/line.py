"""`comlq types | passages | generate | export | run`: the line's own verbs."""

from __future__ import annotations

import argparse
import json
import os

from pipeline.cli import add_config, config_of
from pipeline.errors import ComlqError

ALLOW_SHORT = "exit 0 even when a query type got no usable item at all (short types are listed either way)"


def _types(args: argparse.Namespace) -> None:
    from pipeline.querytypes import CATALOGUE

    rows = [t.summary() for t in CATALOGUE.values()]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    print(f"{'type':<5} {'anchors':>7} {'relations':>9} {'negations':>9}  indicator")
    for row in rows:
        print(f"{row['name']:<5} {row['anchors']:>7} {row['relations']:>9} {row['negations']:>9}  {row['indicator']}")


def _passages(args: argparse.Namespace) -> None:
    from pipeline.passages import select_passages

    count = select_passages(args.source, args.out, args.limit)
    print(f"wrote {count} passages to {args.out}")


def _generate(args: argparse.Namespace) -> None:
    from pipeline.generate import check_shortfalls, check_types, generate
    from pipeline.generator import describe_shortfalls
    from pipeline.passages import SAMPLE_PATH
    from pipeline.querytypes import TYPE_NAMES

    config = config_of(args)
    types = check_types(tuple(args.types.split(","))) if args.types else TYPE_NAMES
    result = generate(config, args.passages or SAMPLE_PATH, args.out, types)  # default: the shipped sample
    print(f"wrote {len(result.items)} items and {len(result.rejected)} rejections to {args.out}")
    if result.stats["short_types"]:
        print(f"short types (usable of requested): {describe_shortfalls(result.stats)}")
    check_shortfalls(result.stats, args.out, args.allow_short or config.generate.allow_short)


def _export(args: argparse.Namespace) -> None:
    from pipeline.export.hf import TOKEN_ENV, push_to_hub
    from pipeline.export.split import parse_ratios
    from pipeline.export.stage import export

    config = config_of(args).with_overrides({"export.ratios": parse_ratios(args.ratios) if args.ratios else None})
    if args.push_to_hub and not os.environ.get(TOKEN_ENV):  # fail before the work, not after
        raise ComlqError(f"--push-to-hub {args.push_to_hub}: set {TOKEN_ENV} to a Hugging Face write token")
    result = export(args.dir, args.out, config.export, args.passages)
    print(result.describe())
    if args.push_to_hub:
        push_to_hub(result.out, args.push_to_hub)
        print(f"pushed to https://huggingface.co/datasets/{args.push_to_hub}")


def _run(args: argparse.Namespace) -> None:
    from pipeline.run import run

    given = {"source": args.source, "limit": args.limit, "generator": args.generator, "per_type": args.per_type}
    print(run(args.out, args.config, review=args.review, task_runner=args.task_runner, dask_address=args.dask_address,
              verbose=args.verbose, allow_short=args.allow_short,
              **{k: v for k, v in given.items() if v is not None}).describe())


def _generator_names() -> tuple[str, ...]:
    from pipeline.generator import generator_names

    return generator_names()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("types", help="list the 14 query types")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(handler=_types)

    p = sub.add_parser("passages", help="select passages from a source into a JSONL file")
    p.add_argument("--source", default="sample",
                   help="sample | PATH (.jsonl, .parquet, BEIR folder) | hf:NAME[:CONFIG]")
    p.add_argument("--limit", type=int, default=None, help="at most this many passages")
    p.add_argument("--out", required=True, help="output JSONL file")
    p.set_defaults(handler=_passages)

    generators = _generator_names()
    p = sub.add_parser("generate", help="generate query items (kg: offline; llm: OpenAI-compatible endpoint)")
    p.add_argument("--generator", dest="generate.generator", choices=generators, default=None,
                   help="default: from the configuration (kg)")
    p.add_argument("--per-type", dest="generate.per_type", type=int, default=None,
                   help="items to generate per query type")
    p.add_argument("--passages", default=None,
                   help="passages: JSONL, BEIR corpus, Parquet or hf:NAME[:CONFIG] (default: the shipped sample)")
    p.add_argument("--triples", dest="generate.triples", default=None,
                   help="kg: a triples JSONL to use instead of the built-in extractor")
    p.add_argument("--types", default=None, help="comma-separated subset of query types (default: all 14)")
    p.add_argument("--seed", dest="generate.seed", type=int, default=None)
    p.add_argument("--allow-short", action="store_true", help=ALLOW_SHORT)
    add_config(p)
    p.add_argument("--out", required=True, help="output folder")
    p.set_defaults(handler=_generate)

    p = sub.add_parser("export", help="export checked or reviewed items as HF DatasetDict, Parquet and BEIR folder")
    p.add_argument("dir", help="run folder with items.jsonl (and review/reviewed.jsonl when reviewed)")
    p.add_argument("--out", required=True, help="export folder (replaced if it holds an earlier export)")
    p.add_argument("--ratios", default=None, help="train,validation,test ratios (default: 0.7,0.1,0.2)")
    p.add_argument("--seed", dest="export.seed", type=int, default=None, help="seed for the split and the distractors")
    p.add_argument("--distractors", dest="export.distractors", type=int, default=None,
                   help="extra passages from the pool in the BEIR corpus")
    p.add_argument("--passages", default=None, help="passage pool (default: DIR/passages.jsonl, else the sample)")
    p.add_argument("--push-to-hub", default=None, metavar="REPO", help="also upload to the Hub (needs $HF_TOKEN)")
    add_config(p)
    p.set_defaults(handler=_export)

    p = sub.add_parser("run", help="run every stage (the Prefect flow build-benchmark) on one run folder")
    p.add_argument("--out", default="runs/default", help="run folder (default: runs/default)")
    add_config(p)
    p.add_argument("--source", default=None, help="passage source (overrides [passages] source)")
    p.add_argument("--limit", type=int, default=None, help="at most this many passages")
    p.add_argument("--generator", choices=generators, default=None, help="overrides [generate] generator")
    p.add_argument("--per-type", type=int, default=None, help="items per query type")
    p.add_argument("--allow-short", action="store_true", help=ALLOW_SHORT)
    p.add_argument("--review", action="store_true",
                   help="push to Label Studio and wait for review (collect-review continues)")
    p.add_argument("--task-runner", choices=("threads", "dask"), default="threads", help="where generation chunks run")
    p.add_argument("--dask-address", default=None, help="an existing Dask scheduler (default: a local cluster)")
    p.add_argument("-v", "--verbose", action="store_true", help="show Prefect's run logs")
    p.set_defaults(handler=_run)
