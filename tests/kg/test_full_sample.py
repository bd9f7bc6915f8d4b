"""The done-when of the kg generator, on the shipped sample (a few seconds: the one slow kg test)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from pipeline.querytypes import NEGATION_TYPES, TYPE_NAMES, check_triples, grounded_indicator, matches, query_graph

README = Path(__file__).parents[2] / "docs" / "generators.md"  # the kg generator's guide
# "2in  What are ...?" then the logical form on the same line (after 2+ spaces) or on the next one
README_EXAMPLE = re.compile(r"^(\w{2,3}) +(\S.*?[.?])(?: {2,}|\n +)(\".*\")$", re.MULTILINE)


@pytest.mark.slow
def test_the_sample_yields_every_type(sample_result):
    """`comlq run`'s default (50 per type on the shipped sample) fills every type, the sparse
    shapes too (3i: three conditions each needed; ip: two, projected; 3in: two and a cut), but
    the chains whose every valid grounding the enumeration finds: under the corpus check the sample
    holds 3p 35 and inp 25 (docs/generators.md)."""
    types = sample_result.stats["types"]
    assert set(types) == set(TYPE_NAMES)
    short = {t for t, s in types.items() if s["generated"] < 50}
    assert short <= {"3p", "inp", "pin", "pni"}, {t: types[t]["generated"] for t in short}
    for name in short:
        assert 0 < types[name]["generated"] and "(every grounding enumerated" in types[name]["shortfall"]


@pytest.mark.slow
def test_items_of_every_type_from_the_sample(sample_result):
    result = sample_result
    groundings = set()
    for item in result.items:
        assert check_triples(item.triples, item.target, item.type) == []
        assert matches(query_graph(item.triples, item.target), item.type, directed=True)
        assert item.grounded_indicator == grounded_indicator(item.triples, item.target)
        assert 1 <= len(item.answers) <= 20 and 1 <= item.n_passages <= 3
        assert bool(item.violating) == (item.type in NEGATION_TYPES)
        groundings.add(frozenset((t.subject, t.relation, t.object, t.negated, t.union) for t in item.triples))
    assert len(groundings) == len(result.items)
    # ComLQ's variants (1-3 passages). Which type x count a draw of 50 hits is the draw's, not a
    # property of the generator (a 1p over 3 passages needs three answers each stated in its own
    # passage: 2 of 50 before the extractor's reading-4 change, 0 after). What must hold: every
    # type that fills up draws evidence over several passages, and every count occurs.
    # (pni and 2in aside: an enumerated type keeps no room for them, and their answers are mostly one person's
    # classes, all in that person's passage: reading-47's sample holds 2 of 50 pni and none of 50 2in over
    # several passages, where reading-41's held 1 and 1)
    full = {t for t, s in result.stats["types"].items() if s["generated"] == 50} - {"pni", "2in"}
    assert {item.type for item in result.items if item.n_passages >= 2} >= full
    assert {item.n_passages for item in result.items} == {1, 2, 3}
    # the sampling weights (pipeline/kg/weights.yaml) keep the weak relations in the minority
    relations = Counter(t.relation for item in result.items for t in item.triples)
    total = sum(relations.values())
    assert (relations["mentions"] + relations["mentioned_in"]) / total < 0.25
    assert (relations["topic"] + relations["topic_of"]) / total < 0.02
    # the guide's example questions are real output of this run, with their logical forms
    readme = README.read_text(encoding="utf-8")
    block = readme[readme.index("<!-- section: generate -->"):readme.index("<!-- /section: generate -->")]
    examples = README_EXAMPLE.findall(block)
    by_question = {item.question: item for item in result.items}
    assert len(examples) == len(TYPE_NAMES)
    for type_name, question, logical_form in examples:
        assert by_question[question].type == type_name and by_question[question].logical_form == logical_form
