"""`comlq serve start|stop|status`: the Prefect server, work pool, deployments and worker of scheduled runs."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from pipeline.cli import add_config, config_of
from pipeline.config import ReviewConfig


def _serve(args: argparse.Namespace) -> int:
    from pipeline.orchestration.serve import Service
    from pipeline.orchestration.settings import QUIET

    # start: a bad configuration file fails before anything starts; stop and status never read it
    review = config_of(args).review if args.action == "start" else None
    token_env = review.token_env if review else ReviewConfig().token_env
    service = Service(Path(args.home), args.port, args.pool, hidden_env=(token_env,))
    # this process is a Prefect client too (the Secret block): the server's home, never ~/.prefect
    for name, value in {**QUIET, "PREFECT_HOME": str(service.home.resolve() / "prefect")}.items():
        os.environ.setdefault(name, value)
    if args.action == "start":
        # --paused alone: every deployment; with names: those
        paused = service.deployment_names() if args.paused == [] else args.paused or ()
        lines = service.start(deploy=not args.no_deploy, worker=not args.no_worker, paused=paused,
                              review=None if args.no_review else review, config=args.config)
    elif args.action == "stop":
        lines = service.stop()
    else:
        lines = service.status()
    print("\n".join(lines))
    if args.action == "start":
        print(f"export PREFECT_API_URL={service.api_url}   # to use it from this shell (prefect CLI, comlq run)")
    return 0 if args.action != "status" or service.healthy() else 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="start/stop a Prefect server, work pool, flows.yaml deployments and a worker")
    p.add_argument("action", choices=("start", "stop", "status"))
    add_config(p)
    p.add_argument("--home", default="work/prefect-server", help="server home, database, logs and pid files")
    p.add_argument("--port", type=int, default=4200, help="server port on 127.0.0.1 (default 4200)")
    p.add_argument("--pool", default="comlq", help="process work pool name (flows.yaml uses 'comlq')")
    p.add_argument("--no-deploy", action="store_true", help="start: do not deploy flows.yaml")
    p.add_argument("--no-worker", action="store_true", help="start: do not start a worker")
    p.add_argument("--paused", nargs="*", metavar="DEPLOYMENT",
                   help="start: deploy these flows.yaml deployments paused (no names: all of them), e.g. "
                        "--paused generate-nightly; the others run their schedules")
    p.add_argument("--no-review", action="store_true",
                   help="start: no Label Studio: do not check its token, and deploy generate-nightly with "
                        "review=false (default: check $LABEL_STUDIO_USER_TOKEN / review.token_env against "
                        "review.url and keep it in the Prefect Secret block review.secret_block)")
    p.set_defaults(handler=_serve)
