"""The review flows: push-review (items to Label Studio) and collect-review (votes back, then the
rest of the line); a run waits between them in the AwaitingReview state."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact
from prefect.states import Completed, Failed, State

from pipeline.config import Config, ReviewConfig
from pipeline.errors import ComlqError
from pipeline.orchestration import markers, review_runs
from pipeline.orchestration.flows.common import NETWORK_RETRIES, counts_artifact, once
from pipeline.orchestration.flows.evaluation import evaluate_flow, export_flow, train_flow
from pipeline.orchestration.parameters import run_config
from pipeline.orchestration.plan import Step
from pipeline.orchestration.secret import use_secret_token
from pipeline.passages import load_passages
from pipeline.runfolder import RunFolder, runs_under

AWAITING_REVIEW = "AwaitingReview"  # the name of the state a run ends in after its push


@task(name="review-pool")
def pool_task(run_dir: str, config: Config) -> Any:
    """Pooled judging: each pool retriever's top passages per item (plain data for the push)."""
    from annotation.push import review_items
    from pipeline.orchestration.pool import pooled_candidates

    run = RunFolder(run_dir)
    items, _ = review_items(run.root, config.review)
    return pooled_candidates(items, load_passages(run.passages), config)


@task(name="review-push", **NETWORK_RETRIES)
def push_task(run_dir: str, config: ReviewConfig, pool: Any = None) -> dict[str, int]:
    from annotation.push import push

    result = push(run_dir, config, pool=pool)
    return {"project": result.project_id, "created": result.created, "existing": result.existing,
            "not sent (failed check)": result.skipped_failed_checks, "pooled passages": result.pooled}


@task(name="review-pull", **NETWORK_RETRIES)
def pull_task(run_dir: str, config: ReviewConfig) -> dict[str, int]:
    from annotation.pull import pull

    return dict(pull(run_dir, config).counts)


def awaiting_review(run_dir: str, counts: dict[str, dict[str, Any]], config: str | None = None) -> State:
    """The state a run rests in while people review (data: the stages' counts); collect-review picks it up."""
    pushed = counts["review-push"]
    message = (f"{run_dir}: waiting for review in Label Studio project {pushed.get('project')} "
               f"({pushed.get('created', 0) + pushed.get('existing', 0)} tasks); the scheduled collect-review "
               f"continues with export and evaluation, or run: {review_runs.collect_command(run_dir, config)}")
    create_markdown_artifact(
        f"## Waiting for review\n\n{message}\n\n" + "\n".join(f"- {k}: {v}" for k, v in pushed.items()),
        key="comlq-awaiting-review", description=message)
    return Completed(name=AWAITING_REVIEW, message=message, data=counts)


@flow(name="push-review")
def push_review_flow(run_dir: str, config: str | None = None) -> dict[str, Any]:
    """RUN/items.jsonl -> Label Studio tasks (3 annotations each), with pooled candidates;
    idempotent on the server too. Records the run for the scheduled collect."""
    cfg = run_config(config)
    use_secret_token(cfg.review)  # a scheduled run's worker may not carry the token

    def work() -> dict[str, Any]:
        counts = push_task(run_dir, cfg.review, pool_task(run_dir, cfg))
        review_runs.register(run_dir, config, cfg.review.registry)
        return counts

    # its output lives on the server; the key is review_runs.push_key's, so a push by hand counts too
    return once(RunFolder(run_dir), Step(review_runs.PUSH_STAGE, review_runs.push_settings(cfg)), work)


def collected(run_dir: str | Path) -> bool:
    """Whether the votes on the run's latest push were collected (a new push needs new votes)."""
    pushed, review = markers.read_marker(run_dir, "review-push"), markers.read_marker(run_dir, "review")
    return bool(pushed and review and review["key"] == markers.key(pushed["key"]))


def pending_runs(runs_root: str) -> list[str]:
    """Run folders that were pushed for review and not yet collected."""
    return [str(run.root) for run in runs_under(runs_root)
            if markers.read_marker(run.root, "review-push") and not collected(run.root)]


