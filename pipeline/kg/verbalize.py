"""Questions and ITLR logical forms for a grounding, from the templates in prompts/kg/.

Both are read off the plan from the anchors up. Each set gets a noun ("films", "painters",
"places"): the most specific class that all its members share (and that is not already one of
the query's anchors), else their common topic, else the relation's noun. Because every member
has that class, "films by X" denotes exactly the set "works by X" does, so the question and the
logical form keep the exact answers.

The logical form has one quoted term per condition, a short phrase about the answers ("films by
Stanley Kubrick"), joined by AND / OR / NOT. A projection after an intersection, union or
difference (ip, up, inp) is applied to each term: exact for up (projection distributes over
union), an approximation for ip and inp, whose answers and evidence stay exact.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache
from typing import Union

import yaml

from pipeline.kg.extract import vocabulary
from pipeline.kg.graph import KnowledgeGraph
from pipeline.kg.query import Plan, Step, traversal
from pipeline.kg.sample import Grounding
from pipeline.resources import read_prompt

CLASS_RELATIONS = ("instance_of", "occupation")
_MEMBERS = {"instance_of": "has_instance", "occupation": "occupation_of"}


@dataclass(frozen=True, slots=True)
class Term:
    text: str


@dataclass(frozen=True, slots=True)
class Op:
    op: str  # AND | OR | NOT
    parts: tuple[Expr, ...]


Expr = Union[Term, Op]


@cache
def templates() -> dict:
    return {"relations": yaml.safe_load(read_prompt("kg/relations.yaml")),
            "questions": yaml.safe_load(read_prompt("kg/questions.yaml"))}


@cache
def plural(noun: str) -> str:
    """English plural of a class noun ("mountain range" -> "mountain ranges"); irregular ones are
    listed in vocabulary.yaml (a rule is enough for these closed lists, and loads in no time)."""
    irregular = vocabulary()["plurals"]
    head, _, last = noun.rpartition(" ")
    if last in irregular:
        last = irregular[last]
    elif re.search(r"[^aeiou]y$", last):
        last = last[:-1] + "ies"
    elif re.search(r"(s|x|z|ch|sh)$", last):
        last += "es"
    elif last.endswith("man"):
        last = last[:-3] + "men"
    else:
        last += "s"
    return f"{head} {last}" if head else last


def render(expr: Expr) -> str:
    """ITLR syntax; a compound part of a different operator is parenthesised."""
    if isinstance(expr, Term):
        return '"' + expr.text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if expr.op == "NOT":
        inner = render(expr.parts[0])
        return f"NOT ({inner})" if isinstance(expr.parts[0], Op) else f"NOT {inner}"
    rendered = []
    for part in expr.parts:
        text = render(part)
        rendered.append(f"({text})" if isinstance(part, Op) and part.op not in (expr.op, "NOT") else text)
    return f" {expr.op} ".join(rendered)


class Verbalizer:
    def __init__(self, kg: KnowledgeGraph, grounding: Grounding, rng: random.Random):
        self.kg, self.g, self.plan, self.rng = kg, grounding, grounding.plan, rng
        self.relations = templates()["relations"]
        self.questions = templates()["questions"]
        self.anchor_labels = {kg.label(a) for a in grounding.anchors.values()}

    # templates -------------------------------------------------------------------------
    def _template(self, relation: str) -> tuple[dict, str]:
        known = self.relations["relations"]
        if relation in known:
            return known[relation], relation
        if relation.startswith("inverse of "):
            return self.relations["default_inverse"], relation[len("inverse of "):]
        return self.relations["default"], relation

    def _fill(self, relation: str, key: str, x: str, nested: bool, noun: str | None = "") -> str:
        """A template of `relation` filled in; noun None: the relation's own noun."""
        template, name = self._template(relation)
        noun = template["noun"] if noun is None else noun
        if nested:
            text = template.get(f"{key}_nested", template[key])
        elif key == "term" and noun != template["noun"]:
            text = template.get("term_with_noun", template[key])
        else:
            text = template[key]
        if isinstance(text, list):
            text = self.rng.choice(text)
        xs = plural(x) if "{xs}" in text else x
        if nested and x.startswith("the ") and "the {x}" in text:
            x = x[4:]  # "nationalities of the {x}" with x = "the creators of ...": no "the the"
        return text.format(x=x, xs=xs, noun=noun, relation=name.replace("_", " "))

    # nouns --------------------------------------------------------------------------------
    def noun(self, node: str) -> str:
        members = sorted(self.g.sets[node])
        kg = self.kg
        shared: set[str] | None = None
        for m in members:
            classes = {c for r in CLASS_RELATIONS for c in kg.neighbours(m, r)}
            shared = classes if shared is None else shared & classes
            if not shared:
                break
        candidates = [c for c in shared or () if kg.label(c) not in self.anchor_labels]
        if candidates:
            def size(c: str) -> tuple[int, str]:
                return (sum(len(kg.neighbours(c, _MEMBERS[r])) for r in CLASS_RELATIONS), kg.label(c))
            return plural(kg.label(min(candidates, key=size)))
        topics = {kg.topic(m) for m in members}
        if len(topics) == 1 and (topic := topics.pop()) in vocabulary()["topic_nouns"]:
            return vocabulary()["topic_nouns"][topic]
        nouns = {self._template(self._rel(st))[0]["noun"] for st in self.plan.steps[node] if not st.negated}
        return nouns.pop() if len(nouns) == 1 else "entities"

    def _rel(self, step: Step) -> str:
        return traversal(self.kg, step, self.g.relations[step.edge])

    # phrases ------------------------------------------------------------------------------
    def _source(self, step: Step) -> tuple[str, bool]:
        """The phrase for the child's set, and whether it is nested (not an anchor's name)."""
        if self.plan.is_anchor(step.child):
            return self.kg.label(self.g.anchors[step.child]), False
        return self.np(step.child), True

    def np(self, node: str) -> str:
        """A noun phrase for the node's set, for the question."""
        steps = self.plan.steps[node]
        noun = self.noun(node)
        if self.plan.is_projection(node):
            x, nested = self._source(steps[0])
            return self._fill(self._rel(steps[0]), "term", x, nested, noun)
        plain = [self._fill(self._rel(st), "cond", *self._source(st)) for st in steps if not st.union and not st.negated]
        unions = [self._fill(self._rel(st), "cond", *self._source(st)) for st in steps if st.union]
        conds = self._join(unions, "or") if unions else self._join(plain, "and")
        for st in steps:
            if st.negated:
                x, nested = self._source(st)
                wording = self.rng.choice(self.questions["not"])
                conds = wording.format(pos=conds, neg=self._fill(self._rel(st), "neg", x, nested),
                                       cond=self._fill(self._rel(st), "cond", x, nested))
        return self.questions["set"].format(noun=noun, conds=conds)

    def _join(self, clauses: list[str], how: str) -> str:
        text = clauses[0]
        for clause in clauses[1:]:
            text = self.rng.choice(self.questions[how]).format(a=text, b=clause)
        return text

    def question(self) -> str:
        options = self.questions["questions"]
        wording = self.rng.choice(options.get(self.plan.type, options["default"]))
        np = self.np(self.plan.target)
        return wording.format(np=np[4:] if np.startswith("the ") else np)  # "List the {np}": no "the the"

    # logical form -------------------------------------------------------------------------
    def lf(self, node: str) -> Expr:
        """The node's set as ITLR terms about its members.

        The node's noun goes into every term or into none: "films by X" AND NOT "the creators
        of Y" would subtract only the films among Y's creators.
        """
        noun = self.noun(node)
        if not all(self._carries_noun(st) for st in self.plan.steps[node]):
            noun = None
        return self._lf(node, noun)

    def _carries_noun(self, step: Step) -> bool:
        template = self._template(self._rel(step))[0]
        key = "term_with_noun" if self.plan.is_anchor(step.child) else "term_nested"
        return "{noun}" in template.get(key, template["term"])

    def _lf(self, node: str, noun: str | None) -> Expr:
        steps = self.plan.steps[node]
        parts: list[Expr] = []
        for st in steps:
            relation = self._rel(st)
            if self.plan.is_anchor(st.child) or self.plan.is_projection(st.child):
                x, nested = self._source(st)
                part: Expr = Term(self._fill(relation, "term", x, nested, noun))
            else:  # project every term of the child's expression
                part = self._map(self.lf(st.child), lambda t: Term(self._fill(relation, "term", t.text, True, noun)))
            parts.append(Op("NOT", (part,)) if st.negated else part)
        if len(parts) == 1:
            return parts[0]
        return Op("OR", tuple(parts)) if any(st.union for st in steps) else Op("AND", tuple(parts))

    def _map(self, expr: Expr, fn) -> Expr:
        if isinstance(expr, Term):
            return fn(expr)
        return Op(expr.op, tuple(self._map(p, fn) for p in expr.parts))

    def logical_form(self) -> str:
        return render(self.lf(self.plan.target))
