"""The chain enumerator (pipeline/kg/sample.py ChainEnumerator) on the hand-made film graph."""

from __future__ import annotations

import random

import pytest

from pipeline.kg.complete import CorpusCheck
from pipeline.kg.enumerators import ChainEnumerator
from pipeline.kg.generator import make_item, relation_weights
from pipeline.kg.query import plan_for
from pipeline.kg.sample import Reject
from pipeline.records import Passage

UNLIMITED = 10**6
TYPES = ("2p", "3p", "pi", "2in", "inp", "pin", "pni")  # the unions draw kin at random: not exhaustive


def items(films, passages, type_name: str, checker: CorpusCheck, prune: bool) -> tuple[set, int]:
    """The grounding keys of every item the enumeration yields with no cap, and the partial groundings
    the corpus check pruned on the way (`prune`: the enumerator checks each node early)."""
    enumerator = ChainEnumerator(films, plan_for(type_name), random.Random(3), 20, relation_weights(films, {}),
                                 checker if prune else None)
    enumerator.BRANCHES = enumerator.PER_START = enumerator.WIDE = UNLIMITED
    kept = set()
    for grounding in enumerator.groundings():
        try:
            make_item(films, grounding, 1, None, checker)
        except Reject:
            continue
        kept.add(grounding.key(films.label))
    return kept, enumerator.rejections["corpus_pruned"]


def with_a_missed_film(films, passages) -> CorpusCheck:
    """The film graph's corpus plus a passage stating a film by Kubrick that the graph lacks: a real
    miss for the check to prune on (the corpus alone states none)."""
    shining = Passage("f-the-shining", "The Shining", "The Shining is a 1980 film by Stanley Kubrick.")
    return CorpusCheck(films, passages | {shining.id: shining})


@pytest.mark.parametrize("type_name", TYPES)
def test_pruning_by_the_corpus_check_keeps_exactly_the_items_of_the_full_check(films, passages, type_name):
    checker = with_a_missed_film(films, passages)
    pruned, count = items(films, passages, type_name, checker, prune=True)
    full, _ = items(films, passages, type_name, checker, prune=False)
    assert pruned == full


def test_the_corpus_check_prunes_on_the_film_graph(films, passages):
    """So that the test above compares something."""
    checker = with_a_missed_film(films, passages)
    assert sum(items(films, passages, t, checker, prune=True)[1] for t in TYPES) > 0
    assert sum(len(items(films, passages, t, checker, prune=True)[0]) for t in TYPES) > 0


def enumerated(films, type_name: str, cap: int) -> list:
    """The groundings' (key, starting anchor), in order, at PER_START = cap (the other caps lifted when it is
    UNLIMITED)."""
    enumerator = ChainEnumerator(films, plan_for(type_name), random.Random(3), 20, relation_weights(films, {}))
    enumerator.PER_START = cap
    if cap == UNLIMITED:
        enumerator.BRANCHES = enumerator.TRIES = UNLIMITED
    return [(g.key(films.label), next(iter(g.anchors.values()))) for g in enumerator.groundings()]


@pytest.mark.parametrize("type_name", TYPES)
def test_a_second_pass_takes_what_the_caps_left_out(films, type_name):
    found = [key for key, _ in enumerated(films, type_name, 1)]
    assert len(found) == len(set(found))
    assert set(found) == {key for key, _ in enumerated(films, type_name, UNLIMITED)}


def test_the_first_pass_yields_one_grounding_per_start(films):
    """So that the test above compares something: the second pass adds groundings the cap held back."""
    held_back = 0
    for type_name in TYPES:
        starts = [start for _, start in enumerated(films, type_name, 1)]
        first = next((i for i in range(len(starts)) if starts[i] in starts[:i]), len(starts))
        assert len(set(starts[:first])) == first
        held_back += len(starts) - first
    assert held_back > 0



def test_the_second_pass_counts_no_pruned_grounding_twice(films, passages):
    """With every cap lifted the second pass meets only the first pass's partial groundings: the
    rejections counted are those of one enumeration of them, not twice as many."""
    checker = with_a_missed_film(films, passages)
    counted = 0
    for type_name in TYPES:
        counts = []
        for passes in (2, 1):
            enumerator = ChainEnumerator(films, plan_for(type_name), random.Random(3), 20,
                                         relation_weights(films, {}), checker)
            enumerator.BRANCHES = enumerator.TRIES = enumerator.PER_START = enumerator.WIDE = UNLIMITED
            list(enumerator.groundings() if passes == 2 else enumerator._ground(enumerator.plan.target))
            counts.append(enumerator.rejections["corpus_pruned"] + enumerator.rejections["circular"])
        assert counts[0] == counts[1], type_name
        counted += counts[0]
    assert counted > 0


