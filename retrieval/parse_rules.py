"""An offline rule-based parser from English questions to ITLR logical forms, by cue words.

Negation cues (but not, except, excluding, other than, without, never, not, n't) cut the
question into a positive part and negated parts; within the positive part " or " makes
disjuncts and " and " conjuncts. A negated part negates its first conjunct; later conjuncts
are positive again (NOT binds tighter than AND). Connectives and auxiliaries left dangling at
the cut ("... but were not ...") are dropped.

    "Which films star Caine but were not directed by Nolan?"
    -> "Which films star Caine" AND NOT "directed by Nolan"

A question that starts with a cue negates only its first clause, up to the first comma:

    "Excluding films by Nolan, which films star Caine?"
    -> NOT "films by Nolan" AND "which films star Caine"

Known limits: an "and"/"or" inside a name ("Romeo and Juliet") is split too, and negation
scope is guessed from word order, not from syntax.
"""

from __future__ import annotations

import re

from pipeline.logical_form import And, Node, Not, Or, Term, to_string

NEGATION_CUES = ("but not", "except for", "except", "excluding", "other than", "without", "never", "not")
_CONTRACTIONS = [(re.compile(r"\bwon't\b", re.I), "will not"), (re.compile(r"\bcan't\b", re.I), "can not"),
                 (re.compile(r"\b(\w+)n't\b", re.I), r"\1 not")]
_NEGATION = re.compile(r"\b(?:" + "|".join(re.escape(c).replace(r"\ ", r"\s+") for c in NEGATION_CUES) + r")\b", re.I)
_OR = re.compile(r"\s*(?:,\s*)?\bor\b\s*", re.I)
_AND = re.compile(r"\s*(?:,\s*)?\b(?:and|but)\b\s*", re.I)
# words that carry no condition of their own when left at the edge of a cut piece
_DANGLING = {
    "but", "and", "or", "yet", "also", "that", "who", "which", "whose", "whom", "is", "are", "was", "were", "be",
    "been", "being", "do", "does", "did", "has", "have", "had", "will", "would", "can", "could", "should", "may",
    "might", "must", "the", "a", "an", "of", "by", "in", "on", "for", "to", "with", "it", "they", "he", "she", "its",
}


def _clean(piece: str) -> str:
    words = re.sub(r"[\s,;:?!.]+", " ", piece).strip().split()
    while words and words[-1].lower() in _DANGLING:
        words.pop()
    while words and words[0].lower() in {"but", "and", "or", "yet", "also", "the", "a", "an"}:
        words.pop(0)
    return " ".join(words)


def _conjunction(piece: str) -> Node | None:
    disjuncts = []
    for part in _OR.split(piece):
        conjuncts = [Term(text) for text in map(_clean, _AND.split(part)) if text]
        if conjuncts:
            disjuncts.append(conjuncts[0] if len(conjuncts) == 1 else And(tuple(conjuncts)))
    if not disjuncts:
        return None
    return disjuncts[0] if len(disjuncts) == 1 else Or(tuple(disjuncts))


def parse_question(question: str) -> Node:
    text = question.strip()
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    pieces = _NEGATION.split(text)
    children: list[Node] = []
    head = _conjunction(pieces[0])
    if head is not None:
        children.extend(head.children if isinstance(head, And) else (head,))
    for number, piece in enumerate(pieces[1:]):
        if number == 0 and head is None and "," in piece:  # a leading negated clause ends at its comma
            parts = piece.split(",", maxsplit=1)
        else:
            parts = _AND.split(piece, maxsplit=1)
        negated = _conjunction(parts[0])
        if negated is not None:
            children.append(Not(negated))
        rest = _conjunction(parts[1]) if len(parts) > 1 else None
        if rest is not None:
            children.extend(rest.children if isinstance(rest, And) else (rest,))
    if not children:  # nothing but cue words: search for the question as it is
        return Term(_clean(question) or question.strip())
    return children[0] if len(children) == 1 else And(tuple(children))


def to_logical_form(question: str) -> str:
    return to_string(parse_question(question))
