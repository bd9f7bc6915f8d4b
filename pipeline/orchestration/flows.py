"""Prefect flows: one per stage, and the parent `build_benchmark`.

The flows only wire the plain stage functions (pipeline.passages, pipeline.generate, ...) and
add what Prefect is for: retries on network steps, a cross-run cache of generation results,
progress and count artifacts, schedules (flows.yaml) and scale-out (a Dask task runner).

Every flow takes its run folder and the configuration file path (plain strings, so a
deployment can pass them), and skips a stage whose done-marker matches its inputs
(pipeline.orchestration.markers), so re-running a finished or crashed run redoes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any
from uuid import UUID

from prefect import flow, task
from prefect.artifacts import (
    create_markdown_artifact,
    create_progress_artifact,
    create_table_artifact,
    update_progress_artifact,
)
from prefect.cache_policies import INPUTS, TASK_SOURCE
from prefect.futures import as_completed
from prefect.states import Completed, Failed, State
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner
from prefect.tasks import exponential_backoff

from pipeline import generate as generate_stage
from pipeline import passages as passages_stage
from pipeline.config import (
    Config,
    EvaluateConfig,
    ExportConfig,
    GenerateConfig,
    LLMConfig,
    ReviewConfig,
    TrainConfig,
)
from pipeline.errors import ComlqError, ServiceUnavailable
from pipeline.generator import GenerationResult, get_generator, note_shortfalls
from pipeline.orchestration import markers, review_runs
from pipeline.orchestration.parameters import PARAMETERS, expand_run_dir, run_config  # noqa: F401 - re-exported
from pipeline.orchestration.secret import use_secret_token
from pipeline.passages import load_passages
from pipeline.progress import Progress as StepBar
from pipeline.querytypes import TYPE_NAMES
from pipeline.records import Passage
from pipeline.runfolder import STAGES, BeirFolder, RunFolder, latest_export, runs_under
from pipeline.schemas import read_json

PROMPTS = Path(str(resources.files("prompts")))  # the generators' templates (part of the generate key)
AWAITING_REVIEW = "AwaitingReview"  # the name of the state a run ends in after its push
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


# ---------------------------------------------------------------------------- configuration


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


# ---------------------------------------------------------------------------- progress


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


def once(run: RunFolder, stage: str, work: Callable[[], dict[str, Any]], *settings: Any,
         inputs: Sequence[str | Path] = ()) -> dict[str, Any]:
    """Run `work` unless the stage is done; returns its counts.

    Done means: its marker's key matches the settings and the contents of what the stage reads
    (`STAGES`, plus `inputs`), and what it writes exists.
    """
    stage_key = markers.stage_key(run, stage, *settings, inputs=tuple(inputs))
    marker = markers.done(run.root, stage, stage_key)
    skipped = marker is not None and all(path.exists() for path in run.paths(STAGES[stage].writes))
    if skipped:
        log.info("%s: already done, skipped (its inputs and settings match %s)", stage, run.marker(stage))
    counts = marker["counts"] if skipped else markers.mark(run.root, stage, stage_key, work())["counts"]
    counts_artifact(stage, counts, skipped)
    return counts


# ---------------------------------------------------------------------------- stage: passages


@task(name="select-passages", **NETWORK_RETRIES)  # hf: sources stream from the Hub
def select_passages_task(source: str, out: str, limit: int | None) -> int:
    return passages_stage.select_passages(source, out, limit)


@flow(name="select-passages")
def select_passages_flow(run_dir: str, source: str = "sample", limit: int | None = None) -> dict[str, Any]:
    """Passages from `source` (sample | path | hf:NAME[:CONFIG]) to RUN/passages.jsonl."""
    run = RunFolder(run_dir)
    return once(run, "passages", lambda: {"passages": select_passages_task(source, str(run.passages), limit)},
                source, limit, inputs=[source])  # a local file's content counts too


# ---------------------------------------------------------------------------- stage: generate

# Cached across runs on the chunk's settings, the passages' content and this task's source, so
# a re-run (or a run after a crash) repeats no finished chunk; within a chunk the LLM
# generator's own call cache (RUN/cache/llm) covers the calls made before a crash.
CHUNK_CACHE = (INPUTS - "passages_path" - "out_dir" - "llm_cache") + TASK_SOURCE


@task(name="generate-chunk", cache_policy=CHUNK_CACHE, persist_result=True)
def generate_chunk(generate: GenerateConfig, llm: LLMConfig, passages_digest: str, types: tuple[str, ...],
                   passages_path: str, out_dir: str, llm_cache: str) -> GenerationResult:
    """Generate the items of some query types (one chunk of the generation stage).

    llm_cache: the LLM call cache folder when the configuration names none (not part of the key).
    """
    if llm.cache_dir is None:
        llm = replace(llm, cache_dir=llm_cache)
    return generate_stage.generate(Config(generate=generate, llm=llm), passages_path, out_dir, types)


@task(name="generate-prepare")
def prepare_task(generate: GenerateConfig, llm: LLMConfig, passages: list[Passage]) -> int:
    """One batch of a generator's preparation (the kg generator's extraction), cached by the generator."""
    get_generator(generate.generator).prepare(passages, Config(generate=generate, llm=llm))
    return len(passages)


def chunked(items: Sequence[Any], size: int) -> list[tuple[Any, ...]]:
    return [tuple(items[i:i + size]) for i in range(0, len(items), max(size, 1))]


@flow(name="generate", task_runner=ThreadPoolTaskRunner(max_workers=1))
def generate_flow(run_dir: str, config: str | None = None, generator: str | None = None,
                  per_type: int | None = None, seed: int | None = None, types: list[str] | None = None,
                  types_per_chunk: int | None = None) -> dict[str, Any]:
    """RUN/passages.jsonl -> RUN/items.jsonl, rejected.jsonl, stats.json, in chunks of query types.

    types_per_chunk: default the generator's own (all 14 in one chunk for `kg`, whose graph is
    built once per chunk; one type per chunk for `llm`). Chunks run one at a time in-process, so
    the LLM client's own pool (llm.concurrency) is the only concurrency against the endpoint; on
    Dask each worker process runs one chunk at a time.
    """
    cfg = run_config(config, generator=generator, per_type=per_type, seed=seed)
    cfg.generate = replace(cfg.generate, allow_short=False)  # checked after generation: not part of its keys
    run = RunFolder(run_dir)
    wanted = generate_stage.check_types(tuple(types or TYPE_NAMES))
    gen = get_generator(cfg.generate.generator)
    chunks = chunked(wanted, types_per_chunk or gen.types_per_chunk or len(wanted))

    def work() -> dict[str, Any]:
        task_ = generate_chunk.with_options(**NETWORK_RETRIES) if gen.network else generate_chunk
        digest = markers.digest(run.passages)
        if gen.prepare_batch:
            batches = chunked(list(load_passages(run.passages).values()), gen.prepare_batch)
            with progress(len(batches), "prepare", "comlq-prepare-progress") as bar:
                for future in as_completed([prepare_task.submit(cfg.generate, cfg.llm, list(b)) for b in batches]):
                    future.result()
                    bar.step()
        with progress(len(chunks), "generate", "comlq-generate-progress") as bar:
            # submitted in order; the task runner decides how many run at once
            futures = [task_.submit(cfg.generate, cfg.llm, digest, chunk, str(run.passages),
                                    str(run.root if len(chunks) == 1 else run.chunk(chunk).root),
                                    str(run.llm_cache))  # one call cache per run, whatever the chunking
                       for chunk in chunks]
            for _ in as_completed(futures):
                bar.step()
        results = [future.result() for future in futures]
        merged = note_shortfalls(GenerationResult([i for r in results for i in r.items],
                                                  [x for r in results for x in r.rejected],
                                                  gen.merge_stats([r.stats for r in results])),
                                 wanted, cfg.generate.per_type, gen.name)  # again: a cached chunk may predate it
        gen.write(merged, run.root)  # also when a cached chunk result stood in for running it
        counts = {"items": len(merged.items), "rejected": len(merged.rejected)}
        for item in merged.items:
            counts[f"items {item.type}"] = counts.get(f"items {item.type}", 0) + 1
        return counts

    # the triples file's and the prompt templates' contents count, not only their names
    return once(run, "generate", work, cfg.generate, cfg.llm, wanted, len(chunks),
                inputs=[*([cfg.generate.triples] if cfg.generate.triples else []), PROMPTS])


# ---------------------------------------------------------------------------- stage: review


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
    return once(RunFolder(run_dir), review_runs.PUSH_STAGE, work, *review_runs.push_settings(cfg))


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


# ---------------------------------------------------------------------------- stage: export


@task(name="export")
def export_task(run_dir: str, out: str, config: ExportConfig) -> dict[str, int]:
    from pipeline.export.stage import export

    result = export(run_dir, out, config)
    return {**{f"queries {split}": n for split, n in result.splits.items()},
            "corpus": result.corpus, "left out": result.dropped_items}


@flow(name="export")
def export_flow(run_dir: str, config: str | None = None) -> dict[str, Any]:
    """RUN (items, or review/reviewed.jsonl when reviewed) -> RUN/export (DatasetDict, Parquet, BEIR, card)."""
    cfg = run_config(config)
    run = RunFolder(run_dir)
    return once(run, "export", lambda: export_task(run_dir, str(run.export.root), cfg.export), cfg.export)


# ---------------------------------------------------------------------------- stage: train


def uses_run_reranker(evaluate: EvaluateConfig) -> bool:
    """Whether the evaluation needs the run's own reranker (a `rerank` spec without model=, model auto)."""
    return evaluate.reranker_model == "auto" and any(
        spec.startswith("rerank") and "model=" not in spec for spec in evaluate.retrievers)


