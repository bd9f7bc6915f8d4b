"""Groundings that are well formed and still make a bad question, found by reading items: a query that answers
itself, a class as an answer or a bridge, a containment said twice, a date as a bridge, a noun that already says
a condition, an answer beside its own surname (`senseless`, asked by the generator before it words an item)."""

from __future__ import annotations

from collections.abc import Iterable

from pipeline.kg.candidates import DATES
from pipeline.kg.graph import KnowledgeGraph
from pipeline.kg.lexicon import broader
from pipeline.kg.query import traversal
from pipeline.kg.sample import Grounding
from pipeline.kg.verbalize import MEMBERS, PERSON_RELATIONS, Verbalizer

TRANSITIVE = frozenset({"located_in", "location_of", "part_of", "has_part"})  # containment: X in Y in Z
MEMBERSHIP = frozenset(MEMBERS.values())  # from a class to its members


def senseless(kg: KnowledgeGraph, grounding: Grounding, verbalizer: Verbalizer) -> str | None:
    """Why a well-formed grounding still makes a bad question (found by reading items), or None."""
    plan = grounding.plan
    bridges = [n for n in plan.steps if not plan.is_anchor(n) and n != plan.target]
    if _circular(grounding, bridges, verbalizer.positive[plan.target] - grounding.answers):
        return "circular"
    for node, steps in plan.steps.items():
        moves = [(st, traversal(kg, st, grounding.relations[st.edge])) for st in steps]
        if not plan.is_anchor(node) and any(rel == "instance_of" for _, rel in moves):
            return "class_as_answer"
        if any(rel in MEMBERSHIP and not plan.is_anchor(st.child) for st, rel in moves):
            return "class_bridge"  # "entities that are one of the occupations of X" asks nothing a person would
        plain = [rel for st, rel in moves if not st.negated and not st.union and rel in TRANSITIVE]
        if len(plain) != len(set(plain)):
            return "transitive_repeat"  # "the country that lies in Central Africa and in Africa"
        for st, rel in moves:
            inner = [traversal(kg, c, grounding.relations[c.edge]) for c in plan.steps[st.child]]
            if rel in TRANSITIVE and rel in inner:
                return "transitive_repeat"  # "the city in one of the places in one of the places ..."
    if any(m.startswith(DATES) for n in bridges for m in grounding.sets[n]):
        return "date_bridge"  # "the event of the century in which Mir Dast was born": everything of a century
    if reason := _noun_reason(kg, grounding, verbalizer, bridges):
        return reason
    if plan.type == "1p" and verbalizer.absorbed(plan.target) is not None:
        return "nothing_asked"
    return "answer_alias" if surnamed_twice(kg, grounding.answers) else None


def _noun_reason(kg: KnowledgeGraph, grounding: Grounding, verbalizer: Verbalizer, bridges: list[str]) -> str | None:
    """What is wrong with the nouns a question gives its sets, or None."""
    plan = grounding.plan
    sets = [n for n in plan.steps if not plan.is_anchor(n)]
    if any(verbalizer.noun(n)[0] == "entity" for n in sets):
        return "vague_noun"
    noun = verbalizer.noun(plan.target)[0]
    if any(kg.label(m) == noun for n in bridges for m in grounding.sets[n]):
        return "noun_names_bridge"  # "the rulers that had the occupation that Vytautas had"
    if any(_holds(kg, grounding, verbalizer, n) for n in sets):
        return "noun_holds_condition"
    return None


def _holds(kg: KnowledgeGraph, grounding: Grounding, verbalizer: Verbalizer, node: str) -> bool:
    """Does the node's noun already say one of its class conditions: "the general that worked as an officer",
    "a statesman known as a politician" (classes.yaml: a general is an officer)?"""
    plan, noun = grounding.plan, verbalizer.noun(node)[0]
    return any(not st.negated and plan.is_anchor(st.child)
               and traversal(kg, st, grounding.relations[st.edge]) in MEMBERSHIP
               and kg.label(grounding.anchors[st.child]) in broader(noun) for st in plan.steps[node])


def _circular(grounding: Grounding, bridges: list[str], removed: set[str]) -> bool:
    """Does the query answer itself: an anchor among the answers or what the negations remove
    ("the capital of the country containing Bucharest"), an anchor in a bridge it is reached from
    (a bridge may hold an anchor of another branch: "born in France" holds Depardieu), or an answer
    in a bridge ("the country containing the capital of the country where Saint-Domingue is": Haiti)?"""
    plan, anchors = grounding.plan, set(grounding.anchors.values())

    def below(node: str) -> set[str]:  # the anchors a node's set is reached from
        if plan.is_anchor(node):
            return {grounding.anchors[node]}
        return set().union(*(below(st.child) for st in plan.steps[node]))

    return bool(anchors & (grounding.answers | removed)) or any(
        below(n) & grounding.sets[n] or grounding.answers & grounding.sets[n] for n in bridges)


def surnamed_twice(kg: KnowledgeGraph, answers: Iterable[str]) -> bool:
    """Is a one-word answer the last word of another answer that is a person: someone read once by a full name
    and once, in a passage that does not give it, by the surname alone? (Not "Sudan" beside "South Sudan".)"""
    named = [a for a in answers if not a.startswith("value:")]
    surnames = {kg.label(a).split()[-1] for a in named
                if " " in kg.label(a) and any(kg.neighbours(a, r) for r in PERSON_RELATIONS)}
    return any(" " not in kg.label(a) and kg.label(a) in surnames for a in named)
