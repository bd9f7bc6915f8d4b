"""The automatic structure check of answers turned into items (kept, but marked when failing)."""

from __future__ import annotations

import copy

import pytest

from pipeline.llm.build import _has_not, build_item
from pipeline.llm.prompts import render
from pipeline.querytypes import CATALOGUE

TWO_IN = {
    "query": "Which films directed by Christopher Nolan were not scored by Hans Zimmer?",
    "answers": ["Memento", "Memento"], "target": "?x",
    "positive": [{"subject": "Christopher Nolan", "relation": "directed", "object": "?x", "union": False}],
    "negative": [{"subject": "?x", "relation": "scored by", "object": "Hans Zimmer"}],
    "logical_form": '"films by Nolan" AND NOT "scored by Zimmer"',
    "evidence": [{"passage": "P1", "fact": "Nolan films"}, {"passage": "P2", "fact": "Zimmer scores"}],
}


def _item(answer, passages, type_name="2in", n=2):
    prompt = render(type_name, list(passages.values())[:n])
    return build_item("llm-test-0001", answer, prompt, "m"), prompt


def test_good_answer_becomes_a_checked_item(passages):
    item, prompt = _item(TWO_IN, passages)
    assert item.check.ok and item.check.reasons == ()
    assert item.grounded_indicator == "{?x | (Christopher Nolan, directed, ?x) ∧ ¬(?x, scored by, Hans Zimmer)}"
    assert item.indicator == CATALOGUE["2in"].indicator
    assert [t.negated for t in item.triples] == [False, True]
    assert item.answers == ("Memento",)  # duplicates dropped
    assert [(e.passage_id, e.grade) for e in item.evidence] == [("p01", 1), ("p02", 1)]
    assert item.source_passages == ("p01", "p02") and item.violating == ()
    assert item.generator.prompt_hash == prompt.prompt_hash


def test_negation_type_needs_a_negation_in_question_and_logical_form(passages):
    answer = {**TWO_IN, "query": "Which films directed by Christopher Nolan were scored by Hans Zimmer?",
              "logical_form": '"films by Nolan" AND "scored by Zimmer"'}
    item, _ = _item(answer, passages)
    assert not item.check.ok
    assert len(item.check.reasons) == 2
    assert "negation cue" in item.check.reasons[0] and "no NOT" in item.check.reasons[1]


def test_wrong_shape_is_marked_and_falls_back_to_the_type_indicator(passages):
    answer = copy.deepcopy(TWO_IN)
    answer["negative"] = []  # no negation: a 1p graph, not a 2in one
    item, _ = _item(answer, passages)
    assert not item.check.ok and "triples form 1p, expected 2in" in item.check.reasons
    answer["positive"].append({"subject": "?x", "relation": "r", "object": "?x", "union": False})  # self-loop
    item, _ = _item(answer, passages)
    assert not item.check.ok and item.grounded_indicator == CATALOGUE["2in"].indicator


def test_union_flags_are_part_of_the_shape(passages):
    answer = {**TWO_IN, "query": "Which epics did Homer or Virgil write?", "target": "?z", "negative": [],
              "positive": [{"subject": "Homer", "relation": "wrote", "object": "?z", "union": True},
                           {"subject": "Virgil", "relation": "wrote", "object": "?z", "union": True}],
              "logical_form": '"by Homer" OR "by Virgil"'}
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
    single, _ = _item(answer | {"evidence": [{"passage": "P1", "fact": "x"}]}, passages, n=1)
    assert single.check.ok and single.evidence[0].grade == 2


@pytest.mark.parametrize("form, negated", [('"a" and not "b"', True), ('"a" AND NOT "b"', True),
                                           ('"films NOT by Nolan"', False), ('"a" AND "b"', False)])
def test_negation_is_read_from_the_parsed_form(form, negated):
    assert _has_not(form) is negated
