"""The 14 prompt files: every (type, passage count) renders with one notation, and every worked
example is an answer that passes every check against its own (real-length) passages, so the
prompts teach what is checked."""

from __future__ import annotations

import json
import re

import pytest

from pipeline.llm.build import build_item
from pipeline.llm.parse import parse_answer
from pipeline.llm.prompts import prompt_indicator, render
from pipeline.querytypes import CATALOGUE, TYPE_NAMES
from pipeline.records import Passage
from pipeline.resources import read_prompt

CASES = [(t, n) for t in TYPE_NAMES for n in (1, 2, 3)]
_SECTION = re.compile(r"^## Worked example \((\d) passages?\)\n(.*?)(?=^## Worked example|\Z)",
                      re.MULTILINE | re.DOTALL)
_PASSAGE = re.compile(r"^\[P(\d)\] title: (.*)\ntext: (.*)$", re.MULTILINE)


def examples(type_name: str) -> list[tuple[list[Passage], str]]:
    """(passages, answer text) of every worked example of a type."""
    found = []
    for n, body in _SECTION.findall(read_prompt(f"llm/{type_name}.md")):
        passages = [Passage(f"example-{label}", title, text) for label, title, text in _PASSAGE.findall(body)]
        assert len(passages) == int(n), (type_name, n)
        found.append((passages, re.search(r"```json\n(.*?)\n```", body, re.DOTALL).group(1)))
    return found


@pytest.mark.parametrize(("type_name", "n"), CASES)
def test_every_prompt_renders_with_the_catalogue_text(type_name, n, passages):
    chosen = list(passages.values())[:n]
    prompt = render(type_name, chosen)
    qtype = CATALOGUE[type_name]
    assert "$" not in prompt.user  # every placeholder filled
    assert prompt.user.startswith(f"Query type: {type_name}, from {n} passage")
    assert qtype.definition in prompt.user
    assert prompt.user.count("## Worked example") == len(examples(type_name)) >= 2
    for label, passage in zip(prompt.labels, chosen):
        assert f"[{label}] id: {passage.id}\ntitle: {passage.title}\ntext: {passage.text}" in prompt.user
    assert prompt.prompt_file == f"prompts/llm/{type_name}.md#{n}"


@pytest.mark.parametrize("type_name", TYPE_NAMES)
def test_one_notation_for_anchors_and_variables(type_name, passages):
    """Anchors are A1, A2, ... in the indicator, the head and the rules; variables keep ComLQ's names."""
    user = render(type_name, list(passages.values())[:1]).user
    indicator = prompt_indicator(type_name)
    anchors = sorted(set(re.findall(r"\bA\d\b", indicator)))
    assert anchors == [f"A{k}" for k in range(1, CATALOGUE[type_name].count("anchor") + 1)]
    assert user.count(f"`{indicator}`") == 2  # in the head and in the rules
    head = user.split("## Worked example")[0]
    assert all(f"`{a}`" in head for a in anchors)
    variables = set(re.findall(r"\?[a-z]\d?", indicator))
    assert set(re.findall(r"`(\?[a-z]\d?)`", head)) <= variables
    for _, text in examples(type_name):
        answer = json.loads(text)
        used = {n for c in answer["positive"] + answer["negative"] for n in (c["subject"], c["object"])
                if n.startswith("?")}
        assert used == variables and answer["target"] in variables


@pytest.mark.parametrize("type_name", TYPE_NAMES)
def test_worked_examples_pass_every_check_on_their_own_passages(type_name):
    found = examples(type_name)
    assert len(found) >= 2
    for passages, text in found:
        assert all(len(p.text.split()) >= 45 for p in passages)  # real Wikipedia leads, not one-liners
        answer, error = parse_answer(text, len(passages))
        assert error is None, (type_name, error)
        item = build_item("example", answer, render(type_name, passages), "m")
        assert item.check.ok, (type_name, item.check.reasons)
        assert {e["passage"] for e in answer["evidence"]} == {f"P{k}" for k in range(1, len(passages) + 1)}


def test_prompt_hash_changes_with_the_template_not_with_the_passages(passages):
    ps = list(passages.values())
    a, b = render("2in", ps[:2]), render("2in", ps[2:4])
    assert a.prompt_hash == b.prompt_hash and a.user != b.user
    assert len({render(t, ps[:1]).prompt_hash for t in TYPE_NAMES}) == len(TYPE_NAMES)
