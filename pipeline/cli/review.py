"""`comlq review ...`: the server, annotators, push, pull, status and collect."""

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
        print(server.admin_login(config))
        given = f" --config {args.config}" if args.config else ""
        print(f"next: `comlq review annotators add EMAIL{given}` for each annotator, then "
              f"`comlq review push RUN{given}`; for scheduled runs `comlq serve start{given}` (it keeps the token "
              "in a Prefect Secret block)")
    elif args.action == "stop":
        server.stop(config)
    else:
        state = server.status(config)
        print(json.dumps(state, indent=2))
        return 0 if state["healthy"] else 1
    return 0


def _password_from(args: argparse.Namespace) -> str | None:
    if not args.password_env:
        return None
    given = os.environ.get(args.password_env)
    if not given:
        raise ComlqError(f"--password-env: ${args.password_env} is not set")
    return given


def _login_line(url: str, email: str, password: str, from_env: str | None) -> str:
    return (f"log in at {url.rstrip('/')}/user/login/ with e-mail {email} and password "
            + (f"from ${from_env}" if from_env else password))


def _add_annotator(args: argparse.Namespace) -> None:
    from annotation.users import add_annotator

    config = config_of(args).review
    given = _password_from(args)
    password = add_annotator(config, args.email, given)
    print(f"created annotator {args.email}")
    print(_login_line(config.url, args.email, password, args.password_env if given else None))


def _annotators(args: argparse.Namespace) -> None:
    from annotation.users import accounts, reset_password

    config = config_of(args).review
    if args.action != "list" and not args.email:
        raise ComlqError(f"review annotators {args.action}: give the annotator's e-mail")
    if args.action == "add":
        _add_annotator(args)
    elif args.action == "list":
        found = accounts(config)
        width = max(len(a.email) for a in found)
        print(f"{'e-mail':<{width}}  {'id':>4}  {'joined':<10}  last active")
        for a in found:
            role = "  (admin)" if a.email == config.admin_email else ""
            print(f"{a.email:<{width}}  {a.id:>4}  {(a.joined or '-')[:10]:<10}  {(a.last_activity or '-')[:16]}{role}")
    else:
        given = _password_from(args)
        password = reset_password(config, args.email, given)
        print(f"new password set for {args.email}")
        print(_login_line(config.url, args.email, password, args.password_env if given else None))


def _beir_or_dir(args: argparse.Namespace) -> bool:
    """True for an audit of a BEIR folder (--beir), False for a run folder (DIR); never both."""
    if bool(args.beir) == bool(args.dir):
        raise ComlqError(f"review {args.review_command}: give a run folder DIR or --beir FOLDER (an audit), not "
                         + ("both" if args.beir else "neither"))
    return bool(args.beir)


def _weights(text: str | None) -> dict[str, float]:
    """'2in=2,3in=2' -> {'2in': 2.0, '3in': 2.0}."""
    weights = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        kind, _, value = part.partition("=")
        try:
            weights[kind.strip()] = float(value)
        except ValueError:
            raise ComlqError(f"--weights: '{part}' is not TYPE=NUMBER") from None
    return weights


def _push_audit(args: argparse.Namespace) -> None:
    from pipeline.orchestration.audit import push_beir_audit

    config = config_of(args)
    split = args.split or config.evaluate.split
    record = push_beir_audit(args.beir, split, config, out=args.out, queries=args.queries, seed=args.seed,
                             weights=_weights(args.weights), k=getattr(args, "review.pool_k"),
                             only_unjudged=args.only_unjudged, title=args.project, progress=not args.quiet)
    pooled = sum(len(p) for p in record["pool"].values())
    print(f"project {record['project_id']} ('{record['project']}'): {record['created']} tasks created, "
          f"{record['existing']} already there; {len(record['queries'])} queries, {pooled} pooled passages "
          f"(top {record['pool_k']} of {', '.join(record['pool_retrievers'])})"
          + (f"; {len(record['nothing_to_judge'])} queries with nothing to judge"
             if record["nothing_to_judge"] else ""))
    given = "".join(f" {flag} {value}" for flag, value in (("--split", split), ("--out", args.out),
                                                            ("--config", args.config)) if value)
    print(f"next: annotators log in at {config.review.url.rstrip('/')}/user/login/ and open the project; "
          f"`comlq review collect --beir {args.beir}{given}` writes the audited qrels")


def _collect_audit(args: argparse.Namespace) -> None:
    from pipeline.orchestration.audit import audit_folder, collect_beir_audit

    config = config_of(args)
    split = args.split or config.evaluate.split
    report = collect_beir_audit(args.beir, split, config, out=args.out)
    folder = audit_folder(args.beir, args.out)
    overall = report["overall"]
    print(f"wrote {folder.qrels(split, 'audited')}, {folder.audit(split).result} and {folder.audit(split).markdown}: "
          f"{overall['queries']} queries audited ({len(report['pending'])} pending), {overall['judged']} passages "
          f"judged, {overall['missed_relevant']} relevant ones the qrels missed, {overall['gold_judged_nonrelevant']} "
          f"gold ones judged not relevant, {overall['invented']} invented, {overall['disputed']} disputed")


