"""Questions and ITLR logical forms for a grounding, from the templates in prompts/kg/.

Both are read off the plan from the anchors up. Each set gets a noun ("films", "painters",
"places"): the most specific class that all its members share (and that is not already one of
the query's anchors), else their common topic, else the relation's noun. Because every member
has that class, "films by X" denotes exactly the set "works by X" does, so the question and the
logical form keep the exact answers. In questions a set of one member is singular ("the country
where Maracaibo is located", "What is the decade of Ran?"); logical-form terms are plural.

The logical form has one quoted term per condition, a short phrase about the answers ("films by
Stanley Kubrick"), joined by AND / OR / NOT. A projection after an intersection, union or
difference is applied exactly: to each term of a union (up: projection distributes over it), to the
whole intersection or difference as one term (ip: "nationalities of the economists known as
diplomats"; inp: "occupations of the poets that are not Greek"), its conditions and NOT inside it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

import yaml

from pipeline.kg.graph import KnowledgeGraph
from pipeline.kg.lexicon import vocabulary
from pipeline.kg.query import Step, evaluate, traversal
from pipeline.kg.sample import Grounding, Reject
from pipeline.resources import read_prompt

CLASS_RELATIONS = ("instance_of", "occupation")
MEMBERS = {"instance_of": "has_instance", "occupation": "occupation_of"}  # a class relation -> to its members
PERSON_RELATIONS = ("occupation", "nationality", "born_in_century", "died_in_century")  # said of people only
_PLURAL_VERBS = {"is": "are", "was": "were", "belongs": "belong"}


@dataclass(frozen=True, slots=True)
class Term:
    text: str


@dataclass(frozen=True, slots=True)
class Op:
    op: str  # AND | OR | NOT
    parts: tuple[Expr, ...]


Expr = Term | Op


@cache
def templates() -> dict:
    return {"relations": yaml.safe_load(read_prompt("kg/relations.yaml")),
            "questions": yaml.safe_load(read_prompt("kg/questions.yaml"))}


def article(noun: str) -> str:
    """'a film', 'an island', 'a university'."""
    return ("an " if re.match(r"(?:[aeio]|u(?!ni|s[eu]))", noun, re.IGNORECASE) else "a ") + noun


def nouns(spec: str | list[str]) -> tuple[str, str]:
    """A noun of the templates or the vocabulary, 'place' or [singular, plural], as (singular, plural)."""
    return (spec, plural(spec)) if isinstance(spec, str) else (spec[0], spec[1])


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
        # every set before its negations are subtracted: its noun must hold for all of it, so
        # that what a NOT removes is a member of the worded class ("generals ..., except the
        # Greek ones" removes Greek generals only)
        negated = frozenset(st.edge for steps in self.plan.steps.values() for st in steps if st.negated)
        self.positive = evaluate(kg, self.plan, grounding.anchors, grounding.relations, skip=negated) if negated \
            else grounding.sets
        self.bare = True  # the clauses built so far read after a bare noun ("Which people are ...")
        # node -> noun, absorbed class edge, the class node the noun names (None: no class)
        self._nouns: dict[str, tuple[tuple[str, str], int | None, str | None]] = {}

    # templates -------------------------------------------------------------------------
    def _template(self, relation: str) -> tuple[dict, str]:
        known = self.relations["relations"]
        if relation in known:
            return known[relation], relation
        if relation.startswith("inverse of "):
            return self.relations["default_inverse"], relation[len("inverse of "):]
        return self.relations["default"], relation

    def _fill(self, step: Step, key: str, noun: tuple[str, str] | None = None, many: bool = True,
              x: str | None = None) -> str:
        """A template of the step's relation, for the set Y it reaches from the child's set X.

        `noun` is Y's (None: the relation's own), `many` Y's number; `x` overrides X's phrase
        (a logical-form term of X, plural).
        """
        template, name = self._template(self._rel(step))
        own = nouns(template["noun"])
        noun = noun or own
        if x is None:
            x, nested, x_many, whole = self._source_phrase(step)
        else:
            nested = x_many = True
            whole = False
        text = self._pick(_text(template, key, nested, noun != own))
        if key != "term" and text.startswith(("{x}", "{one_x}", "{any_x}")):
            self.bare = False  # "occupations that Goya had": the answer is not the clause's subject
        return self._format(text, x, nested and x_many, noun, many, name, own, whole)

    def _generic(self, node: str) -> bool:
        """Is the node's set all members of a class ("cellists", "Czech people"), said without "the"?"""
        if not self.plan.is_projection(node):
            return False
        step = self.plan.steps[node][0]
        return self.plan.is_anchor(step.child) and self._rel(step) in (*MEMBERS.values(), "nationality_of")

    def _format(self, text: str, x: str, x_many: bool, noun: tuple[str, str], many: bool, relation: str,
                own: tuple[str, str], whole: bool = False) -> str:
        """Fill in the placeholders described in prompts/kg/relations.yaml (`whole`: X is all members
        of a class, said without "one of")."""
        some = ("one of " + x, "any of " + x) if x_many and not whole else (x, x)
        if whole:  # the templates' "{one_x} was born" agrees with "one of ...": "Czech people were born"
            text = re.sub(r"(\{(?:one|any)_x\}) (is|was|belongs)\b", lambda m: f"{m[1]} {_PLURAL_VERBS[m[2]]}", text)
        return text.format(
            x=x, one_x=some[0], any_x=some[1], relation=relation.replace("_", " "), own=own[many],
            xs=plural(x) if many else x, a_xs=plural(x) if many else article(x), noun=noun[many],
            be=("is", "are")[many], was=("was", "were")[many], s=("s", "")[many], do=("does", "do")[many],
            have=("has", "have")[many], its=("its", "their")[many],
            x_be=("is", "are")[x_many], x_was=("was", "were")[x_many], x_s=("s", "")[x_many],
            x_do=("does", "do")[x_many], x_pl=("", "s")[x_many])

    def _pick(self, text: str | list[str]) -> str:
        return self.rng.choice(text) if isinstance(text, list) else text

    # nouns --------------------------------------------------------------------------------
    def noun(self, node: str) -> tuple[str, str]:
        """(singular, plural) of what every member of the node's positive set is."""
        if node not in self._nouns:
            self._nouns[node] = self._choose_noun(node)
        return self._nouns[node][0]

    def absorbed(self, node: str) -> int | None:
        """The edge of the class condition that the node's noun states ("films" for "has_instance
        film"), which its clauses then leave out: "Which films were made by X?"."""
        self.noun(node)
        return self._nouns[node][1]

    def noun_class(self, node: str) -> str | None:
        """The class node the node's noun names when no triple states it ("priests" for people born in
        Kyiv who all are priests): a condition of the question the item's facts must show too."""
        self.noun(node)
        _, absorbed, cls = self._nouns[node]
        return cls if absorbed is None else None

    def _choose_noun(self, node: str) -> tuple[tuple[str, str], int | None, str | None]:
        """The most specific class that every member of the positive set has (a class condition of
        the node itself included), else their common topic, else the relations' own noun."""
        members = sorted(self.positive.get(node, self.g.sets[node]))
        kg = self.kg
        steps = self.plan.steps[node]
        class_steps = {self.g.anchors[st.child]: st.edge for st in steps if not st.negated and not st.union
                       and self.plan.is_anchor(st.child) and self._rel(st) in MEMBERS.values()}
        shared: set[str] | None = None
        for m in members:
            classes = {c for r in CLASS_RELATIONS for c in kg.neighbours(m, r)}
            shared = classes if shared is None else shared & classes
            if not shared:
                break
        candidates = [c for c in shared or () if c in class_steps or kg.label(c) not in self.anchor_labels]
        if candidates:
            def size(c: str) -> tuple[int, str]:
                return (sum(len(kg.neighbours(c, MEMBERS[r])) for r in CLASS_RELATIONS), kg.label(c))
            best = min(candidates, key=size)
            return nouns(kg.label(best)), class_steps.get(best), best
        return self._plain_noun(node), None, None

    def _plain_noun(self, node: str) -> tuple[str, str]:
        """The members' common topic noun, else the relations' own noun: no class they happen to share."""
        kg, steps, members = self.kg, self.plan.steps[node], self.positive.get(node, self.g.sets[node])
        relations = [self._rel(st) for st in steps if not st.negated]
        topics = {kg.topic(m) for m in members}
        # "people filed under People" says nothing: no topic noun for a set chosen by its topic
        if len(topics) == 1 and (topic := topics.pop()) in vocabulary()["topic_nouns"] and "topic_of" not in relations:
            return nouns(vocabulary()["topic_nouns"][topic])
        # every member meets every intersected condition, so each one's noun holds (the most
        # specific is taken); in a union, only a noun all branches agree on does ("decades in
        # which Hafez died or entities founded by al-Sadiq" are not all decades)
        own = list(dict.fromkeys(nouns(self._template(r)[0]["noun"]) for r in relations))
        if len(steps) > 1 and self._all_people(members):
            # each condition (a NOT too, a union's branch too) is a clause: not "the winners that won the
            # Victoria Cross", nor "the creators that created PCR or created Barbie"
            return "person", "people"
        if any(st.union for st in steps):
            if len(own) == 1 and not self._echoed(own[0][0], relations):
                return own[0]
            # not "the successors that either succeeded X or succeeded Y"
            if len(own) == 1 and self._answers_people(relations[0]):
                return "person", "people"
            raise Reject("no_noun")
        specific = [n for n in own if n != nouns(self.relations["default"]["noun"])] or own
        if specific:
            return specific[0]
        raise Reject("no_noun")  # no class, topic or relation noun holds for the whole set

    def _echoed(self, noun: str, relations: list[str]) -> bool:
        """Does a clause of the relations repeat the noun's stem ("successors that succeeded")?"""
        return any(word[:5] == noun[:5] for r in relations for cond in _as_list(self._template(r)[0]["cond"])
                   for word in cond.split())

    def _answers_people(self, relation: str) -> bool:
        """Does the vocabulary declare the relation's answers people ("succeeded_by": who succeeded X)?"""
        specs = vocabulary()["relations"]
        if relation in specs:
            return specs[relation]["object"] == ["PERSON"]
        own = self.kg.inverses.get(relation)
        return own in specs and specs[own]["subject"] == ["PERSON"]

    def _people(self, node: str) -> bool:
        """Is every member of the node's set a person (`_all_people`), or is it named by an occupation ("the
        director of The Sound of Music")?"""
        return self.noun(node)[0] in vocabulary()["occupations"] or self._all_people(self.g.sets[node])

    def _all_people(self, members: Iterable[str]) -> bool:
        """Has every member an occupation, a nationality or a century of birth or death (only people have)?"""
        return all(any(self.kg.neighbours(m, r) for r in PERSON_RELATIONS) for m in members)

    def _rel(self, step: Step) -> str:
        return traversal(self.kg, step, self.g.relations[step.edge])

    def _many(self, node: str) -> bool:
        """Plural unless the set, before any negation, has one member: a question about what is
        left after an exception asks for several ("Which films ..., except ...?"). A role of a plural set
        is plural too: "the founder of the organizations based in Michigan" reads as one founder of them all."""
        if len(self.positive.get(node, self.g.sets[node])) != 1:
            return True
        if not self.plan.is_projection(node):
            return False
        step = self.plan.steps[node][0]
        # (a whole class is plural too: "the nationalities of editors", never "the nationality")
        if self.plan.is_anchor(step.child) or not (self._many(step.child) or self._generic(step.child)):
            return False
        template = self._template(self._rel(step))[0]
        return bool(re.search(r"\bof \{(?:one_|any_)?x\}", str(template.get("term_nested", template["term"]))))

    # phrases ------------------------------------------------------------------------------
    def _source_phrase(self, step: Step) -> tuple[str, bool, bool, bool]:
        """The phrase for the child's set, whether it is nested (not an anchor's name), its number, and
        whether it is a whole class, said without "the" ("the nationalities that cellists held", not
        "... that one of the cellists held")."""
        if self.plan.is_anchor(step.child):
            return self.kg.named(self.g.anchors[step.child]), False, False, False
        # a whole class is plural whatever the corpus holds of it: "the nationalities of futurists", never
        # "of the futurist", which reads as someone the reader should know
        whole = self._generic(step.child)
        many = whole or self._many(step.child)
        return ("" if whole else "the ") + self.np(step.child, many=many, inner=True), True, many, whole

    def np(self, node: str, many: bool | None = None, inner: bool = False) -> str:
        """A noun phrase without article for the node's set, in its number (or `many`'s);
        `inner`: inside a longer phrase (a projected term), see `conds`."""
        many, noun = self._many(node) if many is None else many, self.noun(node)
        if self.plan.is_projection(node):  # a class condition is its own noun: "the cities"
            step = self.plan.steps[node][0]
            return self._fill(step, "term", None if step.edge == self.absorbed(node) else noun, many)
        return self.questions["set"].format(noun=noun[many], conds=self.conds(node, many, inner))

    def conds(self, node: str, many: bool, inner: bool = False) -> str:
        """The joined relative clauses of an intersection, union or difference (without the class
        condition its noun already states). `inner`: the clauses sit inside a longer phrase, so
        a negation is a clause of its own ("... but are not regions"), never ", except those
        that ...", which would read as applying to the whole phrase."""
        steps = self.plan.steps[node]
        absorbed = self.absorbed(node)
        plain = [self._fill(st, "cond", many=many) for st in steps
                 if not st.union and not st.negated and st.edge != absorbed]
        unions = [self._fill(st, "cond", many=many) for st in steps if st.union]
        conds = self._join(unions, "or") if unions else self._join(plain, "and") if plain else None
        for st in steps:
            if st.negated:  # "except those that ...": the excluded clause in the plural
                neg = self._fill(st, "neg", many=many)
                if conds is None:  # only the noun holds: "films that were not made by X"
                    conds = neg
                    continue
                wording = self.rng.choice([w for w in self.questions["not"] if not inner or "{neg}" in w])
                conds = wording.format(pos=conds, neg=neg, cond=self._fill(st, "cond"))
        assert conds is not None, "a compound set has a clause besides its noun"
        return conds

    def _join(self, clauses: list[str], how: str) -> str:
        text = clauses[0]
        for clause in clauses[1:]:
            wording = self.rng.choice(self.questions[how])
            self.bare = self.bare and " that " not in wording
            text = wording.format(a=text, b=clause)
        return text

    def question(self) -> str:
        """A generic question about the answer set, or one of its last relation's own questions."""
        target = self.plan.target
        many, noun = self._many(target), self.noun(target)
        options = self.questions["questions"]
        be = ("is", "are")[many]
        people = self._people(target)
        if not self.plan.is_projection(target):
            if self.absorbed(target) is None and not all(map(self._carries_noun, self.plan.steps[target])):
                # the form cannot say "journalists" in every term: nor may the question ("Which journalist
                # won the Nobel Prize in Literature and is Colombian?" against "winners of ..." AND "Colombian people")
                noun = nouns(["person", "people"]) if people else self._plain_noun(target)
            self.bare = True
            conds = self.conds(target, many)
            compound = options["compound_people" if people else "compound"]
            wording = self.rng.choice(_number(compound, many) + (options["bare"] if self.bare else []))
            return wording.format(noun=noun[many], conds=conds, be=be)
        step = self.plan.steps[target][0]
        template, name = self._template(self._rel(step))
        own = _as_list(template.get("question" if self.plan.is_anchor(step.child) else "question_nested", []))
        if noun != nouns(template["noun"]):
            if self._carries_noun(step):
                own = [q for q in own if "{noun}" in q]  # the form says "countries led by X": not "What did X lead?"
            own = [q for q in own if "{noun} of" not in q]  # "the astronomer of Caroline Herschel" is her sibling
        else:  # not "Which creators created The Simpsons?"
            own = [q for q in own if not re.search(rf"\{{noun\}} {re.escape(noun[0][:5])}", q)]
        generic = options["projection_people" if people else "projection"] \
            if template.get("generic_questions", True) or not own else []
        wording = self.rng.choice(_number(generic, many) + own)
        if "{np}" in wording:
            return wording.format(np=self.np(target), be=be)
        x, nested, x_many, whole = self._source_phrase(step)
        return self._format(wording, x, nested and x_many, noun, many, name, nouns(template["noun"]), whole)

    # logical form -------------------------------------------------------------------------
    def lf(self, node: str) -> Expr:
        """The node's set as ITLR terms about its members (plural phrases without article).

        The node's noun goes into every term or into none: "films by X" AND NOT "the creators
        of Y" would subtract only the films among Y's creators.
        """
        noun: tuple[str, str] | None = self.noun(node)
        if not all(self._carries_noun(st) for st in self.plan.steps[node]):
            noun = None
        return self._lf(node, noun)

    def _carries_noun(self, step: Step) -> bool:
        template = self._template(self._rel(step))[0]
        return all("{noun}" in text for text in _as_list(_text(template, "term", not self.plan.is_anchor(step.child),
                                                                True)))

    def _lf(self, node: str, noun: tuple[str, str] | None) -> Expr:
        steps = self.plan.steps[node]
        parts: list[Expr] = []
        for st in steps:
            if self.plan.is_anchor(st.child) or self.plan.is_projection(st.child):
                part: Expr = Term(self._fill(st, "term", None if st.edge == self.absorbed(node) else noun))
            else:
                part = self._project(st, self.lf(st.child), noun)
            parts.append(Op("NOT", (part,)) if st.negated else part)
        if len(parts) == 1:
            return parts[0]
        return Op("OR", tuple(parts)) if any(st.union for st in steps) else Op("AND", tuple(parts))

    def _project(self, step: Step, child: Expr, noun: tuple[str, str] | None) -> Expr:
        """The terms of a projection of a compound set (ip, up, inp).

        A union is projected term by term (projection distributes over it: exact). Neither an
        intersection nor a difference is: "nationalities of A" AND "nationalities of B" holds
        more than the nationalities of what is both A and B (ip), and "occupations of A" AND NOT
        "occupations of B" removes an occupation that one member of B shares with the answers,
        while "occupations of A" AND NOT "B" subtracts people from occupations (inp). So either is
        projected whole, as one term with all its conditions inside it, its NOT too: "occupations
        of the people born in the 19th century that are not Greek". No projection sits inside a
        NOT, and no NOT is applied to a set of another kind than the one it is about.
        """
        if isinstance(child, Term):
            return Term(self._fill(step, "term", noun, x="the " + child.text))
        if child.op == "OR":
            return self._map(child, lambda term: Term(self._fill(step, "term", noun, x="the " + term.text)))
        return Term(self._fill(step, "term", noun, x="the " + self.np(step.child, many=True, inner=True)))

    def _map(self, expr: Expr, fn) -> Expr:
        if isinstance(expr, Term):
            return fn(expr)
        return Op(expr.op, tuple(self._map(p, fn) for p in expr.parts))

    def logical_form(self) -> str:
        return render(self.lf(self.plan.target))


def _text(template: dict, key: str, nested: bool, other_noun: bool) -> str | list[str]:
    """The template's wording(s) for `key`, nested or not, for a noun other than its own or not."""
    for variant, wanted in ((f"{key}_nested_with_noun", nested and other_noun), (f"{key}_nested", nested),
                            (f"{key}_with_noun", other_noun and not nested)):
        if wanted and variant in template:
            text = template[variant]
            break
    else:
        text = template[key]
    if key == "term" and other_noun and any("{noun} of" in t for t in _as_list(text)):
        # "the federalist of The Stranger" reads a job as the relation: say the relation instead
        cond = template.get("cond_nested", template["cond"]) if nested else template["cond"]
        return ["{noun} that " + c for c in _as_list(cond)]
    return text


def _number(wordings: list[str], many: bool) -> list[str]:
    """"List the ..." asks for several: not for a set of one."""
    return wordings if many else [w for w in wordings if not w.startswith("List ")]


def _as_list(text: str | list[str]) -> list[str]:
    return text if isinstance(text, list) else [text]
