"""Dense retrieval: cosine similarity between unit-vector embeddings of queries and passages."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from retrieval.base import Corpus, Query, Run, top_k
from retrieval.encoders import CachedEncoder

BATCH = 256  # queries scored per matrix product: bounds memory at 100k+ passages


class DenseRetriever:
    name = "dense"

    def __init__(self, encoder: CachedEncoder, progress: bool = True):
        self.encoder = encoder
        self.progress = progress
        self._corpus: Corpus | None = None
        self._matrix: np.ndarray | None = None

    def index(self, corpus: Corpus) -> None:
        if self._corpus is corpus:  # shared by several retrievers (e.g. dense and itlr): index once
            return
        self._corpus = corpus
        self._matrix = self.encoder.encode(corpus.texts, progress=self.progress, desc="encoding passages")

    @property
    def model(self) -> str:
        return self.encoder.name

    def describe(self) -> dict[str, object]:
        return {"model": self.model, "precision": self.encoder.precision}

    @property
    def corpus(self) -> Corpus:
        if self._corpus is None:
            raise RuntimeError("DenseRetriever.index(corpus) must be called before retrieving")
        return self._corpus

    @property
    def matrix(self) -> np.ndarray:
        """(passages, dim) unit vectors, row i = corpus.ids[i]."""
        self.corpus  # noqa: B018 - raises if not indexed
        assert self._matrix is not None
        return self._matrix

    def prepare(self, texts: Sequence[str]) -> None:
        """Embed texts ahead in one call (ITLR: every distinct term of a batch once)."""
        self.encoder.encode(texts, progress=self.progress, desc="encoding terms")

    def term_scores(self, texts: Sequence[str], rows: np.ndarray | None = None) -> np.ndarray:
        """(len(texts), passages) cosine similarities; with `rows`, on those passages only."""
        vectors = self.encoder.encode(texts, progress=self.progress, desc="encoding queries")
        return vectors @ (self.matrix if rows is None else self.matrix[rows]).T

    def retrieve(self, queries: Sequence[Query], k: int) -> Run:
        run: Run = {}
        for start in range(0, len(queries), BATCH):
            batch = queries[start:start + BATCH]
            scores = self.term_scores([q.text for q in batch])
            run.update({q.id: top_k(self.corpus.ids, scores[row], k) for row, q in enumerate(batch)})
        return run
