"""The catalogue: indicator text <-> pattern graph, and the isomorphism type check."""

import networkx as nx
import pytest

from pipeline.errors import ComlqError
from pipeline.querytypes import (
    CATALOGUE,
    NEGATION_TYPES,
    TYPE_NAMES,
    check_triples,
    classify,
    format_indicator,
    get_type,
    matches,
    parse_indicator,
    pattern_from_indicator,
    query_graph,
    renames_pattern,
)
from pipeline.records import Triple

# Counts as ComLQ states them (DESIGN.md table): relations, negations.
EXPECTED_COUNTS = {
    "1p": (1, 0), "2p": (2, 0), "3p": (3, 0), "2i": (2, 0), "3i": (3, 0), "pi": (3, 0), "ip": (3, 0),
    "2u": (2, 0), "up": (3, 0), "2in": (2, 1), "3in": (3, 1), "inp": (3, 1), "pin": (3, 1), "pni": (3, 1),
}


def test_catalogue_has_the_14_comlq_types():
    assert TYPE_NAMES == ("1p", "2p", "3p", "2i", "3i", "pi", "ip", "2u", "up", "2in", "3in", "inp", "pin", "pni")
    assert set(NEGATION_TYPES) == {n for n, t in CATALOGUE.items() if t.negations}


@pytest.mark.parametrize("name", TYPE_NAMES)
def test_counts_match_comlq(name):
    qtype = get_type(name)
    assert (qtype.relations, qtype.negations) == EXPECTED_COUNTS[name]


@pytest.mark.parametrize("name", TYPE_NAMES)
def test_indicator_pattern_round_trip(name):
    qtype = get_type(name)
    text = format_indicator(qtype.pattern)
    assert text == qtype.indicator
    assert nx.is_isomorphic(pattern_from_indicator(text), qtype.pattern,
                            node_match=lambda a, b: a["role"] == b["role"],
                            edge_match=lambda a, b: (a["negated"], a["union"]) == (b["negated"], b["union"]))


@pytest.mark.parametrize("name", TYPE_NAMES)
@pytest.mark.parametrize("directed", [False, True])
def test_each_type_matches_itself_and_no_other(name, directed):
    pattern = get_type(name).pattern
    assert [other for other in TYPE_NAMES if matches(pattern, other, directed)] == [name]
    assert classify(pattern, directed) == name


def test_text_and_graph_say_the_same_thing():
    # 2in: {?x | (?y, R1, ?x) ∧ ¬(?x, R2, ?z)} -- edges follow the text, target is the set variable.
    graph = get_type("2in").pattern
    assert dict(graph.nodes(data="role")) == {"?y": "anchor", "?x": "target", "?z": "anchor"}
    assert graph.edges["?y", "?x"] == {"relation": "R1", "negated": False, "union": False, "index": 0}
    assert graph.edges["?x", "?z"]["negated"] is True
    # up: the union members carry the union flag, the projection after ⇒ does not.
    up = get_type("up").pattern
    assert up.edges["?y", "?x"]["union"] and up.edges["?z", "?x"]["union"]
    assert not up.edges["?x", "?w"]["union"] and dict(up.nodes(data="role"))["?w"] == "target"
    # pni: the negation sits on the second hop of the chain.
    assert get_type("pni").pattern.edges["?y", "?z"]["negated"]


KUBRICK_2IN = [Triple("Stanley Kubrick", "directed", "?x"), Triple("?x", "released in", "1960s", negated=True)]


def test_grounded_query_is_checked_by_structure():
    assert check_triples(KUBRICK_2IN, "?x", "2in") == []
    assert check_triples(KUBRICK_2IN, "?x", "2i") == ["triples form 2in, expected 2i"]
    # Without the negation mark it is a plain intersection (2i, up to edge direction).
    positive = [Triple(t.subject, t.relation, t.object) for t in KUBRICK_2IN]
    assert classify(query_graph(positive, "?x")) == "2i"


def test_direction_is_ignored_by_default_but_can_be_required():
    inverse = [Triple("?x", "directed by", "Stanley Kubrick"), Triple("?x", "released in", "1960s", negated=True)]
    graph = query_graph(inverse, "?x")
    assert matches(graph, "2in")
    assert not matches(graph, "2in", directed=True)
    assert matches(query_graph(KUBRICK_2IN, "?x"), "2in", directed=True)


def _renamed(name: str) -> tuple[list[Triple], str]:
    """The type's pattern edges as triples, in edge order, anchors named A0, A1, ... (a grounding)."""
    pattern = get_type(name).pattern
    names = {n: n if role != "anchor" else f"A{i}" for i, (n, role) in enumerate(pattern.nodes(data="role"))}
    target = next(n for n, role in pattern.nodes(data="role") if role == "target")
    edges = sorted(pattern.edges(data=True), key=lambda e: e[2]["index"])
    return [Triple(names[s], d["relation"], names[o], d["negated"], d["union"]) for s, o, d in edges], target


@pytest.mark.parametrize("name", TYPE_NAMES)
def test_a_renamed_pattern_is_its_type_and_the_shortcut_never_says_more_than_the_search(name):
    triples, target = _renamed(name)
    assert renames_pattern(triples, target, name)
    assert check_triples(triples, target, name) == [] and matches(query_graph(triples, target), name, directed=True)
    # the shortcut says True only where both isomorphism checks do
    variants = [triples[::-1], [Triple(t.object, t.relation, t.subject, t.negated, t.union) for t in triples],
                [Triple(t.subject, t.relation, t.object, not t.negated, t.union) for t in triples],
                [Triple(t.subject.replace("A", "?a"), t.relation, t.object) for t in triples],
                [Triple("A0" if t is triples[0] else t.subject, t.relation, t.object, t.negated, t.union)
                 for t in triples]]
    for variant in variants:
        for other in TYPE_NAMES:
            if renames_pattern(variant, target, other):
                assert check_triples(variant, target, other) == []
                assert matches(query_graph(variant, target), other, directed=True)
    assert not renames_pattern(variants[1], target, name)  # reversed edges: not ComLQ's directions


def test_grounded_indicator_uses_names_and_relations():
    assert format_indicator(query_graph(KUBRICK_2IN, "?x")) == \
        "{?x | (Stanley Kubrick, directed, ?x) ∧ ¬(?x, released in, 1960s)}"


def test_ungrounded_or_malformed_graphs_have_no_type():
    # An anchor written as a variable is not grounded.
    assert classify(query_graph([Triple("?a", "r", "?x")], "?x")) is None
    # A parallel edge or a missing target is not a query graph.
    assert classify(query_graph([Triple("A", "r", "?x"), Triple("?x", "s", "A")], "?x")) is None
    assert check_triples([Triple("A", "r", "?y")], "?x", "1p")[0].startswith("triples do not form")


def test_bad_indicator_and_unknown_type_are_clear_errors():
    with pytest.raises(ComlqError, match="cannot parse indicator"):
        parse_indicator("{?x | (?x, R1)}")
    with pytest.raises(ComlqError, match="unknown query type '4p'"):
        get_type("4p")


def test_formatting_with_a_known_type_skips_classification_but_still_checks():
    graph = query_graph(KUBRICK_2IN, "?x")
    assert format_indicator(graph, "2in") == format_indicator(graph)
    with pytest.raises(ComlqError, match="does not have the structure of 2i"):
        format_indicator(graph, "2i")
