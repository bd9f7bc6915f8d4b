"""`comlq run`: the whole line on one run folder, as the Prefect flow `build_benchmark`.

There is one wiring of the stages: pipeline/orchestration/flows.py. This module sets up
Prefect's environment for the run (pipeline/orchestration/settings.py: an ephemeral API inside
the run folder unless PREFECT_API_URL names a server), runs the flow and says what it wrote.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.runfolder import OUTPUTS, RunFolder


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
    """Run build_benchmark on `out`; overrides: source, limit, generator, per_type, seed, types."""
    from pipeline.orchestration import settings

    out = Path(out)
    settings.configure(out, verbose)  # before prefect is imported
    from pipeline.orchestration.flows import build_benchmark

    state = build_benchmark(run_dir=str(out), config=config, review=review, task_runner=task_runner,
                            dask_address=dask_address, return_state=True, **overrides)
    counts = state.result()  # re-raises the stage's error (a ComlqError prints as one line)
    paths = dict(zip(OUTPUTS, RunFolder(out).paths(OUTPUTS)))
    written = {what: path for what, path in paths.items() if path.exists()}
    return RunResult(out, state.name or "Completed", state.message or "", written, counts)
