"""The 14 ComLQ query types: subgraph indicators, graph patterns and the type check.

Convention. The indicator strings are ComLQ's, verbatim, and the pattern graph follows the
text exactly: every triple `(s, R, o)` is a directed edge s -> o carrying its relation
placeholder, a `negated` flag (¬) and a `union` flag (inside ∨ or ∪). Node roles are derived
from the formula: the *target* is the variable the query asks for (the set-builder variable,
the object of the last step of a path, or the new variable after ⇒); *anchors* are the other
nodes that occur in a single triple (constants once grounded); the rest are *variables*.
ComLQ writes some edges in the opposite direction to BetaE (2i: `(?x, R1, ?y)` has the target
as subject, BetaE's `((e,(r,)),(e,(r,)))` points anchor -> target). A relation and its inverse
say the same thing, so `classify`/`matches` compare the undirected structure by default
(roles, negation and union flags must still agree); pass `directed=True` to also require the
ComLQ edge directions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

import networkx as nx
from lark import Lark, Transformer
from networkx.algorithms import isomorphism

from pipeline.errors import ComlqError
from pipeline.records import Triple

Role = Literal["anchor", "variable", "target"]

_GRAMMAR = r"""
?start: path | setexpr
path: atriple ("," atriple)*
atriple: "<" term "," term "," term ">"
setexpr: setbuilder (SETOP setbuilder)* (IMPLIES (ptriple | setbuilder))?
setbuilder: "{" VAR "|" literal (CONN literal)* "}"
literal: NEG? ptriple
ptriple: "(" term "," term "," term ")"
?term: VAR | NAME
VAR: /\?[A-Za-z][A-Za-z0-9_]*/
NAME: /[^\s,()<>{}|?¬∧∨∩∪⇒][^,()<>{}|¬∧∨∩∪⇒]*[^\s,()<>{}|¬∧∨∩∪⇒]|[^\s,()<>{}|?¬∧∨∩∪⇒]/
SETOP: "∩" | "∪"
CONN: "∧" | "∨"
IMPLIES: "⇒"
NEG: "¬"
%import common.WS
%ignore WS
"""


@dataclass(frozen=True, slots=True)
class _Atom:
    subject: str
    relation: str
    object: str
    negated: bool = False
    union: bool = False
    angle: bool = False  # written <s, R, o> (path form)


@dataclass(frozen=True, slots=True)
class _SetBuilder:
    var: str
    atoms: tuple[_Atom, ...]
    connective: str  # "∧" or "∨"


@dataclass(frozen=True, slots=True)
class Formula:
    """Parsed indicator: a path, or set-builders joined by ∩/∪ with an optional ⇒ step."""

    path: tuple[_Atom, ...] = ()
    sets: tuple[_SetBuilder, ...] = ()
    setop: str | None = None
    then: _Atom | _SetBuilder | None = None

    def atoms(self) -> list[_Atom]:
        out = list(self.path)
        for s in self.sets:
            out.extend(s.atoms)
        if isinstance(self.then, _Atom):
            out.append(self.then)
        elif isinstance(self.then, _SetBuilder):
            out.extend(self.then.atoms)
        return out

    @property
    def target(self) -> str:
        if self.path:
            return self.path[-1].object
        if isinstance(self.then, _SetBuilder):
            return self.then.var
        if isinstance(self.then, _Atom):
            var = self.sets[0].var
            return self.then.object if self.then.subject == var else self.then.subject
        return self.sets[0].var


class _ToFormula(Transformer):
    def ptriple(self, items):
        return _Atom(str(items[0]), str(items[1]), str(items[2]))

    def atriple(self, items):
        return _Atom(str(items[0]), str(items[1]), str(items[2]), angle=True)

    def literal(self, items):
        atom = items[-1]
        return _Atom(atom.subject, atom.relation, atom.object, negated=len(items) == 2)

    def setbuilder(self, items):
        var, rest = str(items[0]), items[1:]
        atoms = rest[0::2]
        conns = {str(c) for c in rest[1::2]}
        if len(conns) > 1:
            raise ValueError("mixed ∧ and ∨ inside one set-builder")
        connective = conns.pop() if conns else "∧"
        if connective == "∨":
            atoms = [_Atom(a.subject, a.relation, a.object, a.negated, union=True) for a in atoms]
        return _SetBuilder(var, tuple(atoms), connective)

    def path(self, items):
        return Formula(path=tuple(items))

    def setexpr(self, items):
        sets, setops, then = [], set(), None
        i = 0
        while i < len(items):
            item = items[i]
            if isinstance(item, _SetBuilder) and then is None:
                sets.append(item)
            elif getattr(item, "type", None) == "SETOP":
                setops.add(str(item))
            elif getattr(item, "type", None) == "IMPLIES":
                then = items[i + 1]
                i += 1
            i += 1
        if len(setops) > 1:
            raise ValueError("mixed ∩ and ∪")
        setop = setops.pop() if setops else None
        if setop == "∪":
            sets = [_SetBuilder(s.var, tuple(_Atom(a.subject, a.relation, a.object, a.negated, True) for a in s.atoms),
                                s.connective) for s in sets]
        return Formula(sets=tuple(sets), setop=setop, then=then)


@cache
def _parser() -> Lark:
    return Lark(_GRAMMAR, parser="lalr", maybe_placeholders=False)


@cache  # formulas are immutable; generators render one per item
def parse_indicator(text: str) -> Formula:
    try:
        return _ToFormula().transform(_parser().parse(text))
    except Exception as exc:  # lark raises several error classes; all mean "not an indicator"
        raise ComlqError(f"cannot parse indicator {text!r}: {exc}".splitlines()[0]) from None


def _graph_from_atoms(atoms: Sequence[_Atom | Triple], target: str, anchors_by_degree: bool) -> nx.DiGraph:
    graph = nx.DiGraph()
    seen_pairs: set[frozenset[str]] = set()
    degree: dict[str, int] = {}
    for atom in atoms:
        for node in (atom.subject, atom.object):
            degree[node] = degree.get(node, 0) + 1
    for node, deg in degree.items():
        if node == target:
            role: Role = "target"
        elif anchors_by_degree:
            role = "anchor" if deg == 1 else "variable"
        else:
            role = "variable" if node.startswith("?") else "anchor"
        graph.add_node(node, role=role)
    for atom in atoms:
        pair = frozenset((atom.subject, atom.object))
        if pair in seen_pairs or len(pair) == 1:
            graph.graph["malformed"] = True  # parallel edge or self-loop: no ComLQ type has one
        seen_pairs.add(pair)
        graph.add_edge(atom.subject, atom.object, relation=atom.relation, negated=atom.negated, union=atom.union,
                       index=graph.number_of_edges())
    if target not in graph:
        graph.graph["malformed"] = True
    return graph


def pattern_from_indicator(text: str) -> nx.DiGraph:
    """The pattern graph of an indicator string (see the module doc for the convention)."""
    formula = parse_indicator(text)
    return _graph_from_atoms(formula.atoms(), formula.target, anchors_by_degree=True)


def query_graph(triples: Iterable[Triple], target: str) -> nx.DiGraph:
    """A concrete query graph: names starting with '?' are variables, the others anchors."""
    return _graph_from_atoms(list(triples), target, anchors_by_degree=False)


@dataclass(frozen=True, slots=True)
class QueryType:
    name: str
    indicator: str
    betae: str
    definition: str

    @property
    def pattern(self) -> nx.DiGraph:
        return _pattern(self.name)

    @property
    def formula(self) -> Formula:
        return parse_indicator(self.indicator)

    def count(self, role: Role) -> int:
        return sum(1 for _, r in self.pattern.nodes(data="role") if r == role)

    @property
    def relations(self) -> int:
        return self.pattern.number_of_edges()

    @property
    def negations(self) -> int:
        return sum(1 for *_, neg in self.pattern.edges(data="negated") if neg)

    @property
    def answer_facts(self) -> int:
        """The facts one answer rests on: the positive relations, a union's branches counting as
        one (an answer meets either); 1 for 1p, 2u and 2in, whose answers each stand in one passage."""
        edges = [data for *_, data in self.pattern.edges(data=True) if not data["negated"]]
        return sum(not e["union"] for e in edges) + any(e["union"] for e in edges)

    def summary(self) -> dict[str, object]:
        return {
            "name": self.name, "indicator": self.indicator, "betae": self.betae, "definition": self.definition,
            "anchors": self.count("anchor"), "variables": self.count("variable"),
            "relations": self.relations, "negations": self.negations,
        }


CATALOGUE: dict[str, QueryType] = {
    t.name: t
    for t in [
        QueryType("1p", "<?x, R, ?y>", "(e,(r,))",
                  "One projection: the entities linked to one anchor by one relation."),
        QueryType("2p", "<?x, R1, ?y>, <?y, R2, ?z>", "(e,(r,r))",
                  "A two-hop chain: follow R1 from the anchor, then R2 from the intermediate entity."),
        QueryType("3p", "<?x, R1, ?y>, <?y, R2, ?z>, <?z, R3, ?w>", "(e,(r,r,r))",
                  "A three-hop chain of relations from one anchor."),
        QueryType("2i", "{?x | (?x, R1, ?y) ∧ (?x, R2, ?z)}", "((e,(r,)),(e,(r,)))",
                  "Intersection: entities that satisfy two conditions, each tied to its own anchor."),
        QueryType("3i", "{?x | (?x, R1, ?y) ∧ (?x, R2, ?z) ∧ (?x, R3, ?w)}", "((e,(r,)),(e,(r,)),(e,(r,)))",
                  "Intersection of three conditions on the same answer."),
        QueryType("pi", "{?z | (?x1, R1, ?y1) ∧ (?y1, R2, ?z)} ∩ {?z | (?y2, R3, ?z)}", "((e,(r,r)),(e,(r,)))",
                  "A two-hop chain whose result must also satisfy a one-hop condition."),
        QueryType("ip", "{?x | (?x, R1, ?y) ∧ (?x, R2, ?z)} ⇒ (?x, R3, ?w)", "(((e,(r,)),(e,(r,))),(r,))",
                  "Intersect two conditions, then follow one more relation from the result."),
        QueryType("2u", "{?z | (?x1, R1, ?z)} ∪ {?z | (?x2, R2, ?z)}", "((e,(r,)),(e,(r,)),(u,))",
                  "Union: entities that satisfy either of two conditions."),
        QueryType("up", "{?x | (?y, R1, ?x) ∨ (?z, R2, ?x)} ⇒ (?x, R3, ?w)", "(((e,(r,)),(e,(r,)),(u,)),(r,))",
                  "Union of two conditions, then one more relation from the result."),
        QueryType("2in", "{?x | (?y, R1, ?x) ∧ ¬(?x, R2, ?z)}", "((e,(r,)),(e,(r,n)))",
                  "One condition holds and another does not (difference)."),
        QueryType("3in", "{?x | (?x, R1, ?y) ∧ (?x, R2, ?z) ∧ ¬(?x, R3, ?w)}", "((e,(r,)),(e,(r,)),(e,(r,n)))",
                  "Two conditions hold and a third does not."),
        QueryType("inp", "{?x | (?x, R1, ?y) ∧ ¬(?x, R2, ?w)} ⇒ {?z | (?x, R3, ?z)}", "(((e,(r,)),(e,(r,n))),(r,))",
                  "A condition that holds minus one that does not, then one more relation from the result."),
        QueryType("pin", "{?z | (?x, R1, ?y) ∧ (?y, R2, ?z)} ∩ {?z | ¬(?w, R3, ?z)}", "((e,(r,r)),(e,(r,n)))",
                  "A two-hop chain whose result must not satisfy a one-hop condition."),
        QueryType("pni", "{?z | (?x, R1, ?y) ∧ ¬(?y, R2, ?z)} ∩ {?z | (?w, R3, ?z)}", "((e,(r,r,n)),(e,(r,)))",
                  "A one-hop condition holds while the result is not reached by a two-hop chain."),
    ]
}
TYPE_NAMES: tuple[str, ...] = tuple(CATALOGUE)
NEGATION_TYPES: tuple[str, ...] = ("2in", "3in", "inp", "pin", "pni")


def get_type(name: str) -> QueryType:
    try:
        return CATALOGUE[name]
    except KeyError:
        raise ComlqError(f"unknown query type {name!r}; expected one of {', '.join(TYPE_NAMES)}") from None


@cache
def _pattern(name: str) -> nx.DiGraph:
    return pattern_from_indicator(CATALOGUE[name].indicator)


def _node_match(a: dict, b: dict) -> bool:
    return a["role"] == b["role"]


def _edge_match(a: dict, b: dict) -> bool:
    return a["negated"] == b["negated"] and a["union"] == b["union"]


def _matcher(graph: nx.DiGraph, pattern: nx.DiGraph, directed: bool):
    if directed:
        return isomorphism.DiGraphMatcher(graph, pattern, node_match=_node_match, edge_match=_edge_match)
    return isomorphism.GraphMatcher(graph.to_undirected(as_view=True), pattern.to_undirected(as_view=True),
                                    node_match=_node_match, edge_match=_edge_match)


def matches(graph: nx.DiGraph, type_name: str, directed: bool = False) -> bool:
    """Does the query graph have the structure of `type_name` (isomorphism with roles and flags)?"""
    pattern = get_type(type_name).pattern
    if graph.graph.get("malformed"):
        return False
    if graph.number_of_nodes() != pattern.number_of_nodes() or graph.number_of_edges() != pattern.number_of_edges():
        return False
    return _matcher(graph, pattern, directed).is_isomorphic()


def classify(graph: nx.DiGraph, directed: bool = False) -> str | None:
    """The one type whose pattern the graph matches, or None."""
    for name in TYPE_NAMES:
        if matches(graph, name, directed):
            return name
    return None


def renames_pattern(triples: Sequence[Triple], target: str, type_name: str) -> bool:
    """Are the triples the type's pattern edges, in its edge order, with its nodes renamed one to one
    (roles, directions and flags kept)? Then they form the type, directed too: the renaming is the
    isomorphism `matches` would search for. False says nothing (the triples may still form the type
    in another order); ask `matches` then."""
    pattern = get_type(type_name).pattern
    edges = sorted(pattern.edges(data=True), key=lambda e: e[2]["index"])
    if len(triples) != len(edges):
        return False
    renamed: dict[str, str] = {}
    for (s, o, flags), triple in zip(edges, triples):
        if (triple.negated, triple.union) != (flags["negated"], flags["union"]):
            return False
        for node, name in ((s, triple.subject), (o, triple.object)):
            if renamed.setdefault(node, name) != name:
                return False
    if len(set(renamed.values())) != len(renamed):
        return False
    # roles as `query_graph` gives them: the target, '?' variables, the rest anchors
    return all(pattern.nodes[node]["role"] == ("target" if name == target else "variable" if name.startswith("?")
                                               else "anchor") for node, name in renamed.items())


def check_triples(triples: Sequence[Triple], target: str, type_name: str) -> list[str]:
    """Reasons why the grounded triples do not form `type_name` (empty list: they do)."""
    graph = query_graph(triples, target)
    if matches(graph, type_name):
        return []
    found = classify(graph)
    if graph.graph.get("malformed"):
        return [f"triples do not form a query graph (parallel edge, self-loop or missing target {target})"]
    return [f"triples form {found or 'no known type'}, expected {type_name}"]


def _render_atom(atom: _Atom, names: dict[str, str], relations: dict[tuple[str, str], tuple[str, str, str]]) -> str:
    s, o = names.get(atom.subject, atom.subject), names.get(atom.object, atom.object)
    rel = atom.relation
    if (atom.subject, atom.object) in relations:
        s, rel, o = relations[(atom.subject, atom.object)]
    if atom.angle:
        return f"<{s}, {rel}, {o}>"
    return f"{'¬' if atom.negated else ''}({s}, {rel}, {o})"


def _render(formula: Formula, names: dict[str, str], relations: dict) -> str:
    def render_set(sb: _SetBuilder) -> str:
        body = f" {sb.connective} ".join(_render_atom(a, names, relations) for a in sb.atoms)
        return f"{{{names.get(sb.var, sb.var)} | {body}}}"

    if formula.path:
        return ", ".join(_render_atom(a, names, relations) for a in formula.path)
    text = f" {formula.setop} ".join(render_set(s) for s in formula.sets)
    if isinstance(formula.then, _SetBuilder):
        text += " ⇒ " + render_set(formula.then)
    elif isinstance(formula.then, _Atom):
        text += " ⇒ " + _render_atom(formula.then, names, relations)
    return text


def format_indicator(graph: nx.DiGraph, type_name: str | None = None) -> str:
    """Render a query graph (a pattern or a grounded query) as its type's indicator text.

    The type is `type_name` when the caller has already checked it, else found by `classify`;
    its formula is rendered with the graph's own node names and relations, in the graph's own
    edge directions.
    """
    if type_name is None:
        type_name = classify(graph)
        if type_name is None:
            raise ComlqError("the graph does not match any of the 14 query types")
    qtype = get_type(type_name)
    pattern_edges = [(a.subject, a.object) for a in qtype.formula.atoms()]

    def edge_of(mapping: dict[str, str], ps: str, po: str) -> tuple[str, str, bool]:
        gs, go = mapping[ps], mapping[po]
        return (gs, go, False) if graph.has_edge(gs, go) else (go, gs, True)

    def preference(mapping: dict[str, str]) -> tuple:
        # Symmetric patterns (3i, 2u, ...) have several isomorphisms: keep the graph's own edge
        # directions and triple order where possible, so a pattern renders as its own text.
        edges = [edge_of(mapping, ps, po) for ps, po in pattern_edges]
        return (sum(rev for *_, rev in edges), [graph.edges[s, o]["index"] for s, o, _ in edges])

    isomorphisms = _matcher(graph, qtype.pattern, directed=False).isomorphisms_iter()
    mapping = min(({p: g for g, p in iso.items()} for iso in isomorphisms), key=preference, default=None)
    if mapping is None or graph.graph.get("malformed"):
        raise ComlqError(f"the graph does not have the structure of {type_name}")
    relations: dict[tuple[str, str], tuple[str, str, str]] = {}
    for ps, po in pattern_edges:
        gs, go, _ = edge_of(mapping, ps, po)
        relations[(ps, po)] = (gs, graph.edges[gs, go]["relation"], go)
    return _render(qtype.formula, mapping, relations)


def grounded_indicator(triples: Sequence[Triple], target: str, type_name: str | None = None) -> str:
    return format_indicator(query_graph(triples, target), type_name)
