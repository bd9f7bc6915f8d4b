"""Enumerated groundings for the sparse shapes a random walk rarely finds.

`Enumerator` grounds 3i, ip and 3in from the combinations of one member's own conditions (three
conditions that each matter, then the negation or the projection); `ChainEnumerator` grounds the
chain types (2p, 3p, pi, 2u, up, 2in, inp, pin, pni) from the anchors outwards. Both only choose which
groundings are tried: every grounding still gets `Sampler._evaluate`'s full check and its item every
check of `make_item` (pipeline/kg/generator.py).
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterator

from pipeline.kg.complete import EXHAUSTIVE
from pipeline.kg.graph import KnowledgeGraph
from pipeline.kg.query import Plan, Step, project, traversal
from pipeline.kg.sample import Grounding, Sampler, _best_weights


class Enumerating(Sampler):
    """What the enumerators share: a weighted random order, a member's conditions, the triple's
    relation of a step, and the full check of a grounding."""

    def __init__(self, kg: KnowledgeGraph, plan: Plan, rng: random.Random, max_answers: int,
                 weights: dict[str, float] | None = None):
        super().__init__(kg, plan, rng, max_answers, weights)
        self._conditions: dict[str, list[tuple[str, str, frozenset[str]]]] = {}

    def _key(self, relation: str) -> float:
        """A weighted random order (Efraimidis-Spirakis, ascending): relations of weight w come first w
        times as often; weight 0 last."""
        weight = self.weights.get(relation, 1.0)
        return -(self.rng.random() ** (1.0 / weight)) if weight > 0 else 1.0

    def conditions(self, member: str) -> list[tuple[str, str, frozenset[str]]]:
        """(out-relation r, anchor, the anchor's set along inv(r)) for every nameable anchor of `member`."""
        if member not in self._conditions:
            found = []
            for r, anchors in self.kg.out.get(member, {}).items():
                if self.weights.get(r, 1.0) <= 0:
                    continue
                back = self.kg.inverses[r]
                for a in anchors:
                    if a not in self.unnamable:
                        found.append((r, a, self.kg.neighbour_set(a, back)))
            self._conditions[member] = found
        return self._conditions[member]

    def _relation(self, step: Step, r: str) -> str:
        """The triple's relation for a step whose parent reaches its child by out-edge r."""
        return self.kg.inverses[r] if step.upward else r

    def _checked(self, anchors: dict[str, str], relations: dict[int, str]) -> Grounding | None:
        """The grounding when it passes `_evaluate` and is new, else None (the reason counted)."""
        return self._new(lambda: self._evaluate(anchors, relations))


class Enumerator(Enumerating):
    """Groundings of the intersection types (3i, 3in, ip) by enumerating anchor combinations.

    A random walk rarely finds three conditions that each matter (3i), or two and then a
    projection (ip): most answers have no such combination. So the core, the node whose plain
    steps all end at anchors, is grounded from a member's own conditions (anchor, relation),
    combinations of them tried in a random order weighted like the walk; then the negation
    (3in) is drawn from the conditions of the core's members, or the projection (ip) from their
    relations. The corpus check's `possible(conditions)` (the entities that may meet all the anchored
    conditions) turns down a core early when the corpus may hold a member the graph lacks (3in keeps it
    only with a NOT that surely removes every such member); every grounding still gets the full check
    of `_evaluate`, and its item every check of `make_item`.
    """

    COMBINATIONS = 400  # core combinations tried per member before the next member
    EXTENSIONS = 60  # negations or projections tried per core

    def __init__(self, kg: KnowledgeGraph, plan: Plan, rng: random.Random, max_answers: int,
                 weights: dict[str, float] | None = None, checker=None):
        super().__init__(kg, plan, rng, max_answers, weights)
        self.checker = checker
        self.core, self.up = self._core(plan)
        steps = plan.steps[self.core]
        self.positive = [st for st in steps if not st.negated and not st.union]
        self.negated = [st for st in steps if st.negated]

    @staticmethod
    def _core(plan: Plan) -> tuple[str, Step | None]:
        """The node whose plain steps all end at anchors (two or more), and the target's step to it (ip)."""
        for node, steps in plan.steps.items():
            plain = [st for st in steps if not st.negated and not st.union]
            if len(plain) < 2 or not all(plan.is_anchor(st.child) for st in steps):
                continue
            if node == plan.target:
                return node, None
            if plan.is_projection(plan.target) and plan.steps[plan.target][0].child == node:
                return node, plan.steps[plan.target][0]
        raise ValueError(f"{plan.type}: no intersection of anchors to enumerate")

    @classmethod
    def supports(cls, plan: Plan) -> bool:
        try:
            cls._core(plan)
        except ValueError:
            return False
        return plan.type in ("3i", "3in", "ip")

    def groundings(self):
        """Every grounding found, in a random order; the caller stops when it has enough."""
        members = sorted(self.entities, key=lambda e: self.rng.random())
        for member in members:
            usable = [c for c in self.conditions(member) if len(c[2]) >= 2]
            if len(usable) < len(self.positive):
                continue
            for combo in self._combinations(usable):
                found = self._core_set(combo)
                if found is None:
                    continue
                core, extra = found
                anchors = {st.child: a for st, (_, a, _) in zip(self.positive, combo)}
                if len({self.kg.label(a) for a in anchors.values()}) < len(anchors):
                    continue
                relations = {st.edge: self._relation(st, r) for st, (r, _, _) in zip(self.positive, combo)}
                yield from self._extend(core, extra, anchors, relations)

    def _combinations(self, usable: list) -> Iterator[tuple]:
        """All k-combinations of a member's conditions when they are few, else COMBINATIONS random
        ones, each drawn in the weighted order (a hub answer such as "writer" has thousands)."""
        k = len(self.positive)
        if math.comb(len(usable), k) <= self.COMBINATIONS:
            usable = sorted(usable, key=lambda c: self._key(c[0]))
            yield from itertools.combinations(usable, k)
            return
        tried = set()
        for _ in range(self.COMBINATIONS):
            combo = tuple(sorted(self.rng.sample(range(len(usable)), k)))
            if combo not in tried:
                tried.add(combo)
                yield tuple(sorted((usable[i] for i in combo), key=lambda c: self._key(c[0])))

    def _core_set(self, combo) -> tuple[frozenset[str], frozenset[str]] | None:
        """The intersection of the combination's sets when each condition matters, and the other members
        the corpus may hold (which a negation must remove), else None."""
        sets = [c[2] for c in combo]
        core = frozenset.intersection(*sets)
        if not core:
            return None
        for i in range(len(sets)):
            if frozenset.intersection(*sets[:i], *sets[i + 1:]) == core:
                return None
        if self.negated and len(core) < 2:
            return None
        if not self.negated and self.up is None and len(core) > self.max_answers:
            return None
        # (not for ip's narrow core, a bridge whose unknown members matter only if they lead to other
        # answers, which the full check finds)
        extra = frozenset()
        if self.checker and (self.up is None or not self.checker.narrow([a for _, a, _ in combo], len(core))):
            extra = frozenset(self.checker.possible([(a, self.kg.inverses[r]) for r, a, _ in combo]) - core)
        if extra and not self.negated:
            self.rejections["corpus_other_member"] += 1
            return None
        return core, extra

    def _stated(self, member: str, anchors: dict[str, str], relations: dict[int, str]) -> set[str]:
        """The passages stating the core member's positive facts."""
        return {p for st in self.positive
                for p in self.kg.passages[(anchors[st.child], traversal(self.kg, st, relations[st.edge]), member)]}

    def _negations(self, core: frozenset[str], extra: frozenset[str], anchors: dict[str, str],
                   relations: dict[int, str]) -> list[tuple[Step, str, str | None]]:
        """The negated conditions that remove some core members, keep some, and remove every `extra`."""
        step, found = self.negated[0], []
        seen, kept_extra = set(), False
        stated = {m: self._stated(m, anchors, relations) for m in core}
        for member in sorted(sorted(core), key=lambda m: self.rng.random()):  # sorted first: not hash order
            for r, a, reached in self.conditions(member):
                # (a NOT on a relation whose values are seldom all stated never holds by contrast: not tried)
                if a in anchors.values() or (r, a) in seen or not (core - reached) \
                        or not {r, self.kg.inverses[r]} & EXHAUSTIVE:
                    continue
                if extra - reached:  # another member the corpus may hold, which this NOT keeps
                    kept_extra = True
                    continue
                if any(not self.kg.neighbours(m, r) for m in core - reached):
                    self.rejections["negation_unstated"] += 1  # open world: a kept member must state another value
                    continue
                # a violating passage is needed: one stating a removed member's facts, not an answer's
                evidence = set().union(*(stated[m] for m in core - reached))
                if not set().union(*(stated[m] for m in core & reached)) - evidence:
                    self.rejections["no_violating_passage"] += 1
                    continue
                seen.add((r, a))
                found.append((step, r, a))
        if kept_extra and not found:  # counted once per core, as the check before the negation is
            self.rejections["corpus_other_member"] += 1
        return found

    def _extend(self, core: frozenset[str], extra: frozenset[str], anchors: dict[str, str],
                relations: dict[int, str]):
        extensions: list[tuple[Step, str, str | None]] = []
        if self.negated:
            extensions = self._negations(core, extra, anchors, relations)
        elif self.up is not None:
            # never the inverse of an anchor's relation (relation_then_inverse: back to the anchor)
            own = {self.kg.inverses[rel] if st.upward else rel for st in self.positive
                   for rel in (relations[st.edge],)}
            rels = {r for m in core for r in self.kg.out.get(m, {}) if self.weights.get(r, 1.0) > 0 and r not in own}
            extensions = [(self.up, r, None) for r in sorted(rels)]
        else:
            extensions = [(None, "", None)]
        extensions.sort(key=lambda e: self._key(e[1]) if e[1] else 0.0)
        for step, r, anchor in extensions[:self.EXTENSIONS]:
            full_anchors, full_relations = dict(anchors), dict(relations)
            if step is not None:
                # the negation: the core member reaches its anchor by r; the projection: the target
                # (parent) reaches a core member (child) by inv(r)
                out = r if anchor is not None else self.kg.inverses[r]
                full_relations[step.edge] = self._relation(step, out)
                if anchor is not None:
                    full_anchors[step.child] = anchor
            if grounding := self._checked(full_anchors, full_relations):
                yield grounding


Partial = tuple[dict[str, str], dict[int, str], dict[str, frozenset[str]]]  # anchors, relations, sets so far


class ChainEnumerator(Enumerating):
    """Groundings of the chain types (3p, up, inp, pin, pni), built from the anchors outwards.

    On these shapes a walk back from a random answer mostly dead-ends or finds a grounding it
    already made. Here each node is grounded from its children. Its base is its step to a
    variable child (else its first step): an anchor's set along one of its relations, or the
    child's set projected along one of its members' relations. Its other steps, which end at
    anchors, are drawn from the conditions of the base set's members (a negation then removes
    some members and keeps some; an intersection keeps some) or, for a union, of entities with
    the first branch's relation (it adds some). Options are tried in a random order weighted like
    the walk, at most BRANCHES per partial grounding, so the search spreads over many anchors; a
    partial grounding is dropped as soon as a node's set is empty or wider than WIDE, a relation
    could never pass (class_as_answer, relation_then_inverse), or the corpus check turns the node
    down (`node_reason`, the check `make_item` applies to the whole grounding). Every grounding
    still gets the full check of `_evaluate`, and its item every check of `make_item`.
    """

    TYPES = ("2p", "3p", "pi", "2u", "up", "2in", "inp", "pin", "pni")
    BRANCHES = 12  # relations tried per set, and anchored conditions kept per partial grounding
    WIDE = 100  # widest set a variable keeps: wider ones rarely end in few answers stated in 3 passages
    TRIES = 60  # anchored conditions tried per partial grounding
    KIN = 16  # entities with the first branch's relation whose conditions a union draws from
    PER_START = 3  # groundings yielded per starting anchor, for variety
    # when the capped pass is exhausted, a second pass takes what the caps left out: a sparse graph's
    # pin and pni lie mostly past them (sample, per type 50: pin 33 -> 50, pni 36 -> 50)
    WIDER = {"BRANCHES": 40, "TRIES": 200, "PER_START": 10**6}

    def __init__(self, kg: KnowledgeGraph, plan: Plan, rng: random.Random, max_answers: int,
                 weights: dict[str, float] | None = None, checker=None):
        super().__init__(kg, plan, rng, max_answers, weights)
        self.checker = checker
        self.parents = {st: node for node, steps in plan.steps.items() for st in steps}  # step -> its parent node
        self.started: Counter[str] = Counter()
        self.ordered: dict[str, list[tuple[str, str, frozenset[str]]]] = {}  # member -> its followable conditions
        self.pruned: set[tuple] = set()  # partial groundings turned down, so the second pass counts none twice

    @classmethod
    def supports(cls, plan: Plan) -> bool:
        return plan.type in cls.TYPES

    def groundings(self) -> Iterator[Grounding]:
        """Every grounding found, in a random order, the capped pass first; the caller stops when it
        has enough."""
        target = self.plan.target
        tried: set[tuple] = set()
        for wider in (False, True):
            if wider:  # never narrower than a cap set on the instance (tests lift them all)
                vars(self).update({cap: max(getattr(self, cap), v) for cap, v in self.WIDER.items()})
            for anchors, relations, sets in self._ground(target):
                start = next(iter(anchors.values()))  # the anchor the first base grew from
                if len(sets[target]) > self.max_answers or self.started[start] >= self.PER_START:
                    continue
                if (key := (tuple(sorted(anchors.items())), tuple(sorted(relations.items())))) in tried:
                    continue  # the first pass's, met again
                tried.add(key)
                labels = [self.kg.label(a) for a in anchors.values()]
                if len(set(labels)) != len(labels):
                    self.rejections["anchor_clash"] += 1
                    continue
                if grounding := self._checked(anchors, relations):
                    self.started[start] += 1
                    yield grounding

    def _followable(self, relation: str) -> bool:
        """A relation that may lead into a variable (one into a set of classes never passes)."""
        return self.weights.get(relation, 1.0) > 0 and relation != "instance_of"

    def _ground(self, node: str) -> Iterator[Partial]:
        """Partial groundings of the subtree below `node`."""
        steps = self.plan.steps[node]
        base = next((st for st in steps if not self.plan.is_anchor(st.child)), steps[0])
        rest = [st for st in steps if st is not base]
        for anchors, relations, sets, reached in self._base(base):
            if self._incomplete(base, anchors, relations, sets):
                continue
            positive, negative = (None, reached) if base.negated else (reached, frozenset())
            yield from self._rest(node, (anchors, relations, sets), positive, negative, rest)

    def _incomplete(self, base: Step, anchors: dict[str, str], relations: dict[int, str],
                    sets: dict[str, frozenset[str]]) -> bool:
        """Does the corpus check turn the target down for its base alone? Asked only where the answers
        are the base's projection (no other step may take back what the text adds)."""
        parent = self._parent(base)
        if not self.checker or parent != self.plan.target or not self.plan.is_projection(parent):
            return False
        sources = {anchors[base.child]} if self.plan.is_anchor(base.child) else sets[base.child]
        if self.checker.beyond(frozenset(sources), traversal(self.kg, base, relations[base.edge])):
            self._prune("corpus_pruned", base.child, anchors, relations)
            return True
        return False

    def _base(self, step: Step) -> Iterator[tuple[dict[str, str], dict[int, str], dict[str, frozenset[str]],
                                                  frozenset[str]]]:
        """The base step's groundings with the set it reaches in the parent."""
        kg = self.kg
        if self.plan.is_anchor(step.child):
            for anchor in self._starts():
                moves = [t for t in kg.out[anchor] if self._followable(t)]
                for t in sorted(moves, key=self._key)[:self.BRANCHES]:
                    yield ({step.child: anchor}, {step.edge: self._relation(step, kg.inverses[t])}, {},
                           kg.neighbour_set(anchor, t))
            return
        for anchors, relations, sets in self._ground(step.child):
            below = sets[step.child]
            # never straight back along a relation that led into the child (relation_then_inverse)
            back = {kg.inverses[traversal(kg, st, relations[st.edge])] for st in self.plan.steps[step.child]}
            moves = {t for t in {t for m in below for t in kg.out.get(m, {})} if self._followable(t) and t not in back}
            for t in sorted(sorted(moves), key=self._key)[:self.BRANCHES]:
                yield (anchors, {**relations, step.edge: self._relation(step, kg.inverses[t])}, sets,
                       frozenset(project(kg, below, t)))

    def _starts(self) -> list[str]:
        """Nameable entities in a random order weighted by their best relation (as the walk's answers)."""
        best = _best_weights(self.kg, tuple(sorted(self.weights.items())))
        keyed = [(-(self.rng.random() ** (1.0 / w)), e) for e, w in zip(self.entities, best, strict=True)
                 if e not in self.unnamable and w > 0]
        return [e for _, e in sorted(keyed)]

    def _rest(self, node: str, partial: Partial, positive: frozenset[str] | None, negative: frozenset[str],
              steps: list[Step]) -> Iterator[Partial]:
        """Ground the node's anchored `steps` one by one; then its set is checked and recorded."""
        anchors, relations, sets = partial
        if not steps:
            value = (positive or frozenset()) - negative
            if not value or len(value) > self.WIDE:
                return
            if not value.isdisjoint(anchors.values()):  # the query would answer itself
                self._prune("circular", node, anchors, relations)
                return
            sets = {**sets, node: value}
            if self.checker and self.checker.node_reason(self.plan, node, anchors, relations, sets):
                self._prune("corpus_pruned", node, anchors, relations)
                return
            yield anchors, relations, sets
            return
        step, later = steps[0], steps[1:]
        old = None if positive is None else positive - negative
        found = 0
        candidates = self._candidates(step, positive if positive is not None else negative, relations)
        for r, anchor, reached in itertools.islice(candidates, self.TRIES):
            if found >= self.BRANCHES:
                return
            if anchor in anchors.values():
                continue
            if step.negated:
                pos, neg = positive, negative | reached
            else:
                pos = reached if positive is None else positive | reached if step.union else positive & reached
                neg = negative
            value = pos - neg
            if not value or value == old or (neg and not pos & neg):  # each step matters; a negation removes
                continue
            for partial in self._rest(node, ({**anchors, step.child: anchor},
                                              {**relations, step.edge: self._relation(step, r)}, sets),
                                      pos, neg, later):
                found += 1
                yield partial

    def _prune(self, reason: str, node: str, anchors: dict[str, str], relations: dict[int, str]) -> None:
        key = (node, tuple(sorted(anchors.items())), tuple(sorted(relations.items())))
        if key not in self.pruned:
            self.pruned.add(key)
            self.rejections[reason] += 1

    def _candidates(self, step: Step, members: frozenset[str], relations: dict[int, str]
                    ) -> Iterator[tuple[str, str, frozenset[str]]]:
        """Conditions (out-relation r, anchor, its set) of the members in a random order, or for a union
        of KIN entities with the first branch's relation; each one's in the weighted order."""
        kg = self.kg
        if step.union:
            first = next(st for st in self.plan.steps[self._parent(step)] if st.union)
            kin = kg.subjects.get(kg.inverses[traversal(kg, first, relations[first.edge])], ())
            sources = sorted({self.rng.choice(kin) for _ in range(self.KIN)}) if kin else []
        else:
            sources = self.rng.sample(sorted(members), len(members))  # at most WIDE
        seen = set()
        for member in sources:  # lazily: most partial groundings need only a few candidates
            if member not in self.ordered:  # drawn once per member: sorting is the costly part
                self.ordered[member] = [c for c in sorted(self.conditions(member), key=lambda c: self._key(c[0]))
                                        if self._followable(kg.inverses[c[0]])]
            for r, a, reached in self.ordered[member]:
                if (r, a) not in seen:
                    seen.add((r, a))
                    yield r, a, reached

    def _parent(self, step: Step) -> str:
        return self.parents[step]
