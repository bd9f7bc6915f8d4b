"""Grounded sampling per query type, the BetaE/KGReasoning way: answer first, walk back to anchors.

One attempt picks an answer entity, then grounds the plan from the target down: each plain or
union step follows a random edge that ends at the current entity, each negated step is walked
back from *another* member of the positive part (so the negation removes at least that one).
The grounding is then evaluated exactly (`query.evaluate`) from its anchors and kept only if:
answers are non-empty and at most `max_answers`; the evidence spans 1-3 passages (ComLQ's
variants); every condition is needed (dropping any intersected, unioned or negated branch
changes the answers, so a negation always removes an answer); a negation leaves at least one
violating passage; no relation is followed by its own inverse; anchors are distinct; and the
grounding is new. Failed attempts are counted by reason.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace

from pipeline.kg.graph import KnowledgeGraph
from pipeline.kg.query import Plan, Provenance, Step, evaluate, traversal


class Reject(Exception):
    """An attempt that produced no query; the message is the machine-readable reason."""


@dataclass(frozen=True, slots=True)
class Grounding:
    plan: Plan
    anchors: dict[str, str]  # pattern anchor -> KG node
    relations: dict[int, str]  # pattern edge index -> relation in the triple's (ComLQ) direction
    sets: dict[str, Provenance]  # every pattern node's exact set
    answers: Provenance  # the target's set
    evidence: tuple[str, ...]
    violating: tuple[str, ...]

    def key(self) -> tuple:
        return (self.plan.type, tuple(sorted((e, self.relations[e], tuple(sorted(
            self.anchors.get(n, n) for n in self.plan.edges[e]))) for e in self.relations)))


class Sampler:
    def __init__(self, kg: KnowledgeGraph, plan: Plan, rng: random.Random, max_answers: int):
        self.kg, self.plan, self.rng, self.max_answers = kg, plan, rng, max_answers
        self.entities = sorted(n for n in kg.out if not kg.label(n).startswith("?"))
        self.seen: set[tuple] = set()
        self.rejections: Counter[str] = Counter()

    def attempt(self) -> Grounding | None:
        try:
            grounding = self._ground()
            key = grounding.key()
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
        answer = self.rng.choice(self.entities)
        self._node(plan.target, answer, None, anchors, relations)
        labels = [self.kg.label(a) for a in anchors.values()]
        if len(set(labels)) != len(labels) or any(label.startswith("?") for label in labels):
            raise Reject("anchor_clash")
        return self._evaluate(anchors, relations)

    def _node(self, node: str, entity: str, up: str | None, anchors: dict[str, str], relations: dict[int, str]) -> None:
        """Ground the subtree below `node`, whose witness is `entity`; `up` is the relation followed from it."""
        if self.plan.is_anchor(node):
            if entity in anchors.values():
                raise Reject("anchor_clash")
            anchors[node] = entity
            return
        first_union = True
        for step in self.plan.steps[node]:
            if step.negated:
                others = sorted(set(self._positive_set(node, anchors, relations)) - {entity})
                if not others:
                    raise Reject("negation_has_nothing_to_remove")
                self._step(step, self.rng.choice(others), up, anchors, relations)
            elif step.union and not first_union:
                starts = self.kg.subjects.get(up, ()) if up else self.entities
                if not starts:
                    raise Reject("dead_end")
                self._step(step, self.rng.choice(starts), up, anchors, relations)
            else:
                first_union = first_union and not step.union
                self._step(step, entity, up, anchors, relations)

    def _step(self, step: Step, entity: str, up: str | None, anchors: dict[str, str], relations: dict[int, str]) -> None:
        """Follow a random edge back from `entity` (the parent's witness) to ground `step.child`."""
        out = self.kg.out.get(entity, {})
        # an out-edge entity -r-> child is travelled child -> entity along inv(r); the next
        # relation on the way up (`up`) must not be its inverse, i.e. r itself
        choices = [r for r in out if r != up]
        if not choices:
            raise Reject("dead_end")
        r = self.rng.choice(choices)
        child = self.rng.choice(out[r])
        relations[step.edge] = self.kg.inverses[r] if step.upward else r
        self._node(step.child, child, self.kg.inverses[r], anchors, relations)

    def _positive_set(self, node: str, anchors: dict[str, str], relations: dict[int, str]) -> Provenance:
        """The set of `node` from its steps grounded so far (its positive part)."""
        ungrounded = frozenset(st.edge for st in self.plan.steps[node] if st.edge not in relations)
        return evaluate(self.kg, replace(self.plan, target=node), anchors, relations, skip=ungrounded)[node]

    # checking a full grounding ------------------------------------------------------------
    def _evaluate(self, anchors: dict[str, str], relations: dict[int, str]) -> Grounding:
        plan, kg = self.plan, self.kg
        for node, steps in plan.steps.items():  # never follow a relation by its own inverse
            for step in steps:
                below = traversal(kg, step, relations[step.edge])
                for child_step in plan.steps[step.child]:
                    if traversal(kg, child_step, relations[child_step.edge]) == kg.inverses[below]:
                        raise Reject("relation_then_inverse")
        sets = evaluate(kg, plan, anchors, relations)
        answers = sets[plan.target]
        if not answers:
            raise Reject("empty_answer")
        if len(answers) > self.max_answers:
            raise Reject("too_many_answers")
        evidence = frozenset().union(*answers.values())
        if not 1 <= len(evidence) <= 3:
            raise Reject("evidence_over_3_passages" if evidence else "no_evidence")
        removable = [st for steps in plan.steps.values() for st in steps
                     if st.negated or st.union or sum(not s.negated and not s.union for s in steps) > 1]
        violating: set[str] = set()
        for step in removable:
            without = evaluate(kg, plan, anchors, relations, skip=frozenset({step.edge}))[plan.target]
            if without.keys() == answers.keys():
                raise Reject("negation_removes_nothing" if step.negated else "redundant_condition")
            if step.negated:
                removed = without.keys() - answers.keys()
                violating.update(*(without[e] for e in removed))
        violating -= evidence
        if any(st.negated for steps in plan.steps.values() for st in steps) and not violating:
            raise Reject("no_violating_passage")
        return Grounding(plan, dict(anchors), dict(relations), sets, answers, tuple(sorted(evidence)),
                         tuple(sorted(violating)))

