"""What every flow uses: run a stage once (`once`), progress, counts artifacts, retries, task runners."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

from prefect.artifacts import create_progress_artifact, create_table_artifact, update_progress_artifact
from prefect.states import State
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner
from prefect.tasks import exponential_backoff

from pipeline.errors import ComlqError, ServiceUnavailable
from pipeline.orchestration import markers
from pipeline.orchestration.plan import Step, say_skipped
from pipeline.progress import Progress as StepBar
from pipeline.runfolder import RunFolder

TASK_RUNNERS = ("threads", "dask")
log = logging.getLogger(__name__)


def not_user_error(task: Any, task_run: Any, state: State) -> bool:
    """Retry a service failure (ServiceUnavailable, or an unexpected exception such as a connection
    reset); any other ComlqError is bad input or configuration, which a retry cannot fix."""
    try:
        state.result()
    except ServiceUnavailable:
        return True
    except ComlqError:
        return False
    except Exception:  # noqa: BLE001 - anything else (connection reset, timeout, 5xx) may heal
        return True
    return False


# Network steps retry with exponential backoff (10 s, 20 s, 40 s; jittered), unless the error is the user's.
NETWORK_RETRIES: dict[str, Any] = {"retries": 3, "retry_delay_seconds": exponential_backoff(backoff_factor=10),
                                   "retry_jitter_factor": 0.5, "retry_condition_fn": not_user_error}


def make_task_runner(name: str = "threads", dask_address: str | None = None,
                     dask_workers: int = 2, threads: int = 1) -> TaskRunner:
    """threads: in-process; dask: a local cluster of process workers, or the scheduler at dask_address."""
    if name == "threads":
        return ThreadPoolTaskRunner(max_workers=threads)
    if name == "dask":
        from prefect_dask import DaskTaskRunner

        if dask_address:
            return DaskTaskRunner(address=dask_address)
        return DaskTaskRunner(cluster_kwargs={"n_workers": dask_workers, "processes": True, "threads_per_worker": 1})
    raise ComlqError(f"unknown task runner {name!r}; expected one of {', '.join(TASK_RUNNERS)}")


class Progress:
    """A Prefect progress artifact and a console bar (pipeline.progress) that move together, ending at 100."""

    def __init__(self, total: int, what: str, key: str, unit: str = "step") -> None:
        self.total, self.done, self.what = max(total, 1), 0, what
        self.artifact: UUID = create_progress_artifact(progress=0.0, key=key, description=what)
        self.bar = StepBar(what, total=self.total, unit=unit, estimate=False)  # steps of unlike lengths

    def start(self, label: str) -> None:
        """Name the step that runs now (the bar counts finished steps)."""
        self.bar.set_postfix_str(f"now {self.done + 1}/{self.total}: {label}")
        log.info("%s %d/%d: %s", self.what, self.done + 1, self.total, label)

    def step(self) -> None:
        self.done = min(self.done + 1, self.total)
        self.bar.set_postfix_str("")  # the step named by start() is over: a line now says no "now ..."
        self.bar.update(1)
        update_progress_artifact(self.artifact, progress=100.0 * self.done / self.total)


@contextmanager
def progress(total: int, what: str, key: str, unit: str = "step") -> Iterator[Progress]:
    """Progress that ends at 100 when the block succeeds (and stays where it was when it fails)."""
    bar = Progress(total, what, key, unit)
    failed = True
    try:
        yield bar
        failed = False
        if bar.done < bar.total:
            update_progress_artifact(bar.artifact, progress=100.0)
    finally:
        bar.bar.close(failed)


def counts_artifact(stage: str, counts: dict[str, Any], skipped: bool) -> None:
    rows = [{"what": name, "count": value} for name, value in counts.items()]
    note = " (already done: skipped)" if skipped else ""
    create_table_artifact(rows, key=f"comlq-{stage}", description=f"{stage}: counts{note}")


def once(run: RunFolder, step: Step, work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run `work` unless the step is done (pipeline.orchestration.plan); returns its counts."""
    key = step.key(run)  # what the stage reads, before it runs
    marker = step.done(run, key)
    if marker is not None:
        say_skipped(run, step.stage)
    counts = marker["counts"] if marker is not None else markers.mark(run.root, step.stage, key, work())["counts"]
    counts_artifact(step.stage, counts, marker is not None)
    return counts
