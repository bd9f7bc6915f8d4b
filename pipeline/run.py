"""`comlq run`: the whole line on one run folder, as the Prefect flow `build_benchmark`.

There is one wiring of the stages: pipeline/orchestration/flows.py. This module sets up
Prefect's environment for the run (pipeline/orchestration/settings.py: an ephemeral API inside
the run folder unless PREFECT_API_URL names a server), runs the flow and says what it wrote.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.errors import ComlqError
from pipeline.runfolder import OUTPUTS, RunFolder
from pipeline.runlock import RunLock


@dataclass
class RunResult:
    out: Path
    state: str = "Completed"  # the flow run's final state: Completed, or AwaitingReview
    message: str = ""
    written: dict[str, Path] = field(default_factory=dict)  # what -> path
    counts: dict[str, dict[str, Any]] = field(default_factory=dict)  # stage -> counts

    def describe(self) -> str:
        lines = [f"run folder: {self.out} ({self.state})",
                 "  wrote: " + ", ".join(path.name + ("/" if path.is_dir() else "") for path in self.written.values())]
        for stage, counts in self.counts.items():
            shown = {k: v for k, v in counts.items() if not k.startswith("items ")}  # not per type
            lines.append(f"  {stage}: " + ", ".join(f"{k} {v}" for k, v in shown.items()))
        if self.state != "Completed":
            lines.append(self.message)
        return "\n".join(lines)


def run(out: str | Path, config: str | None = None, *, review: bool = False, task_runner: str = "threads",
        dask_address: str | None = None, verbose: bool = False, **overrides: Any) -> RunResult:
    """Run build_benchmark on `out`; overrides: source, limit, generator, per_type, seed, types.

    Everything that can be checked is checked first (pipeline.orchestration.parameters), then
    the run folder is locked (one run per folder), then Prefect starts.
    """
    from pipeline.orchestration import settings
    from pipeline.orchestration.parameters import check_run, expand_run_dir

    out = Path(expand_run_dir(str(out)))
    types = overrides.pop("types", None)
    check_run(out, config, types, **overrides)
    with RunLock(out):
        settings.configure(out, verbose)  # before prefect is imported
        watchdog = _guard_ephemeral_api()
        try:
            from pipeline.orchestration.flows import build_benchmark

            with api_errors():
                state = build_benchmark(run_dir=str(out), config=config, review=review, task_runner=task_runner,
                                        dask_address=dask_address, types=types, return_state=True, **overrides)
                counts = state.result()  # re-raises the stage's error (a ComlqError prints as one line)
        finally:
            if watchdog is not None:
                watchdog.kill()
                watchdog.wait()
    paths = dict(zip(OUTPUTS, RunFolder(out).paths(OUTPUTS)))
    written = {what: path for what, path in paths.items() if path.exists()}
    return RunResult(out, state.name or "Completed", state.message or "", written, counts)


def _guard_ephemeral_api() -> subprocess.Popen[bytes] | None:
    """Start Prefect's temporary API server now (Prefect would on first use) and a watchdog that
    stops it should this process die without its atexit handlers (kill -9); None with PREFECT_API_URL."""
    from prefect.settings import PREFECT_API_URL

    if PREFECT_API_URL.value():
        return None
    from prefect.server.api.server import SubprocessASGIServer

    from pipeline.orchestration import watchdog

    server = SubprocessASGIServer()  # the instance Prefect's client finds (one per port; None: any)
    with api_errors():
        server.start()
    return watchdog.start(server.server_process.pid) if server.server_process else None


@contextmanager
def api_errors() -> Iterator[None]:
    """The Prefect API failing under a run (its server killed, a timeout) as one line."""
    import httpx

    try:
        yield
    except (httpx.TransportError, RuntimeError) as exc:
        if isinstance(exc, RuntimeError) and not any(m in str(exc) for m in ("Prefect API", "reach API")):
            raise
        raise ComlqError(f"the Prefect API stopped answering ({type(exc).__name__}: "
                                 f"{str(exc).splitlines()[0] if str(exc) else 'no detail'}); "
                                 "run the same command again: finished stages are kept") from None