def _push(args: argparse.Namespace) -> None:
    if _beir_or_dir(args):
        return _push_audit(args)
    from annotation.client import connect
    from annotation.push import push, review_items
    from pipeline.orchestration.pool import pooled_candidates
    from pipeline.orchestration.review_runs import collect_command, record_push
    from pipeline.passages import load_passages
    from pipeline.runfolder import RunFolder

    config = config_of(args)
    run = RunFolder(args.dir)
    items, _ = review_items(run.root, config.review)
    connect(config.review)  # an unreachable server or a wrong token fails now, before the pooling's work
    pool = pooled_candidates(items, load_passages(args.passages or run.passages), config)
    result = push(run.root, config.review, args.passages, args.predictions, pool)
    record_push(run.root, args.config, config, {"project": result.project_id, "created": result.created,
                                                 "existing": result.existing, "pooled passages": result.pooled},
                args.passages)
    print(result.describe())
    print(f"next: annotators log in at {config.review.url.rstrip('/')}/user/login/ and click Label All Tasks; "
          f"`{collect_command(run.root, args.config, 'status')}` shows progress; "
          f"`{collect_command(run.root, args.config)}` finishes the run")


def _pull(args: argparse.Namespace) -> None:
    from annotation.pull import pull

    print(pull(args.dir, config_of(args).review).describe())


def _status(args: argparse.Namespace) -> None:
    from annotation.status import review_status

    config = config_of(args).review
    status = review_status(args.dir, config)
    print(f"{args.dir}: {status.tasks} tasks in project '{config.project_title}' at {config.url}, "
          f"{config.annotators_per_item} votes each")
    print(status.table())


def _token(args: argparse.Namespace) -> None:
    from annotation.client import connect
    from pipeline.orchestration.secret import prefect_api, save_token, token_from_operator

    review = config_of(args).review
    token = token_from_operator(review)
    api_url = prefect_api(args.api_url)
    if args.check:  # a token the server would reject is not worth keeping
        os.environ[review.token_env] = token  # this process only: connect reads it from there
        connect(review)
    save_token(review, token, api_url)
    checked = f", checked against Label Studio at {review.url}" if args.check else ""
    print(f"saved the Label Studio token in Prefect Secret block '{review.secret_block}' at {api_url}{checked}")
    print(f"next: scheduled push-review and collect-review runs without ${review.token_env} read it from there; "
          "run this again after a new token")


def _collect(args: argparse.Namespace) -> int:
    if _beir_or_dir(args):
        _collect_audit(args)
        return 0
    from annotation.push import review_items
    from pipeline.orchestration import markers
    from pipeline.orchestration.review_runs import collect_command
    from pipeline.runfolder import RunFolder

    run = RunFolder(args.dir)
    review = config_of(args).review
    review_items(run.root, review)  # a wrong folder or configuration fails here, before Prefect starts
    if markers.read_marker(run.root, "review-push") is None:
        raise ComlqError(f"{run.root}: nothing pushed for review yet (run `comlq review push {run.root}` "
                         "or `comlq run --review`)")
    if os.environ.get(review.token_env):  # else the flow reads the Secret block (`comlq serve start` saved it)
        from annotation.client import connect

        connect(review)  # a stopped server or a wrong token: one line now, not after starting Prefect
    from pipeline.orchestration import settings

    settings.configure(run.root, args.verbose)  # the run's own Prefect home, as `comlq run` uses
    from pipeline.orchestration.flows import collect_review_flow

    state = collect_review_flow(run_dir=str(run.root), config=args.config, deadline_hours=args.deadline_hours,
                                evaluate=args.evaluate, return_state=True)
    result = state.result()  # re-raises the collect's error (a ComlqError prints as one line)
    if result["finished"]:
        print(f"{run.root}: review collected; wrote {run.review.reviewed}, {run.export.root}"
              + (f" and {run.report.markdown}" if args.evaluate else ""))
        return 0
    if result["waiting"]:
        print(f"waiting: {result['waiting'][0]}")
        print(f"next: `{collect_command(run.root, args.config, 'status')}` shows who is behind; "
              "run this command again later "
              "(the scheduled collect-review of `comlq serve start` also does)")
        return 3
    print(f"{run.root}: already collected (see {run.review.reviewed})")
    return 0


def _specs(text: str) -> tuple[str, ...]:
    from retrieval.registry import split_top_level

    return tuple(split_top_level(text))


def audit_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--beir", default=None, metavar="FOLDER",
                   help="audit this BEIR folder's qrels instead of reviewing a run (docs/review.md, 'Auditing')")
    p.add_argument("--split", default=None, help="audit: the qrels split (default: [evaluate] split, 'test')")
    p.add_argument("--out", default=None, metavar="FOLDER",
                   help="audit: write the audit's files here (required when the BEIR folder is read-only); it becomes "
                        "a BEIR folder linking to the audited one's corpus, queries and qrels")


