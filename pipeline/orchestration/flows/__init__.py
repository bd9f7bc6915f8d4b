"""Prefect flows: one per stage, and the parent `build_benchmark`, by stage family:

    common.py      what every flow uses: `once` (skip a done stage), progress, retries, task runners
    generation.py  select-passages, generate (in chunks of query types)
    review.py      push-review, collect-review, and the AwaitingReview state between them
    evaluation.py  export, train, encode-corpus, evaluate
    line.py        build-benchmark: the whole line on one run folder

The flows only wire the plain stage functions (pipeline.passages, pipeline.generate, ...) and
add what Prefect is for: retries on network steps, a cross-run cache of generation results,
progress and count artifacts, schedules (flows.yaml) and scale-out (a Dask task runner).

Every flow takes its run folder and the configuration file path (plain strings, so a
deployment can pass them), and skips a stage whose done-marker matches its inputs
(pipeline.orchestration.plan), so re-running a finished or crashed run redoes nothing.
flows.yaml names the flows by this package's names below.
"""

from pipeline.orchestration.flows.common import (
    NETWORK_RETRIES,
    TASK_RUNNERS,
    Progress,
    counts_artifact,
    make_task_runner,
    not_user_error,
    once,
    progress,
)
from pipeline.orchestration.flows.evaluation import (
    encode_chunk,
    encode_corpus_flow,
    evaluate_flow,
    evaluate_task,
    export_flow,
    export_task,
    train_flow,
    train_task,
)
from pipeline.orchestration.flows.generation import (
    generate_chunk,
    generate_flow,
    prepare_task,
    select_passages_flow,
    select_passages_task,
)
from pipeline.orchestration.flows.line import build_benchmark
from pipeline.orchestration.flows.review import (
    AWAITING_REVIEW,
    awaiting_review,
    collect_review_flow,
    collect_run,
    collected,
    pending_runs,
    push_review_flow,
)
from pipeline.orchestration.parameters import PARAMETERS, expand_run_dir, run_config
from pipeline.orchestration.plan import PROMPTS, chunked, uses_run_reranker

__all__ = [
    "AWAITING_REVIEW", "NETWORK_RETRIES", "PARAMETERS", "PROMPTS", "TASK_RUNNERS", "Progress", "awaiting_review",
    "build_benchmark", "chunked", "collect_review_flow", "collect_run", "collected", "counts_artifact",
    "encode_chunk", "encode_corpus_flow", "evaluate_flow", "evaluate_task", "expand_run_dir", "export_flow",
    "export_task", "generate_chunk", "generate_flow", "make_task_runner", "not_user_error", "once",
    "pending_runs", "prepare_task", "progress", "push_review_flow", "run_config", "select_passages_flow",
    "select_passages_task", "train_flow", "train_task", "uses_run_reranker",
]
