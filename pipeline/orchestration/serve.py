"""`comlq serve start|stop|status`: what scheduled runs need.

start: a Prefect server on 127.0.0.1 (its home, database and logs in one folder), a process
work pool, the deployments of flows.yaml, and a worker that runs them. stop: the worker first
(so no flow run is left without its worker), then the server. Each process runs in its own
session and is stopped by the pid file recorded at start (pipeline.services.process).

flows.yaml is package data (pipeline/orchestration/flows.yaml links to the repository's top-level
file; a wheel carries its content) and names the flows by module path, so an installed package
serves them from any folder. Deployments run in the folder `serve start` was run from: relative
run folders (runs/...) and configuration files are found there. `start` deploys every deployment
active except those named paused (a copy of flows.yaml with `paused` set is what is deployed),
then lists each deployment's next scheduled runs as the server's schedules compute them.

The scheduled runs review in Label Studio (generate-nightly pushes, collect-every-15-min pulls),
so `start` checks the Label Studio token first ($token_env against review.url, before anything
starts) and keeps it in the Prefect Secret block review.secret_block; without $token_env the
token the block already holds is checked. The server, worker and prefect commands it spawns do
not get $token_env in their environment: the flows read the block. `start` without review (the
CLI's --no-review) checks nothing and deploys generate-nightly with review=false.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError
from pipeline.orchestration.settings import QUIET
from pipeline.resources import package_data
from pipeline.runfolder import RunFolder
from pipeline.services.process import ManagedProcess

STARTUP_TIMEOUT = 180.0  # a fresh database migrates on first start; slow on small shared machines
NEXT_RUNS = 3  # scheduled runs listed per deployment after `start`


@dataclass
class Service:
    home: Path = Path("work/prefect-server")
    port: int = 4200
    pool: str = "comlq"
    flows_file: Path = field(default_factory=lambda: Path(str(package_data("pipeline", "orchestration/flows.yaml"))))
    host: str = "127.0.0.1"
    workdir: Path = field(default_factory=Path.cwd)  # where the worker runs the deployed flows
    hidden_env: tuple[str, ...] = ()  # variables the spawned processes do not get (the Label Studio token)

    @property
    def api_url(self) -> str:
        return f"http://{self.host}:{self.port}/api"

    def env(self) -> dict[str, str]:
        return {**{k: v for k, v in os.environ.items() if k not in self.hidden_env}, **QUIET,
                "PREFECT_HOME": str(self.home.resolve() / "prefect"),
                "PREFECT_API_URL": self.api_url,
                # scheduled runs share one result store, so a nightly run reuses earlier chunks
                "PREFECT_RESULTS_LOCAL_STORAGE_PATH": str(RunFolder(self.home.resolve()).prefect_results)}

    def process(self, name: str) -> ManagedProcess:
        """The background process `name` (server | worker)."""
        return ManagedProcess(self.home / f"{name}.pid", self.home / f"{name}.log")

    def pid(self, name: str) -> int | None:
        """The pid of `name` (server | worker) if it is alive."""
        return self.process(name).pid()

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.api_url}/health", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    # ------------------------------------------------------------------ start

    def start(self, deploy: bool = True, worker: bool = True, paused: Collection[str] = (),
              review: ReviewConfig | None = None, config: str | Path | None = None) -> list[str]:
        """Server, the Label Studio token (with `review`), pool, deployments (those in `paused`
        paused, the others active; with `config` as their configuration file) and worker; the
        lines to print, ending with each deployment's next scheduled runs. Without `review`,
        generate-nightly is deployed with review=false."""
        from pipeline.orchestration.secret import check_token, keep_token

        spec = self._flows_spec(paused, review is not None, config)  # an unknown name fails here
        token = os.environ.get(review.token_env) if review is not None else None
        if review is not None and token:
            check_token(review, token)  # before anything starts
        self.home.mkdir(parents=True, exist_ok=True)
        (self.home / "prefect").mkdir(exist_ok=True)
        running = self.pid("server") is not None
        done = [self._start_server()]
        if review is not None:
            try:
                done.append(keep_token(review, self.api_url, token, checked=True))
            except ComlqError:
                if not running:  # started for nothing: leave the machine as it was
                    self._stop("server")
                raise
        else:
            done.append("review: off (--no-review): Label Studio not checked; generate-nightly deployed with "
                        "review=false (its items are exported and evaluated unreviewed)")
        self._prefect("work-pool", "create", self.pool, "--type", "process", "--overwrite")
        done.append(f"work pool {self.pool!r} (process)")
        if deploy:
            deployed = self.home / "flows.deployed.yaml"
            deployed.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
            self._prefect("--no-prompt", "deploy", "--prefect-file", str(deployed), "--all", "--pool", self.pool)
            done.append(f"deployed {self.flows_file} ({len(spec['deployments'])} deployments, "
                        f"{len(paused) or 'none'} paused)")
        if worker:
            done.append(self._start_worker())
        if deploy:
            done += self.next_runs()
        return done

    def deployment_names(self) -> list[str]:
        return [d["name"] for d in yaml.safe_load(self.flows_file.read_text(encoding="utf-8"))["deployments"]]

    def _flows_spec(self, paused: Collection[str], review: bool = True,
                    config: str | Path | None = None) -> dict[str, Any]:
        """flows.yaml with `paused` set on every deployment: true for the named ones, else false (so a
        deployment paused by an earlier start runs again when it is no longer named); `config`
        (absolute) as every deployment's configuration file; without `review`, review=false."""
        spec = yaml.safe_load(self.flows_file.read_text(encoding="utf-8"))
        names = [d["name"] for d in spec["deployments"]]
        unknown = [name for name in paused if name not in names]
        if unknown:
            raise ComlqError(f"--paused {', '.join(unknown)}: no such deployment in {self.flows_file} "
                             f"(it has {', '.join(names)})")
        for deployment in spec["deployments"]:
            deployment["paused"] = deployment["name"] in paused
            parameters = deployment.setdefault("parameters", {})
            if config is not None and "config" in parameters:
                parameters["config"] = str(Path(config).absolute())
            if not review and "review" in parameters:
                parameters["review"] = False
        return spec

    def next_runs(self, n: int = NEXT_RUNS, now: dt.datetime | None = None) -> list[str]:
        """One line per deployment on the server: its next `n` run times (UTC) from its active
        schedules, computed by Prefect's own schedule classes (those the server's scheduler uses),
        or that it is paused."""
        from prefect.server.schemas.schedules import SCHEDULE_TYPES
        from pydantic import TypeAdapter

        schedule_type: TypeAdapter[Any] = TypeAdapter(SCHEDULE_TYPES)
        now = now or dt.datetime.now(dt.UTC)
        flows = {f["id"]: f["name"] for f in self._api("flows/filter")}
        lines = ["next scheduled runs (UTC):"]
        for deployment in sorted(self._api("deployments/filter"), key=lambda d: (flows[d["flow_id"]], d["name"])):
            name = f"{flows[deployment['flow_id']]}/{deployment['name']}"
            if deployment["paused"]:
                lines.append(f"  {name}: paused (no runs until `comlq serve start` without it in --paused, "
                             "or resumed in the UI)")
                continue
            dates = sorted(date for schedule in deployment["schedules"] if schedule["active"]
                           for date in asyncio.run(schedule_type.validate_python(schedule["schedule"])
                                                   .get_dates(n=n, start=now)))[:n]
            when = ", ".join(d.astimezone(dt.UTC).strftime("%a %Y-%m-%d %H:%M") for d in dates)
            lines.append(f"  {name}: {when or 'no schedule'}")
        return lines

    def _api(self, path: str) -> list[dict[str, Any]]:
        response = httpx.post(f"{self.api_url}/{path}", json={"limit": 200}, timeout=30.0)
        response.raise_for_status()
        return response.json()

    def _start_server(self) -> str:
        if self.pid("server") and self.healthy():
            return f"server already running at {self.api_url} (pid {self.pid('server')})"
        if self.healthy():
            raise ComlqError(f"{self.api_url}: another server answers on port {self.port}; stop it or use --port")
        pid = self._spawn("server", ["server", "start", "--host", self.host, "--port", str(self.port)])
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not self.healthy():
            if self.pid("server") is None:
                raise ComlqError(f"the Prefect server exited during startup; see {self.process('server').log_file}")
            if time.monotonic() > deadline:
                self._stop("server")
                raise ComlqError(f"the Prefect server did not answer within {STARTUP_TIMEOUT:.0f} s; "
                                 f"see {self.process('server').log_file}")
            time.sleep(0.5)
        return f"server at {self.api_url} (pid {pid}; UI http://{self.host}:{self.port})"

    def _start_worker(self) -> str:
        if self.pid("worker"):
            return f"worker already running (pid {self.pid('worker')})"
        pid = self._spawn("worker", ["worker", "start", "--pool", self.pool, "--type", "process"])
        return f"worker on pool {self.pool!r} (pid {pid})"

    def _spawn(self, name: str, args: list[str]) -> int:
        return self.process(name).spawn([*prefect_command(), *args], env=self.env(), cwd=self.workdir).pid

    def _prefect(self, *args: str) -> None:
        result = subprocess.run([*prefect_command(), *args], cwd=self.workdir, env=self.env(), capture_output=True,
                                text=True, stdin=subprocess.DEVNULL)
        if result.returncode != 0:
            tail = (result.stdout + result.stderr).strip().splitlines()[-5:]
            raise ComlqError(f"prefect {' '.join(args[:2])} failed: " + " | ".join(tail))

    # ------------------------------------------------------------------ stop / status

    def stop(self) -> list[str]:
        return [self._stop("worker"), self._stop("server")]  # worker first

    def _stop(self, name: str, grace: float = 30.0) -> str:
        stopped = self.process(name).stop(grace)
        if stopped is None:
            return f"{name}: not running"
        if stopped.killed:
            return f"{name}: killed (pid {stopped.pid}; did not stop within {grace:.0f} s)"
        return f"{name}: stopped (pid {stopped.pid})"

    def status(self) -> list[str]:
        server, worker = self.pid("server"), self.pid("worker")
        health = "healthy" if self.healthy() else "not answering"
        return [f"server: {'pid ' + str(server) if server else 'not running'} at {self.api_url} ({health})",
                f"worker: {'pid ' + str(worker) if worker else 'not running'} (pool {self.pool!r})"]


def prefect_command() -> list[str]:
    """The prefect CLI of this interpreter's environment."""
    return [sys.executable, "-m", "prefect"]
