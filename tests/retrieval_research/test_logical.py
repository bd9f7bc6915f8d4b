"""The logical retriever's scoring rule on hand-computed numbers, and its behaviour on a tiny corpus."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.errors import ComlqError
from retrieval.base import Query, ranked
from retrieval.bm25 import BM25Retriever
from retrieval.dense import DenseRetriever
from retrieval.logical import LogicalRetriever, Weights, combine, with_context, zscore_top
from retrieval.logical_forms import RulesParser
from retrieval.registry import Factory


def test_zscore_top_uses_the_rows_best_values():
    # top 2 of [1, 2, 3, 4] are 3 and 4: mean 3.5, population std 0.5
    assert zscore_top(np.array([[1.0, 2.0, 3.0, 4.0]]), 2).tolist() == [[-5.0, -3.0, -1.0, 1.0]]
    assert zscore_top(np.array([[2.0, 2.0, 2.0]]), 2).tolist() == [[0.0, 0.0, 0.0]]  # constant row
    assert zscore_top(np.array([[0.0, 2.0]]), 10).tolist() == [[-1.0, 1.0]]  # depth beyond the row


def test_context_adds_the_better_neighbour():
    assert with_context(np.array([1.0, 0.0, 3.0]), 0.5).tolist() == [1.0, 1.5, 3.0]
    assert with_context(np.array([1.0, 0.0, 3.0]), 0.0).tolist() == [1.0, 0.0, 3.0]
    assert with_context(np.array([4.0, 2.0]), 1.0).tolist() == [6.0, 6.0]


def test_combine_is_question_plus_and_minus_not():
    question = np.array([1.0, 2.0])
    positive = [np.array([2.0, 0.0]), np.array([0.0, 2.0])]
    negated = [np.array([1.0, 0.0])]
    got = combine(question, positive, negated, Weights(and_weight=0.5, not_weight=0.3))
    assert got == pytest.approx([1.0 + 0.5 * 1.0 - 0.3 * 1.0, 2.0 + 0.5 * 1.0])
    assert combine(question, positive, [], Weights(and_weight=0.0)).tolist() == [1.0, 2.0]


def _retriever(encoder, corpus, **weights) -> LogicalRetriever:
    retriever = LogicalRetriever(BM25Retriever(), DenseRetriever(encoder, progress=False), RulesParser(),
                                 Weights(z_depth=5, **weights))
    retriever.index(corpus)
    return retriever


def _ranking(retriever, text):
    return [pid for pid, _ in ranked(retriever.retrieve([Query("q", text)], k=5)["q"])]


def test_not_weight_pushes_the_negated_passage_down(encoder, corpus):
    question = "Which capital is not Berlin in Germany?"
    soft = _ranking(_retriever(encoder, corpus, not_weight=0.0, context=0.0), question)
    strict = _ranking(_retriever(encoder, corpus, not_weight=2.0, context=0.0), question)
    assert soft[0] == "berlin"  # the question names Berlin and Germany: without NOT it wins
    assert strict.index("berlin") > strict.index("paris") and strict.index("berlin") > strict.index("madrid")


def test_context_lifts_the_next_passage_of_the_article(encoder, corpus):
    question = "capital of France"
    plain = _ranking(_retriever(encoder, corpus, context=0.0), question)
    context = _ranking(_retriever(encoder, corpus, context=1.0), question)
    assert plain[0] == "paris" and plain.index("louvre") == 4  # shares no word with the question
    assert context[:2] == ["paris", "louvre"]  # both now score paris + louvre (tie: id descending)


def test_registry_builds_logical_with_arguments(encoder):
    factory = Factory(progress=False)
    factory.shared("encoder", lambda: encoder)  # no model load in tests
    retriever = factory.build("logical(neg=0.5, ctx=0, bm25=1, parse=rules)")
    assert retriever.name == "logical(neg=0.5,ctx=0,bm25=1,parse=rules)"
    assert retriever.weights == Weights(bm25_weight=1.0, not_weight=0.5, context=0.0)
    with pytest.raises(ComlqError, match="logical takes only"):
        factory.build("logical(lambda=1)")
    with pytest.raises(ComlqError, match="neg must be a number"):
        factory.build("logical(neg=high)")
    with pytest.raises(ComlqError, match="bm25 weight must be in"):
        factory.build("logical(bm25=2)")
