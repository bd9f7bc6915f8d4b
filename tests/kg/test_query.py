"""Exact answers by set operations, for every type, on the hand-made film graph.

The film graph (tests/kg/fixtures/films.triples.jsonl): Kubrick (American, born 20th c.) made
Lolita, Spartacus (1960s films), Barry Lyndon (1970s film) and Strangelove Notes (1960s
screenplay); Hitchcock (British, 19th c.) made Psycho (1960s film), Psycho Notes (1960s
screenplay) and Vertigo (1950s film); Kurosawa (Japanese, 20th c.) made Rashomon (1950s) and
Ran (1980s); Nabokov (American, 19th c., novelist) wrote Pale Fire (1960s), Pnin (1950s) and
Lolita Screenplay (1960s); Burgess wrote A Clockwork Orange (1960s novel). A few works mention
others. Expected answers below are worked out by hand from that list.
"""

from __future__ import annotations

import pytest

from pipeline.kg.query import evaluate, plan_for, provenance
from pipeline.querytypes import TYPE_NAMES

# type -> (anchors by pattern node, relation per pattern edge in triple order, expected answers)
CASES = {
    "1p": ({"?x": "Stanley Kubrick"}, ["creator_of"],
           {"Lolita", "Spartacus", "Barry Lyndon", "Strangelove Notes"}),
    "2p": ({"?x": "20th century"}, ["birth_century_of", "creator_of"],
           {"Lolita", "Spartacus", "Barry Lyndon", "Strangelove Notes", "Rashomon", "Ran"}),
    "3p": ({"?x": "1950s"}, ["publication_decade_of", "created_by", "nationality"],
           {"British", "Japanese", "American"}),
    "2i": ({"?y": "Stanley Kubrick", "?z": "1960s"}, ["created_by", "published_in_decade"],
           {"Lolita", "Spartacus", "Strangelove Notes"}),
    "3i": ({"?y": "film", "?z": "Stanley Kubrick", "?w": "1960s"}, ["instance_of", "created_by", "published_in_decade"],
           {"Lolita", "Spartacus"}),
    "pi": ({"?x1": "20th century", "?y2": "1950s"}, ["birth_century_of", "creator_of", "publication_decade_of"],
           {"Rashomon"}),
    "ip": ({"?y": "1960s", "?z": "film"}, ["published_in_decade", "instance_of", "created_by"],
           {"Stanley Kubrick", "Alfred Hitchcock"}),
    "2u": ({"?x1": "Stanley Kubrick", "?x2": "1950s"}, ["creator_of", "publication_decade_of"],
           {"Lolita", "Spartacus", "Barry Lyndon", "Strangelove Notes", "Vertigo", "Rashomon", "Pnin"}),
    # up's edges in triple order: (?y, R1, ?x), (?z, R2, ?x), (?x, R3, ?w)
    "up": ({"?y": "Alfred Hitchcock", "?z": "Akira Kurosawa"}, ["creator_of", "creator_of", "published_in_decade"],
           {"1960s", "1950s", "1980s"}),
    "2in": ({"?y": "Stanley Kubrick", "?z": "1960s"}, ["creator_of", "published_in_decade"], {"Barry Lyndon"}),
    "3in": ({"?y": "film", "?z": "1960s", "?w": "Stanley Kubrick"},
            ["instance_of", "published_in_decade", "created_by"], {"Psycho"}),
    "inp": ({"?y": "20th century", "?w": "American"}, ["born_in_century", "nationality", "creator_of"],
            {"Rashomon", "Ran"}),
    "pin": ({"?x": "American", "?w": "1960s"}, ["nationality_of", "creator_of", "publication_decade_of"],
            {"Barry Lyndon", "Pnin"}),
    "pni": ({"?x": "British", "?w": "1960s"}, ["nationality_of", "creator_of", "publication_decade_of"],
            {"Lolita", "Spartacus", "Strangelove Notes", "Pale Fire", "A Clockwork Orange", "Lolita Screenplay"}),
}


def test_every_type_has_a_case():
    assert set(CASES) == set(TYPE_NAMES)


@pytest.mark.parametrize("type_name", TYPE_NAMES)
def test_answers_by_set_operations(films, type_name):
    anchors, relations, expected = CASES[type_name]
    plan = plan_for(type_name)
    assert sorted(anchors) == sorted(plan.anchors())
    sets = evaluate(films, plan, anchors, dict(enumerate(relations)))
    assert sets[plan.target] == expected


def test_negation_removes_answers_of_the_positive_part(films):
    anchors, relations, expected = CASES["2in"]
    plan = plan_for("2in")
    negated = next(st.edge for steps in plan.steps.values() for st in steps if st.negated)
    without = evaluate(films, plan, anchors, dict(enumerate(relations)), skip=frozenset({negated}))[plan.target]
    assert without - expected == {"Lolita", "Spartacus", "Strangelove Notes"}


def test_provenance_collects_the_passages_of_every_witness(films):
    anchors, relations, _ = CASES["3p"]
    plan = plan_for("3p")
    rels = dict(enumerate(relations))
    sets = evaluate(films, plan, anchors, rels)
    # British <- Hitchcock <- Vertigo (1950s): two passages state the two facts below the anchor
    assert provenance(films, plan, rels, sets, ["British"]) == {"f-vertigo", "f-alfred-hitchcock"}
    # American <- Nabokov <- Pnin
    assert provenance(films, plan, rels, sets, ["American"]) == {"f-pnin", "f-vladimir-nabokov"}


def test_inverse_edges_carry_the_same_passages(films):
    assert films.passages[("Lolita", "created_by", "Stanley Kubrick")] == ("f-lolita",)
    assert films.passages[("Stanley Kubrick", "creator_of", "Lolita")] == ("f-lolita",)
    assert films.inverses["creator_of"] == "created_by" and films.inverses["created_by"] == "creator_of"
