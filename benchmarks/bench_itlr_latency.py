"""Query latency of ITLR against dense retrieval for the same queries over 100k passages.

    .venv/bin/python benchmarks/bench_itlr_latency.py [--passages 100000] [--queries 300] [--repeat 3]

The 100k passage vectors are synthetic: the 11,251 real ComLQ passage embeddings (read from
the embedding cache; run benchmarks/bench_comlq.py once first) plus copies of them with
Gaussian noise (sigma 0.05 per dimension, renormalised), so score distributions look like a
real corpus while nothing has to be encoded. Query-time work is real: the ComLQ dev
questions (dense) or every distinct term of their rule-parsed logical forms (ITLR) are encoded
by all-MiniLM-L6-v2 with an empty query cache, scored against all passages, combined (ITLR:
product operators on the union of each positive term's top 1000) and cut to the top 100.
Rates are given per wall-clock and per CPU second of this process (steadier on a shared
machine); end to end (query encoding included) and scoring only (query vectors cached).
Goal: ITLR latency <= 1.3 x dense.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pipeline.config import Config
from pipeline.errors import ComlqError
from pipeline.logical_form import parse, terms
from retrieval.base import Corpus
from retrieval.beir import load_beir
from retrieval.dense import DenseRetriever
from retrieval.encoders import DEFAULT_MODEL, CachedEncoder, EmbeddingCache, SentenceTransformerEncoder, text_key
from retrieval.itlr import ITLRRetriever
from retrieval.logical_forms import RulesParser
from retrieval.registry import default_cache_dir

COMLQ = Path(__file__).resolve().parents[2] / "shared" / "data" / "comlq"


class PrecomputedCorpus:
    """An Encoder that answers corpus texts from a table and encodes anything else with a model."""

    def __init__(self, model: SentenceTransformerEncoder, table: dict[str, np.ndarray]):
        self.name = model.name
        self.model = model
        self.table = table

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if all(t in self.table for t in texts):
            return np.stack([self.table[t] for t in texts])
        return self.model.encode(texts)


def synthetic_corpus(size: int, seed: int) -> tuple[Corpus, dict[str, np.ndarray]]:
    data = load_beir(COMLQ, "dev")
    cache = EmbeddingCache(default_cache_dir(), DEFAULT_MODEL)
    rows = [cache.get(text_key(t)) for t in data.corpus.texts]
    if any(r is None for r in rows):
        raise ComlqError("ComLQ passages are not in the embedding cache: run benchmarks/bench_comlq.py first")
    real = np.stack(rows)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(real), size - len(real))
    noisy = real[picks] + rng.normal(0, 0.05, (len(picks), real.shape[1])).astype(np.float32)
    matrix = np.concatenate([real, noisy / np.linalg.norm(noisy, axis=1, keepdims=True)]).astype(np.float32)
    ids = tuple(f"p{i}" for i in range(size))
    return Corpus(ids, ids), dict(zip(ids, matrix))


def timed(retriever, queries) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    retriever.retrieve(queries, 100)
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300, help="ComLQ dev questions used (first N)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()

    corpus, table = synthetic_corpus(args.passages, args.seed)
    queries = load_beir(COMLQ, "dev").queries[: args.queries]
    model = SentenceTransformerEncoder(Config().evaluate.model)
    model.encode(["warm up"])

    def index(retriever):
        retriever.index(corpus)
        return retriever

    def dense() -> DenseRetriever:
        return index(DenseRetriever(CachedEncoder(PrecomputedCorpus(model, table), None), progress=False))

    def itlr(candidates: str):
        return lambda: index(ITLRRetriever(dense(), RulesParser(), candidates=candidates))

    forms = RulesParser()(queries)
    n_terms = sum(len(set(terms(parse(f)))) for f in forms)
    print(f"{len(corpus):,} passages, {len(queries)} queries "
          f"({n_terms} ITLR terms, {n_terms / len(queries):.2f} per query)")
    variants = {"dense": dense, "itlr (cand=terms, k=1000)": itlr("terms"), "itlr (cand=query, k=1000)": itlr("query")}
    for warm, what in [(False, "end to end (encoding + scoring)"), (True, "scoring only (query vectors cached)")]:
        # runs interleaved and the best of `repeat` kept, so a burst of load elsewhere hits all alike;
        # cold: a fresh retriever (empty query cache) per run; warm: one retriever, run once before
        warmed = {label: make() for label, make in variants.items()} if warm else {}
        for retriever in warmed.values():
            retriever.retrieve(queries, 100)
        best = {label: (float("inf"), float("inf")) for label in variants}
        for _ in range(args.repeat):
            for label, make in variants.items():
                wall, cpu = timed(warmed[label] if warm else make(), queries)
                best[label] = (min(best[label][0], wall), min(best[label][1], cpu))
        print(f"\n{what}: ms/query wall, CPU; ratio to dense (goal <= 1.3)")
        base = best["dense"]
        for label, (wall, cpu) in best.items():
            print(f"  {label:28} {1000 * wall / len(queries):7.1f} {1000 * cpu / len(queries):7.1f}   "
                  f"wall {wall / base[0]:.2f} x, CPU {cpu / base[1]:.2f} x")
        ratio = best["itlr (cand=terms, k=1000)"][1] / base[1]
        verdict = "PASS" if ratio <= 1.3 else "FAIL"
        print(f"  goal, itlr (cand=terms) CPU time <= 1.3 x dense: {ratio:.2f} x -> {verdict}")

if __name__ == "__main__":
    main()
