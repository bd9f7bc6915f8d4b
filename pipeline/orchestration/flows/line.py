"""build-benchmark: the whole line on one run folder (passages, generate, then export, train and
evaluate, or a push for review), each stage its own flow run."""

from __future__ import annotations

from typing import Any

from prefect import flow
from prefect.states import Completed, State

from pipeline import generate as generate_stage
from pipeline.generator import get_generator
from pipeline.orchestration.flows.common import make_task_runner, progress
from pipeline.orchestration.flows.evaluation import evaluate_flow, export_flow, train_flow
from pipeline.orchestration.flows.generation import generate_flow, select_passages_flow
from pipeline.orchestration.flows.review import awaiting_review, collected, push_review_flow
from pipeline.orchestration.parameters import expand_run_dir, run_config
from pipeline.runfolder import RunFolder
from pipeline.schemas import read_json


@flow(name="build-benchmark")
def build_benchmark(run_dir: str = "runs/default", config: str | None = None, source: str | None = None,
                    limit: int | None = None, generator: str | None = None, per_type: int | None = None,
                    seed: int | None = None, types: list[str] | None = None, types_per_chunk: int | None = None,
                    review: bool = False, task_runner: str = "threads",
                    dask_address: str | None = None, allow_short: bool = False) -> State:
    """The whole line on one run folder: passages, generate, then export + evaluate, or review.

    run_dir: the run folder ({date} = today, UTC). config: a TOML file (default: built-in
    settings); source, limit, generator, per_type, seed override it; types: a subset of the
    14 query types. review: push the items to Label Studio and finish in the AwaitingReview
    state (collect-review continues with export and evaluation once the votes are in).
    task_runner: threads | dask (dask_address: an existing scheduler, else a local cluster).
    allow_short: go on when a query type got no usable item at all (else the run stops after
    generating, its files kept).
    """
    run_dir = expand_run_dir(run_dir)
    cfg = run_config(config, source=source, limit=limit, generator=generator, per_type=per_type, seed=seed)
    get_generator(cfg.generate.generator)  # an unknown name fails now, not after the passages stage
    generate_runner = make_task_runner(task_runner, dask_address)
    counts: dict[str, dict[str, Any]] = {}
    goes_on = not review or collected(run_dir)  # a reviewed run goes on once its votes are in
    with progress(2 + review + 3 * goes_on, "run", "comlq-run-progress", unit="stage") as bar:
        bar.start("passages")
        counts["passages"] = select_passages_flow(run_dir, cfg.passages.source, cfg.passages.limit)
        bar.step()
        bar.start("generate")
        counts["generate"] = generate_flow.with_options(task_runner=generate_runner)(
            run_dir, config, cfg.generate.generator, cfg.generate.per_type, cfg.generate.seed, types, types_per_chunk)
        bar.step()
        generate_stage.check_shortfalls(read_json(RunFolder(run_dir).stats), run_dir,
                                        allow_short or cfg.generate.allow_short)
        if review:
            bar.start("review-push")
            counts["review-push"] = push_review_flow(run_dir, config)
            bar.step()
            goes_on = collected(run_dir)  # changed items were pushed again: they wait for new votes
        if goes_on:
            bar.start("export")
            counts["export"] = export_flow(run_dir, config)
            bar.step()
            bar.start("train")
            counts["train"] = train_flow(run_dir, config)
            bar.step()
            bar.start("evaluate")
            counts["evaluate"] = evaluate_flow(run_dir, config, task_runner=task_runner, dask_address=dask_address)
            bar.step()
    if not goes_on:
        return awaiting_review(run_dir, counts, config)
    summary = "; ".join(f"{stage}: " + ", ".join(f"{k} {v}" for k, v in c.items()) for stage, c in counts.items()
                        if stage != "generate") + f"; generate: {counts['generate']['items']} items"
    return Completed(message=summary, data=counts)
