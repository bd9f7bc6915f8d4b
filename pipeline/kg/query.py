"""A query type as an evaluation plan, and exact answers by set operations.

Every ComLQ pattern is a tree. Rooted at the target, each node's set is computed from its
children: a child reached by a plain edge is projected along the edge's relation and
intersected with its siblings, children on union edges are unioned, and children on negated
edges are subtracted (difference). Anchors are singleton sets. This is BetaE's projection /
intersection / union / difference, written once for all 14 types.

Sets carry provenance: each member maps to the passages that state the facts of all its
witnesses (every assignment of the variables below it that puts it in the set).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from pipeline.kg.graph import KnowledgeGraph
from pipeline.querytypes import get_type

Provenance = dict[str, frozenset[str]]  # entity -> passages


@dataclass(frozen=True, slots=True)
class Step:
    """The edge from `child` up to its parent in a plan rooted at the target."""

    child: str  # pattern node name, e.g. '?y'
    edge: int  # index of the pattern edge (= position of the triple in the item)
    upward: bool  # the ComLQ triple is (child, R, parent); False: (parent, R, child)
    negated: bool
    union: bool


@dataclass(frozen=True, slots=True)
class Plan:
    type: str
    target: str
    roles: dict[str, str]  # pattern node -> anchor | variable | target
    steps: dict[str, tuple[Step, ...]]  # pattern node -> steps to its children
    edges: tuple[tuple[str, str], ...]  # pattern edges (subject, object) in triple order

    def anchors(self) -> list[str]:
        return [n for n, role in self.roles.items() if role == "anchor"]

    def is_anchor(self, node: str) -> bool:
        return self.roles[node] == "anchor"

    def is_projection(self, node: str) -> bool:
        """One plain child: the node's set is a projection of its child's set."""
        steps = self.steps[node]
        return len(steps) == 1 and not steps[0].negated and not steps[0].union


@cache
def plan_for(type_name: str) -> Plan:
    pattern = get_type(type_name).pattern
    edges = sorted(pattern.edges(data=True), key=lambda e: e[2]["index"])
    roles = dict(pattern.nodes(data="role"))
    target = next(n for n, role in roles.items() if role == "target")
    steps: dict[str, list[Step]] = {n: [] for n in roles}
    seen = {target}
    frontier = [target]
    while frontier:
        node = frontier.pop(0)
        for s, o, data in edges:
            if node not in (s, o):
                continue
            child = o if s == node else s
            if child in seen:
                continue
            seen.add(child)
            frontier.append(child)
            steps[node].append(Step(child, data["index"], upward=(s == child), negated=data["negated"],
                                    union=data["union"]))
    # positives first, then unions, then negations: the order the sampler grounds them in
    ordered = {n: tuple(sorted(ss, key=lambda st: (st.negated, st.union, st.edge))) for n, ss in steps.items()}
    return Plan(type_name, target, roles, ordered, tuple((s, o) for s, o, _ in edges))


def traversal(kg: KnowledgeGraph, step: Step, relation: str) -> str:
    """The relation followed from the child to its parent, given the triple's relation."""
    return relation if step.upward else kg.inverses[relation]


def project(kg: KnowledgeGraph, source: Provenance, relation: str) -> Provenance:
    out: dict[str, set[str]] = {}
    for entity, passages in source.items():
        for reached in kg.neighbours(entity, relation):
            bucket = out.setdefault(reached, set())
            bucket.update(passages)
            bucket.update(kg.passages[(entity, relation, reached)])
    return {e: frozenset(p) for e, p in out.items()}


def evaluate(kg: KnowledgeGraph, plan: Plan, anchors: dict[str, str], relations: dict[int, str],
             skip: frozenset[int] = frozenset()) -> dict[str, Provenance]:
    """The set of every pattern node (exact), skipping the edges in `skip` (used to test necessity)."""
    sets: dict[str, Provenance] = {}

    def value(node: str) -> Provenance:
        if plan.is_anchor(node):
            result: Provenance = {anchors[node]: frozenset()}
        else:
            parts = [(st, project(kg, value(st.child), traversal(kg, st, relations[st.edge])))
                     for st in plan.steps[node] if st.edge not in skip]
            plain = [p for st, p in parts if not st.negated and not st.union]
            unions = [p for st, p in parts if st.union]
            negated = [p for st, p in parts if st.negated]
            if unions:
                result = {}
                for part in unions:
                    for e, passages in part.items():
                        result[e] = result.get(e, frozenset()) | passages
            else:
                common = set(plain[0]).intersection(*plain[1:]) if plain else set()
                result = {e: frozenset().union(*(p[e] for p in plain)) for e in common}
            for part in negated:
                result = {e: p for e, p in result.items() if e not in part}
        sets[node] = result
        return result

    value(plan.target)
    return sets
