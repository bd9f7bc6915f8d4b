"""Generation chunks on a local Dask cluster of process workers (prefect-dask)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest


@pytest.mark.slow
def test_generation_chunks_run_on_dask_process_workers_and_fill_the_shared_cache(
        line: Any, calls: Counter[str], small_config: Path, tmp_path: Path) -> None:
    from pipeline.orchestration.flows import generate_flow, make_task_runner

    dask_dir, threads_dir = tmp_path / "dask", tmp_path / "threads"
    for run_dir in (dask_dir, threads_dir):
        run_dir.mkdir()
        shutil.copy(line.run_dir / "passages.jsonl", run_dir)
    on_dask = generate_flow.with_options(task_runner=make_task_runner("dask", dask_workers=1))
    counts = on_dask(str(dask_dir), str(small_config), types_per_chunk=7)
    assert calls["generate"] == 0  # ran in the worker processes, not in this one
    chunks = sorted(p.name for p in (dask_dir / "chunks").iterdir())
    assert len(chunks) == 2 and counts["items"] == len((dask_dir / "items.jsonl").read_text().splitlines())
    made = {json.loads(row)["type"] for row in (dask_dir / "items.jsonl").read_text().splitlines()}
    short = set(json.loads((dask_dir / "stats.json").read_text())["short_types"])
    assert made | short == {t for chunk in chunks for t in chunk.split("-")}  # every chunk's types, or said short

    # the same chunks in this process come from the result store the workers wrote
    assert generate_flow(str(threads_dir), str(small_config), types_per_chunk=7) == counts
    assert calls["generate"] == 0
    assert (threads_dir / "items.jsonl").read_bytes() == (dask_dir / "items.jsonl").read_bytes()


@pytest.mark.slow
def test_the_corpus_is_encoded_on_dask_workers_into_the_embedding_cache(line: Any, tmp_path: Path) -> None:
    from pipeline.orchestration.flows import encode_corpus_flow, make_task_runner
    from retrieval.beir import load_corpus
    from retrieval.encoders import make_encoder

    cache = tmp_path / "embeddings"
    config = tmp_path / "dense.toml"
    config.write_text(f'[evaluate]\nretrievers = ["dense"]\ncache_dir = "{cache}"\n')
    beir = line.run_dir / "export" / "beir"
    on_dask = encode_corpus_flow.with_options(task_runner=make_task_runner("dask", dask_workers=1))
    counts = on_dask(str(beir), str(config))
    texts = load_corpus(beir / "corpus.jsonl").texts
    assert counts == {"passages": len(texts), "chunks": 1}
    encoder = make_encoder(cache_dir=cache)  # in this process: every passage is already in the cache
    encoder.encode(texts, progress=False)
    assert encoder.encoded == 0


@pytest.mark.slow
def test_kg_extraction_runs_as_prepare_tasks_on_dask_and_a_second_run_skips_it(
        harness: Path, small_config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pipeline.kg import cache as reading_cache
    from pipeline.orchestration.flows import generate_flow, make_task_runner

    fixture = Path(__file__).parents[1] / "kg" / "fixtures" / "wiki.passages.jsonl"
    monkeypatch.setenv("COMLQ_CACHE", str(tmp_path / "cache"))  # inherited by the cluster's workers
    first, second = tmp_path / "first", tmp_path / "second"
    for run_dir in (first, second):
        run_dir.mkdir()
        shutil.copy(fixture, run_dir / "passages.jsonl")
    on_dask = generate_flow.with_options(task_runner=make_task_runner("dask", dask_workers=1))
    counts = on_dask(str(first), str(small_config), types=["1p"])
    readings = list((tmp_path / "cache" / "kg-readings").rglob("*.json"))
    assert len(readings) == len(fixture.read_text().splitlines()) and counts["items"] >= 1

    def no_spacy():
        raise AssertionError("spaCy loaded although every passage was read before")

    monkeypatch.setattr(reading_cache.nlp, "load", no_spacy)  # this process runs the threads flow
    assert generate_flow(str(second), str(small_config), types=["1p"]) == counts
