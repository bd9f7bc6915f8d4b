import numpy as np
import pytest

from pipeline.errors import ComlqError
from pipeline.logical_form import And, Not, Or, Term, parse, terms, to_string
from retrieval.base import Corpus, Query
from retrieval.itlr import CALIBRATIONS, OPERATORS, ITLRRetriever, evaluate, parse_queries

A, B, C, D = Term("a"), Term("b"), Term("c"), Term("d")


@pytest.mark.parametrize("text, tree", [
    ('"a"', A),
    ('"a" OR "b" AND "c"', Or((A, And((B, C))))),  # AND binds tighter than OR
    ('"a" AND "b" OR "c"', Or((And((A, B)), C))),
    ('NOT "a" AND "b"', And((Not(A), B))),  # NOT binds tighter than AND
    ('"a" AND NOT "b" OR NOT "c"', Or((And((A, Not(B))), Not(C)))),
    ('("a" OR "b") AND "c"', And((Or((A, B)), C))),
    ('NOT ("a" OR "b")', Not(Or((A, B)))),
    ('NOT (NOT "a")', Not(Not(A))),
    ('"a" AND "b" AND "c" OR "d"', Or((And((A, B, C)), D))),
    ('"a" and not "b"', And((A, Not(B)))),  # keywords in any case
    ("'a' AND \"b\"", And((A, B))),
])
def test_grammar_and_precedence(text, tree):
    assert parse(text) == tree
    assert parse(to_string(tree)) == tree


def test_quoted_terms_keep_keywords_and_escapes():
    assert parse('"NOT AND OR" AND "say \\"hi\\""') == And((Term("NOT AND OR"), Term('say "hi"')))
    assert parse(to_string(Term('a "b" c\\'))) == Term('a "b" c\\')


@pytest.mark.parametrize("text, message", [
    ('"a" AND', "unexpected end of input; expected '(' or NOT or a quoted term"),
    ('a AND "b"', "unexpected character 'a' at column 1 (terms must be in quotes)"),
    ('("a"', "unexpected end of input; expected ')'"),
    ('"a" "b"', "unexpected '\"b\"' at column 5"),
    ('"a" AND )', "unexpected ')' at column 9"),
    ("", "logical form is empty"),
])
def test_bad_input_has_clear_message(text, message):
    with pytest.raises(ComlqError) as err:
        parse(text)
    assert message in str(err.value)


def test_positive_terms_skip_odd_negations():
    tree = parse('"a" AND NOT ("b" OR NOT "c") AND "d"')
    assert list(terms(tree)) == ["a", "b", "c", "d"]
    assert list(terms(tree, positive=True)) == ["a", "c", "d"]


SCORES = {"a": np.array([0.8, 0.2, 0.5]), "b": np.array([0.5, 0.4, 1.0])}


@pytest.mark.parametrize("ops, text, expected", [
    ("product", '"a" AND "b"', [0.4, 0.08, 0.5]),
    ("product", '"a" OR "b"', [1.3, 0.6, 1.5]),
    ("product", '"a" AND NOT "b"', [0.4, 0.12, 0.0]),
    ("sum", '"a" AND "b"', [1.3, 0.6, 1.5]),
    ("sum", '"a" AND NOT "b"', [1.3, 0.8, 0.5]),
    ("minmax", '"a" AND "b"', [0.5, 0.2, 0.5]),
    ("minmax", '"a" OR "b"', [0.8, 0.4, 1.0]),
    ("inverse", '"a" AND NOT "b"', [1.6, 0.5, 0.5]),
    ("inverse", 'NOT "a" OR "b"', [1.75, 5.4, 3.0]),
])
def test_operator_sets(ops, text, expected):
    np.testing.assert_allclose(evaluate(parse(text), SCORES, OPERATORS[ops]), expected)


def test_inverse_not_does_not_divide_by_zero():
    assert np.isfinite(OPERATORS["inverse"].not_(np.array([0.0, -0.3]))).all()


@pytest.mark.parametrize("name, expected", [
    ("raw", [-0.5, 0.0, 0.5]),
    ("shift", [0.25, 0.5, 0.75]),
    ("minmax", [0.0, 0.5, 1.0]),
])
def test_calibrations(name, expected):
    np.testing.assert_allclose(CALIBRATIONS[name](np.array([-0.5, 0.0, 0.5])), expected)


