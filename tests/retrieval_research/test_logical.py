"""The logical retriever's scoring rule on hand-computed numbers, and its behaviour on a tiny corpus."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.errors import ComlqError
from retrieval.base import Corpus, Query, ranked
from retrieval.bm25 import BM25Retriever
from retrieval.dense import DenseRetriever
from retrieval.logical import LogicalRetriever, Weights, combine, document_groups, with_context, zscore_top
from retrieval.logical_forms import RulesParser
from retrieval.registry import Factory, needs_embeddings


def test_zscore_top_uses_the_rows_best_values():
    # top 2 of [1, 2, 3, 4] are 3 and 4: mean 3.5, population std 0.5
    assert zscore_top(np.array([[1.0, 2.0, 3.0, 4.0]]), 2).tolist() == [[-5.0, -3.0, -1.0, 1.0]]
    assert zscore_top(np.array([[2.0, 2.0, 2.0]]), 2).tolist() == [[0.0, 0.0, 0.0]]  # constant row
    assert zscore_top(np.array([[0.0, 2.0]]), 10).tolist() == [[-1.0, 1.0]]  # depth beyond the row


def test_document_groups_name_only_documents_with_two_passages():
    groups = document_groups(["a", "", "b", "a", ""]).tolist()  # "" is no document; b stands alone
    assert groups[0] == groups[3] >= 0 and groups[1] == groups[2] == groups[4] == -1


def test_context_adds_the_best_other_passage_of_the_same_document():
    groups = document_groups(["a", "b", "a", "a", "c"])
    # a: rows 0, 2, 3 (scores 1, 3, 2); row 2 is a's best, so it gets the second best (2)
    assert with_context(np.array([1.0, 5.0, 3.0, 2.0, 4.0]), groups, 0.5).tolist() == [2.5, 5.0, 4.0, 3.5, 4.0]
    assert with_context(np.array([1.0, 5.0, 3.0, 2.0, 4.0]), groups, 0.0).tolist() == [1.0, 5.0, 3.0, 2.0, 4.0]
    tied = document_groups(["a", "a"])
    assert with_context(np.array([4.0, 4.0]), tied, 1.0).tolist() == [8.0, 8.0]  # a tie at the top: each has the other


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


def test_context_comes_from_the_document_field_never_from_order(encoder, corpus):
    question = "capital of France"
    plain = _ranking(_retriever(encoder, corpus, context=0.0), question)
    assert plain[0] == "paris" and plain.index("louvre") == 4  # shares no word with the question
    # without a document field, neighbours in file order give nothing (the old default read them)
    assert _ranking(_retriever(encoder, corpus, context=1.0), question) == plain
    titled = {pid: ("Paris" if pid in ("paris", "louvre") else pid.title()) for pid in corpus.ids}
    for order in (list(corpus.ids), list(reversed(corpus.ids))):  # any order: the same ranking
        texts = dict(zip(corpus.ids, corpus.texts))
        shuffled = Corpus.from_mapping({pid: texts[pid] for pid in order}, titled)
        context = _ranking(_retriever(encoder, shuffled, context=1.0), question)
        assert context[:2] == ["paris", "louvre"]  # both now score paris + louvre (tie: id descending)


def test_the_default_reads_no_context():
    assert Weights().context == 0.0


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


class _NoEncoding:
    name, precision = "none", "fp32"

    def encode(self, texts, **kwargs):
        raise AssertionError("bm25=1 must not encode")


def test_bm25_only_logical_encodes_nothing(corpus):
    assert needs_embeddings("logical") and needs_embeddings("logical(bm25=0.9)")
    assert not needs_embeddings("logical(bm25=1)")
    factory = Factory(progress=False)
    factory.shared("encoder", lambda: _NoEncoding())
    retriever = factory.build("logical(bm25=1, parse=rules)")
    retriever.index(corpus)
    assert _ranking(retriever, "capital of France")[0] == "paris"
