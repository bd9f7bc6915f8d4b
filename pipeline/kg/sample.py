"""Grounded sampling per query type, the BetaE/KGReasoning way: answer first, walk back to anchors.

One attempt picks an answer entity, then grounds the plan from the target down: each plain or
union step follows a random edge that ends at the current entity (relations are drawn by their
sampling weight, pipeline/kg/weights.yaml, so weak links such as title mentions are rare), each
negated step is walked back from *another* member of the positive part (so the negation removes
at least that one).
The grounding is then evaluated exactly (`query.evaluate`) from its anchors and kept only if:
answers are non-empty and at most `max_answers`; the evidence spans 1-3 passages (ComLQ's
variants); every condition is needed (dropping any intersected, unioned or negated branch
changes the answers, so a negation always removes an answer); a negation leaves at least one
violating passage; no relation is followed by its own inverse; anchors are distinct; and the
grounding is new. Failed attempts are counted by reason.

The walk searches rather than draws once: a step whose subtree dead-ends, or whose candidate
already breaks one of those rules on the part grounded so far (a condition that changes nothing,
no member left for a later cut), tries another edge. That only steers which groundings are
tried (sparse shapes such as 3i and ip are found); the full check above is unchanged.

The walk grounds 1p and 2i. The other types are enumerated with the same checks: 3i, ip and 3in
by `Enumerator` (anchor combinations of a member), the rest by `ChainEnumerator` (from the
anchors outwards).
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cache
from itertools import accumulate

from pipeline.kg.graph import KnowledgeGraph
from pipeline.kg.query import Plan, Step, TooManyPassages, evaluate, project, provenance, traversal

_SYNTAX = re.compile(r"[,()<>{}|¬∧∨∩∪⇒]")
CANDIDATES = 24  # (relation, child) pairs one step tries before its walk gives up
BUDGET = 100  # candidates one attempt tries in all (bounds the backtracking of nested steps)
# failures of a subtree that another candidate for it may avoid; any other reason ends the attempt
RETRYABLE = frozenset({"dead_end", "anchor_clash", "redundant_condition", "negation_has_nothing_to_remove",
                       "negation_removes_nothing"})


@cache
def unnamable(kg: KnowledgeGraph) -> frozenset[str]:
    """Nodes whose names would break the indicator text ("Thebes, Egypt"): never anchors."""
    return frozenset(n for n, label in kg.labels.items() if _SYNTAX.search(label) or label.startswith("?"))


@cache
def _best_weights(kg: KnowledgeGraph, weights: tuple[tuple[str, float], ...]) -> tuple[float, ...]:
    """Per entity (sorted), its best relation's weight (0 without relations): worked out once for every
    type's sampler, not once per type."""
    weight = dict(weights)
    return tuple(max((weight.get(r, 1.0) for r in kg.out[e]), default=0.0) for e in sorted(kg.out))


@cache
def _answer_weights(kg: KnowledgeGraph, weights: tuple[tuple[str, float], ...], needs: int = 1) -> list[float]:
    """Cumulative weights of the entities (sorted) as answers: their best relation's weight, so that
    entities linked only by down-weighted relations (title mentions) rarely start a walk; 0 for an
    entity with fewer than `needs` followable neighbours (a 3i answer needs three conditions)."""
    weight = dict(weights)

    def followable(entity: str) -> int:
        return len({(r, o) for r, objs in kg.out[entity].items() if weight.get(r, 1.0) > 0 for o in objs})

    best = _best_weights(kg, weights)
    return list(accumulate(w if followable(e) >= needs else 0.0 for e, w in zip(sorted(kg.out), best, strict=True)))


def _target_needs(plan: Plan) -> int:
    """Distinct neighbours the target's own walk follows: one per plain step, one for its unions
    (a second union starts elsewhere, a negation from another member)."""
    steps = plan.steps[plan.target]
    return sum(not st.negated and not st.union for st in steps) + any(st.union for st in steps)


class Reject(Exception):
    """An attempt that produced no query; the message is the machine-readable reason."""


