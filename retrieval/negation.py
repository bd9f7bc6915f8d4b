"""Negated twins by rule, the way NevIR's pairs differ: insert or remove "not"/"never" in the
clause that states a fact, so a text and its twin say opposite things in almost the same words.

The clause is found by a mention (a name the fact is about, e.g. "Punjab" in "Multan is a city
in the Punjab province"): the negation goes at the nearest auxiliary verb before the mention in
its sentence ("is" -> "is not"; an existing "not"/"never" is removed instead), else before the
nearest past-tense verb ("created" -> "never created"), else before a preposition right in front
of the mention ("the city in Nicaragua" -> "the city not in Nicaragua"). A text where none of
these applies has no twin (None): a wrong twin would teach the model a wrong label.
"""

from __future__ import annotations

import re

AUXILIARIES = frozenset("is are was were has have had can could will would should may might must does do did "
                        "became becomes remains remained".split())
NEGATIONS = frozenset({"not", "never"})
PREPOSITIONS = frozenset("in by from for with on at".split())  # not "of": "the birth of X"
# -ed words that are not past-tense verbs in a clause ("the United States", "a red ...")
NOT_VERBS = frozenset("united red bed need seed feed speed hundred indeed based related used called named "
                      "known".split())
_WORD = re.compile(r"[A-Za-z']+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of the text's sentences."""
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return spans


def find_mention(text: str, mention: str) -> int | None:
    """Character position of `mention` as whole words (case-insensitive), or None."""
    match = re.search(rf"(?<![\w-]){re.escape(mention)}(?![\w-])", text, re.IGNORECASE)
    return match.start() if match else None


def negate_at(text: str, position: int) -> str | None:
    """`text` with the clause holding character `position` negated (or its negation removed)."""
    start = next(s for s, e in sentences(text) if s <= position <= e)
    words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text, start, position)]
    for i in range(len(words) - 1, -1, -1):  # nearest first
        begin, end, word = words[i]
        if word in NEGATIONS:  # "is not a city" -> "is a city", "never created" -> "created"
            return _cut(text, begin, end)
        if word.endswith("n't") and word[:-3] in AUXILIARIES | {"wo", "ca"}:
            return text[:end - 3] + text[end:]  # "isn't" -> "is" ("won't", "can't" are rare in leads)
        if word in AUXILIARIES:
            following = words[i + 1][2] if i + 1 < len(words) else ""
            if following in NEGATIONS:
                return _cut(text, words[i + 1][0], words[i + 1][1])
            return text[:end] + " not" + text[end:]
    for begin, _, word in reversed(words):
        if word.endswith("ed") and len(word) > 4 and word not in NOT_VERBS and text[begin].islower():
            return text[:begin] + "never " + text[begin:]
    if words and words[-1][2] in PREPOSITIONS and not text[words[-1][1]:position].strip():
        begin = words[-1][0]
        return text[:begin] + "not " + text[begin:]
    return None


def _cut(text: str, begin: int, end: int) -> str:
    """Remove the word at [begin, end) and one space next to it."""
    if end < len(text) and text[end] == " ":
        end += 1
    elif begin > 0 and text[begin - 1] == " ":
        begin -= 1
    return text[:begin] + text[end:]


def twin(text: str, mention: str) -> str | None:
    """The negated twin of `text` at the clause stating `mention`, or None (no mention, no rule)."""
    position = find_mention(text, mention)
    return None if position is None else negate_at(text, position)