def register(sub: argparse._SubParsersAction) -> None:
    review = sub.add_parser("review", help="human review in Label Studio (server, annotators, push, status, collect)")
    verbs = review.add_subparsers(dest="review_command", required=True, metavar="VERB")

    def verb(name: str, help: str, handler) -> argparse.ArgumentParser:
        p = verbs.add_parser(name, help=help, description=help)
        add_config(p)
        p.set_defaults(handler=handler)
        return p

    def password_env(p: argparse.ArgumentParser) -> None:
        p.add_argument("--password-env", default=None, metavar="VAR",
                       help="take the password from this environment variable (default: generate and print one)")

    p = verb("server", "install, start, stop or show the Label Studio server (its own venv: .venv-ls)", _server)
    p.add_argument("action", choices=["install", "start", "stop", "status"])

    p = verb("annotators", "add, list or reset the password of annotator accounts", _annotators)
    p.add_argument("action", choices=["add", "list", "reset-password"])
    p.add_argument("email", nargs="?", help="the annotator's e-mail (add, reset-password)")
    password_env(p)

    p = verb("add-annotator", "create an annotator account that can log into the web UI (= annotators add)",
             _add_annotator)
    p.add_argument("email")
    password_env(p)

    p = verb("token", "save the Label Studio token (from $LABEL_STUDIO_USER_TOKEN / review.token_env, or typed at "
                      "a hidden prompt) in the Prefect Secret block review.secret_block, for scheduled runs", _token)
    p.add_argument("action", choices=["save"])
    p.add_argument("--api-url", default=None,
                   help="the Prefect server's API (default: $PREFECT_API_URL, as `comlq serve start` printed it)")
    p.add_argument("--check", action=argparse.BooleanOptionalAction, default=True,
                   help="check the token against the Label Studio server first (default: yes)")

    p = verb("push", "send DIR/items.jsonl to Label Studio, with pooled candidates (each item once); or, with "
                     "--beir, audit a BEIR folder's qrels: one task per query with its labelled and pooled passages",
             _push)
    p.add_argument("dir", nargs="?", help="run folder with items.jsonl")
    p.add_argument("--passages", default=None, help="passages JSONL (default: DIR/passages.jsonl)")
    p.add_argument("--predictions", action=argparse.BooleanOptionalAction, default=None,
                   help="pre-fill the structure answer with the automatic check (default: review.predictions)")
    p.add_argument("--pool-k", dest="review.pool_k", type=int, default=None, metavar="K",
                   help="each pool retriever's top-k passages per item as other candidates (0: none; default 5; "
                        "an audit: review.audit_pool_k, 10)")
    p.add_argument("--pool-retrievers", dest="review.pool_retrievers", type=_specs, default=None, metavar="SPECS",
                   help="the pool's retrievers, two or more, e.g. bm25,dense (default: review.pool_retrievers)")
    audit_options(p)
    p.add_argument("--queries", type=int, default=None, metavar="N",
                   help="audit: a sample of N queries, stratified by query type (default: every query of the split)")
    p.add_argument("--seed", type=int, default=13,
                   help="audit: seed of the sample, the shuffled corpus the pool is drawn from and the passage order")
    p.add_argument("--weights", default=None, metavar="TYPE=W,...",
                   help="audit: the sample's share per query type relative to the others (default 1), e.g. 2in=2,3in=2")
    p.add_argument("--only-unjudged", action="store_true",
                   help="audit: show only the pooled passages without a label (default: the labelled ones too)")
    p.add_argument("--project", default=None,
                   help="audit: the Label Studio project (default: 'PROJECT_TITLE audit: FOLDER/SPLIT')")
    p.add_argument("--quiet", action="store_true", help="audit: no progress bars")

    p = verb("pull", "export the annotations and write DIR/review/reviewed.jsonl and agreement.json", _pull)
    p.add_argument("dir", help="run folder that was pushed")

    p = verb("status", "per annotator: tasks done and remaining; per query type: accepted, rejected, pending",
             _status)
    p.add_argument("dir", help="run folder that was pushed")

    p = verb("collect", "resume a run after review: pull, then export and evaluate once every task has its votes "
                        "or the deadline has passed; with --beir, write an audit's qrels/SPLIT.audited.tsv and "
                        "audit.json", _collect)
    p.add_argument("dir", nargs="?", help="run folder that `comlq run --review` pushed")
    audit_options(p)
    p.add_argument("--deadline-hours", type=float, default=72.0,
                   help="after this many hours since the push, go on without the missing votes (default 72)")
    p.add_argument("--evaluate", action=argparse.BooleanOptionalAction, default=True,
                   help="evaluate after the export (default: yes)")
    p.add_argument("-v", "--verbose", action="store_true", help="show Prefect's run logs")
