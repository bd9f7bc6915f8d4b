"""BM25 with bm25s, English Snowball stemming and English stop words (as the ComLQ authors ran it).

`term_scores` gives the BM25 score of any text (a query, or one ITLR term) against every
passage, so ITLR can run over BM25 as well as over dense similarities.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from retrieval.base import Corpus, Query, Run, top_k


class BM25Retriever:
    name = "bm25"

    def __init__(self, k1: float = 1.5, b: float = 0.75, method: str = "lucene"):
        import bm25s
        import Stemmer

        logging.getLogger("bm25s").setLevel(logging.WARNING)  # bm25s sets its own logger to DEBUG
        self._bm25s = bm25s
        self._stemmer = Stemmer.Stemmer("english")
        self._model = bm25s.BM25(k1=k1, b=b, method=method)
        self._corpus: Corpus | None = None
        self.settings = {"k1": k1, "b": b, "method": method, "stemmer": "snowball english", "stopwords": "en"}

    def describe(self) -> dict[str, object]:
        return dict(self.settings)

    def _tokens(self, texts: Sequence[str]) -> list[list[str]]:
        return self._bm25s.tokenize(list(texts), stopwords="en", stemmer=self._stemmer,
                                    return_ids=False, show_progress=False)

    def index(self, corpus: Corpus) -> None:
        if self._corpus is corpus:  # shared by several retrievers (e.g. dense and itlr): index once
            return
        self._corpus = corpus
        tokens = self._bm25s.tokenize(list(corpus.texts), stopwords="en", stemmer=self._stemmer, show_progress=False)
        self._model.index(tokens, show_progress=False)

    @property
    def corpus(self) -> Corpus:
        if self._corpus is None:
            raise RuntimeError("BM25Retriever.index(corpus) must be called before retrieving")
        return self._corpus

    def term_scores(self, texts: Sequence[str], rows: np.ndarray | None = None) -> np.ndarray:
        """(len(texts), passages) BM25 scores (with `rows`: those passages only); a text with no
        indexed token scores 0 everywhere."""
        out = np.zeros((len(texts), len(self.corpus)), dtype=np.float32)
        for row, tokens in enumerate(self._tokens(texts)):
            ids = self._model.get_tokens_ids(tokens)
            if ids:
                out[row] = self._model.get_scores_from_ids(ids)
        return out if rows is None else out[:, rows]  # sparse scoring of every passage is cheap

    def retrieve(self, queries: Sequence[Query], k: int) -> Run:
        # one query at a time: a (queries x passages) matrix would not fit for large corpora
        return {q.id: top_k(self.corpus.ids, self.term_scores([q.text])[0], k) for q in queries}
