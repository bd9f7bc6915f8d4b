"""The knowledge graph: a networkx MultiDiGraph of facts, each carrying the passages that state it.

Every fact `(s, R, o)` is stored twice, as `s -R-> o` and as `o -inv(R)-> s`, so that a query
triple can always be written in ComLQ's edge direction with a relation that reads that way
("Stanley Kubrick, creator_of, ?y"). Edge keys are relation names; the edge attribute
`passages` lists the passage ids that state the fact. Node attributes: `label` (the display
name used in queries) and, for passage entities, `topic`.

Triples can also come from a user file (`--triples`), one JSON object per line, validated by
`schemas/triple.schema.json`: {"subject", "relation", "object", "passages": [ids], "inverse"?}.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx

from pipeline.errors import RecordError
from pipeline.kg.facts import Evidence, Extraction, Fact
from pipeline.kg.names import PRIZE_WORDS
from pipeline.records import Passage
from pipeline.schemas import iter_jsonl, validate

_NO_EDGES: dict[str, tuple[str, ...]] = {}  # read only: the out-edges of a node without any


@dataclass(eq=False)  # compared and hashed by identity (sample.unnamable caches per graph)
class KnowledgeGraph:
    graph: nx.MultiDiGraph
    inverses: dict[str, str]  # relation -> its inverse, both ways
    # Read-only indexes over `graph` for the sampler's inner loops (built once by `index`).
    out: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)  # node -> relation -> objects
    passages: dict[tuple[str, str, str], tuple[str, ...]] = field(default_factory=dict)
    evidence: dict[tuple[str, str, str], tuple[Evidence, ...]] = field(default_factory=dict)  # sentences, read s -> o
    subjects: dict[str, tuple[str, ...]] = field(default_factory=dict)  # relation -> nodes with that out-edge
    labels: dict[str, str] = field(default_factory=dict)
    definite: frozenset[str] = frozenset()  # names the text mostly writes after "the" ("the Taiping Rebellion")
    shared_titles: dict[str, int] = field(default_factory=dict)  # title -> passages read as one article, if several
    _sets: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict, repr=False)  # see neighbour_set

    def label(self, node: str) -> str:
        return self.labels[node]

    def named(self, node: str) -> str:
        """The node's name as a question writes it: with "the" where the passages do; a decade that "the 1700s"
        would read as a century by its years ("the years 1700–1709")."""
        if node.startswith("value:decade:") and (match := re.fullmatch(r"(\d*00)s", self.labels[node])):
            return f"years {match.group(1)}–{int(match.group(1)) + 9}"
        return f"the {self.labels[node]}" if node in self.definite else self.labels[node]

    def topic(self, node: str) -> str | None:
        return self.graph.nodes[node].get("topic")

    def neighbours(self, node: str, relation: str) -> tuple[str, ...]:
        return self.out.get(node, _NO_EDGES).get(relation, ())

    def neighbour_set(self, node: str, relation: str) -> frozenset[str]:
        """`neighbours` as a set, built once per graph: every type's sampler and the corpus check ask for it."""
        key = (node, relation)
        if key not in self._sets:
            self._sets[key] = frozenset(self.neighbours(node, relation))
        return self._sets[key]

    def index(self) -> KnowledgeGraph:
        out: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        subjects: dict[str, set[str]] = defaultdict(set)
        for s, o, relation, data in self.graph.edges(keys=True, data=True):
            out[s][relation].append(o)
            subjects[relation].add(s)
            self.passages[(s, relation, o)] = data["passages"]
            self.evidence[(s, relation, o)] = data["evidence"]
        self.out = {n: {r: tuple(sorted(objs)) for r, objs in sorted(rels.items())} for n, rels in sorted(out.items())}
        self.subjects = {r: tuple(sorted(nodes)) for r, nodes in sorted(subjects.items())}
        self._sets.clear()  # built from the old `out`
        self.labels = dict(self.graph.nodes(data="label"))
        people = {n for n, rels in self.out.items() if "occupation" in rels or "nationality" in rels}
        self.definite = _definite(self.evidence, self.labels, people)
        return self

    def stats(self) -> dict[str, object]:
        per_relation: dict[str, int] = defaultdict(int)
        for *_, relation in self.graph.edges(keys=True):
            per_relation[relation] += 1
        shared = {"shared_titles": dict(sorted(self.shared_titles.items()))} if self.shared_titles else {}
        return {"nodes": self.graph.number_of_nodes(), "edges": self.graph.number_of_edges(),
                "edges_per_relation": dict(sorted(per_relation.items())), **shared}


_THE = re.compile(r"(?:^|(?<=\W))[Tt]he\s+$")
# a prize takes "the" in a question however its mentions write it ("won the Nobel Prize in Literature",
# though the text also writes "1982 Nobel Prize in Literature" and "Nobel Prize in Literature laureate")
_PRIZE = re.compile(rf"\b(?:{'|'.join(sorted(PRIZE_WORDS))})\b")


