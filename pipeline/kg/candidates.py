"""Possible missed answers: a completeness check of an item's answers against the whole corpus.

The corpus check (`complete.py`) bounds every set of a query by reading the sentences that name its
anchors, in the relation's direction. A reader auditing an item does something looser: searches the
corpus for the question's class and conditions and reads what comes back. So before an item is kept,
its target's positive conditions (an anchor, or the set a projection comes from) are looked up
passage by passage, and a passage is a candidate when

- a sentence of it names every condition's anchor (any of its names; a member of the set it comes
  from) together with a cue word of the relation, in any order, or
- it names the answers' class (narrower classes and other forms too, `lexicon.py`) and every
  condition's anchor anywhere ("Bredero, a poet of Amsterdam" for "poets who lived in Amsterdam"), or
- it is among the question's top passages of a search (`Search`) and names every anchor anywhere.

A date is a broad condition (every event of a century): a passage naming a year of it needs no cue
word, and its entity may be of any class. A candidate's entity (the passage's own, and an article
that starts inside a chunk) is a possible missed answer unless it is an answer, excluded by the
query's NOT, an anchor, of another kind than the answers (the graph states relations of it that no
answer has), or of a stated class that is not the answers' class nor a narrower one (a film is no
competition).

Value answers (a nationality, a century, a class) are left to the bounds check, which reads every
sentence about the set they are projected from. The check only removes items (offline) or shows
reviewers the candidates' passages (`[generate] completeness = "review"`): it never adds an answer.
"""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.completeness import Search
from pipeline.kg.complete import CLASS_RELATIONS, DATES, ONE_VALUED, CorpusCheck
from pipeline.kg.lexicon import narrower, spelled
from pipeline.kg.query import Plan, Step, traversal
from pipeline.kg.sample import Grounding

UNNAMED = "named:"  # a possible missed answer named in passing, which no node stands for


