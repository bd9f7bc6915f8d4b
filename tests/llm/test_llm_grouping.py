"""Passage groups share an entity: title mentions, links, or consecutive chunks of one article."""

from __future__ import annotations

import networkx as nx

from pipeline.llm.grouping import mention_graph, passage_groups, spread
from pipeline.records import Passage


def test_mentions_and_same_article_chunks_link_passages(passages):
    graph = mention_graph(passages)
    assert graph.edges["p01", "p02"]["why"] == "mention"  # Danube <-> Vienna
    assert graph.has_edge("p01", "p04")  # the Danube passage names the Black Sea
    assert graph.edges["p10", "p11"]["why"] == "same article"
    assert not graph.has_edge("p08", "p10")  # 'Hungarian' is not the title 'Hungarian language'
    assert not any(graph.has_edge(p, p) for p in graph)


def test_links_field_counts_as_a_mention():
    passages = {"a": Passage("a", "Alpha", "No names here.", links=("Beta",)),
                "b": Passage("b", "Beta", "Nothing either.")}
    assert mention_graph(passages).has_edge("a", "b")


def test_groups_are_connected_distinct_and_seeded(passages):
    graph = mention_graph(passages)
    for size in (2, 3):
        groups = passage_groups(graph, size, seed=13)
        assert groups and all(len(set(g)) == size for g in groups)
        assert all(nx.is_connected(graph.subgraph(g)) for g in groups)
        assert groups == passage_groups(graph, size, seed=13)
    assert passage_groups(graph, 3, seed=13) != passage_groups(graph, 3, seed=14)


def test_spread_puts_disjoint_groups_first():
    groups = [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")]
    assert spread(groups) == [("a", "b"), ("c", "d"), ("b", "c"), ("a", "d")]


def test_planner_never_gives_a_type_the_same_group_twice(passages):
    from pipeline.llm.generator import Planner

    planner = Planner(passages, (1,), seed=3)
    singles = len(planner.groups[1])
    taken = [planner.take(1, "2in") for _ in range(singles)]
    assert len(set(taken)) == singles  # every passage once ...
    assert planner.take(1, "2in") is None  # ... then no more for this type (the same prompt again would repeat an item)
    assert planner.take(1, "pin") is not None  # another type still gets groups
