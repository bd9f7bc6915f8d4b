"""What extraction hands to the graph: facts, each with the sentences that state it.

This is the interface between the extractors (`extract.py`, or a user triples file) and the
knowledge graph (`graph.py`): an extractor returns an `Extraction`; the graph keeps every fact's
`Evidence`, so an item can show the sentence behind each of its facts and a check can confirm
that the sentence, in the passage text the benchmark ships, names both ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Evidence:
    """One statement of a fact: the sentence of a passage's text, and how it names both ends."""

    passage: str
    sentence: str  # a substring of the passage text
    subject_mention: str  # a substring of `sentence` naming the subject ("Kubrick", "He" is not a name)
    object_mention: str  # a substring of `sentence` naming the object ("1928" for "20th century")

    def reversed(self) -> Evidence:
        """The same statement read for the inverse fact (object and subject swap)."""
        return Evidence(self.passage, self.sentence, self.object_mention, self.subject_mention)


@dataclass(frozen=True, slots=True)
class Fact:
    """One extracted triple between graph nodes, with the passages (and sentences) that state it."""

    subject: str
    relation: str
    object: str
    passages: tuple[str, ...]
    evidence: tuple[Evidence, ...] = ()


@dataclass
class Extraction:
    facts: list[Fact]
    labels: dict[str, str]  # node id -> display name
    topics: dict[str, str] = field(default_factory=dict)  # node id -> topic, for passage nodes
    shared_titles: dict[str, int] = field(default_factory=dict)  # title -> passages merged into its one article
