"""ITLR (arXiv 2503.17860): a logical form of quoted terms with AND, OR, NOT and parentheses
is parsed into a tree; every term gets a score per passage (cosine similarity, or BM25); the
tree is evaluated bottom-up with an operator set.

Operator sets and calibrations are registries by name (`OPERATORS`, `CALIBRATIONS`), so
experiments add their own with `register_operators` / `register_calibration`.

Candidates (`candidates_k`, `candidates`): "terms" takes the union of each positive term's
top-k (a term under an even number of NOTs); "query" takes the top-k of the whole question
(one full scoring pass, as plain dense retrieval; the terms are then scored on those passages
only, which keeps ITLR's latency near dense's on large corpora). The tree is evaluated exactly
on the candidates. With `candidates_k=None` (or a corpus no larger than k, or "terms" without a
positive term) every passage is scored. Calibration "minmax" rescales each term over the
passages being scored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import reduce
from typing import Protocol

import numpy as np

from pipeline.errors import ComlqError
from pipeline.logical_form import And, Node, Not, Term, parse, terms
from retrieval.base import Corpus, Query, Run, top_k, top_positions

# -- operators and calibrations -------------------------------------------------------------

Binary = Callable[[np.ndarray, np.ndarray], np.ndarray]
Unary = Callable[[np.ndarray], np.ndarray]
EPS = 1e-6  # NOT = 1/x divides by max(x, EPS)


@dataclass(frozen=True)
class Operators:
    name: str
    and_: Binary
    or_: Binary
    not_: Unary
    description: str = ""


OPERATORS: dict[str, Operators] = {}


def register_operators(ops: Operators) -> Operators:
    OPERATORS[ops.name] = ops
    return ops


def _complement(x: np.ndarray) -> np.ndarray:
    return 1.0 - x


register_operators(Operators("product", np.multiply, np.add, _complement,
                             "AND = x*y, OR = x+y, NOT = 1-x (paper's best)"))
register_operators(Operators("sum", np.add, np.add, _complement, "AND = x+y, OR = x+y, NOT = 1-x"))
register_operators(Operators("minmax", np.minimum, np.maximum, _complement, "AND = min, OR = max, NOT = 1-x"))
register_operators(Operators("inverse", np.multiply, np.add, lambda x: 1.0 / np.maximum(x, EPS),
                             "AND = x*y, OR = x+y, NOT = 1/max(x, 1e-6)"))

CALIBRATIONS: dict[str, Unary] = {}


def register_calibration(name: str, function: Unary) -> Unary:
    """`function` maps one term's scores over the scored passages to calibrated scores."""
    CALIBRATIONS[name] = function
    return function


def _minmax(x: np.ndarray) -> np.ndarray:
    if not x.size:
        return x
    low, high = float(x.min()), float(x.max())
    return (x - low) / (high - low) if high > low else np.zeros_like(x)


register_calibration("raw", lambda x: x)
register_calibration("shift", lambda x: (x + 1.0) / 2.0)
register_calibration("minmax", _minmax)


def lookup(registry: dict, name: str, what: str):
    if name not in registry:
        raise ComlqError(f"unknown {what} '{name}' (known: {', '.join(registry)})")
    return registry[name]


def evaluate(node: Node, scores: dict[str, np.ndarray], ops: Operators) -> np.ndarray:
    """Combine the (calibrated) term scores bottom-up; n-ary AND/OR fold left to right."""
    if isinstance(node, Term):
        return scores[node.text]
    if isinstance(node, Not):
        return ops.not_(evaluate(node.child, scores, ops))
    combine = ops.and_ if isinstance(node, And) else ops.or_
    return reduce(combine, (evaluate(c, scores, ops) for c in node.children))


# -- the retriever ----------------------------------------------------------------------------


class TermScorer(Protocol):
    """Scores any text against every passage of an indexed corpus (dense cosine, or BM25)."""

    name: str
    corpus: Corpus

    def index(self, corpus: Corpus) -> None: ...

    def term_scores(self, texts: Sequence[str], rows: np.ndarray | None = None) -> np.ndarray:
        """(len(texts), passages), or (len(texts), len(rows)) on the passages `rows` only."""
        ...


Parser = Callable[[Sequence[Query]], list[str]]  # queries -> logical forms


def parse_queries(parser: Parser, queries: Sequence[Query], used: dict[str, str]) -> list[Node]:
    """Each query's logical form from `parser`, parsed (a bad form names its query); the forms
    are also recorded in `used` (query id -> form)."""
    trees = []
    for query, form in zip(queries, parser(queries)):
        try:
            trees.append(parse(form))
        except ComlqError as exc:
            raise ComlqError(f"query '{query.id}': {exc}") from None
        used[query.id] = form
    return trees


