"""Checks every generated item must pass, whichever generator made it.

Each check returns the reasons an item fails it (an empty list: it passes), one short sentence
per problem, so generation can count them and the tests can name the item that failed.

- `check_witnesses`: every witness fact's sentence occurs in the passage text the benchmark
  ships and names both ends of the fact (the sentence is what an annotator is shown);
- `answers_in_question`: no answer string in the question (it would give the answer away);
- `banned_words`: no "article", "category", "subject" or "class of" in a question: they talk
  about the corpus or the graph, not about the world.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import cache

from pipeline.records import Item

BANNED = re.compile(r"\b(?:articles?|categor(?:y|ies)|subjects?|class(?:es)? of)\b", re.IGNORECASE)


def check_witnesses(item: Item, corpus_text: Mapping[str, str]) -> list[str]:
    """Reasons why the item's witness facts are not stated by `corpus_text` (passage id -> exported text)."""
    reasons = []
    evidence = {e.passage_id for e in item.evidence}
    for fact in item.facts:
        name = f"fact ({fact.subject}, {fact.relation}, {fact.object})"
        text = corpus_text.get(fact.passage_id)
        if text is None:
            reasons.append(f"{name}: passage {fact.passage_id!r} is not in the corpus")
        elif fact.sentence not in text:
            reasons.append(f"{name}: its sentence is not in the text of {fact.passage_id!r}")
        elif fact.passage_id not in evidence:
            reasons.append(f"{name}: passage {fact.passage_id!r} is not an evidence passage")
        for end, mention in (("subject", fact.subject_mention), ("object", fact.object_mention)):
            if mention not in fact.sentence:
                reasons.append(f"{name}: the sentence does not contain its {end} mention {mention!r}")
    return reasons


def mentions(text: str, name: str) -> bool:
    """Does `text` contain `name` as whole words, ignoring case?"""
    if text.isascii() and name.isascii() and name.lower() not in text.lower():
        return False  # in ASCII, ignoring case is plain lower case: no match without the substring (and no regex)
    return _whole_words(name).search(text) is not None


@cache  # one pattern per name: a run checks thousands of names, more than `re` keeps compiled
def _whole_words(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE)


def answers_in_question(question: str, answers: Iterable[str]) -> list[str]:
    return [f"the question names the answer {a!r}" for a in answers if mentions(question, a)]


def banned_words(question: str) -> list[str]:
    return [f"the question says {m.group(0)!r}" for m in BANNED.finditer(question)]
