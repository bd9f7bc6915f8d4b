"""The "logical" retriever: a soft-logic ITLR variant that beats BM25 on ComLQ (benchmarks/bench_comlq.py).

Why plain ITLR (NOT = 1 - x) fails on ComLQ, measured on the dev split (docs/results.md):
ComLQ's negation is a fact the evidence passage states ("... never reached the intense level
...", "with the exception of ... fictitious scientists"), so the gold passages mention the
negated concept: on average they contain 73% of its content words (random passages: 4%), and
removing the negated clause from the question lowers BM25 and dense. NOT = 1 - x therefore
pushes the gold passages down. And about half of BM25's top 10 for negation questions are
LLM-written passages restating the question (never relevant), which no term-level NOT separates.

So the score of passage d for a question q with logical form T (from any parser) is

    s(d) = H(q, d) + and_weight * mean_{positive terms t of T} H(t, d)
                   - not_weight * mean_{negated terms t of T} H(t, d)
    final(d) = s(d) + context * max(s(d - 1), s(d + 1))

H(t, d) = bm25_weight * z(BM25(t, d)) + (1 - bm25_weight) * z(cos(t, d)): each text's scores are
z-scored against its own top `z_depth` passages, so BM25 and cosine are on one scale. The whole
question stays a term (the negated concept is evidence in ComLQ); NOT is a soft penalty.
`context` adds the better neighbour in corpus order: ComLQ (like DPR-style Wikipedia) keeps an
article's 100-word passages at consecutive positions and spreads a query's evidence over 2-3 of
them. Set context=0 for a corpus whose order means nothing (e.g. one passage per article).
Defaults were tuned on half A of ComLQ dev (benchmarks/bench_comlq.py reports both halves).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pipeline.errors import ComlqError
from retrieval.base import Corpus, Query, Run, top_k
from pipeline.logical_form import terms
from retrieval.itlr import Parser, TermScorer, parse_queries


@dataclass(frozen=True)
class Weights:
    bm25_weight: float = 0.7  # share of BM25 in each term score; the rest is cosine
    and_weight: float = 0.0  # weight of the mean positive-term score (0: the question carries them)
    not_weight: float = 0.3  # soft NOT: subtract this times the mean negated-term score
    context: float = 0.5  # weight of the better neighbouring passage (corpus order)
    z_depth: int = 1000  # z-scores are taken against a text's top z_depth passages

    def __post_init__(self) -> None:
        if not 0.0 <= self.bm25_weight <= 1.0:
            raise ComlqError(f"logical: bm25 weight must be in [0, 1], got {self.bm25_weight}")
        if self.z_depth < 2:
            raise ComlqError(f"logical: z depth must be at least 2, got {self.z_depth}")


def zscore_top(matrix: np.ndarray, depth: int) -> np.ndarray:
    """Row-wise z-scores against the mean and spread of each row's `depth` best values.

    Against the whole corpus, BM25's mass of zeros would dominate; the top of the ranking is
    what the two scorers must agree on. A constant row (e.g. a term with no indexed word) -> 0.
    """
    matrix = np.asarray(matrix, dtype=np.float64)
    depth = min(depth, matrix.shape[1])
    top = np.partition(matrix, matrix.shape[1] - depth, axis=1)[:, matrix.shape[1] - depth:]
    spread = top.std(axis=1, keepdims=True)
    centred = matrix - top.mean(axis=1, keepdims=True)
    return np.divide(centred, spread, out=np.zeros_like(centred), where=spread > 0)


def with_context(scores: np.ndarray, weight: float) -> np.ndarray:
    """scores + weight * the better of each passage's neighbours in corpus order (edges have one)."""
    if not weight or scores.size < 2:
        return scores
    neighbour = np.empty_like(scores)
    neighbour[1:-1] = np.maximum(scores[:-2], scores[2:])
    neighbour[0], neighbour[-1] = scores[1], scores[-2]
    return scores + weight * neighbour