def _definite(evidence: dict[tuple[str, str, str], tuple[Evidence, ...]], labels: dict[str, str],
              people: set[str]) -> frozenset[str]:
    """Names, capitalised as written, that most of their mentions write after "the": "the Conservative
    Party", not "the guitar" nor a person (every fact is stored both ways, so each mention is counted
    once, as a subject)."""
    the: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for (s, _, _), statements in evidence.items():
        for e in statements:
            at = e.sentence.find(e.subject_mention)
            if at < 0 or s in people:
                continue
            seen[s] += 1
            name = re.sub(r"^[Tt]he\s+", "", e.subject_mention)
            # "The Tragedy of King Lear" names King Lear, but its "The" is the tragedy's (an "of" before the name);
            # "The Strait" and "The Songhua or Sunghwa River" keep theirs
            first = labels.get(s, "").split()[:1]
            before = re.split(rf"\b{re.escape(first[0])}\b", name, maxsplit=1)[0] if first else ""
            own = not re.search(r"\bof\b", before)
            written = (name != e.subject_mention and own) or _THE.search(e.sentence[:at]) is not None
            the[s] += written and name[:1].isupper()
    # (a value is no name: "the people that are the Swiss" reads wrong)
    return frozenset(n for n, count in the.items() if not n.startswith("value:")
                     and not re.match(r"(?:the|an?) ", labels.get(n, "the ").lower()) and (
        2 * count > seen[n] and labels[n][:1].isupper() or _PRIZE.search(labels[n])))  # "the 1988 Nobel Prize"


def build_graph(facts: Iterable[Fact], labels: dict[str, str], inverses: dict[str, str],
                topics: dict[str, str] | None = None) -> KnowledgeGraph:
    """A graph of `facts` plus their inverses; `inverses` maps each forward relation to its inverse name."""
    graph = nx.MultiDiGraph()
    both = dict(inverses) | {inv: rel for rel, inv in inverses.items()}
    for fact in facts:
        for node in (fact.subject, fact.object):
            if node not in graph:
                topic = {"topic": topics[node]} if topics and node in topics else {}
                graph.add_node(node, label=labels.get(node, node), **topic)
        inverse = both[fact.relation]
        _add(graph, fact.subject, fact.relation, fact.object, fact.passages, fact.evidence)
        _add(graph, fact.object, inverse, fact.subject, fact.passages, tuple(e.reversed() for e in fact.evidence))
    return KnowledgeGraph(graph, both).index()


def _add(graph: nx.MultiDiGraph, s: str, relation: str, o: str, passages: tuple[str, ...],
         evidence: tuple[Evidence, ...]) -> None:
    if graph.has_edge(s, o, key=relation):
        edge = graph.edges[s, o, relation]
        edge["passages"] = tuple(sorted(set(edge["passages"]) | set(passages)))
        edge["evidence"] = tuple(dict.fromkeys(edge["evidence"] + evidence))
    else:
        graph.add_edge(s, o, key=relation, passages=tuple(sorted(passages)), evidence=evidence)


def from_extraction(extraction: Extraction, inverses: dict[str, str]) -> KnowledgeGraph:
    kg = build_graph(extraction.facts, extraction.labels, inverses, extraction.topics)
    kg.shared_titles = extraction.shared_titles
    return kg


def read_triples(path: str | Path, passages: dict[str, Passage]) -> KnowledgeGraph:
    """A graph from a user triples JSONL; errors name file:line:field."""
    facts: list[Fact] = []
    inverses: dict[str, str] = {}  # both ways
    for where, record in iter_jsonl(path):
        validate(record, "triple", where)
        unknown = [p for p in record["passages"] if p not in passages]
        if unknown:
            raise RecordError(where, "passages", f"unknown passage id {unknown[0]!r} (not in the passage file)")
        relation = record["relation"]
        inverse = inverses.get(relation) or record.get("inverse") or f"inverse of {relation}"
        if record.get("inverse", inverse) != inverse or inverses.get(inverse, relation) != relation:
            raise RecordError(where, "inverse", f"{record.get('inverse')!r} contradicts the inverse of {relation!r} "
                                                f"given earlier ({inverse!r})")
        inverses[relation], inverses[inverse] = inverse, relation
        evidence = tuple(Evidence(e["passage"], e["sentence"], e["subject_mention"], e["object_mention"])
                         for e in record.get("evidence", ()))
        facts.append(Fact(record["subject"], relation, record["object"], tuple(record["passages"]), evidence))
    if not facts:
        raise RecordError(str(path), "", "no triples")
    return build_graph(facts, {}, inverses)