def test_minmax_of_constant_scores_is_zero():
    np.testing.assert_array_equal(CALIBRATIONS["minmax"](np.array([0.3, 0.3])), [0.0, 0.0])


class FixedScorer:
    """Term scores from a table: lets the ITLR arithmetic be checked by hand."""

    name = "fixed"

    def __init__(self, table):
        self.table = table
        self.corpus = None
        self.asked: list[list[str]] = []

    def index(self, corpus):
        self.corpus = corpus

    def term_scores(self, texts):
        self.asked.append(list(texts))
        return np.array([self.table[t] for t in texts])


def test_itlr_ranks_by_the_combined_score_and_asks_each_term_once():
    scorer = FixedScorer({"x": [0.9, 0.8, 0.1], "y": [0.9, 0.1, 0.2]})
    itlr = ITLRRetriever(scorer, lambda qs: [q.logical_form for q in qs], candidates_k=None)
    itlr.index(Corpus(("d1", "d2", "d3"), ("", "", "")))
    queries = [Query("q1", "", logical_form='"x" AND NOT "y"'), Query("q2", "", logical_form='"y" OR "x"')]
    run = itlr.retrieve(queries, k=3)
    assert list(run["q1"]) == ["d2", "d1", "d3"]  # 0.72, 0.09, 0.08
    assert run["q1"]["d2"] == pytest.approx(0.72)
    assert list(run["q2"]) == ["d1", "d2", "d3"]
    assert scorer.asked == [["x", "y"]]  # distinct terms of the batch, once


def test_candidates_tied_at_the_kth_score_are_the_largest_ids():
    scorer = FixedScorer({"x": [0.0, 0.9, 0.0, 0.0, 0.0, 0.0]})
    itlr = ITLRRetriever(scorer, lambda qs: [q.logical_form for q in qs], candidates_k=3)
    itlr.index(Corpus(("d1", "d2", "d5", "d3", "d6", "d4"), ("",) * 6))
    run = itlr.retrieve([Query("q1", "", logical_form='"x"')], k=6)
    assert list(run["q1"]) == ["d2", "d6", "d5"]  # of the five zeros, the two largest ids


@pytest.mark.parametrize("source", ["terms", "query"])
def test_candidates_are_scored_exactly_and_hold_the_same_top(data, encoder, source):
    from retrieval.dense import DenseRetriever

    dense = DenseRetriever(encoder, progress=False)
    parser = lambda qs: [q.logical_form for q in qs]  # noqa: E731
    exhaustive = ITLRRetriever(dense, parser, candidates_k=None)
    union = ITLRRetriever(dense, parser, candidates_k=5, candidates=source)
    exhaustive.index(data.corpus)
    full = exhaustive.retrieve(data.queries, k=len(data.corpus))
    some = union.retrieve(data.queries, k=len(data.corpus))
    for query in data.queries:
        assert len(some[query.id]) < len(data.corpus)  # really a subset of passages
        for pid, score in some[query.id].items():
            assert score == pytest.approx(full[query.id][pid], abs=1e-6)
        if source == "terms":  # a passage best on the tree is near the top for some positive term
            assert next(iter(some[query.id])) == next(iter(full[query.id]))
    if source == "query":  # candidates are the question's own top 5
        question = dense.retrieve(data.queries, k=5)
        assert all(set(some[q.id]) == set(question[q.id]) for q in data.queries)


def test_unknown_operator_set_names_the_known_ones():
    with pytest.raises(ComlqError, match="unknown operator set 'max'.*product, sum, minmax, inverse"):
        ITLRRetriever(FixedScorer({}), lambda qs: [], operators="max")


def test_parse_queries_records_forms_and_names_a_bad_one():
    used: dict[str, str] = {}
    queries = [Query("q1", "", logical_form='"a" AND NOT "b"'), Query("q2", "", logical_form='"a" AND')]
    parser = lambda qs: [q.logical_form for q in qs]  # noqa: E731
    assert parse_queries(parser, queries[:1], used) == [And((A, Not(B)))]
    assert used == {"q1": '"a" AND NOT "b"'}
    with pytest.raises(ComlqError, match="query 'q2': "):
        parse_queries(parser, queries, used)
