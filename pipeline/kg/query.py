"""A query type as an evaluation plan, and exact answers by set operations.

Every ComLQ pattern is a tree. Rooted at the target, each node's set is computed from its
children: a child reached by a plain edge is projected along the edge's relation and
intersected with its siblings, children on union edges are unioned, and children on negated
edges are subtracted (difference). Anchors are singleton sets. This is BetaE's projection /
intersection / union / difference, written once for all 14 types.

`provenance` then walks back from chosen members to the passages that state the facts of all
their witnesses (every assignment of the variables below that puts them in the set).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

from pipeline.kg.graph import KnowledgeGraph
from pipeline.querytypes import get_type


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


def project(kg: KnowledgeGraph, source: set[str], relation: str) -> set[str]:
    reached: set[str] = set()
    for entity in source:  # kg.neighbours, inlined: the innermost loop of every evaluation
        if (objects := kg.out.get(entity)) and relation in objects:
            reached.update(objects[relation])
    return reached


def evaluate(kg: KnowledgeGraph, plan: Plan, anchors: dict[str, str], relations: dict[int, str],
             skip: frozenset[int] = frozenset()) -> dict[str, set[str]]:
    """The exact set of every pattern node, skipping the edges in `skip` (used to test necessity)."""
    sets: dict[str, set[str]] = {}

    def value(node: str) -> set[str]:
        if plan.is_anchor(node):
            result = {anchors[node]}
        else:
            parts = [(st, project(kg, value(st.child), traversal(kg, st, relations[st.edge])))
                     for st in plan.steps[node] if st.edge not in skip]
            plain = [p for st, p in parts if not st.negated and not st.union]
            unions = [p for st, p in parts if st.union]
            result = set().union(*unions) if unions else set.intersection(*plain) if plain else set()
            for st, part in parts:
                if st.negated:
                    result -= part
        sets[node] = result
        return result

    value(plan.target)
    return sets


class TooManyPassages(Exception):
    """Raised by `provenance` as soon as the passages exceed the limit."""


def _witness_edges(kg: KnowledgeGraph, plan: Plan, relations: dict[int, str], sets: dict[str, set[str]],
                   members: Iterable[str], node: str | None = None) -> Iterator[tuple[Step, str, str, str]]:
    """Every edge (step, child member, relation child -> parent, parent member) of a witness of
    `members` of `node` (default: the target), walking down from the members only, so large sets
    above (anchors such as "American") cost nothing unless they lead to a member; negated steps
    have no witnesses (an absence is stated nowhere)."""
    seen: set[tuple[str, str]] = set()
    stack = [(node or plan.target, m) for m in members]
    moves: dict[str, list[tuple[Step, str, str, set[str]]]] = {}  # node -> (step, forward, backward, child's set)
    while stack:
        at, entity = stack.pop()
        if (at, entity) in seen:
            continue
        seen.add((at, entity))
        if at not in moves:  # the same for every entity of the node: worked out once
            moves[at] = [(st, forward, kg.inverses[forward], sets[st.child]) for st in plan.steps[at]
                         if not st.negated and st.child in sets
                         for forward in (traversal(kg, st, relations[st.edge]),)]
        for st, forward, backward, below in moves[at]:
            for prev in kg.neighbours(entity, backward):
                if prev in below:
                    yield st, prev, forward, entity
                    stack.append((st.child, prev))


def provenance(kg: KnowledgeGraph, plan: Plan, relations: dict[int, str], sets: dict[str, set[str]],
               members: Iterable[str], node: str | None = None, limit: int | None = None) -> frozenset[str]:
    """The passages stating the facts of every witness of `members` of `node` (default: the target);
    TooManyPassages as soon as they exceed `limit`."""
    found: set[str] = set()
    for _, prev, forward, entity in _witness_edges(kg, plan, relations, sets, members, node):
        found.update(kg.passages[(prev, forward, entity)])
        if limit is not None and len(found) > limit:
            raise TooManyPassages()
    return frozenset(found)


def witness_triples(kg: KnowledgeGraph, plan: Plan, relations: dict[int, str], sets: dict[str, set[str]],
                    members: Iterable[str], node: str | None = None) -> list[tuple[int, str, str, str]]:
    """The witnesses' facts as (edge index, subject, relation, object) in the item's triple directions, sorted."""
    found = set()
    for st, prev, _, entity in _witness_edges(kg, plan, relations, sets, members, node):
        relation = relations[st.edge]
        found.add((st.edge, prev, relation, entity) if st.upward else (st.edge, entity, relation, prev))
    return sorted(found)


def partial_passages(kg: KnowledgeGraph, plan: Plan, relations: dict[int, str], sets: dict[str, set[str]]
                    ) -> frozenset[str]:
    """The passages of entities that meet some but not all positive conditions of an intersection.

    At every node with two or more plain (intersected) steps, an entity reached by some of the
    steps but not all is a partial member; its passages are those of the conditions it meets.
    """
    found: set[str] = set()
    for steps in plan.steps.values():
        plain = [st for st in steps if not st.negated and not st.union]
        if len(plain) < 2:
            continue
        forwards = {st.edge: traversal(kg, st, relations[st.edge]) for st in plain}
        parts = {st.edge: project(kg, sets[st.child], forwards[st.edge]) for st in plain}
        full = set.intersection(*parts.values())
        for st in plain:
            forward, below = forwards[st.edge], sets[st.child]
            for member in parts[st.edge] - full:
                witnesses = [w for w in kg.neighbours(member, kg.inverses[forward]) if w in below]
                for w in witnesses:
                    found.update(kg.passages[(w, forward, member)])
                found |= provenance(kg, plan, relations, sets, witnesses, node=st.child)
    return frozenset(found)


def branch_passages(kg: KnowledgeGraph, plan: Plan, anchors: dict[str, str], relations: dict[int, str]
                    ) -> tuple[frozenset[str], ...]:
    """Per union step (in triple order): the passages of the answers reached through it alone."""
    branches = []
    for steps in plan.steps.values():
        unions = [st for st in steps if st.union]
        for st in unions:
            sets = evaluate(kg, plan, anchors, relations, skip=frozenset(u.edge for u in unions if u is not st))
            branches.append(provenance(kg, plan, relations, sets, sets[plan.target]))
    return tuple(branches)