def combine(question: np.ndarray, positive: Sequence[np.ndarray], negated: Sequence[np.ndarray],
            weights: Weights) -> np.ndarray:
    """The soft-logic score of every passage from (hybrid) term scores, before context."""
    score = np.array(question, dtype=np.float64)
    if weights.and_weight and len(positive):
        score += weights.and_weight * np.mean(positive, axis=0)
    if weights.not_weight and len(negated):
        score -= weights.not_weight * np.mean(negated, axis=0)
    return score


class LogicalRetriever:
    name = "logical"

    def __init__(self, bm25: TermScorer, dense: TermScorer, parser: Parser, weights: Weights | None = None,
                 chunk: int = 32):
        self.bm25 = bm25
        self.dense = dense
        self.parser = parser
        self.weights = weights or Weights()
        self.chunk = chunk  # queries whose term scores are held in memory at once
        self.logical_forms: dict[str, str] = {}  # query id -> the logical form used (for inspection; not in the report)

    def index(self, corpus: Corpus) -> None:
        self.bm25.index(corpus)
        self.dense.index(corpus)

    def describe(self) -> dict[str, object]:
        return {**vars(self.weights), "model": getattr(self.dense, "model", None),
                "parse": {"source": getattr(self.parser, "source", "?"),
                          "counts": dict(getattr(self.parser, "counts", {}))}}

    def term_scores(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), passages) hybrid scores H: z-scored BM25 and cosine, mixed."""
        w = self.weights
        bm25 = zscore_top(self.bm25.term_scores(texts), w.z_depth) if w.bm25_weight > 0 else 0.0
        dense = zscore_top(self.dense.term_scores(texts), w.z_depth) if w.bm25_weight < 1 else 0.0
        return w.bm25_weight * bm25 + (1.0 - w.bm25_weight) * dense

    def retrieve(self, queries: Sequence[Query], k: int) -> Run:
        trees = parse_queries(self.parser, queries, self.logical_forms)
        ids = self.bm25.corpus.ids
        run: Run = {}
        for start in range(0, len(queries), self.chunk):
            chunk = list(zip(queries[start:start + self.chunk], trees[start:start + self.chunk]))
            texts = list(dict.fromkeys(t for q, tree in chunk for t in (q.text, *terms(tree))))
            matrix = self.term_scores(texts)
            rows = {text: matrix[i] for i, text in enumerate(texts)}
            for query, tree in chunk:
                positive = [rows[t] for t in dict.fromkeys(terms(tree, positive=True))]
                negated = [rows[t] for t in dict.fromkeys(terms(tree, positive=False))]
                score = with_context(combine(rows[query.text], positive, negated, self.weights), self.weights.context)
                run[query.id] = top_k(ids, score, k)
        return run


_KWARGS = {"bm25": "bm25_weight", "and": "and_weight", "neg": "not_weight", "ctx": "context", "z": "z_depth"}


def build(factory, args: list[str], kwargs: dict[str, str]) -> LogicalRetriever:
    """logical(bm25=0.7, and=0, neg=0.3, ctx=0.5, z=1000, parse=gold|rules|llm) for retrieval.registry."""
    unknown = list(args) + sorted(set(kwargs) - set(_KWARGS) - {"parse"})
    if unknown:
        raise ComlqError(f"logical takes only {', '.join(sorted([*_KWARGS, 'parse']))} (got {', '.join(unknown)})")
    values: dict[str, float | int] = {}
    for key, field in _KWARGS.items():
        if key in kwargs:
            try:
                values[field] = int(kwargs[key]) if field == "z_depth" else float(kwargs[key])
            except ValueError:
                raise ComlqError(f"logical {key} must be a number, got '{kwargs[key]}'") from None
    parser = factory.parser(kwargs.get("parse", factory.evaluate.parse))
    return LogicalRetriever(factory.bm25(), factory.dense(), parser, Weights(**values))