class MissedAnswers:
    def __init__(self, check: CorpusCheck, search: Search | None = None):
        self.check, self.kg, self.search = check, check.kg, search
        self._loose: dict[str, frozenset[str]] = {}  # node -> the passages naming it
        self._strict: dict[tuple[str, str], frozenset[str]] = {}  # (node, relation) -> passages stating it may
        self.checked = 0  # candidate entities read, for stats.json
        self._classes = frozenset(n for n in self.kg.labels if n.startswith("value:class:"))
        self.people = check._people()

    def find(self, grounding: Grounding, noun: str | None, question: str) -> dict[str, tuple[str, ...]]:
        """Possible missed answers (entity -> the passages that may state it) of a grounding whose answers
        are called `noun` (the question's noun: a class label, or another noun)."""
        plan = grounding.plan
        steps = [st for st in plan.steps[plan.target] if not st.negated]
        if not steps or any(a.startswith("value:") for a in grounding.answers):
            return {}
        dated = any(n.startswith(DATES) for st in steps for n in self._below(grounding, st))
        named_class = self._class_node(noun)
        cls = None if dated else named_class
        strict = _meeting([self._stated(grounding, st, dated) for st in steps], steps)
        loose = _meeting([self._named(grounding, st) for st in steps], steps)
        class_named = self._passages_naming(named_class) if named_class else frozenset()
        found = set(strict)
        if cls is not None:
            found |= loose & class_named
        if self.search is not None:  # the entity's class is checked below: a class condition need not be named
            unclassed = [st for st in steps if not self._below(grounding, st) <= self._classes]
            top = set(self.search(question))
            found |= top if not unclassed else top & _meeting([self._named(grounding, st) for st in unclassed],
                                                              unclassed)
        missed = self._entities(grounding, steps, {p: self._about(p, class_named) for p in found}, cls)
        for name, pids in self._named_members(grounding, steps, loose).items():
            missed.setdefault(name, pids)
        return missed

    def _about(self, pid: str, class_named: frozenset[str]) -> list[str]:
        """The entities a candidate passage may be about: its own (a chunk from the middle of an article, no
        title and no node, says who it is about only where it names the answers' class), and the articles
        that start inside it."""
        own = self.check.entity_of.get(pid, pid)
        about = own in self.kg.labels or bool(self.check.titles.get(pid)) or pid in class_named
        return [*([own] if about else []), *self.check.held.get(pid, ())]

    def _entities(self, grounding: Grounding, steps: list[Step], found: dict[str, list[str]],
                  cls: str | None) -> dict[str, tuple[str, ...]]:
        """found: candidate passage -> the entities it may be about."""
        kg, plan = self.kg, grounding.plan
        kinds = {r for a in grounding.answers for r in kg.out.get(a, ())}
        skip = self._excluded(plan, grounding) | grounding.answers | set(grounding.anchors.values())
        missed: dict[str, list[str]] = {}
        for pid in sorted(found.keys() - set(grounding.evidence) - set(grounding.violating)):
            for entity in dict.fromkeys(found[pid]):
                if entity in skip:
                    continue
                self.checked += 1
                if self.check._same_kind(entity, kinds) and self._may_be(entity, cls) and not self._contrasts(
                        grounding, steps, entity):
                    missed.setdefault(entity, []).append(pid)
        return {e: tuple(ps) for e, ps in missed.items()}

    def _named_members(self, grounding: Grounding, steps: list[Step],
                       meeting: frozenset[str]) -> dict[str, tuple[str, ...]]:
        """People a passage names in passing that may be answers the graph lacks (`_co_named`,
        `_beside_values`). A name that is an answer, an anchor or excluded by the NOT is none."""
        if not grounding.answers & self.people:
            return {}
        skip = set().union(*(self.check.names.get(n, set()) for n in grounding.answers
                             | self._excluded(grounding.plan, grounding) | set(grounding.anchors.values())))
        found: dict[str, set[str]] = {}
        for name, pid in [*self._co_named(grounding, steps), *self._beside_values(grounding, steps, meeting)]:
            if name not in skip:
                found.setdefault(f"{UNNAMED}{' '.join(name)}", set()).add(pid)
        return {name: tuple(sorted(pids)) for name, pids in found.items()}

    def _co_named(self, grounding: Grounding, steps: list[Step]) -> Iterator[tuple[tuple[str, ...], str]]:
        """A condition that alone makes an answer (the only plain one, or a union's branch) on a named
        anchor: the people its cued sentences name beside the answers ("Created by Pierre de Coubertin
        and Demetrios Vikelas in 1894")."""
        alone = [st for st in steps if st.union] or (steps if len(steps) == 1 else [])
        for st in alone:
            anchor = grounding.anchors.get(st.child, "") if grounding.plan.is_anchor(st.child) else ""
            cued = self.check._cued_sentences(traversal(self.kg, st, grounding.relations[st.edge]))
            if not anchor or anchor.startswith("value:") or not cued:
                continue
            for index in sorted(self.check._naming(anchor).keys() & cued):
                for name in self.check.person_names(index):
                    yield name, self.check.sentences[index][0]

    def _beside_values(self, grounding: Grounding, steps: list[Step],
                       meeting: frozenset[str]) -> Iterator[tuple[tuple[str, ...], str]]:
        """In a passage naming every condition, the people named with a broad condition's value: after a
        demonym and a few class words ("Swiss hotelier César Ritz", "the French zoologist Étienne Geoffroy
        Saint-Hilaire") or before a lifespan in a date's years ("Daniel Hiester (1774–1834)")."""
        for st in steps:
            for anchor in self._below(grounding, st):
                if not anchor.startswith(("value:nationality:", *DATES)):
                    continue
                for index, where in self.check._naming(anchor).items():
                    pid = self.check.sentences[index][0]
                    if pid in meeting and pid not in grounding.evidence and pid not in grounding.violating:
                        for name in self.check.names_beside(index, where, anchor):
                            yield name, pid

    def _contrasts(self, grounding: Grounding, steps: list[Step], entity: str) -> bool:
        """Does the graph state another value of a one-valued relation of a plain condition for the entity (a
        death in 1980 is no death in the 1960s)?"""
        for st in steps:
            back = self.kg.inverses[traversal(self.kg, st, grounding.relations[st.edge])]
            values = self.kg.neighbour_set(entity, back)
            if not st.union and back in ONE_VALUED and values and not values & self._below(grounding, st):
                return True
        return False

    @staticmethod
    def _below(grounding: Grounding, step: Step) -> set[str]:
        plan = grounding.plan
        return {grounding.anchors[step.child]} if plan.is_anchor(step.child) else grounding.sets[step.child]

    def _named(self, grounding: Grounding, step: Step) -> frozenset[str]:
        """The passages naming the condition's anchor, or a member of the set it comes from."""
        return frozenset().union(*(self._passages_naming(n) for n in sorted(self._below(grounding, step))))

    def _stated(self, grounding: Grounding, step: Step, dated: bool) -> frozenset[str]:
        """The passages with a sentence naming the condition's anchor (or a member below) that uses a cue word
        of the relation (any sentence naming it, for a relation without cue words or a date)."""
        relation = traversal(self.kg, step, grounding.relations[step.edge])
        found: set[str] = set()
        for node in sorted(self._below(grounding, step)):
            key = (node, "" if dated else relation)
            if key not in self._strict:
                cued = None if dated else self.check._cued_sentences(relation)
                named = self.check._naming(node).keys()
                self._strict[key] = frozenset(self.check.sentences[i][0] for i in (
                    named if cued is None else named & cued))
            found |= self._strict[key]
        return frozenset(found)

    def _passages_naming(self, node: str) -> frozenset[str]:
        if node not in self._loose:
            named = {self.check.sentences[i][0] for i in self.check._naming(node)}
            named |= set(self.check.passages_of.get(node, ()))  # its own passages, however they name it
            self._loose[node] = frozenset(named)
        return self._loose[node]

    def _class_node(self, noun: str | None) -> str | None:
        """The graph's node of the answers' noun when it is a class ("poet"), else None."""
        node = f"value:class:{noun}"
        return node if noun and node in self.kg.labels else None

    def _excluded(self, plan: Plan, grounding: Grounding) -> set[str]:
        """What the target's negations remove: no missed answer."""
        kg, removed = self.kg, set()
        for st in (st for st in plan.steps[plan.target] if st.negated):
            forward = traversal(kg, st, grounding.relations[st.edge])
            for b in self._below(grounding, st):
                removed.update(kg.neighbours(b, forward))
        return removed

    def _may_be(self, entity: str, cls: str | None) -> bool:
        """May the entity be of the answers' class (node `cls`; None: any)? Not when the graph states classes
        of it and none is the class, a narrower one or another form of it."""
        if cls is None:
            return True
        noun = self.kg.label(cls)
        stated = {spelled(self.kg.label(c)) for r in CLASS_RELATIONS for c in self.kg.neighbours(entity, r)}
        return not stated or bool(stated & ({spelled(noun)} | narrower(noun)))


def _meeting(conditions: list[frozenset[str]], steps: list[Step]) -> frozenset[str]:
    """The passages meeting every plain condition and one of the union's branches."""
    plain = [c for c, st in zip(conditions, steps) if not st.union]
    unions = [c for c, st in zip(conditions, steps) if st.union]
    if unions:
        plain.append(frozenset().union(*unions))
    return frozenset.intersection(*plain)
