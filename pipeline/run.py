"""`comlq run`: the whole line on one run folder, as the Prefect flow `build_benchmark`.

There is one wiring of the stages: pipeline/orchestration/flows/. This module sets up
Prefect's environment for the run (pipeline/orchestration/settings.py: an ephemeral API inside
the run folder unless PREFECT_API_URL names a server), runs the flow and says what it wrote.
A run whose stages are all done already (pipeline/orchestration/plan.py) says so without
starting Prefect; a Ctrl-C while Prefect runs ends the run at once (pipeline/interrupt.py).
"""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline import interrupt
from pipeline.errors import ComlqError
from pipeline.export.split import check_per_type
from pipeline.generator import describe_shortfalls
from pipeline.runfolder import OUTPUTS, STAGES, RunFolder
from pipeline.runlock import RunLock
from pipeline.schemas import read_json

log = logging.getLogger(__name__)


@dataclass
class RunResult:
    out: Path
    state: str = "Completed"  # the flow run's final state: Completed, or AwaitingReview
    message: str = ""
    written: dict[str, Path] = field(default_factory=dict)  # what -> path
    counts: dict[str, dict[str, Any]] = field(default_factory=dict)  # stage -> counts
    skipped: list[str] = field(default_factory=list)  # stages already done before this run (their markers)
    short: str = ""  # types short of per_type: "2in 3 of 50, ..." (stats.json)
    report: Path | None = None  # report.md, when the run got that far
    config: str | None = None  # the configuration file the run used

    def describe(self) -> str:
        lines = [f"run folder: {self.out} ({self.state})",
                 "  wrote: " + ", ".join(path.name + ("/" if path.is_dir() else "") for path in self.written.values())]
        if self.skipped:
            lines.append("  skipped, already done: " + ", ".join(self.skipped))
        for stage, counts in self.counts.items():
            shown = {k: v for k, v in counts.items() if not k.startswith("items ")}  # not per type
            lines.append(f"  {stage}: " + ", ".join(f"{k} {_shown(k, v)}" for k, v in shown.items()))
        if self.short:
            lines.append(f"  short types (usable of requested): {self.short}")
        if self.state != "Completed":
            lines.append(self.message)
        if self.report is not None:
            lines.append(f"report: {self.report}")
        if self.state == "AwaitingReview":
            from pipeline.orchestration.review_runs import collect_command

            lines.append(f"next: {collect_command(self.out, self.config)}")
        return "\n".join(lines)


def skipped_stages(out: Path, stages: list[str], started: datetime) -> list[str]:
    """The stages whose done-marker was written before `started` (so this run skipped them)."""
    skipped = []
    since = started.replace(microsecond=0)  # markers keep whole seconds
    for stage in stages:
        path = RunFolder(out).marker(stage)
        if path.is_file() and datetime.fromisoformat(read_json(path)["finished"]) < since:
            skipped.append(stage)
    return skipped


def run(out: str | Path, config: str | None = None, *, review: bool = False, task_runner: str = "threads",
        dask_address: str | None = None, verbose: bool = False, allow_short: bool = False,
        **overrides: Any) -> RunResult:
    """Run build_benchmark on `out`; overrides: source, limit, generator, per_type, seed, types.

    Everything that can be checked is checked first (pipeline.orchestration.parameters), then
    the run folder is locked (one run per folder), then Prefect starts.
    """
    from pipeline.orchestration import settings
    from pipeline.orchestration.parameters import check_run, expand_run_dir
    from pipeline.orchestration.plan import finished_line

    out = Path(expand_run_dir(str(out)))
    types = overrides.pop("types", None)
    cfg = check_run(out, config, types, **overrides)
    check_per_type(cfg.generate.per_type, cfg.export.ratios)  # not after minutes of work
    started = datetime.now(UTC)
    with RunLock(out) as lock:
        done = None if review else finished_line(out, cfg, types)
        if done is not None:
            _say_done(out, done, allow_short or cfg.generate.allow_short)
            counts, state, message = done, "Completed", ""
        else:
            settings.configure(out, verbose)  # before prefect is imported
            # a Ctrl-C ends the run at once (its files being written go, finished stages stay), and its lock
            with interrupt.on_interrupt(lambda: lock.__exit__(None, None, None)), interrupt.ending_at_once():
                counts, state, message = _run_flow(out, config, review=review, task_runner=task_runner,
                                                   dask_address=dask_address, types=types, allow_short=allow_short,
                                                   **overrides)
    run_folder = RunFolder(out)
    paths = dict(zip(OUTPUTS, run_folder.paths(OUTPUTS)))
    written = {what: path for what, path in paths.items() if path.exists()}
    stats = read_json(run_folder.stats) if run_folder.stats.is_file() else {}
    return RunResult(out, state, message, written, counts,
                     skipped_stages(out, [s for s in counts if s in STAGES], started), describe_shortfalls(stats),
                     run_folder.report.markdown if run_folder.report.markdown.is_file() else None, config)


def _run_flow(out: Path, config: str | None, **options: Any) -> tuple[dict[str, dict[str, Any]], str, str]:
    """build_benchmark on the temporary API (or PREFECT_API_URL's server): its counts, state and message."""
    if not os.environ.get("PREFECT_API_URL"):
        log.info("starting a temporary Prefect API for this run (its home: %s; 20-60 s)", RunFolder(out).prefect_home)
    watchdog = _guard_ephemeral_api()
    try:
        from pipeline.orchestration.flows import build_benchmark

        with api_errors():
            state = build_benchmark(run_dir=str(out), config=config, return_state=True, **options)
            counts = state.result()  # re-raises the stage's error (a ComlqError prints as one line)
    finally:
        if watchdog is not None:
            watchdog.kill()
            watchdog.wait()
    return counts, state.name or "Completed", state.message or ""


def _say_done(out: Path, counts: dict[str, dict[str, Any]], allow_short: bool) -> None:
    """What a rerun of the flow would say when every stage is done, without starting Prefect."""
    from pipeline.generate import check_shortfalls
    from pipeline.orchestration.plan import NOT_TRAINED, say_not_trained, say_skipped

    run = RunFolder(out)
    for n, stage in enumerate(counts, start=1):
        log.info("run %d/%d: %s", n, len(counts), stage)
        if counts[stage] == NOT_TRAINED:  # the evaluation uses no model of the run
            say_not_trained()
        else:
            say_skipped(run, stage)
        if stage == "generate":
            check_shortfalls(read_json(run.stats), out, allow_short)


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


def _shown(key: str, value: Any) -> str:
    """A score to 4 places ("0.6900", not "0.69": scores line up across runs), anything else as it is."""
    return f"{value:.4f}" if key.startswith("nDCG") and isinstance(value, float) else str(value)
