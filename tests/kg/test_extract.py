"""The built-in extractor on hand-written passages, and the hand-checked precision sample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.kg.generator import build_kg
from pipeline.kg.extract import century, extract
from pipeline.kg.precision import table
from pipeline.records import Passage

PASSAGES = [
    Passage("k", "Stanley Kubrick", "Stanley Kubrick was an American filmmaker. He made Barry Lyndon in England.",
            description="American filmmaker (1928–1999)", topic="People"),
    Passage("b", "Barry Lyndon", "Barry Lyndon is a 1975 period drama film by Stanley Kubrick. It is set in Ireland.",
            description="1975 film by Stanley Kubrick", topic="Arts"),
    Passage("h", "Houston", "Houston is the most populous city in Texas and in the Southern United States.",
            description="City in Texas, United States", topic="Geography"),
    Passage("u", "United States", "The United States is a country in North America. Jazz began there.",
            description="Country in North America", topic="Geography"),
    Passage("j", "Jazz", "Jazz is a music genre; many jazz musicians lived in Houston, in the United States.",
            description="Music genre", topic="Arts"),
    Passage("s", "Sun Tzu", "Sun Tzu was a Chinese military general and strategist.",
            description="Chinese general (544–496 BC)", topic="People"),
    Passage("l", "Louis XIV", "Louis XIV was King of France.", description="King of France from 1643 to 1715 (1638–1715)",
            topic="People"),
]


@pytest.fixture(scope="module")
def facts():
    extraction = extract({p.id: p for p in PASSAGES})
    label = extraction.labels.__getitem__
    return {(label(f.subject), f.relation, label(f.object), f.passages) for f in extraction.facts if f.relation != "topic"}


def test_description_facts(facts):
    assert {f for f in facts if f[0] == "Stanley Kubrick" and f[1] != "mentions"} == {
        ("Stanley Kubrick", "nationality", "American", ("k",)),
        ("Stanley Kubrick", "occupation", "filmmaker", ("k",)),
        ("Stanley Kubrick", "born_in_century", "20th century", ("k",)),
        ("Stanley Kubrick", "died_in_century", "20th century", ("k",)),
    }
    assert {f for f in facts if f[0] == "Barry Lyndon" and f[1] != "mentions"} == {
        ("Barry Lyndon", "instance_of", "film", ("b",)),
        ("Barry Lyndon", "created_by", "Stanley Kubrick", ("b",)),
        ("Barry Lyndon", "from_decade", "1970s", ("b",)),
    }
    assert ("Houston", "located_in", "Texas", ("h",)) in facts
    assert ("Houston", "located_in", "United States", ("h",)) in facts
    assert ("Houston", "instance_of", "city", ("h",)) in facts
    assert ("Sun Tzu", "born_in_century", "6th century BC", ("s",)) in facts
    assert ("Sun Tzu", "died_in_century", "5th century BC", ("s",)) in facts


def test_rulers_are_not_read_as_lifespans_of_a_trade(facts):
    assert not {f for f in facts if f[0] == "Louis XIV" and f[1] != "mentions"}


def test_mentions_are_exact_title_matches_of_names(facts):
    mentions = {(s, o) for s, r, o, _ in facts if r == "mentions"}
    assert ("Stanley Kubrick", "Barry Lyndon") in mentions and ("Barry Lyndon", "Stanley Kubrick") in mentions
    assert ("Jazz", "Houston") in mentions
    # "Jazz" is written in lower case in the corpus: a common noun, never matched as a title
    assert not {m for m in mentions if m[1] == "Jazz"}
    assert ("Jazz", "United States") in mentions
    # inside a longer capitalised name: "Southern United States" is not the United States
    assert ("Houston", "United States") not in mentions


def test_created_by_links_to_the_creators_passage():
    kg = build_kg({p.id: p for p in PASSAGES})
    assert kg.neighbours("b", "created_by") == ("k",)
    assert kg.neighbours("k", "creator_of") == ("b",)
    assert kg.label("k") == "Stanley Kubrick" and kg.topic("k") == "People"


@pytest.mark.parametrize("year, bc, expected", [(1900, False, "19th century"), (1901, False, "20th century"),
                                                (2001, False, "21st century"), (1111, False, "12th century"),
                                                (470, True, "5th century BC"), (12, False, "1st century")])
def test_century(year, bc, expected):
    assert century(year, bc) == expected


def test_precision_sample_is_fully_judged_and_in_the_docs():
    rows = [json.loads(line) for line in (Path(__file__).parent / "fixtures" / "precision_sample.jsonl").open()]
    assert len(rows) == 50 and all(r["verdict"] in ("correct", "wrong") for r in rows)
    readme = (Path(__file__).parents[2] / "docs" / "generators.md").read_text(encoding="utf-8")
    counts = table(rows)
    correct, judged = counts.pop("all")
    assert f"(`all`: {correct}/{judged})" in readme
    lines = readme.splitlines()
    for relation, (correct, judged) in counts.items():
        row = next(line for line in lines if line.startswith(f"| `{relation}` ("))
        assert row.endswith(f"| {correct}/{judged} |"), row
