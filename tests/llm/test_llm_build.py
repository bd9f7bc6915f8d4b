"""The automatic checks of answers turned into items (kept, but marked when failing).

Answers are about the passage fixture (tests/llm/fixtures/passages.jsonl): P1 Danube (flows
through Vienna and Budapest), P2 Vienna (capital of Austria), P3 Budapest (capital of Hungary).
"""

from __future__ import annotations

import copy

import pytest

from pipeline.llm.build import _has_not, build_item
from pipeline.llm.prompts import render
from pipeline.querytypes import CATALOGUE

TWO_IN = {
    "query": "Which cities on the Danube are not the capital of Austria?",
    "answers": ["Budapest", "Budapest"], "target": "?x",
    "positive": [{"subject": "Danube", "relation": "flows through", "object": "?x", "union": False}],
    "negative": [{"subject": "?x", "relation": "capital of", "object": "Austria"}],
    "excluded": [{"entity": "Vienna", "passage": "P2"}], "bridges": [],
    "logical_form": '"cities on the Danube" AND NOT "capital of Austria"',
    "evidence": [{"passage": "P1", "fact": "the Danube flows through Vienna and Budapest"},
                 {"passage": "P2", "fact": "Vienna is the capital of Austria"}],
}
# the same from Danube, Budapest and Austria: Vienna is excluded, and its own passage (p02, not
# in the prompt) is found by title
TWO_IN_13 = TWO_IN | {"excluded": [{"entity": "Vienna", "passage": "P1"}],
                      "evidence": [{"passage": "P1", "fact": "the Danube flows through Vienna and Budapest"},
                                   {"passage": "P2", "fact": "Budapest is the capital of Hungary"}]}
# the capital of the country whose capital lies on the Danube: Austria is the bridge
TWO_P = {
    "query": "Which river does the capital of Austria lie on?", "answers": ["Danube"], "target": "?z",
    "positive": [{"subject": "Austria", "relation": "has capital", "object": "?y", "union": False},
                 {"subject": "?y", "relation": "lies on", "object": "?z", "union": False}],
    "negative": [], "excluded": [], "bridges": [{"variable": "?y", "entity": "Vienna"}],
    "logical_form": '"capital of Austria" AND "river through the capital of Austria"',
    "evidence": [{"passage": "P1", "fact": "Vienna is the capital of Austria and lies on the Danube"}],
}


def _item(answer, passages, type_name="2in", n=2, ids=None, titles=None):
    chosen = [passages[i] for i in ids] if ids else list(passages.values())[:n]
    prompt = render(type_name, chosen)
    return build_item("llm-test-0001", answer, prompt, "m", titles=titles), prompt


def test_good_answer_becomes_a_checked_item(passages):
    item, prompt = _item(TWO_IN, passages)
    assert item.check.ok and item.check.reasons == ()
    assert item.grounded_indicator == "{?x | (Danube, flows through, ?x) ∧ ¬(?x, capital of, Austria)}"
    assert item.indicator == CATALOGUE["2in"].indicator
    assert [t.negated for t in item.triples] == [False, True]
    assert item.answers == ("Budapest",)  # duplicates dropped
    assert [(e.passage_id, e.grade) for e in item.evidence] == [("p01", 1), ("p02", 1)]
    # the excluded entity's passage is evidence here: no violating passage
    assert item.source_passages == ("p01", "p02") and item.violating == ()
    assert item.generator.prompt_hash == prompt.prompt_hash


def test_excluded_entities_become_violating_passages(passages):
    titles = {p.title: p.id for p in passages.values()}
    item, _ = _item(TWO_IN_13, passages, ids=("p01", "p03", "p07"), titles=titles)
    assert item.check.ok, item.check.reasons
    assert item.violating == ("p02",) and item.source_passages == ("p01", "p03", "p07", "p02")


def test_negation_type_needs_a_negation_and_an_excluded_entity(passages):
    answer = {**TWO_IN, "query": "Which cities on the Danube are the capital of Austria?",
              "logical_form": '"cities on the Danube" AND "capital of Austria"', "excluded": []}
    item, _ = _item(answer, passages)
    assert not item.check.ok
    assert [r.split(" but ")[1][:11] for r in item.check.reasons] == [
        "the questio", "the logical", "`excluded` "]
    item, _ = _item(TWO_P | {"excluded": [{"entity": "Vienna", "passage": "P1"}]}, passages, "2p", n=1,
                    ids=("p02",))
    assert item.check.reasons == ("2p has no negation, so `excluded` must be empty",)