@task(name="train-reranker")
def train_task(export_dir: str, out: str, config: TrainConfig) -> dict[str, Any]:
    from retrieval.train import train_reranker

    info = train_reranker(export_dir, out, config, progress=True)  # minutes: the bar shows how many
    scores = info["validation"].get("nDCG@10", {})
    return {"groups": info["examples"]["groups"], "seconds": info["training"]["seconds"],
            **{f"validation nDCG@10 {name}": value for name, value in scores.items()}}


@flow(name="train")
def train_flow(run_dir: str, config: str | None = None) -> dict[str, Any]:
    """RUN/export (train and validation splits) -> RUN/models/reranker, when the evaluation uses
    it; trained again only when the export or the [train] settings change."""
    cfg = run_config(config)
    run = RunFolder(run_dir)
    if not uses_run_reranker(cfg.evaluate):
        return {"model": "not trained (no rerank retriever with model=auto)"}
    return once(run, "train", lambda: train_task(str(run.export.root), str(run.models.reranker.root), cfg.train),
                cfg.train)


# ---------------------------------------------------------------------------- stage: evaluate


@task(name="evaluate")
def evaluate_task(beir: str, out: str, config: Config) -> dict[str, Any]:
    from retrieval.evaluate import run_evaluation

    metrics = run_evaluation(beir, out, config)
    return {f"nDCG@10 {name}": round(result["overall"]["nDCG@10"], 4)
            for name, result in metrics["retrievers"].items()}


