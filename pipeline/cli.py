"""The `comlq` command line. Each stage module registers its own verbs; heavy imports are lazy."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from pipeline.errors import ComlqError

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


def _run(args: argparse.Namespace) -> None:
    from pipeline.run import run

    overrides = {k: getattr(args, k) for k in ("source", "limit", "generator", "per_type") if getattr(args, k) is not None}
    print(run(args.out, args.config, review=args.review, task_runner=args.task_runner,
              dask_address=args.dask_address, verbose=args.verbose, **overrides).describe())


def _register_base(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("types", help="list the 14 query types")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(handler=_types)

    p = sub.add_parser("passages", help="select passages from a source into a JSONL file")
    p.add_argument("--source", default="sample", help="sample | PATH (.jsonl, .parquet, BEIR folder) | hf:NAME[:CONFIG]")
    p.add_argument("--limit", type=int, default=None, help="at most this many passages")
    p.add_argument("--out", required=True, help="output JSONL file")
    p.set_defaults(handler=_passages)

    p = sub.add_parser("run", help="run every stage (the Prefect flow build-benchmark) on one run folder")
    p.add_argument("--out", default="runs/default", help="run folder (default: runs/default)")
    p.add_argument("--config", default=None, help="TOML configuration file (default: $COMLQ_CONFIG or built-in defaults)")
    p.add_argument("--source", default=None, help="passage source (overrides [passages] source)")
    p.add_argument("--limit", type=int, default=None, help="at most this many passages")
    p.add_argument("--generator", choices=("kg", "llm"), default=None, help="overrides [generate] generator")
    p.add_argument("--per-type", type=int, default=None, help="items per query type")
    p.add_argument("--review", action="store_true", help="push to Label Studio and wait for review (collect-review continues)")
    p.add_argument("--task-runner", choices=("threads", "dask"), default="threads", help="where generation chunks run")
    p.add_argument("--dask-address", default=None, help="an existing Dask scheduler (default: a local cluster)")
    p.add_argument("-v", "--verbose", action="store_true", help="show Prefect's run logs")
    p.set_defaults(handler=_run)


def _registrars() -> list[Callable[[argparse._SubParsersAction], None]]:
    # Stage modules add their verbs through a `register(subparsers)` function listed here.
    from annotation import cli as review
    from pipeline import export, generate
    from pipeline.orchestration import serve
    from retrieval import evaluate

    return [_register_base, generate.register, export.register, review.register, evaluate.register, serve.register]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="comlq", description="Build and evaluate complex logical query benchmarks.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in _registrars():
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except ComlqError as exc:
        print(f"comlq: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("comlq: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
