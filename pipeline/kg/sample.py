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

The walk grounds 1p and 2i. The other types are enumerated with the same checks (`enumerators.py`):
3i, ip and 3in by `Enumerator` (anchor combinations of a member), the rest by `ChainEnumerator`
(from the anchors outwards).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, replace
from functools import cache
from itertools import accumulate

from pipeline.kg.graph import KnowledgeGraph
from pipeline.kg.query import Plan, Step, TooManyPassages, evaluate, provenance, traversal

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

    def _negating(self, step: Step, relations: dict[int, str], sets: dict[str, set[str]],
                  lost: set[str]) -> set[str]:
        """The passages stating how the NOT's own branch reaches the answers it removed: for "the occupations
        of Allen Ginsberg but not those Mexican people had", "Gabriel Zaid is a Mexican writer and poet"."""
        forward, found = traversal(self.kg, step, relations[step.edge]), set()
        for source in sorted(sets[step.child]):
            reached = sorted(lost & self.kg.neighbour_set(source, forward))
            if reached:
                found |= {p for m in reached for p in self.kg.passages[(source, forward, m)]}
                if not self.plan.is_anchor(step.child):
                    found |= provenance(self.kg, self.plan, relations, sets, [source], node=step.child)
        return found

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
        negating: set[str] = set()  # how a NOT at the target reaches what it removes
        for step in removable:
            without = evaluate(kg, plan, anchors, relations, skip=frozenset({step.edge}))
            if without[plan.target] == answers:
                raise Reject("negation_removes_nothing" if step.negated else "redundant_condition")
            if step.negated:
                removed.append((without, without[plan.target] - answers))
                if step in plan.steps[plan.target]:
                    negating |= self._negating(step, relations, sets, without[plan.target] - answers)
        try:
            evidence = provenance(kg, plan, relations, sets, sorted(answers), limit=3)
        except TooManyPassages:
            raise Reject("evidence_over_3_passages") from None
        if not evidence:
            raise Reject("no_evidence")
        violating = negating
        for without, lost in removed:
            violating |= provenance(kg, plan, relations, without, sorted(lost))
        violating -= evidence
        if removed and not violating:
            raise Reject("no_violating_passage")
        return Grounding(plan, dict(anchors), dict(relations), sets, frozenset(answers), tuple(sorted(evidence)),
                         tuple(sorted(violating)))
