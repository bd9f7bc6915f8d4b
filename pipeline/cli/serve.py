"""`comlq serve start|stop|status`: the Prefect server, work pool, deployments and worker of scheduled runs."""

from __future__ import annotations

import argparse
from pathlib import Path


def _serve(args: argparse.Namespace) -> int:
    from pipeline.orchestration.serve import Service

    service = Service(Path(args.home), args.port, args.pool)
    if args.action == "start":
        # --paused alone: every deployment; with names: those
        paused = service.deployment_names() if args.paused == [] else args.paused or ()
        lines = service.start(deploy=not args.no_deploy, worker=not args.no_worker, paused=paused)
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
    p.add_argument("--home", default="work/prefect-server", help="server home, database, logs and pid files")
    p.add_argument("--port", type=int, default=4200, help="server port on 127.0.0.1 (default 4200)")
    p.add_argument("--pool", default="comlq", help="process work pool name (flows.yaml uses 'comlq')")
    p.add_argument("--no-deploy", action="store_true", help="start: do not deploy flows.yaml")
    p.add_argument("--no-worker", action="store_true", help="start: do not start a worker")
    p.add_argument("--paused", nargs="*", metavar="DEPLOYMENT",
                   help="start: deploy these flows.yaml deployments paused (no names: all of them), e.g. "
                        "--paused generate-nightly; the others run their schedules")
    p.set_defaults(handler=_serve)
