"""Prefect's environment for one run, set BEFORE `prefect` is imported (it reads settings then).

Without PREFECT_API_URL a run uses Prefect's ephemeral API: a temporary server in a
subprocess, with its database, home and persisted task results inside the run folder, so a
run is self-contained and a re-run of the same folder finds its cache. With PREFECT_API_URL
set, the run reports to that server instead. Values already in the environment win.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pipeline import interrupt
from pipeline.runfolder import RunFolder

LIBRARY_LOGGERS = "pipeline,annotation,retrieval"  # the packages that log through `logging`

# The 20 s default times out on a fresh home (database migrations) on small machines.
EPHEMERAL_STARTUP_TIMEOUT_SECONDS = 90

QUIET = {
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",  # the temporary server's own log lines
    "PREFECT_SERVER_UI_SHOW_PROMOTIONAL_CONTENT": "false",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": str(EPHEMERAL_STARTUP_TIMEOUT_SECONDS),
}


def prefect_environment(run_dir: str | Path, environ: dict[str, str], verbose: bool = False) -> dict[str, str]:
    """The variables to add to `environ` for a run in `run_dir` (nothing that is already set)."""
    run = RunFolder(Path(run_dir).resolve())
    wanted = dict(QUIET)
    if not environ.get("PREFECT_API_URL"):
        wanted["PREFECT_HOME"] = str(run.prefect_home)
        wanted["PREFECT_RESULTS_LOCAL_STORAGE_PATH"] = str(run.prefect_results)
        if not verbose:  # the console shows a progress bar, the summary, or the error in one line
            wanted["PREFECT_LOGGING_LEVEL"] = "CRITICAL"
            wanted["PREFECT_SERVER_LOGGING_LEVEL"] = "CRITICAL"  # the temporary API's own, on the same console
    if verbose:  # the stages' own log lines go to the run's logs too
        wanted["PREFECT_LOGGING_EXTRA_LOGGERS"] = LIBRARY_LOGGERS
    return {key: value for key, value in wanted.items() if key not in environ}


def configure(run_dir: str | Path, verbose: bool = False) -> dict[str, str]:
    """Apply `prefect_environment` to os.environ; returns what it set.

    Prefect reads its settings when imported, so this must run first; when prefect is already
    imported (a test harness or a host program set it up) the environment is left alone.
    A Ctrl-C that ends the process stops the temporary API first (Prefect would only at exit).
    """
    interrupt.at_interrupt(stop_temporary_api)
    if "prefect" in sys.modules:
        return {}
    added = prefect_environment(run_dir, dict(os.environ), verbose)
    os.environ.update(added)
    # Prefect creates its home only one level deep; a missing parent makes the ephemeral
    # server fail to open its database and the client wait out the whole startup timeout.
    for name in ("PREFECT_HOME", "PREFECT_RESULTS_LOCAL_STORAGE_PATH"):
        if name in added:
            Path(added[name]).mkdir(parents=True, exist_ok=True)
    return added


def stop_temporary_api() -> None:
    """Kill the temporary API server(s) this process started, if any: at once, since a graceful
    shutdown logs the cancelled work of its services to the terminal (its database survives a kill)."""
    server = sys.modules.get("prefect.server.api.server")  # never imported: none was started
    for instance in list(server.SubprocessASGIServer._instances.values()) if server else []:
        if instance.server_process is not None and instance.server_process.poll() is None:
            instance.server_process.kill()
            instance.server_process.wait()
