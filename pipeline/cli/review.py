"""`comlq review ...`: the server, annotators, push and pull."""

from __future__ import annotations

import argparse
import json
import os

from pipeline.cli import add_config, config_of
from pipeline.errors import ComlqError


def _server(args: argparse.Namespace) -> int:
    from annotation import server

    config = config_of(args).review
    if args.action == "install":
        print(server.ensure_installed())
    elif args.action == "start":
        server.start(config)
    elif args.action == "stop":
        server.stop(config)
    else:
        state = server.status(config)
        print(json.dumps(state, indent=2))
        return 0 if state["healthy"] else 1
    return 0


def _add_annotator(args: argparse.Namespace) -> None:
    from annotation.users import add_annotator

    config = config_of(args).review
    given = None
    if args.password_env:
        given = os.environ.get(args.password_env)
        if not given:
            raise ComlqError(f"--password-env: ${args.password_env} is not set")
    password = add_annotator(config, args.email, given)
    print(f"created annotator {args.email}")
    print(f"log in at {config.url.rstrip('/')}/user/login/ with e-mail {args.email} and password "
          + (f"from ${args.password_env}" if given else password))


def _push(args: argparse.Namespace) -> None:
    from annotation.push import push

    config = config_of(args).review
    print(push(args.dir, config, args.passages, args.predictions).describe())


def _pull(args: argparse.Namespace) -> None:
    from annotation.pull import pull

    print(pull(args.dir, config_of(args).review).describe())


def register(sub: argparse._SubParsersAction) -> None:
    review = sub.add_parser("review", help="human review in Label Studio (server, annotators, push, pull)")
    verbs = review.add_subparsers(dest="review_command", required=True, metavar="VERB")

    def verb(name: str, help: str, handler) -> argparse.ArgumentParser:
        p = verbs.add_parser(name, help=help)
        add_config(p)
        p.set_defaults(handler=handler)
        return p

    p = verb("server", "install, start, stop or show the Label Studio server (its own venv: .venv-ls)", _server)
    p.add_argument("action", choices=["install", "start", "stop", "status"])

    p = verb("add-annotator", "create an annotator account that can log into the web UI", _add_annotator)
    p.add_argument("email")
    p.add_argument("--password-env", default=None, metavar="VAR",
                   help="take the password from this environment variable (default: generate and print one)")

    p = verb("push", "send DIR/items.jsonl to Label Studio (each item once, 3 annotators per task)", _push)
    p.add_argument("dir", help="run folder with items.jsonl")
    p.add_argument("--passages", default=None, help="passages JSONL (default: DIR/passages.jsonl)")
    p.add_argument("--predictions", action=argparse.BooleanOptionalAction, default=None,
                   help="attach the automatic structure check as a prediction (default: review.predictions)")

    p = verb("pull", "export the annotations and write DIR/review/reviewed.jsonl and agreement.json", _pull)
    p.add_argument("dir", help="run folder that was pushed")