@dataclass(frozen=True, slots=True)
class Grounding:
    plan: Plan
    anchors: dict[str, str]  # pattern anchor -> KG node
    relations: dict[int, str]  # pattern edge index -> relation in the triple's (ComLQ) direction
    sets: dict[str, set[str]]  # every pattern node's exact set
    answers: frozenset[str]  # the target's set
    evidence: tuple[str, ...]
    violating: tuple[str, ...]

    def key(self, label) -> tuple:
        """The grounded triples as a set: the same query with its conditions in another order is the same."""
        def name(node: str) -> str:
            return label(self.anchors[node]) if node in self.anchors else node

        return (self.plan.type, tuple(sorted((name(s), self.relations[i], name(o))
                                             for i, (s, o) in enumerate(self.plan.edges))))


class Sampler:
    def __init__(self, kg: KnowledgeGraph, plan: Plan, rng: random.Random, max_answers: int,
                 weights: dict[str, float] | None = None):
        self.kg, self.plan, self.rng, self.max_answers = kg, plan, rng, max_answers
        self.weights = weights or {}  # relation (either direction) -> sampling weight; default 1
        self.entities = sorted(kg.out)
        self.cum_weights = _answer_weights(kg, tuple(sorted(self.weights.items())), _target_needs(plan))
        self.budget = 0  # candidates left to the current attempt
        self.unnamable = unnamable(kg)
        self.narrow: dict[tuple[str, str], bool] = {}  # (anchor, relation) -> reaches at most max_answers
        self.usable: dict[tuple[str, str, bool], tuple[str, ...]] = {}  # see _anchors
        self.seen: set[tuple] = set()
        self.rejections: Counter[str] = Counter()

    def attempt(self) -> Grounding | None:
        return self._new(self._ground)

    def _new(self, ground) -> Grounding | None:
        """`ground()`'s grounding when it passes and is new, else None (the reason counted)."""
        try:
            grounding = ground()
            key = grounding.key(self.kg.label)
            if key in self.seen:
                raise Reject("duplicate_grounding")
            self.seen.add(key)
            return grounding
        except Reject as reason:
            self.rejections[str(reason)] += 1
            return None

    # walking back from the answer ---------------------------------------------------------
    def _ground(self) -> Grounding:
        plan = self.plan
        anchors: dict[str, str] = {}
        relations: dict[int, str] = {}
        if not self.cum_weights or self.cum_weights[-1] <= 0:
            raise Reject("dead_end")
        self.budget = BUDGET
        answer = self.rng.choices(self.entities, cum_weights=self.cum_weights)[0]
        self._node(plan.target, answer, None, anchors, relations)
        labels = [self.kg.label(a) for a in anchors.values()]
        if len(set(labels)) != len(labels):
            raise Reject("anchor_clash")
        return self._evaluate(anchors, relations)

    def _node(self, node: str, entity: str, up: str | None, anchors: dict[str, str], relations: dict[int, str]) -> None:
        """Ground the subtree below `node`, whose witness is `entity`; `up` is the relation followed from it."""
        if self.plan.is_anchor(node):
            if entity in anchors.values():
                raise Reject("anchor_clash")
            anchors[node] = entity
            return
        steps = self.plan.steps[node]
        negation = any(st.negated for st in steps)
        first_plain = first_union = True
        for step in steps:  # plain steps first, then unions, then negations
            if step.negated:
                others = sorted(self._positive_set(node, anchors, relations) - {entity})
                if not others:
                    raise Reject("negation_has_nothing_to_remove")
                self._retry(step, self.rng.sample(others, min(len(others), CANDIDATES)), up, anchors, relations,
                            narrow=False)
            elif step.union and not first_union:
                starts = self.kg.subjects.get(up, ()) if up else self.entities
                if not starts:
                    raise Reject("dead_end")
                self._retry(step, [self.rng.choice(starts) for _ in range(CANDIDATES)], up, anchors, relations)
            else:
                # in an intersection one narrow condition bounds the answers; the others may be broad,
                # but every condition grounded so far must matter, and a negation needs a member
                # besides `entity` left
                intersected = not step.union and not first_plain
                later = sum(not st.negated and not st.union and st.edge > step.edge for st in steps)
                keep = self._keeper(node, step, intersected, (negation or later > 0) and not step.union)
                self._step(step, entity, up, anchors, relations, narrow=first_plain, keep=keep)
                first_union = first_union and not step.union
                first_plain = first_plain and (step.union or step.negated)

    def _removable(self, node: str) -> list[Step]:
        """The steps in the subtree below `node` that `_evaluate` requires to matter."""
        steps = self.plan.steps[node]
        plain = sum(not st.negated and not st.union for st in steps)
        own = [st for st in steps if st.negated or st.union or plain > 1]
        return own + [st for step in steps for st in self._removable(step.child)]

    def _keeper(self, node: str, step: Step, intersected: bool, cut: bool):
        """A check of a plain step's candidate: the reason it cannot be part of a valid grounding, or None.

        The same necessity `_evaluate` requires of the whole grounding, on the part grounded so far:
        dropping a condition below the step, or (`intersected`) a plain step of `node` grounded so
        far, changes `node`'s set; with a `cut` to come (a negation, or a plain step that must
        matter), the set keeps two members or more, so the later step has one to remove.
        """
        below = self._removable(step.child)
        negated_later = any(st.negated for st in self.plan.steps[node])
        if not (below or intersected or cut):
            return None

        def check(anchors: dict[str, str], relations: dict[int, str]) -> str | None:
            after = self._positive_set(node, anchors, relations)
            needed = list(below)
            if intersected:
                needed += [st for st in self.plan.steps[node]
                           if st.edge in relations and not st.negated and not st.union]
            for st in needed:
                if self._positive_set(node, anchors, relations, st.edge) == after:
                    return "negation_removes_nothing" if st.negated else "redundant_condition"
            if cut and len(after) < 2:
                return "negation_has_nothing_to_remove" if negated_later else "redundant_condition"
            return None
        return check

    def _retry(self, step: Step, entities: list[str], up: str | None, anchors: dict[str, str],
               relations: dict[int, str], narrow: bool = True) -> None:
        """`_step` from the first of `entities` whose walk succeeds."""
        reason = "dead_end"
        for entity in entities:
            try:
                self._step(step, entity, up, anchors, relations, narrow)
                return
            except Reject as failed:
                if str(failed) not in RETRYABLE:
                    raise
                reason = str(failed)
        raise Reject(reason)

    def _step(self, step: Step, entity: str, up: str | None, anchors: dict[str, str], relations: dict[int, str],
              narrow: bool = True, keep=None) -> None:
        """Follow a random edge back from `entity` (the parent's witness) to ground `step.child`.

        An out-edge entity -r-> child is travelled child -> entity along inv(r); the next relation
        on the way up (`up`) must not be its inverse, i.e. r itself. With `narrow`, an anchor must
        reach at most max_answers entities (saves attempts that would have too many answers).
        When the subtree below a child fails for a RETRYABLE reason, or `keep` finds a reason
        against it, another (relation, child) is tried: up to CANDIDATES here, BUDGET per attempt.
        Only the search changes; every check of the full grounding (`_evaluate`) still applies.
        """
        out = self.kg.out.get(entity, {})
        used = set(anchors.values())
        followable = [r for r in out if r != up and self.weights.get(r, 1.0) > 0]
        tried: set[tuple[str, str]] = set()
        reason = "dead_end"
        for _ in range(CANDIDATES):
            while True:  # a weighted draw among the relations that lead to a usable, untried child
                if not followable or self.budget <= 0:
                    raise Reject(reason)
                r = self.rng.choices(followable, weights=[self.weights.get(r, 1.0) for r in followable])[0]
                anchor = self.plan.is_anchor(step.child)
                pool = self._anchors(entity, r, narrow) if anchor else out[r]  # anchors: with `narrow`, small ones
                # a few draws from the whole pool first (uniform over the usable children, and no
                # filtering of a hub's thousands of children); filter only when they all miss
                child = next((c for c in (self.rng.choice(pool) for _ in range(min(len(pool), 4)))
                              if (r, c) not in tried and not (anchor and c in used)), None)
                if child is not None:
                    break
                children = tuple(c for c in pool if (r, c) not in tried and not (anchor and c in used))
                if children:
                    child = self.rng.choice(children)
                    break
                followable.remove(r)
            tried.add((r, child))
            self.budget -= 1
            saved_anchors, saved_relations = dict(anchors), dict(relations)
            try:
                relations[step.edge] = self.kg.inverses[r] if step.upward else r
                self._node(step.child, child, self.kg.inverses[r], anchors, relations)
                if keep and (why := keep(anchors, relations)):
                    raise Reject(why)
                return
            except Reject as failed:
                if str(failed) not in RETRYABLE:
                    raise
                reason = str(failed)
                anchors.clear()
                anchors.update(saved_anchors)
                relations.clear()
                relations.update(saved_relations)
        raise Reject(reason)

    def _anchors(self, entity: str, r: str, narrow: bool) -> tuple[str, ...]:
        """The nameable children of `entity` along `r`; with `narrow`, those reaching few entities back."""
        key = (entity, r, narrow)
        if key not in self.usable:
            back = self.kg.inverses[r]
            self.usable[key] = tuple(c for c in self.kg.out[entity][r] if c not in self.unnamable and (
                not narrow or self._narrow(c, back)))
        return self.usable[key]

    def _narrow(self, anchor: str, relation: str) -> bool:
        key = (anchor, relation)
        if key not in self.narrow:
            self.narrow[key] = len(self.kg.neighbours(anchor, relation)) <= self.max_answers
        return self.narrow[key]

    def _positive_set(self, node: str, anchors: dict[str, str], relations: dict[int, str],
                      without: int | None = None) -> set[str]:
        """The set of `node` from its steps grounded so far (its positive part), less step `without` (any
        step below `node`)."""
        skip = {st.edge for st in self.plan.steps[node] if st.edge not in relations} | {without}
        return evaluate(self.kg, replace(self.plan, target=node), anchors, relations, skip=frozenset(skip))[node]

    # checking a full grounding ------------------------------------------------------------
    def _no_relation_then_inverse(self, relations: dict[int, str]) -> None:
        """Never follow a relation by its own inverse."""
        kg = self.kg
        for steps in self.plan.steps.values():
            for step in steps:
                below = traversal(kg, step, relations[step.edge])
                for child_step in self.plan.steps[step.child]:
                    if traversal(kg, child_step, relations[child_step.edge]) == kg.inverses[below]:
                        raise Reject("relation_then_inverse")

    def _evaluate(self, anchors: dict[str, str], relations: dict[int, str]) -> Grounding:
        plan, kg = self.plan, self.kg
        self._no_relation_then_inverse(relations)
        sets = evaluate(kg, plan, anchors, relations)
        answers = sets[plan.target]
        if not answers:
            raise Reject("empty_answer")
        if len(answers) > self.max_answers:
            raise Reject("too_many_answers")
        removable = [st for steps in plan.steps.values() for st in steps
                     if st.negated or st.union or sum(not s.negated and not s.union for s in steps) > 1]
        removed: list[tuple[dict[str, set[str]], set[str]]] = []  # per negation: sets without it, answers it removed
        for step in removable:
            without = evaluate(kg, plan, anchors, relations, skip=frozenset({step.edge}))
            if without[plan.target] == answers:
                raise Reject("negation_removes_nothing" if step.negated else "redundant_condition")
            if step.negated:
                removed.append((without, without[plan.target] - answers))
        try:
            evidence = provenance(kg, plan, relations, sets, sorted(answers), limit=3)
        except TooManyPassages:
            raise Reject("evidence_over_3_passages") from None
        if not evidence:
            raise Reject("no_evidence")
        violating: set[str] = set()
        for without, lost in removed:
            violating |= provenance(kg, plan, relations, without, sorted(lost))
        violating -= evidence
        if removed and not violating:
            raise Reject("no_violating_passage")
        return Grounding(plan, dict(anchors), dict(relations), sets, frozenset(answers), tuple(sorted(evidence)),
                         tuple(sorted(violating)))


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
                if a in anchors.values() or (r, a) in seen or not (core - reached):
                    continue
                if extra - reached:  # another member the corpus may hold, which this NOT keeps
                    kept_extra = True
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
