"""The `comlq` command line: argument parsing for every verb, gathered here; the stages hold no CLI code.

    line.py      types, passages, generate, export, run
    review.py    review server|annotators|token|push|pull|status|collect
    evaluate.py  evaluate
    train.py     train reranker|dense
    serve.py     serve start|stop|status

Options that set a configuration value use `dest="SECTION.KEY"`; `overrides(args)` collects
them for `Config.with_overrides`, so every verb applies and checks its overrides the same way
(pipeline/config.py's rules, the error naming the option). Library code
logs through `logging`; `main` routes those records to stderr (heavy imports stay lazy).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import Any

from pipeline.config import Config, load_config
from pipeline.errors import ComlqError

LIBRARY_LOGGERS = ("pipeline", "annotation", "retrieval")


def overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The options given as `dest="SECTION.KEY"` (None: not given)."""
    return {key: value for key, value in vars(args).items() if "." in key}


def config_of(args: argparse.Namespace) -> Config:
    """The configuration file (or $COMLQ_CONFIG, or defaults) with the command line's overrides."""
    return load_config(getattr(args, "config", None)).with_overrides(overrides(args), "command line",
                                                                     getattr(args, "option_labels", None))


def _label_options(parser: argparse.ArgumentParser) -> None:
    """Give each verb `option_labels` (SECTION.KEY -> its option, e.g. '--epochs') for config_of's errors."""
    labels = {}
    for action in parser._actions:  # argparse has no public walk over a parser's options
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _label_options(child)
        elif "." in action.dest and action.option_strings:
            labels[action.dest] = max(action.option_strings, key=len)
    if labels:
        parser.set_defaults(option_labels=labels)


def add_config(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", default=None,
                   help="TOML configuration file (default: $COMLQ_CONFIG or built-in defaults)")


class _Stderr(logging.Handler):
    """Writes to whatever sys.stderr is when a record comes (a test may have replaced it), above
    any progress bar (pipeline.progress.write_line), so a bar and a log line never share a line."""

    def emit(self, record: logging.LogRecord) -> None:
        from pipeline.progress import write_line

        try:
            write_line(self.format(record))
        except Exception:  # noqa: BLE001 - logging's own contract: report, never raise
            self.handleError(record)


class _Formatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        return f"comlq: {record.levelname.lower()}: {message}" if record.levelno >= logging.WARNING else message


def configure_logging(verbose: bool = False) -> None:
    handler = _Stderr()
    handler.setFormatter(_Formatter())
    for name in LIBRARY_LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(logging.DEBUG if verbose else logging.INFO)
        logger.propagate = False  # Prefect gives the root logger a console handler of its own


def build_parser() -> argparse.ArgumentParser:
    from pipeline.cli import evaluate, line, review, serve, train

    parser = argparse.ArgumentParser(prog="comlq", description="Build and evaluate complex logical query benchmarks.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (line, review, train, evaluate, serve):
        module.register(sub)
    _label_options(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(getattr(args, "verbose", False))
    try:
        return int(args.handler(args) or 0)
    except ComlqError as exc:
        print(f"comlq: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a full disk or a vanished folder deep inside a library: still one line
        print(f"comlq: error: {exc.filename or 'I/O'}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("comlq: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
