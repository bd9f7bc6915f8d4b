"""Reading replies: JSON extraction, schema validation, evidence labels and the ITLR logical form."""

from __future__ import annotations

import json

import pytest

from pipeline.llm.parse import extract_json, logical_form_error, parse_answer

GOOD = {
    "query": "Which films directed by Christopher Nolan were not scored by Hans Zimmer?",
    "answers": ["Memento"], "target": "?x",
    "positive": [{"subject": "Christopher Nolan", "relation": "directed", "object": "?x", "union": False}],
    "negative": [{"subject": "?x", "relation": "scored by", "object": "Hans Zimmer"}],
    "excluded": [{"entity": "Inception", "passage": "P2"}], "bridges": [],
    "logical_form": '"films by Nolan" AND NOT "scored by Zimmer"',
    "evidence": [{"passage": "P1", "fact": "Nolan films"}, {"passage": "P2", "fact": "Zimmer scores"}],
}


@pytest.mark.parametrize("text", [
    json.dumps(GOOD),
    "Here it is:\n```json\n" + json.dumps(GOOD) + "\n```\nDone.",
    "Sure. " + json.dumps(GOOD) + " Anything else?",
    json.dumps(GOOD) + "\nHope this helps!",
])
def test_json_is_found_in_bare_fenced_and_prose_replies(text):
    assert extract_json(text) == GOOD


def test_good_answer_parses():
    assert parse_answer(json.dumps(GOOD), 2) == (GOOD, None)


@pytest.mark.parametrize(("text", "n", "reason", "detail"), [
    ("", 1, "invalid_json", "empty"),
    (json.dumps(GOOD)[:80], 2, "invalid_json", "not valid JSON"),
    (json.dumps({**GOOD, "answers": []}), 2, "schema_invalid", "answers"),
    (json.dumps({k: v for k, v in GOOD.items() if k != "target"}), 2, "schema_invalid", "'target': is missing"),
    (json.dumps({**GOOD, "extra": 1}), 2, "schema_invalid", "extra"),
    (json.dumps(GOOD), 1, "bad_evidence", "evidence cites P2"),
    (json.dumps({**GOOD, "excluded": [{"entity": "Inception", "passage": "P3"}]}), 2, "bad_evidence",
     "excluded cites P3"),
    (json.dumps({k: v for k, v in GOOD.items() if k != "bridges"}), 2, "schema_invalid", "'bridges': is missing"),
    (json.dumps({**GOOD, "logical_form": "films AND NOT zimmer"}), 2, "bad_logical_form", "films AND NOT zimmer"),
])
def test_bad_replies_are_named(text, n, reason, detail):
    answer, error = parse_answer(text, n)
    assert answer is None
    assert error.reason == reason and detail in error.detail


@pytest.mark.parametrize("form", ['"a"', '"a" AND NOT "b"', '("a" OR "b") AND "c"', '"a" AND "b" AND NOT ("c" OR "d")'])
def test_itlr_forms_parse(form):
    assert logical_form_error(form) is None


@pytest.mark.parametrize("form", ["a AND b", '"a" AND', 'NOT NOT "a"', '("a" OR "b"', '"a" XOR "b"'])
def test_non_itlr_forms_are_refused(form):
    assert logical_form_error(form)