class ITLRRetriever:
    def __init__(self, scorer: TermScorer, parser: Parser, operators: str = "product", calibration: str = "raw",
                 candidates_k: int | None = 1000, candidates: str = "terms", name: str = "itlr", chunk: int = 64):
        self.name = name
        self.scorer = scorer
        self.parser = parser
        self.ops = lookup(OPERATORS, operators, "operator set")
        self.calibration = calibration
        self.calibrate = lookup(CALIBRATIONS, calibration, "calibration")
        self.candidates_k = candidates_k
        if candidates not in ("terms", "query"):
            raise ComlqError(f"unknown candidate source '{candidates}' (known: terms, query)")
        self.candidate_source = candidates
        self.chunk = chunk  # queries whose term scores are held in memory at once
        self.logical_forms: dict[str, str] = {}  # query id -> the logical form used (for inspection; not in the report)

    def index(self, corpus: Corpus) -> None:
        self.scorer.index(corpus)

    def describe(self) -> dict[str, object]:
        counts = getattr(self.parser, "counts", {})
        return {"operators": self.ops.name, "calibration": self.calibration, "candidates_k": self.candidates_k,
                "candidates": self.candidate_source,
                "term_scores": getattr(self.scorer, "name", "?"), "model": getattr(self.scorer, "model", None),
                "parse": {"source": getattr(self.parser, "source", "?"), "counts": dict(counts)}}

    def trees(self, queries: Sequence[Query]) -> list[Node]:
        return parse_queries(self.parser, queries, self.logical_forms)

    def retrieve(self, queries: Sequence[Query], k: int) -> Run:
        trees = self.trees(queries)
        prepare = getattr(self.scorer, "prepare", None)
        if prepare is not None:  # e.g. embed every distinct term of the batch in one call
            prepare(list(dict.fromkeys(t for tree in trees for t in terms(tree))))
        run: Run = {}
        for start in range(0, len(queries), self.chunk):
            chunk = list(zip(queries[start:start + self.chunk], trees[start:start + self.chunk]))
            if self.candidate_source == "query":
                run.update(self._from_query(chunk, k))
                continue
            distinct = list(dict.fromkeys(t for _, tree in chunk for t in terms(tree)))
            matrix = self.scorer.term_scores(distinct)
            rows = {text: matrix[i] for i, text in enumerate(distinct)}
            for query, tree in chunk:
                subset = self.candidates(tree, rows)
                run[query.id] = self.combine(tree, {t: rows[t] if subset is None else rows[t][subset]
                                                    for t in set(terms(tree))}, subset, k)
        return run

    def _from_query(self, chunk: list[tuple[Query, Node]], k: int) -> Run:
        """Candidates = the whole question's top-k; terms are then scored on those passages only."""
        base = self.scorer.term_scores([query.text for query, _ in chunk])
        run: Run = {}
        for row, (query, tree) in enumerate(chunk):
            subset = _top_rows(self.scorer.corpus.ids, base[row], self.candidates_k)
            distinct = list(dict.fromkeys(terms(tree)))
            matrix = self.scorer.term_scores(distinct, subset)
            run[query.id] = self.combine(tree, dict(zip(distinct, matrix)), subset, k)
        return run

    def candidates(self, tree: Node, rows: dict[str, np.ndarray]) -> np.ndarray | None:
        """Row indices to score (union of each positive term's top-k), or None for all passages."""
        positive = list(dict.fromkeys(terms(tree, positive=True)))
        if not positive or self.candidates_k is None or self.candidates_k >= len(self.scorer.corpus):
            return None
        return np.unique(np.concatenate([_top_rows(self.scorer.corpus.ids, rows[t], self.candidates_k)
                                         for t in positive]))

    def combine(self, tree: Node, scores: dict[str, np.ndarray], subset: np.ndarray | None, k: int) -> dict[str, float]:
        """The top k passages for one tree, from each term's raw scores on `subset` (None: every passage)."""
        ids = self.scorer.corpus.ids
        combined = evaluate(tree, {t: self.calibrate(x) for t, x in scores.items()}, self.ops)
        combined = np.asarray(combined, dtype=np.float64)
        return top_k(ids, combined, k, subset)


def _top_rows(ids: Sequence[str], scores: np.ndarray, k: int | None) -> np.ndarray | None:
    """Row indices of the k best scores (trec_eval's tie rule, unordered), or None for all when k
    is None or too large; ties at the k-th score (e.g. many zeros) are thus broken the same way on every run."""
    if k is None or k >= len(scores):
        return None
    return top_positions(ids, scores, k)
