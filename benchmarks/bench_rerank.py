"""The reranker's speed, side by side in one run: scoring pairs in fp32 and bf16 at max_length 256
and at a max_length fitted to the passages (with the agreement of their rankings), training
examples/s in fp32 and bf16, and, with --full, a whole ComLQ dev evaluation with rerank(k=30)
on a cold and then a warm pair-score cache.

    .venv/bin/python benchmarks/bench_rerank.py [--model MODEL] [--queries 20] [--full]

Pairs are BM25's top 30 for the first --queries questions of ComLQ dev (corpus shuffled).
Goals: >= 80 pairs/s; training at least the 7 examples/s measured for fp32; the full evaluation
<= 600 s cold and <= 30 s warm. The machine is shared: the load average is printed with every
timing, and ratios measured in one run are the numbers to compare.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from pipeline.config import Config, TrainConfig
from retrieval.base import ranked
from retrieval.beir import load_beir
from retrieval.bm25 import BM25Retriever
from retrieval.evaluate import run_evaluation
from retrieval.rerank import load_cross_encoder, resolve_model

sys.path.insert(0, str(Path(__file__).resolve().parent))
from shuffled import shuffled_copy  # noqa: E402

ROOT = Path(__file__).resolve().parent


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def fitted_length(model, pairs: list[tuple[str, str]]) -> int:
    """The 99th percentile of the pairs' token counts, rounded up to a multiple of 32."""
    lengths = [len(model.tokenizer(q, p)["input_ids"]) for q, p in pairs]
    return int(np.ceil(np.percentile(lengths, 99) / 32) * 32)


def score(path: str, pairs, max_length: int, bf16: bool) -> tuple[np.ndarray, float]:
    import torch

    model = load_cross_encoder(path, max_length)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        model.predict(pairs[:32], batch_size=32, show_progress_bar=False)  # warm-up
        started = time.perf_counter()
        scores = model.predict(pairs, batch_size=32, show_progress_bar=False)
    return np.asarray(scores, dtype=np.float64), len(pairs) / (time.perf_counter() - started)


def top10_overlap(a: np.ndarray, b: np.ndarray, per_query: int) -> float:
    overlaps = []
    for start in range(0, len(a), per_query):
        top_a = set(np.argsort(-a[start:start + per_query])[:10])
        top_b = set(np.argsort(-b[start:start + per_query])[:10])
        overlaps.append(len(top_a & top_b) / 10)
    return float(np.mean(overlaps))


def training_speed(path: str, groups, bf16: bool, steps: int = 3) -> float:
    from sentence_transformers import CrossEncoder

    from retrieval.rerank import quiet_loading
    from retrieval.train import fit_cross_encoder

    with quiet_loading():
        model = CrossEncoder(path, num_labels=1, max_length=TrainConfig().max_length, device="cpu")
    config = TrainConfig(precision="bf16" if bf16 else "fp32", epochs=1)
    result = fit_cross_encoder(model, groups[:steps * config.batch_groups], config, progress=False)
    return result["pairs_per_second"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="auto", help="CrossEncoder folder (default: the newest run model)")
    parser.add_argument("--beir", default=str(ROOT.parent.parent / "shared" / "data" / "comlq"))
    parser.add_argument("--export", default="runs/default/export", help="export whose groups time the training")
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--full", action="store_true", help="also time a whole ComLQ dev evaluation, cold and warm")
    args = parser.parse_args()

    path = str(resolve_model(args.model))
    tmp = Path(tempfile.mkdtemp(prefix="bench-rerank-speed-"))
    beir = shuffled_copy(args.beir, tmp / "shuffled", 1)
    data = load_beir(beir, "dev")
    texts = dict(zip(data.corpus.ids, data.corpus.texts))
    bm25 = BM25Retriever()
    bm25.index(data.corpus)
    queries = data.queries[:args.queries]
    run = bm25.retrieve(queries, 30)
    pairs = [(q.text, texts[pid]) for q in queries for pid, _ in ranked(run[q.id])[:30]]
    fitted = fitted_length(load_cross_encoder(path, 256), pairs)

    print(f"model {path}; {len(pairs)} pairs (BM25 top 30 of {len(queries)} ComLQ dev questions); "
          f"fitted max_length {fitted} (99th percentile of the pairs' tokens)")
    reference, base = score(path, pairs, 256, bf16=False)
    print(f"fp32 max_length 256: {base:6.1f} pairs/s ({load()})")
    for name, length, bf16 in (("fp32", fitted, False), ("bf16", 256, True), ("bf16", fitted, True)):
        scores, speed = score(path, pairs, length, bf16)
        print(f"{name} max_length {length}: {speed:6.1f} pairs/s = {speed / base:.2f}x fp32@256; top-10 overlap "
              f"{top10_overlap(reference, scores, 30):.3f}, max |score diff| {np.abs(scores - reference).max():.3f} "
              f"({load()})")

    from retrieval.beir import load_corpus
    from retrieval.train import base_model_path
    from retrieval.train_data import build_groups, export_folder, read_rows, retrieve_for

    export = export_folder(args.export)
    rows = read_rows(export, "train")[:40]
    corpus = load_corpus(export.beir.corpus)
    negatives = TrainConfig().negatives  # the default training size
    groups = build_groups(rows, corpus, retrieve_for(rows, corpus, 30), negatives=negatives)
    fp32 = training_speed(base_model_path(), groups, bf16=False)
    bf16 = training_speed(base_model_path(), groups, bf16=True)
    print(f"training (listwise groups of {1 + negatives}, max_length {TrainConfig().max_length}): "
          f"fp32 {fp32:.1f} examples/s, bf16 {bf16:.1f} examples/s = {bf16 / fp32:.2f}x ({load()})")

    if args.full:
        config = Config().with_overrides({"evaluate.split": "dev", "evaluate.cache_dir": str(tmp / "cache")})
        spec = f"rerank(first=bm25,k=30,model={path})"
        for state in ("cold", "warm"):
            started = time.perf_counter()
            metrics = run_evaluation(beir, tmp / state, config, retrievers=[spec], progress=False)
            seconds = time.perf_counter() - started
            goal = 600 if state == "cold" else 30
            print(f"ComLQ dev evaluation, rerank k=30, {state} cache: {seconds:.0f} s (goal <= {goal} s; "
                  f"{metrics['retrievers'][spec]['config']['pairs_scored']} pairs scored; {load()})")


if __name__ == "__main__":
    main()
