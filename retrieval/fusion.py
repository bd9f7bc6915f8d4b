"""Reciprocal-rank fusion (Cormack et al., 2009): score(d) = sum over runs of 1 / (k0 + rank(d))."""

from __future__ import annotations

from collections.abc import Sequence

from retrieval.base import Corpus, Query, Retriever, Run, ranked


def rrf(runs: Sequence[Run], k0: int = 60) -> Run:
    """Fuse runs; ranks follow trec_eval order (1 = best)."""
    fused: Run = {}
    for run in runs:
        for qid, scores in run.items():
            target = fused.setdefault(qid, {})
            for rank, (pid, _) in enumerate(ranked(scores), start=1):
                target[pid] = target.get(pid, 0.0) + 1.0 / (k0 + rank)
    return fused


class FusionRetriever:
    def __init__(self, retrievers: Sequence[Retriever], name: str, k0: int = 60, depth: int = 100):
        self.retrievers = list(retrievers)
        self.name = name
        self.k0 = k0
        self.depth = depth  # passages taken from each fused run

    def describe(self) -> dict[str, object]:
        return {"fused": [r.name for r in self.retrievers], "k0": self.k0, "depth": self.depth}

    def index(self, corpus: Corpus) -> None:
        for retriever in self.retrievers:
            retriever.index(corpus)

    def retrieve(self, queries: Sequence[Query], k: int) -> Run:
        depth = max(k, self.depth)
        fused = rrf([r.retrieve(queries, depth) for r in self.retrievers], self.k0)
        return {qid: dict(ranked(scores)[:k]) for qid, scores in fused.items()}