def test_a_3in_core_the_text_may_widen_is_kept_only_with_a_not_that_removes_the_rest():
    # the text calls Dora a pianist and a teacher, which the graph does not hold: "the pianists that are
    # teachers" may hold her, so a 3in over that core needs a NOT that surely removes her (composer), not
    # one that may keep her (German)
    from pipeline.kg.enumerators import Enumerator
    from pipeline.kg.facts import Evidence, Fact
    from pipeline.kg.generator import builtin_inverses
    from pipeline.kg.graph import build_graph
    texts = {"Ada": "Ada was a German pianist and teacher.", "Bea": "Bea was a French pianist and teacher.",
             "Cleo": "Cleo was a German pianist, teacher and composer.",
             "Dora": "Dora was a German pianist, teacher and composer.", "Eve": "Eve was a pianist.",
             "Fay": "Fay was a teacher."}
    stated = [("Ada", "pianist"), ("Ada", "teacher"), ("Bea", "pianist"), ("Bea", "teacher"), ("Cleo", "pianist"),
              ("Cleo", "teacher"), ("Cleo", "composer"), ("Dora", "composer"),  # Dora's first two are not read
              ("Eve", "pianist"), ("Fay", "teacher")]
    facts = [Fact(p, "occupation", f"c:{c}", (p,), (Evidence(p, texts[p], p, c),)) for p, c in stated]
    facts += [Fact(p, "nationality", f"n:{n}", (p,), (Evidence(p, texts[p], p, n),))
              for p, n in (("Ada", "German"), ("Cleo", "German"), ("Bea", "French"))]
    labels = {f.subject: f.subject for f in facts} | {f.object: f.object[2:] for f in facts}
    kg = build_graph(facts, labels, builtin_inverses())
    checker = CorpusCheck(kg, {p: Passage(p, p, t) for p, t in texts.items()})
    assert "Dora" in checker.possible([("c:pianist", "occupation_of"), ("c:teacher", "occupation_of")])
    enumerator = Enumerator(kg, plan_for("3in"), random.Random(3), 20, relation_weights(kg, {}), checker)
    negated = set()
    for grounding in enumerator.groundings():
        negated |= {anchor for node, anchor in grounding.anchors.items()
                    if any(st.negated and st.child == node for steps in grounding.plan.steps.values() for st in steps)}
        try:
            item = make_item(kg, grounding, 1, texts, checker)
        except Reject:
            continue
        assert "Dora" not in item.answers
    assert negated == {"c:composer"}  # no NOT that may keep Dora is even tried


def test_a_3in_not_is_drawn_only_from_relations_whose_values_are_whole():
    # "the pianists that are teachers but never won the Liszt Prize" keeps Bea and Cleo for prizes they won,
    # which say nothing of the Liszt Prize (a list of prizes is seldom whole); a nationality is a contrast
    from pipeline.kg.enumerators import Enumerator
    from pipeline.kg.facts import Fact
    from pipeline.kg.generator import builtin_inverses
    from pipeline.kg.graph import build_graph
    facts = [Fact(p, "occupation", f"c:{c}", (p,)) for p in ("Ada", "Bea", "Cleo") for c in ("pianist", "teacher")]
    facts += [Fact("Dan", "occupation", "c:pianist", ("Dan",)), Fact("Eve", "occupation", "c:teacher", ("Eve",))]
    facts += [Fact("Ada", "won", "Liszt Prize", ("Ada",)), Fact("Bea", "won", "Bach Prize", ("Bea",)),
              Fact("Cleo", "won", "Chopin Prize", ("Cleo",))]
    facts += [Fact(p, "nationality", f"n:{n}", (p,)) for p, n in (("Ada", "French"), ("Bea", "German"),
                                                                  ("Cleo", "French"))]
    labels = {f.subject: f.subject for f in facts} | {f.object: f.object.split(":")[-1] for f in facts}
    kg = build_graph(facts, labels, builtin_inverses())
    enumerator = Enumerator(kg, plan_for("3in"), random.Random(3), 20, relation_weights(kg, {}))
    negated = {anchor for grounding in enumerator.groundings() for node, anchor in grounding.anchors.items()
               if any(st.negated and st.child == node for steps in grounding.plan.steps.values() for st in steps)}
    assert negated and not negated & {"Liszt Prize", "Bach Prize", "Chopin Prize"}, negated
