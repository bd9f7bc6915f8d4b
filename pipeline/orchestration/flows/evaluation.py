"""The flows after the items: export (RUN/export), train (RUN/models/reranker, when the evaluation
uses it), encode-corpus (the embedding cache, on Dask) and evaluate (RUN/report)."""

from __future__ import annotations

from typing import Any

from prefect import flow, task
from prefect.cache_policies import INPUTS, TASK_SOURCE
from prefect.futures import as_completed

from pipeline.config import Config, EvaluateConfig, ExportConfig, TrainConfig
from pipeline.errors import ComlqError
from pipeline.orchestration import markers
from pipeline.orchestration.flows.common import counts_artifact, make_task_runner, once, progress
from pipeline.orchestration.parameters import run_config
from pipeline.orchestration.plan import (
    NOT_TRAINED,
    evaluation,
    export_step,
    say_not_trained,
    train_step,
    uses_run_reranker,
)
from pipeline.runfolder import BeirFolder, RunFolder, latest_export


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
    return once(run, export_step(cfg), lambda: export_task(run_dir, str(run.export.root), cfg.export))


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
        say_not_trained()
        return dict(NOT_TRAINED)
    model = str(run.models.reranker.root)
    return once(run, train_step(cfg), lambda: train_task(str(run.export.root), model, cfg.train))


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
    cfg.evaluate, step = evaluation(cfg, run)  # with the run's own reranker when it uses one

    def work() -> dict[str, Any]:
        if task_runner == "dask" and any(needs_embeddings(spec) for spec in cfg.evaluate.retrievers):
            encode_corpus_flow.with_options(task_runner=make_task_runner(task_runner, dask_address))(beir, config)
        return evaluate_task(beir, str(run.report.root), cfg)

    return once(run, step, work)

