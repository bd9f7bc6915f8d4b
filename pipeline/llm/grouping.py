"""Passage groups for multi-passage prompts: 2-3 passages that share an entity.

Two passages are linked when one mentions the other's title (or lists it in `links`), or when
they are consecutive chunks of the same article (same title, next to each other in the file).
A group of 2 is a linked pair; a group of 3 is a path A-B-C or a triangle, so every passage
shares an entity with at least one other and the evidence can be spread over all of them.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterable, Sequence

import networkx as nx

from pipeline.records import Passage

MAX_TITLE_WORDS = 8  # longer titles are rare and never mentioned verbatim
MAX_TRIPLES_PER_HUB = 20  # a hub passage mentioned by hundreds would otherwise dominate the 3-groups

_WORD = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def mention_graph(passages: dict[str, Passage]) -> nx.Graph:
    """Undirected graph over passage ids; edge attribute `why` says what links the pair."""
    graph = nx.Graph()
    graph.add_nodes_from(passages)
    by_title: dict[tuple[str, ...], list[str]] = {}
    for pid, passage in passages.items():
        key = tuple(_words(passage.title))
        if 0 < len(key) <= MAX_TITLE_WORDS:
            by_title.setdefault(key, []).append(pid)
    # Only an n-gram that starts like a title and has its length can be one: far fewer look-ups.
    lengths: dict[str, set[int]] = {}
    for key in by_title:
        lengths.setdefault(key[0], set()).add(len(key))

    previous: Passage | None = None
    for pid, passage in passages.items():
        if previous is not None and previous.title and previous.title == passage.title:
            graph.add_edge(previous.id, pid, why="same article")
        previous = passage
        for other in _mentioned(passage, by_title, lengths):
            if other != pid and not graph.has_edge(pid, other):
                graph.add_edge(pid, other, why="mention")
    return graph


def _mentioned(passage: Passage, by_title: dict[tuple[str, ...], list[str]],
               lengths: dict[str, set[int]]) -> Iterable[str]:
    own = tuple(_words(passage.title))
    words = _words(passage.text)
    for start, word in enumerate(words):
        for size in lengths.get(word, ()):
            key = tuple(words[start:start + size])
            if key != own and key in by_title:
                yield from by_title[key]
    for title in passage.links or ():
        yield from by_title.get(tuple(_words(title)), ())


def passage_groups(graph: nx.Graph, size: int, seed: int) -> list[tuple[str, ...]]:
    """Every candidate group of `size` passages (1, 2 or 3), in a seeded random order."""
    rng = random.Random(f"{seed}:{size}")
    if size == 1:
        groups = [(node,) for node in graph.nodes]
    elif size == 2:
        groups = [tuple(edge) for edge in graph.edges]
    elif size == 3:
        groups = []
        for hub in graph.nodes:
            neighbours = sorted(graph.neighbors(hub))
            pairs = itertools.combinations(neighbours, 2)
            if len(neighbours) * (len(neighbours) - 1) // 2 > MAX_TRIPLES_PER_HUB:
                pairs = {tuple(sorted(rng.sample(neighbours, 2))) for _ in range(MAX_TRIPLES_PER_HUB)}
            groups.extend((a, hub, b) for a, b in sorted(pairs))
    else:
        raise ValueError(f"groups have 1, 2 or 3 passages, not {size}")
    groups.sort()
    rng.shuffle(groups)
    return groups


def spread(groups: Sequence[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """Reorder so that consecutive picks reuse passages as little as possible (greedy, stable)."""
    used: set[str] = set()
    fresh, rest = [], []
    for group in groups:
        if used.isdisjoint(group):
            fresh.append(group)
            used.update(group)
        else:
            rest.append(group)
    return fresh + rest
