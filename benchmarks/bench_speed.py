"""Speed side by side on this machine's cores, with ratios: a MiniLM-L6 cross-encoder scoring
(question, passage) pairs in fp32, bf16 (CPU autocast) and int8 (torch dynamic quantization of
the linear layers) at max_length 256 and at a max_length fitted to the passages, and the MiniLM
bi-encoder encoding passages in fp32 and bf16.

    .venv/bin/python benchmarks/bench_speed.py [--model DIR] [--queries 6] [--passages 128] [--rounds 2]

Pairs: BM25's top 30 for a seeded sample of ComLQ dev questions (corpus shuffled). The
cross-encoder is --model (a CrossEncoder folder, e.g. one `comlq train reranker` wrote) or by
default the packaged all-MiniLM-L6-v2 with a fresh one-logit head: every reranker trained here
starts from it, so the arithmetic, and the speed, are the same. Variants run in interleaved
rounds (the machine is shared) and the median is reported; model loading and a warm-up batch are
outside the clock. Agreement: per question, the overlap of the top 10 with fp32 at 256, and the
largest score difference. Goals (issue 15): reranking >= 80 pairs/s; the dense fast path >= 2x
fp32's passages/s. The load average is printed with every figure: compare ratios, not rates.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from retrieval.base import ranked
from retrieval.beir import load_beir
from retrieval.bm25 import BM25Retriever
from retrieval.encoders import native_bf16
from retrieval.rerank import quiet_loading
from retrieval.shuffle import shuffle_corpus
from retrieval.train import base_model_path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from bench_dense import speed as encoding_speed  # noqa: E402
from bench_rerank import fitted_length, top10_overlap  # noqa: E402

PER_QUERY = 30  # BM25 candidates per question, as rerank(k=30)
GOAL_PAIRS, GOAL_DENSE = 80.0, 2.0


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def cross_encoder(path: str, max_length: int, precision: str):
    """A fresh CrossEncoder (never the cached one: int8 quantizes the weights in place)."""
    import torch
    from sentence_transformers import CrossEncoder

    with quiet_loading():
        model = CrossEncoder(path, num_labels=1, max_length=max_length, device="cpu")
    if precision == "int8":
        # as retrieval.encoders quantizes the bi-encoder: every Linear of the whole model
        model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    return model


def predict(model, pairs: list[tuple[str, str]], precision: str) -> np.ndarray:
    import torch

    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bf16"):
        return np.asarray(model.predict(pairs, batch_size=32, activation_fn=torch.nn.Identity(),
                                        show_progress_bar=False), dtype=np.float64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="CrossEncoder folder (default: packaged MiniLM, fresh head)")
    parser.add_argument("--beir", default=str(ROOT.parent.parent / "shared" / "data" / "comlq"))
    parser.add_argument("--queries", type=int, default=6, help="questions sampled (x30 pairs)")
    parser.add_argument("--passages", type=int, default=128, help="passages encoded per bi-encoder round")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    path = args.model or base_model_path()
    torch_threads = __import__("torch").get_num_threads()
    print(f"cores {os.cpu_count()}, torch threads {torch_threads}, native bf16 {native_bf16()}, {load()}")

    data, _ = shuffle_corpus(load_beir(args.beir, "dev"), 1)
    texts = dict(zip(data.corpus.ids, data.corpus.texts))
    bm25 = BM25Retriever()
    bm25.index(data.corpus)
    queries = random.Random(7).sample(data.queries, args.queries)
    run = bm25.retrieve(queries, PER_QUERY)
    pairs = [(q.text, texts[pid]) for q in queries for pid, _ in ranked(run[q.id])[:PER_QUERY]]
    fitted = fitted_length(cross_encoder(path, 512, "fp32"), pairs)
    print(f"\ncross-encoder {path}: {len(pairs)} pairs (BM25 top {PER_QUERY} of {len(queries)} ComLQ dev "
          f"questions); fitted max_length {fitted} (99th percentile of the pairs' tokens, rounded up to 32)")

    variants = [(p, n) for n in (256, fitted) for p in ("fp32", "bf16", "int8")]
    models = {v: cross_encoder(path, v[1], v[0]) for v in variants}
    seconds: dict[tuple[str, int], list[float]] = {v: [] for v in variants}
    scores: dict[tuple[str, int], np.ndarray] = {}
    for v, model in models.items():
        predict(model, pairs[:32], v[0])  # warm-up
    for _ in range(args.rounds):
        for v, model in models.items():
            started = time.perf_counter()
            scores[v] = predict(model, pairs, v[0])
            seconds[v].append(time.perf_counter() - started)
    rate = {v: len(pairs) / statistics.median(s) for v, s in seconds.items()}
    reference = ("fp32", 256)
    for v in variants:
        diff = np.abs(scores[v] - scores[reference]).max()
        print(f"  {v[0]:4} max_length {v[1]:3}: {rate[v]:6.1f} pairs/s  x{rate[v] / rate[reference]:.2f} fp32@256  "
              f"top-10 overlap {top10_overlap(scores[reference], scores[v], PER_QUERY):.3f}  max |diff| {diff:.3f}")
    best = max(rate, key=rate.get)
    print(f"  fastest: {best[0]} at {best[1]}, {rate[best]:.1f} pairs/s (goal {GOAL_PAIRS:.0f}: "
          f"{'PASS' if rate[best] >= GOAL_PAIRS else 'FAIL'}) ({load()})")

    passages = random.Random(7).sample(list(data.corpus.texts), args.passages)
    dense = encoding_speed(passages, ["fp32", "bf16"], args.rounds)
    ratio = dense["bf16"] / dense["fp32"]
    print(f"\nbi-encoder all-MiniLM-L6-v2, {args.passages} passages x {args.rounds} rounds (batch 64):")
    print(f"  fp32 {dense['fp32']:6.1f} passages/s\n  bf16 {dense['bf16']:6.1f} passages/s  x{ratio:.2f} fp32 "
          f"(goal {GOAL_DENSE:.0f}x: {'PASS' if ratio >= GOAL_DENSE else 'FAIL'}) ({load()})")


if __name__ == "__main__":
    main()
