"""The 14 prompt files: every (type, passage count) renders, and every worked example is a
valid answer of its own type (schema and structure check), so the prompts teach what is checked."""

from __future__ import annotations

import json
import re

import pytest

from pipeline.llm.build import answer_triples
from pipeline.llm.prompts import render
from pipeline.querytypes import CATALOGUE, TYPE_NAMES, check_triples
from pipeline.resources import read_prompt
from pipeline.schemas import validate

CASES = [(t, n) for t in TYPE_NAMES for n in (1, 2, 3)]


def _example(type_name: str, n: int) -> dict:
    text = read_prompt(f"llm/{type_name}.md")
    section = text.split(f"## Worked example ({n} passage")[1].split("## Worked example")[0]
    return json.loads(re.search(r"```json\n(.*?)\n```", section, re.DOTALL).group(1))


@pytest.mark.parametrize(("type_name", "n"), CASES)
def test_every_prompt_renders_with_the_catalogue_text(type_name, n, passages):
    chosen = list(passages.values())[:n]
    prompt = render(type_name, chosen)
    qtype = CATALOGUE[type_name]
    assert "$" not in prompt.user  # every placeholder filled
    assert prompt.user.startswith(f"Query type: {type_name}, from {n} passage")
    assert qtype.indicator in prompt.user and qtype.definition in prompt.user
    assert f"## Worked example ({n} passage" in prompt.user
    assert prompt.user.count("## Worked example") == 1  # only the section for this passage count
    for label, passage in zip(prompt.labels, chosen):
        assert f"[{label}] id: {passage.id}\ntitle: {passage.title}\ntext: {passage.text}" in prompt.user
    assert prompt.prompt_file == f"prompts/llm/{type_name}.md#{n}"


@pytest.mark.parametrize(("type_name", "n"), CASES)
def test_worked_example_is_a_valid_answer_of_its_type(type_name, n):
    example = _example(type_name, n)
    validate(example, "llm_output", f"prompts/llm/{type_name}.md#{n}")
    assert check_triples(answer_triples(example), example["target"], type_name) == []
    assert {e["passage"] for e in example["evidence"]} == {f"P{k}" for k in range(1, n + 1)}


def test_prompt_hash_changes_with_the_template_not_with_the_passages(passages):
    ps = list(passages.values())
    a, b = render("2in", ps[:2]), render("2in", ps[2:4])
    assert a.prompt_hash == b.prompt_hash and a.user != b.user
    hashes = {render(t, ps[:n]).prompt_hash for t, n in CASES}
    assert len(hashes) == len(CASES)
