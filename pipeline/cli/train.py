"""`comlq train reranker|dense EXPORT --out MODEL`: models trained on an export's train split."""

from __future__ import annotations

import argparse

from pipeline.cli import add_config, config_of
from pipeline.config import TrainConfig


def _train(args: argparse.Namespace) -> None:
    config = config_of(args)  # checked before the heavy imports
    from retrieval.train import train_dense, train_reranker

    train = train_reranker if args.what == "reranker" else train_dense
    info = train(args.export, args.out, config.train, progress=not args.quiet)
    training = info["training"]
    line = f"wrote {args.what} model {args.out} ({info['examples']['groups']} groups, {training['seconds']} s"
    if "validation" in info and "nDCG@10" in info["validation"]:
        scores = info["validation"]["nDCG@10"]
        best = max(v for k, v in scores.items() if k != "bm25")
        line += (f"; validation nDCG@10 bm25 {scores['bm25']}, reranked {best}"
                 f" at w={info['first_weight']}")
    print(line + ")")


def _words(text: str) -> tuple[str, ...]:
    return tuple(word for word in text.split(",") if word)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="train a reranker (CrossEncoder) or fine-tune the bi-encoder on an export")
    p.add_argument("what", choices=("reranker", "dense"), help="reranker: CrossEncoder; dense: the MiniLM bi-encoder")
    p.add_argument("export", metavar="EXPORT", help="export folder (or a run folder holding export/)")
    p.add_argument("--out", required=True, help="model folder to write (replaced if an earlier `comlq train` wrote it)")
    p.add_argument("--seed", dest="train.seed", type=int, default=None)
    p.add_argument("--max-groups", dest="train.max_groups", type=int, default=None,
                   help=f"at most this many groups, twin pairs included (default {TrainConfig.max_groups})")
    p.add_argument("--epochs", dest="train.epochs", type=int, default=None)
    p.add_argument("--kinds", dest="train.kinds", type=_words, default=None, metavar="KINDS",
                   help="hard-negative kinds besides the retrieved ones: comma-separated from violating,partial,twins "
                        "('' for none; default all)")
    add_config(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=_train)
