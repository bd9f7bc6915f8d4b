"""The generation flows: select-passages (RUN/passages.jsonl) and generate (items, in chunks of query types)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from prefect import flow, task
from prefect.cache_policies import INPUTS, TASK_SOURCE
from prefect.futures import as_completed
from prefect.task_runners import ThreadPoolTaskRunner

from pipeline import generate as generate_stage
from pipeline import passages as passages_stage
from pipeline.config import Config, GenerateConfig, LLMConfig
from pipeline.generator import GenerationResult, get_generator, note_shortfalls
from pipeline.orchestration import markers
from pipeline.orchestration.flows.common import NETWORK_RETRIES, once, progress
from pipeline.orchestration.parameters import run_config
from pipeline.orchestration.plan import chunked, generation, passages_step
from pipeline.passages import load_passages
from pipeline.records import Passage
from pipeline.runfolder import RunFolder


@task(name="select-passages", **NETWORK_RETRIES)  # hf: sources stream from the Hub
def select_passages_task(source: str, out: str, limit: int | None) -> int:
    return passages_stage.select_passages(source, out, limit)


@flow(name="select-passages")
def select_passages_flow(run_dir: str, source: str = "sample", limit: int | None = None) -> dict[str, Any]:
    """Passages from `source` (sample | path | hf:NAME[:CONFIG]) to RUN/passages.jsonl."""
    run = RunFolder(run_dir)
    return once(run, passages_step(source, limit),
                lambda: {"passages": select_passages_task(source, str(run.passages), limit)})


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
    run = RunFolder(run_dir)
    plan = generation(cfg, types, types_per_chunk)
    gen, chunks = get_generator(plan.generate.generator), plan.chunks

    def work() -> dict[str, Any]:
        task_ = generate_chunk.with_options(**NETWORK_RETRIES) if gen.network else generate_chunk
        digest = markers.digest(run.passages)
        if gen.prepare_batch:
            batches = chunked(list(load_passages(run.passages).values()), gen.prepare_batch)
            with progress(len(batches), "prepare", "comlq-prepare-progress") as bar:
                for future in as_completed([prepare_task.submit(plan.generate, cfg.llm, list(b)) for b in batches]):
                    future.result()
                    bar.step()
        with progress(len(chunks), "generate", "comlq-generate-progress") as bar:
            # submitted in order; the task runner decides how many run at once
            futures = [task_.submit(plan.generate, cfg.llm, digest, chunk, str(run.passages),
                                    str(run.root if len(chunks) == 1 else run.chunk(chunk).root),
                                    str(run.llm_cache))  # one call cache per run, whatever the chunking
                       for chunk in chunks]
            for _ in as_completed(futures):
                bar.step()
        results = [future.result() for future in futures]
        merged = note_shortfalls(GenerationResult([i for r in results for i in r.items],
                                                  [x for r in results for x in r.rejected],
                                                  gen.merge_stats([r.stats for r in results])),
                                 plan.types, plan.generate.per_type, gen.name)  # again: a cached chunk may predate it
        gen.write(merged, run.root)  # also when a cached chunk result stood in for running it
        counts = {"items": len(merged.items), "rejected": len(merged.rejected)}
        for item in merged.items:
            counts[f"items {item.type}"] = counts.get(f"items {item.type}", 0) + 1
        return counts

    return once(run, plan.step, work)