def collect_run(run: str, config: str | None, deadline_hours: float, evaluate: bool) -> str | None:
    """Pull one run's votes; export and evaluate it once every task has its votes or the
    deadline has passed. Returns None when finished, else what it is waiting for."""
    cfg = run_config(config)
    pushed = markers.read_marker(run, "review-push")
    if pushed is None:
        raise ComlqError(f"{run}: nothing pushed for review yet (run `comlq run --review` or `comlq review push`)")
    use_secret_token(cfg.review)
    statuses = pull_task(run, cfg.review)
    pending = statuses.get("pending", 0)
    since = datetime.fromisoformat(pushed["finished"])
    left = timedelta(hours=deadline_hours) - (datetime.now(UTC) - since)
    counts_artifact("review", {**statuses, "overdue": left <= timedelta(0)}, skipped=False)
    if pending and left > timedelta(0):
        return f"{run} ({pending} pending, deadline in {left.total_seconds() / 3600:.1f} h)"
    if pending:
        create_markdown_artifact(
            f"## Review deadline passed\n\n{run}: {pending} items had fewer than "
            f"{cfg.review.annotators_per_item} votes after {deadline_hours} h; they are left out of the export "
            "(listed as pending in review/reviewed.jsonl).", key="comlq-review-overdue")
    export_flow(run, config)
    if evaluate:
        train_flow(run, config)
        evaluate_flow(run, config)
    # marked last: a run whose export or evaluation failed stays pending, so the next collect retries it
    markers.mark(run, "review", markers.key(pushed["key"]), statuses)
    review_runs.mark_collected(run, cfg.review.registry)
    return None


@flow(name="collect-review")
def collect_review_flow(run_dir: str | None = None, runs_root: str = "runs", config: str | None = None,
                        deadline_hours: float = 72.0, evaluate: bool = True) -> State:
    """Pull the votes of every run waiting for review (or of `run_dir`); a run whose tasks all
    have their annotations, or whose deadline (hours after the push) has passed, continues with
    export and evaluation, its pending items reported. Scheduled every 15 minutes in flows.yaml.

    The runs: those under runs_root, and every run `run --review` recorded (anywhere), each
    with the configuration file it was made with. A run that cannot be reached or collected is
    reported (an artifact, and a Failed state) and tried again at the next collect.
    """
    cfg = run_config(config)
    problems: list[str] = []
    if run_dir:
        targets = {run_dir: config}
    else:
        targets = {str(Path(run).absolute()): config for run in pending_runs(runs_root)}
        for entry in review_runs.waiting(cfg.review.registry):
            problem = entry.problem()
            if problem:
                problems.append(problem)
            else:
                targets[entry.run] = entry.config  # the configuration the run was made with
    waiting: list[str] = []
    finished: list[str] = []
    for run, run_cfg in targets.items():
        if collected(run):  # nothing to do again (the registry may have missed it: a crash after the marker)
            review_runs.mark_collected(run, cfg.review.registry)
            continue
        try:
            outcome = collect_run(run, run_cfg, deadline_hours, evaluate)
        except ComlqError as exc:
            if run_dir:
                raise
            problems.append(f"{run}: {exc}")
            continue
        if outcome is None:
            finished.append(run)
        else:
            waiting.append(outcome)
    message = f"collected {len(finished)} run(s): {', '.join(finished) or '-'}; waiting: {', '.join(waiting) or '-'}"
    data = {"finished": finished, "waiting": waiting}
    if problems:
        create_markdown_artifact("## Runs that could not be collected\n\n" + "\n".join(f"- {p}" for p in problems),
                                 key="comlq-review-problems", description="runs collect-review could not reach")
        return Failed(message=f"{message}; could not collect: {'; '.join(problems)}",
                      data=data | {"problems": problems})
    if waiting:
        return Completed(name=AWAITING_REVIEW, message=message, data=data)
    return Completed(message=message, data=data)
