"""`comlq serve start|stop|status`: what scheduled runs need.

start: a Prefect server on 127.0.0.1 (its home, database and logs in one folder), a process
work pool, the deployments of flows.yaml, and a worker that runs them. stop: the worker first
(so no flow run is left without its worker), then the server. Each process runs in its own
session and is stopped by the pid recorded at start.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import ComlqError
from pipeline.orchestration.settings import QUIET
from pipeline.runfolder import RunFolder

ROOT = Path(__file__).resolve().parents[2]  # the repository: flows.yaml and the flows' code
STARTUP_TIMEOUT = 180.0  # a fresh database migrates on first start; slow on small shared machines


@dataclass
class Service:
    home: Path = Path("work/prefect-server")
    port: int = 4200
    pool: str = "comlq"
    flows_file: Path = ROOT / "flows.yaml"
    host: str = "127.0.0.1"

    @property
    def api_url(self) -> str:
        return f"http://{self.host}:{self.port}/api"

    def env(self) -> dict[str, str]:
        return {**os.environ, **QUIET,
                "PREFECT_HOME": str(self.home.resolve() / "prefect"),
                "PREFECT_API_URL": self.api_url,
                # scheduled runs share one result store, so a nightly run reuses earlier chunks
                "PREFECT_RESULTS_LOCAL_STORAGE_PATH": str(RunFolder(self.home.resolve()).prefect_results)}

    def pid_file(self, name: str) -> Path:
        return self.home / f"{name}.pid"

    def pid(self, name: str) -> int | None:
        """The recorded pid of `name` (server | worker) if that process is alive."""
        path = self.pid_file(name)
        if not path.is_file():
            return None
        pid = int(path.read_text().strip() or 0)
        try:
            os.kill(pid, 0)
        except (ProcessLookupError, PermissionError):
            return None
        return pid

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.api_url}/health", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    # ------------------------------------------------------------------ start

    def start(self, deploy: bool = True, worker: bool = True) -> list[str]:
        self.home.mkdir(parents=True, exist_ok=True)
        (self.home / "prefect").mkdir(exist_ok=True)
        done = [self._start_server()]
        self._prefect("work-pool", "create", self.pool, "--type", "process", "--overwrite")
        done.append(f"work pool {self.pool!r} (process)")
        if deploy:
            self._prefect("--no-prompt", "deploy", "--prefect-file", str(self.flows_file), "--all", "--pool", self.pool)
            done.append(f"deployed {self.flows_file.name}")
        if worker:
            done.append(self._start_worker())
        return done

    def _start_server(self) -> str:
        if self.pid("server") and self.healthy():
            return f"server already running at {self.api_url} (pid {self.pid('server')})"
        if self.healthy():
            raise ComlqError(f"{self.api_url}: another server answers on port {self.port}; stop it or use --port")
        pid = self._spawn("server", ["server", "start", "--host", self.host, "--port", str(self.port)])
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not self.healthy():
            if self.pid("server") is None:
                raise ComlqError(f"the Prefect server exited during startup; see {self.home / 'server.log'}")
            if time.monotonic() > deadline:
                self._stop("server")
                raise ComlqError(f"the Prefect server did not answer within {STARTUP_TIMEOUT:.0f} s; "
                                 f"see {self.home / 'server.log'}")
            time.sleep(0.5)
        return f"server at {self.api_url} (pid {pid}; UI http://{self.host}:{self.port})"

    def _start_worker(self) -> str:
        if self.pid("worker"):
            return f"worker already running (pid {self.pid('worker')})"
        pid = self._spawn("worker", ["worker", "start", "--pool", self.pool, "--type", "process"])
        return f"worker on pool {self.pool!r} (pid {pid})"

    def _spawn(self, name: str, args: list[str]) -> int:
        log = (self.home / f"{name}.log").open("ab")
        process = subprocess.Popen([*prefect_command(), *args], cwd=ROOT, env=self.env(), stdout=log,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        self.pid_file(name).write_text(str(process.pid))
        return process.pid

    def _prefect(self, *args: str) -> None:
        result = subprocess.run([*prefect_command(), *args], cwd=ROOT, env=self.env(), capture_output=True,
                                text=True, stdin=subprocess.DEVNULL)
        if result.returncode != 0:
            tail = (result.stdout + result.stderr).strip().splitlines()[-5:]
            raise ComlqError(f"prefect {' '.join(args[:2])} failed: " + " | ".join(tail))

    # ------------------------------------------------------------------ stop / status

    def stop(self) -> list[str]:
        return [self._stop("worker"), self._stop("server")]  # worker first

    def _stop(self, name: str, grace: float = 30.0) -> str:
        pid = self.pid(name)
        self.pid_file(name).unlink(missing_ok=True)
        if pid is None:
            return f"{name}: not running"
        try:
            os.killpg(pid, signal.SIGTERM)  # its own session: the process and its children
            deadline = time.monotonic() + grace
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            if _alive(pid):
                os.killpg(pid, signal.SIGKILL)
                return f"{name}: killed (pid {pid}; did not stop within {grace:.0f} s)"
        except ProcessLookupError:  # it exited between the check and the signal
            pass
        return f"{name}: stopped (pid {pid})"

    def status(self) -> list[str]:
        server, worker = self.pid("server"), self.pid("worker")
        health = "healthy" if self.healthy() else "not answering"
        return [f"server: {'pid ' + str(server) if server else 'not running'} at {self.api_url} ({health})",
                f"worker: {'pid ' + str(worker) if worker else 'not running'} (pool {self.pool!r})"]


def _alive(pid: int) -> bool:
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)  # reap it if it is our child
        if waited == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def prefect_command() -> list[str]:
    """The prefect CLI of this interpreter's environment."""
    return [sys.executable, "-m", "prefect"]
