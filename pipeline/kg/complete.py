"""Answer sets checked against the corpus text, not only against the graph.

The graph holds what the extractor read; a sentence it could not read may still say that another
entity meets a condition ("Lu Xun was a Chinese writer" missing from a Chinese-writers question),
or that an answer meets the negated one. So before an item is kept, each condition is looked up in
the corpus (`index.py` finds every sentence naming an entity), and the sentences found are read with
a test looser than the extractor's:

- positive conditions (anchor A, relation R, members S in the graph): every sentence of the
  corpus that names A and uses a cue word of R (any sentence naming A, for a relation without cue
  words) names another possible member: the passage's own entity when S holds passage entities,
  else any entity of R's range named in the sentence, and in A's own passage any capitalised name
  no node has ("Ibadan is the capital of Oyo State"). An entity the graph lacks is a missed member
  of an intersection only if it may meet every condition.
- negated conditions: what the text may add to the negated set, and a sentence of an answer's own
  passage that names the negated anchor and uses a cue word of the relation, may remove an answer.

These make bounds for every set of the query (`CorpusCheck.bounds`): what it holds whatever else the
text says, and what it may hold. The item is dropped when the answers' bounds differ from the graph's
answers (`corpus_other_member`: the text may add one; `corpus_meets_negation`: it may remove one).
A bridge (a set the query goes through) may itself be incomplete only when it is narrow: a few
neighbours of named entities, whose possible members are followed to what they lead to; a broad one
(members of a class, a demonym or a date, or more than LOOSE) must be exact, as the answers must.
Results are cached per (anchor, relation) and per grounded subtree: many items share them.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Iterable
from functools import cache
from typing import NamedTuple

from pipeline.kg.graph import KnowledgeGraph
from pipeline.kg.index import CorpusIndex, _date_names, _is_class
from pipeline.kg.lexicon import broader, overlaps, spelled
from pipeline.kg.query import Plan, plan_for, project, traversal
from pipeline.records import Passage

WEAK = frozenset({"mentions", "mentioned_in", "topic", "topic_of"})  # links that say nothing of a kind
CLASS_RELATIONS = frozenset({"occupation", "instance_of"})  # to a class: the set reached is one of classes
TRANSITIVE = frozenset({"located_in", "part_of"})  # containment: a place inside another is in it too
LOOSE = 3  # a bridge of at most this many of one named entity's neighbours may hold members the graph lacks


# relations an entity has one value of: a stated other value contrasts with the condition's
ONE_VALUED = frozenset({"born_in", "died_in", "born_in_century", "died_in_century", "born_in_decade",
                        "died_in_decade", "founded_in_century", "published_in_decade", "took_place_in_century"})


# relations whose stated values are taken as all there are, so that another value contrasts with a NOT's
# (a nationality, a birth decade, a film's director); lists seldom whole (prizes won, films starred in,
# schools, members) state no contrast: a Chemistry prize says nothing of the Physics one
EXHAUSTIVE = ONE_VALUED | {"instance_of", "occupation", "nationality", "child_of", "headquartered_in", "directed_by",
                           "written_by", "composed_by", "created_by", "took_place_in", "located_in", "capital_of",
                           "flows_into"}  # (either direction counts: see _contrasts)
# (not borders: a neighbour list is read from both sides' passages, so Brazil, named in a neighbour's, "borders"
# only that one, and a continent's list names South America, not each country in it)


DATES = ("value:century:", "value:decade:")  # date nodes: a broad condition


_UNNAMED = "unnamed:"  # a possible member the text names and no node stands for ("unnamed:oyo state")


# a drop that only the broader classes of classes.yaml cause is counted apart, to show what the table costs
BROAD_UNSTATED = "broad_unstated"  # a nationality a query goes through is written where no one was read to hold it
NEGATION_UNSTATED = "negation_unstated"  # an answer passes a NOT only because its value is not stated
BY_CLASS = {"corpus_other_member": "corpus_narrower_class_member",
            "corpus_meets_negation": "corpus_narrower_class_negation"}


class CorpusCheck(CorpusIndex):
    """Looks for members of a condition, or answers meeting a negation, that the graph does not know."""

    def __init__(self, kg: KnowledgeGraph, passages: dict[str, Passage]):
        super().__init__(kg, passages)
        self._range: dict[str, dict[tuple[str, ...], set[str]]] = {}  # relation -> name -> range nodes it names
        self._kinds: dict[str, frozenset[str]] = {}  # node -> its relations but the weak ones (see _same_kind)
        self._other: dict[tuple[str, str], frozenset[str]] = {}
        self._any: dict[tuple[str, str], bool] = {}
        self._meets: dict[tuple[str, str, str], bool] = {}
        self._beyond: dict[tuple[frozenset[str], str], bool] = {}  # see beyond: asked again for every partial grounding
        self._bounds: dict[tuple, Bounds] = {}  # see bounds
        self._reasons: dict[tuple, str | None] = {}  # see node_reason
        self._plain: CorpusCheck | None = None
        self._unaccounted: dict[tuple[str, str], bool] = {}  # see unaccounted
        self._writes: dict[tuple[str, str], bool] = {}  # see _writes_range

    def forget_groundings(self) -> None:
        """Drop the bounds and reasons of groundings: their keys hold the type, so no other type reuses them
        (ComLQ's corpus: about 200 MB by the last type)."""
        for check in (self, self._plain):
            if check is not None:
                check._bounds.clear()
                check._reasons.clear()

    def without_classes(self) -> CorpusCheck:
        """The same check, a class named by its own names only (shares the index, not the caches)."""
        if self._plain is None:
            plain = copy.copy(self)
            plain.use_classes, plain._named, plain._other, plain._any, plain._meets = False, {}, {}, {}, {}
            plain._names_of, plain._beyond, plain._at, plain._bounds, plain._reasons = {}, {}, {}, {}, {}
            plain._writes = {}
            self._plain = plain
        return self._plain

    def _range_names(self, relation: str) -> dict[tuple[str, ...], set[str]]:
        """Every name of every node some fact of `relation` points to, with the nodes it names."""
        if relation not in self._range:
            by_name: dict[tuple[str, ...], set[str]] = defaultdict(set)
            for node in self.kg.subjects.get(self.kg.inverses[relation], ()):
                for name in self.names[node]:
                    if name:
                        by_name[name].add(node)
            self._range[relation] = dict(by_name)
        return self._range[relation]

    def other_member(self, anchor: str, relation: str) -> bool:
        """Might the corpus say that an entity the graph does not reach from `anchor` along `relation` is reached?"""
        key = (anchor, relation)
        if key in self._any:
            return self._any[key]
        if key in self._other:
            self._any[key] = bool(self._other[key])
        else:  # stops at the first such entity (a broad anchor names thousands)
            found = self._others(anchor, relation, self.kg.neighbour_set(anchor, relation), first=True)
            self._any[key] = bool(found)
            if not found:  # it read every sentence without stopping: the whole answer, for `others`
                self._other[key] = found
        return self._any[key]

    def others(self, anchor: str, relation: str) -> frozenset[str]:
        """The entities the corpus text may say are reached from `anchor` along `relation`, beyond the graph's."""
        key = (anchor, relation)
        if key not in self._other:
            self._other[key] = self._others(anchor, relation, self.kg.neighbour_set(anchor, relation))
        return self._other[key]

    def _others(self, anchor: str, relation: str, members: frozenset[str], first: bool = False) -> frozenset[str]:
        # candidates: the passage's own entity when members are passage entities, names of the relation's
        # range when some are not (both when the graph mixes them: "B. R. Ambedkar" read as another node)
        # (and both when there are no members: "Brian Eno" with no nationality in the graph)
        # and the names in the anchor's own passage, which lists members by name ("Zhejiang is bordered by
        # Jiangsu, Shanghai, Anhui ...")
        passage_entities = bool(members & self.with_passage) or not members
        # a date any passage's own entity the graph knows may meet ("Gauss was director ... until his death in 1855")
        dated = anchor.startswith(DATES)
        names_only = not (members and members <= self.with_passage)
        by_name = self._range_names(relation)
        kinds = {r for m in members for r in self.kg.out.get(m, ())} if members else None  # the members' relations
        values = any(m.startswith("value:") for m in members)  # a class or a date only for such members
        found: set[str] = set()
        searched = 0  # size of `found` when last compared with the members
        # the anchor's own passage speaks of it in every sentence ("The sovereign state lies ... in the
        # Micronesia region", of the Marshall Islands), naming it or not; read for a relation with cue
        # words only (a sentence using one), else every demonym of the passage would be a nationality;
        # but always for an entity the graph has no name for (a possible member of a set below): its
        # passage is all that can say anything of it
        own = {i for pid in self.passages_of.get(anchor, ()) for i in self.by_passage[pid]} if self.cues.get(
            relation) or anchor not in self.kg.labels else set()
        naming, cued = self._naming(anchor), self._cued_sentences(relation)
        for index in sorted(naming.keys() | own if cued is None else (naming.keys() | own) & cued):
            at = naming.get(index) or [-1]  # where the sentence names the anchor; not named: the passage's topic, first
            entity = self.entity_at[index]
            # (what is found already is not read again: the same entity or names in many sentences)
            own_entity = passage_entities or dated and entity in self.kg.labels
            if own_entity and entity not in found and self._same_kind(entity, kinds) and self._ordered(
                    index, relation, at, self._where(index, entity) or [-1]):
                found.add(entity)  # the passage's own entity (one the graph knows nothing of, too)
            if names_only or entity == anchor:  # every whole mention of a range name, in order
                for k, name in self._named_in(index):
                    if (nodes := by_name.get(name)) and not nodes <= found and self._ordered(index, relation, at, [k]):
                        found |= nodes
            if entity == anchor and cued is not None:
                # the anchor's own passage names its members, some the graph knows of no such fact for ("Ibadan
                # is the capital of Oyo State", "flows through Jilin and Heilongjiang provinces") or knows
                # nothing of: any entity of the members' kind named in a cued sentence, or a capitalised name
                # no node has
                for k, name in self._named_in(index):
                    nodes = {n for n in self._nodes_named().get(name, ())
                             if self._same_kind(n, kinds) and (values or not n.startswith("value:"))}
                    if not nodes <= found and self._ordered(index, relation, at, [k]):
                        found |= nodes
                found |= {_UNNAMED + " ".join(name) for k, name in self._unknown_names(index)
                          if self._ordered(index, relation, at, [k])}
            if relation == "occupation":
                found |= self._unread_classes(index, at, by_name)
            if first and len(found) > searched and found - members - {anchor}:  # asked again only when it grew
                break
            searched = len(found)
        return frozenset(found - members - {anchor})

    def _unread_classes(self, index: int, at: list[int], by_name: dict[tuple[str, ...], set[str]]) -> set[str]:
        """The classes of people a sentence about someone (named at `at`) may say they are, that no one was read
        to be ("a writer ... and satirist")."""
        return {_UNNAMED + " ".join(name) for k, name in self.person_classes_in(index)
                if name not in by_name and self._ordered(index, "occupation", at, [k])}

    def _unnamed_speaks(self, member: str, relation: str) -> bool:
        """May the corpus state the relation of a member no node stands for? Only where two passages or more
        write its name (not only the one it was found in) and a sentence naming it may state the relation
        (a cue word)."""
        name = tuple(member.removeprefix(_UNNAMED).split(" "))
        naming: dict[str, bool] = {}  # passage -> a sentence of it naming the member may state the relation
        for index in sorted(set.intersection(*(self.postings.get(w, set()) for w in name))):
            words = self.sentences[index][1]
            if any(words[k:k + len(name)] == name for k in range(len(words) - len(name) + 1)):
                pid = self.sentences[index][0]
                naming[pid] = naming.get(pid, False) or self._cued(index, relation)
        return len(naming) > 1 and any(naming.values())

    def _speaks_of(self, entity: str, relation: str) -> bool:
        """May a sentence of the entity's passages, or one naming it, state the relation of it?"""
        return any(self._cued(i, relation) for i in self._naming(entity).keys() | self._read_for(entity))

    def _writes_range(self, entity: str, relation: str) -> bool:
        """Does a sentence of the entity's own passages (`_read_for`) write a name some fact of the relation points
        to, whole or inside a longer name ("British" in "a British Indian poet")?"""
        key = (entity, relation)
        if key not in self._writes:
            names = self._range_names(relation)
            longest = max(map(len, names), default=0)
            self._writes[key] = any(
                words[k:k + n] in names for i in sorted(self._read_for(entity))
                for words in (self.sentences[i][1],) for k in range(len(words)) for n in range(1, longest + 1))
        return self._writes[key]

    def _same_kind(self, entity: str, kinds: set[str] | None) -> bool:
        """Could the entity be of the members' kind (`kinds`: their relations; None: no members)? Not
        when the graph states relations of it and the members have none of them: a person is no member
        of "the places bordering Ukraine"."""
        if entity not in self._kinds:
            self._kinds[entity] = frozenset(self.kg.out.get(entity, ())) - WEAK
        own = self._kinds[entity]
        return not own or kinds is None or bool(own & kinds)

    def possible(self, conditions: Iterable[tuple[str, str]]) -> set[str]:
        """The entities that may meet every one of the anchored conditions (anchor, relation), by the
        graph or by the corpus text: a member the graph lacks must meet all of them to be missed."""
        return set.intersection(*(set(self.kg.neighbours(a, r)) | self.others(a, r) for a, r in conditions))

    def meets_negation(self, answer: str, relation: str, anchor: str) -> bool:
        """Might the answer's own passage (else a passage stating something of it) say that it meets the
        negated condition (answer -relation-> anchor)?"""
        key = (answer, relation, anchor)
        if key not in self._meets:
            # the sentences of the answer's passages that name the anchor: the only ones that can say it
            named = self._naming(anchor).keys() & self._read_for(answer)
            self._meets[key] = any(self._cued(i, relation) and self._ordered(
                i, relation, self._where(i, answer) or [-1], self._where(i, anchor)) for i in named)
        return self._meets[key]

    def reject_reason(self, plan: Plan, anchors: dict[str, str], relations: dict[int, str],
                      sets: dict[str, set[str]]) -> str | None:
        """Why the grounding's answers may be wrong with respect to the corpus, or None."""
        reason = self._reason(plan, anchors, relations, sets)
        if reason and self.use_classes and not self.without_classes()._reason(plan, anchors, relations, sets):
            return BY_CLASS.get(reason, reason)
        return reason

    def _reason(self, plan: Plan, anchors: dict[str, str], relations: dict[int, str],
                sets: dict[str, set[str]]) -> str | None:
        for node in plan.steps:
            if not plan.is_anchor(node) and (reason := self._class_reason(plan, node, anchors, relations, sets)):
                return reason
        return self.answers_reason(plan, anchors, relations)

    def node_reason(self, plan: Plan, node: str, anchors: dict[str, str], relations: dict[int, str],
                    sets: dict[str, set[str]]) -> str | None:
        """`reject_reason`'s part that a grounding of the node's subtree alone decides (the enumerators
        check early): the class checks at the node, and the bounds of its subtree."""
        key = _grounded(plan, node, anchors, relations)
        if key not in self._reasons:  # the enumerators ask again for every grounding that shares the subtree
            reason = self._class_reason(plan, node, anchors, relations, sets)
            if reason is None and node == plan.target:
                reason = self.answers_reason(plan, anchors, relations)
            elif reason is None and not plan.is_anchor(node):
                reason = self.bounds(plan, anchors, relations, node).reason
            self._reasons[key] = reason
        return self._reasons[key]

    def answers_reason(self, plan: Plan, anchors: dict[str, str], relations: dict[int, str]) -> str | None:
        """Why the text may give the target other answers than the graph (see `bounds`), or None. (The
        target's bounds are not cached: no other grounding shares them.)"""
        bound = self._bounds_of(plan, anchors, relations, plan.target, lazy=True)
        return bound.reason or _inexact(bound)

    def bounds(self, plan: Plan, anchors: dict[str, str], relations: dict[int, str], node: str) -> Bounds:
        """What a node holds whatever else the text says (`certain`), what the graph says (`graph`) and
        what the text may add (`possible`); `reason` when a set below must be exact and is not.

        A projection's possible set takes what the text may say of each possible member of the set
        below, so a bridge the graph knows only in part costs nothing unless its unknown members lead
        to other answers ("the drama film written by Aleksandr Misharin" may have a sister film; if the
        text names no director of it, the directors stay exact). That holds only for a narrow bridge:
        one named entity's few (at most LOOSE) neighbours. A broad one ("one of the drama films", "the
        places in Turkey") must be exact, as the answers must: the judged items showed the text's
        second hops about its unknown members too often missed. A negation removes surely what the
        graph negates and possibly what a member's own text may say (`meets_negation`)."""
        if plan.is_anchor(node):
            one = {anchors[node]}
            return Bounds(one, one, one, None)
        key = _grounded(plan, node, anchors, relations)
        if key not in self._bounds:
            bound = self._bounds_of(plan, anchors, relations, node)
            if not bound.reason and not self.narrow(
                    [anchors[a] for a in _subtree(plan.type, node)[0]], len(bound.graph)):
                bound = bound._replace(reason=_inexact(bound))
            if not bound.reason and node != plan.target and any(
                    not st.negated and plan.is_anchor(st.child) and self.unaccounted(
                        anchors[st.child], traversal(self.kg, st, relations[st.edge])) for st in plan.steps[node]):
                bound = bound._replace(reason=BROAD_UNSTATED)
            self._bounds[key] = bound
        return self._bounds[key]

    def unaccounted(self, anchor: str, relation: str) -> bool:
        """Does a passage name this nationality without a member read there? "the occupations that Swedish
        people had" goes through every Swedish person of the corpus; a passage saying "the Swedish astronomer
        Anders Celsius" that the reader did not read would hide his occupations, so a demonym a query goes
        through must be accounted for wherever it is written (even "the Swedish krona": the check cannot tell)."""
        if not anchor.startswith("value:nationality:"):
            return False
        key = (anchor, relation)
        if key not in self._unaccounted:
            read = {p for m in self.kg.neighbours(anchor, relation) for p in self.kg.passages[(anchor, relation, m)]}
            self._unaccounted[key] = any(self.sentences[i][0] not in read for i in self._naming(anchor))
        return self._unaccounted[key]

    def narrow(self, anchors: Iterable[str], size: int) -> bool:
        """May a bridge of `size` members, below these anchors, hold members the graph lacks? Only a
        few neighbours of named entities: not of a class, a demonym or a date, which many share."""
        return size <= LOOSE and not any(
            a.startswith("value:") or _is_class(label := self.kg.labels.get(a, "")) or _date_names(label)
            for a in anchors)

    def _bounds_of(self, plan: Plan, anchors: dict[str, str], relations: dict[int, str], node: str,
                   lazy: bool = False) -> Bounds:
        """`bounds` without the cache; `lazy`: `certain` only when the text may add nothing (else the graph)."""
        kg = self.kg
        plain: list[tuple[set[str], set[str], set[str]]] = []
        unions: list[tuple[set[str], set[str], set[str]]] = []
        reason = None
        for st in plan.steps[node]:
            if st.negated:
                continue
            forward = traversal(kg, st, relations[st.edge])
            below = self.bounds(plan, anchors, relations, st.child)
            reason = reason or below.reason
            reached = project(kg, below.possible, forward).union(
                *(self.others(m, forward) for m in sorted(below.possible)))
            # a member only the text adds, of which nothing along the relation was read though its text may
            # say something (a cue word), or which no node stands for and another passage names: what it
            # leads to is unknown, not absent
            if any(self._unnamed_speaks(m, forward) if m.startswith(_UNNAMED) else not kg.neighbours(m, forward)
                   and not self.others(m, forward) and self._speaks_of(m, forward)
                   for m in sorted(below.possible - below.graph)):
                reason = reason or "corpus_other_member"
            # so is what a member the graph knows leads to along a relation every such member has a value of (its
            # stated values all there are: `EXHAUSTIVE`), when none was read though its sentences write a name of the
            # relation's range ("Tagore was a British Indian poet": no nationality)
            if forward in EXHAUSTIVE and any(not kg.neighbours(m, forward) and self._writes_range(m, forward)
                                             for m in sorted(below.graph)):
                reason = reason or "corpus_other_member"
            (unions if st.union else plain).append((project(kg, below.certain, forward),
                                                    project(kg, below.graph, forward), reached))
        parts = unions or plain
        join = set.union if unions else set.intersection
        certain, graph, possible = (join(*(part[i] for part in parts)) for i in range(3))
        negated = [st for st in plan.steps[node] if st.negated]
        negations = [(traversal(kg, st, relations[st.edge]), self.bounds(plan, anchors, relations, st.child))
                     for st in negated]
        # "Faraday's nationalities other than those editors held": a NOT over everyone of a class (a demonym, a
        # date) holds only by silence; over a projection it needs a narrow set, a few neighbours of named entities
        if any(not plan.is_anchor(st.child) and not self.narrow([anchors[a] for a in _subtree(plan.type, st.child)[0]],
                                                                len(below.graph))
               for st, (_, below) in zip(negated, negations)):
            reason = reason or NEGATION_UNSTATED
        for forward, below in negations:
            reason = reason or below.reason
            graph = graph - project(kg, below.graph, forward)
            possible = possible - project(kg, below.certain, forward)
        if lazy and (reason or possible - graph):
            return Bounds(graph, graph, possible, reason)
        for forward, below in negations:
            # what the negated sources may reach by the text too ("the occupations of Henry James", who is
            # "among the greatest novelists" though the graph read no novelist), and what an answer's own
            # text may say it meets
            removed = project(kg, below.possible, forward)
            maybe = removed.union(*(self.others(a, forward) for a in sorted(below.possible)))
            met = {m for m in certain - maybe if any(self.meets_negation(m, kg.inverses[forward], a)
                                                     for a in sorted(below.possible))}
            # open world: a member passes the NOT only where the graph states a value of the relation for it
            # that contrasts with every negated one (another nationality, a birth decade outside); silence
            # says nothing ("poets that are not American" must not keep a poet whose nationality was never
            # read), nor does a value that may hold the negated one ("British" for "not English", "writer"
            # for "never a poet", a place inside the negated one)
            left = certain - maybe - met
            silent = {m for m in left
                      if not self._contrasts(kg.neighbours(m, kg.inverses[forward]), below.possible, forward)}
            # so for a value answer: "British" is no answer to "nationalities of Faraday but not of editors"
            # when an editor is English
            silent |= {m for m in left if m.startswith("value:") and any(
                self._may_hold(kg.labels.get(m, m), kg.labels.get(w, w)) for w in removed)}
            # and for a place: one inside a place the negated one is said to lie in may hold it too ("places
            # containing São Paulo but not El Dorado": Brazil, while El Dorado is only "somewhere in South America")
            if forward in TRANSITIVE:
                around = {c for w in below.possible for c in kg.neighbours(w, forward)}
                silent |= {m for m in left if any(self._inside(m, c, forward) for c in sorted(around))}
            certain = left - silent
            reason = reason or (NEGATION_UNSTATED if silent else None)
        return Bounds(certain, graph, possible, reason)

    def _contrasts(self, values: Iterable[str], negated: Iterable[str], forward: str) -> bool:
        """Do the stated `values` (some) rule out every `negated` one? Not where one may hold the other."""
        values = list(values)
        backward, label = self.kg.inverses[forward], self.kg.labels.get
        # one side's stated list must be whole: the member's nationalities, or Bellow's occupations for "the
        # occupations of Morrison that Bellow never had"
        if not values or not {backward, forward} & EXHAUSTIVE:
            return False
        for v in values:
            for w in negated:
                if self._may_hold(label(v, v), label(w, w)) or backward in TRANSITIVE and (
                        self._inside(v, w, backward) or self._inside(w, v, backward)):
                    return False
        return True

    def _may_hold(self, a: str, b: str) -> bool:
        """May one entity be both values (`lexicon.overlaps`)? Without classes.yaml's classes (as
        `without_classes` counts what the table costs) only equal class names do."""
        return overlaps(a, b) if self.use_classes or a[:1].isupper() else a == b

    def _inside(self, part: str, whole: str, relation: str, depth: int = 4) -> bool:
        """Does the graph reach `whole` from `part` along a containment relation (Paris -> France)?"""
        frontier = {part}
        for _ in range(depth):
            frontier = {n for f in frontier for n in self.kg.neighbours(f, relation)}
            if whole in frontier:
                return True
        return False

    def _class_reason(self, plan: Plan, node: str, anchors: dict[str, str], relations: dict[int, str],
                      sets: dict[str, set[str]]) -> str | None:
        """The checks `classes.yaml` adds at a node: classes shared only through the table, and a NOT
        whose removed classes lie under an answer."""
        if not self.use_classes:
            return None
        kg, steps = self.kg, plan.steps[node]
        below = {st: {anchors[st.child]} if plan.is_anchor(st.child) else sets[st.child] for st in steps}
        conditions = [(frozenset(below[st]), traversal(kg, st, relations[st.edge])) for st in steps
                      if not st.negated and not st.union]
        if len(conditions) >= 2 and self._shared_broader(conditions, sets[node]):
            return "corpus_other_member"
        for st in steps:
            forward = traversal(kg, st, relations[st.edge])
            if st.negated and forward in CLASS_RELATIONS and self._held_above(below[st], forward, sets[node]):
                return "corpus_meets_negation"
        return None

    def _held_above(self, negated: set[str], relation: str, answers: set[str]) -> bool:
        """Is an answer class broader than a class the NOT removes? "Morrison's occupations that Bellow
        never had" keeps no writer when Bellow is a novelist (classes.yaml: novelist -> writer)."""
        removed = set().union(*(broader(self.kg.label(c)) for c in project(self.kg, set(negated), relation)))
        return any(spelled(self.kg.label(a)) in removed for a in answers)

    def _shared_broader(self, conditions: list[tuple[frozenset[str], str]], members: set[str]) -> bool:
        """Classes shared only through `classes.yaml`: "the occupations that an industrialist had and
        Rockefeller had" lacks businessman, Rockefeller's own class and one the industrialist's contains.
        True when a class outside the answers is stated for one condition and held by every other one,
        stated or through a narrower class."""
        if not all(r in CLASS_RELATIONS for _, r in conditions):
            return False
        reached = [{self.kg.label(c) for c in project(self.kg, set(ss), r)} for ss, r in conditions]
        held = [labels.union(*map(broader, labels)) for labels in reached]
        extra = set.intersection(*held) - {self.kg.label(m) for m in members}
        return any(c in labels for c in extra for labels in reached)

    def beyond(self, sources: frozenset[str], relation: str) -> bool:
        """Might the corpus reach, from one of `sources`, an entity the graph reaches from none of them?
        (A set projected from a variable misses what the text says of any of its members: "cities in
        a state of India" lacks Pune when Maharashtra's text names it and the graph does not.)"""
        if len(sources) == 1:
            return self.other_member(next(iter(sources)), relation)
        key = (sources, relation)  # cached: the enumerators ask it of the same set for many partial groundings
        if key not in self._beyond:
            reached = project(self.kg, set(sources), relation)
            self._beyond[key] = any(self.others(s, relation) - reached for s in sorted(sources))
        return self._beyond[key]


class Bounds(NamedTuple):
    certain: set[str]
    graph: set[str]
    possible: set[str]
    reason: str | None  # why the set, or one below that must be exact, is not exact


def _inexact(bound: Bounds) -> str | None:
    if bound.possible - bound.graph:
        return "corpus_other_member"
    if bound.graph - bound.certain:
        return "corpus_meets_negation"
    return None


def _grounded(plan: Plan, node: str, anchors: dict[str, str], relations: dict[int, str]) -> tuple:
    """The node and its subtree's grounding: all that the node's set (and its bounds) depend on."""
    below_anchors, below_edges = _subtree(plan.type, node)
    return (plan.type, node, tuple(map(anchors.__getitem__, below_anchors)),
            tuple(map(relations.__getitem__, below_edges)))


@cache
def _subtree(type_name: str, node: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The anchors and the edges below a node of a type's plan: what its bounds depend on."""
    plan = plan_for(type_name)
    anchors, edges, todo = [], [], [node]
    while todo:
        for st in plan.steps[todo.pop()]:
            edges.append(st.edge)
            (anchors if plan.is_anchor(st.child) else todo).append(st.child)
    return tuple(sorted(anchors)), tuple(sorted(edges))