def test_everything_named_must_be_in_the_passages(passages):
    answer = copy.deepcopy(TWO_IN)
    answer["answers"] = ["Memento"]
    answer["positive"][0]["subject"] = "Christopher Nolan"
    answer["excluded"] = [{"entity": "Vienna", "passage": "P1"}, {"entity": "Budapest", "passage": "P2"}]
    item, _ = _item(answer, passages)
    assert item.check.reasons == (
        "the answer 'Memento' is not named in the passages",
        "the anchor 'Christopher Nolan' is not named in the passages",
        "the excluded entity 'Budapest' is not named in P2",
    )


def test_the_question_names_no_answer(passages):
    item, _ = _item({**TWO_IN, "query": "Is Budapest a city on the Danube that is not the capital of Austria?"},
                    passages)
    assert item.check.reasons == ("the question names the answer 'Budapest'",)


def test_bridges_are_given_and_hidden(passages):
    item, _ = _item(TWO_P, passages, "2p", n=1, ids=("p02",))
    assert item.check.ok, item.check.reasons
    item, _ = _item(TWO_P | {"bridges": []}, passages, "2p", n=1, ids=("p02",))
    assert item.check.reasons == ("no bridge entity given for ?y",)
    named = TWO_P | {"query": "Which river does Vienna, the capital of Austria, lie on?",
                     "logical_form": '"capital of Austria" AND "river through Vienna"'}
    item, _ = _item(named, passages, "2p", n=1, ids=("p02",))
    assert [r[:40] for r in item.check.reasons] == ["the question names the bridge entity 'Vi",
                                                     "the logical form names the bridge entity"]


def test_wrong_shape_is_marked_and_falls_back_to_the_type_indicator(passages):
    answer = copy.deepcopy(TWO_IN)
    answer["negative"], answer["excluded"] = [], []  # no negation: a 1p graph, not a 2in one
    item, _ = _item(answer, passages)
    assert not item.check.ok and "triples form 1p, expected 2in" in item.check.reasons
    answer["positive"].append({"subject": "?x", "relation": "r", "object": "?x", "union": False})  # self-loop
    item, _ = _item(answer, passages)
    assert not item.check.ok and item.grounded_indicator == CATALOGUE["2in"].indicator


def test_union_flags_are_part_of_the_shape(passages):
    answer = {**TWO_IN, "query": "Which capitals lie on the Danube or in Eastern Europe?", "target": "?z",
              "answers": ["Vienna", "Budapest"], "negative": [], "excluded": [],
              "positive": [{"subject": "Danube", "relation": "flows through", "object": "?z", "union": True},
                           {"subject": "Eastern Europe", "relation": "contains", "object": "?z", "union": True}],
              "logical_form": '"on the Danube" OR "in Eastern Europe"'}
    assert _item(answer, passages, "2u")[0].check.ok
    for condition in answer["positive"]:
        condition["union"] = False
    item, _ = _item(answer, passages, "2u")
    assert "triples form 2i, expected 2u" in item.check.reasons


def test_multi_passage_prompt_needs_evidence_from_more_than_one_passage(passages):
    answer = {**TWO_IN, "evidence": [{"passage": "P2", "fact": "all of it"}]}
    item, _ = _item(answer, passages, n=3)
    assert item.check.reasons == ("evidence comes from 1 passage, expected more than one of the 3",)
    assert [(e.passage_id, e.grade) for e in item.evidence] == [("p02", 2)]
    single, _ = _item(answer | {"evidence": [{"passage": "P1", "fact": "x"}],
                                "excluded": [{"entity": "Vienna", "passage": "P1"}]}, passages, n=1)
    assert single.check.reasons == ("the anchor 'Austria' is not named in the passages",)
    assert single.evidence[0].grade == 2


@pytest.mark.parametrize("form, negated", [('"a" and not "b"', True), ('"a" AND NOT "b"', True),
                                           ('"films NOT by Nolan"', False), ('"a" AND "b"', False)])
def test_negation_is_read_from_the_parsed_form(form, negated):
    assert _has_not(form) is negated