# Cached on the model, the cache folder and the chunk's content (not the texts themselves).
ENCODE_CACHE = (INPUTS - "texts") + TASK_SOURCE
ENCODE_CHUNK = 5000  # passages per encoding task


@task(name="encode-chunk", cache_policy=ENCODE_CACHE, persist_result=True)
def encode_chunk(settings: EvaluateConfig, api_key_env: str, cache_dir: str, texts_digest: str,
                 texts: list[str]) -> int:
    """Encode passages into retrieval's embedding cache; returns how many were not cached yet."""
    from retrieval.encoders import make_encoder

    encoder = make_encoder(settings.model, settings.embeddings_base_url, api_key_env, cache_dir)
    encoder.encode(texts, progress=False)
    return encoder.encoded


@flow(name="encode-corpus")
def encode_corpus_flow(beir: str, config: str | None = None) -> dict[str, Any]:
    """Fill the embedding cache for a BEIR corpus in chunks, so the evaluation finds every
    passage encoded; with a Dask task runner the chunks are encoded on the cluster's workers
    (whose cache folder must then be shared)."""
    from retrieval.beir import load_corpus
    from retrieval.registry import default_cache_dir

    cfg = run_config(config)
    cache_dir = str(cfg.evaluate.cache_dir or default_cache_dir())
    texts = list(load_corpus(BeirFolder(beir).corpus).texts)
    chunks = [texts[i:i + ENCODE_CHUNK] for i in range(0, len(texts), ENCODE_CHUNK)]
    with progress(len(chunks), "encode", "comlq-encode-progress") as bar:
        futures = [encode_chunk.submit(cfg.evaluate, cfg.llm.api_key_env, cache_dir,
                                       markers.key(*chunk), chunk) for chunk in chunks]
        for _ in as_completed(futures):
            bar.step()
    wait_for = [future.result() for future in futures]  # raises a chunk's error here
    counts = {"passages": len(texts), "chunks": len(wait_for)}
    counts_artifact("encode", counts, skipped=False)
    return counts


@flow(name="evaluate")
def evaluate_flow(run_dir: str = "latest", config: str | None = None, runs_root: str = "runs",
                  task_runner: str = "threads", dask_address: str | None = None) -> dict[str, Any]:
    """RUN/export/beir -> RUN/report (metrics.json, TREC runs, report.md, plots).

    run_dir "latest": the run folder under runs_root with the newest export (weekly schedule).
    task_runner dask: encode the corpus on Dask workers first (encode-corpus).
    """
    from retrieval.registry import needs_embeddings

    if run_dir == "latest":
        latest = latest_export(runs_root)
        if latest is None:
            raise ComlqError(f"{runs_root}: no run folder with an export yet")
        run_dir = str(latest.root)
    cfg = run_config(config)
    run = RunFolder(run_dir)
    beir = str(run.export.beir.root)
    model = run.models.reranker
    if uses_run_reranker(cfg.evaluate) and model.info.is_file():  # the run's own model, not the newest anywhere
        cfg.evaluate.reranker_model = str(model.root)

    def work() -> dict[str, Any]:
        if task_runner == "dask" and any(needs_embeddings(spec) for spec in cfg.evaluate.retrievers):
            encode_corpus_flow.with_options(task_runner=make_task_runner(task_runner, dask_address))(beir, config)
        return evaluate_task(beir, str(run.report.root), cfg)

    # llm: parse=llm and rewrite; the model's comlq.json changes whenever it is trained again
    return once(run, "evaluate", work, cfg.evaluate, cfg.llm, inputs=(model.info,))


# ---------------------------------------------------------------------------- the parent flow


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
