"""A checked model answer -> an Item, with the automatic structure check.

The check marks (never drops) items whose triples do not form the intended type, whose
evidence does not use more than one passage of a multi-passage prompt, or whose negation
type has no negation in the question or the logical form. Marked items are written with
check.ok = false and, by default, are not sent to reviewers.
"""

from __future__ import annotations

import re
from typing import Any

from pipeline.errors import ComlqError
from pipeline.llm.prompts import Prompt
from pipeline.logical_form import parse, terms
from pipeline.querytypes import NEGATION_TYPES, check_triples, get_type, grounded_indicator
from pipeline.records import Check, GeneratorInfo, GradedPassage, Item, Triple

NEGATION_CUE = re.compile(
    r"\b(not|no|never|without|except|excluding|neither|nor|none|other than|apart from|besides|unlike)\b|n't\b",
    re.IGNORECASE)


def _has_not(logical_form: str) -> bool:
    """A NOT operator in the parsed form (any case, as the grammar reads it; not a word inside a term)."""
    try:
        return any(terms(parse(logical_form), positive=False))
    except ComlqError:
        return False  # an unparsable form was already refused by the answer check


def answer_triples(answer: dict[str, Any]) -> tuple[Triple, ...]:
    positive = (Triple(c["subject"], c["relation"], c["object"], False, c["union"]) for c in answer["positive"])
    negative = (Triple(c["subject"], c["relation"], c["object"], True, False) for c in answer["negative"])
    return (*positive, *negative)


def structure_reasons(answer: dict[str, Any], triples: tuple[Triple, ...], type_name: str,
                      n_passages: int, cited: list[str]) -> list[str]:
    reasons = list(check_triples(triples, answer["target"], type_name))
    if n_passages > 1 and len(cited) < 2:
        reasons.append(f"evidence comes from {len(cited)} passage, expected more than one of the {n_passages}")
    if type_name in NEGATION_TYPES:
        if not NEGATION_CUE.search(answer["query"]):
            reasons.append("negation type but the question has no negation cue (not, never, without, except ...)")
        if not _has_not(answer["logical_form"]):
            reasons.append("negation type but the logical form has no NOT")
    return reasons


def build_item(item_id: str, answer: dict[str, Any], prompt: Prompt, model: str, seed: int | None = None) -> Item:
    triples = answer_triples(answer)
    cited = list(dict.fromkeys(prompt.labels[e["passage"]] for e in answer["evidence"]))
    reasons = structure_reasons(answer, triples, prompt.type, prompt.n_passages, cited)
    try:
        grounded = grounded_indicator(triples, answer["target"], prompt.type)
    except ComlqError:  # the triples do not form the intended type (already a check reason)
        grounded = get_type(prompt.type).indicator
    grade = 2 if len(cited) == 1 else 1  # ComLQ: one passage holding all the evidence -> 2, else 1 each
    return Item(
        id=item_id, type=prompt.type, n_passages=prompt.n_passages, question=answer["query"],
        indicator=get_type(prompt.type).indicator, grounded_indicator=grounded, triples=triples,
        target=answer["target"], logical_form=answer["logical_form"],
        answers=tuple(dict.fromkeys(answer["answers"])),
        evidence=tuple(GradedPassage(pid, grade) for pid in cited),
        violating=(), source_passages=tuple(prompt.labels.values()),
        generator=GeneratorInfo("llm", seed=seed, model=model, prompt_file=prompt.prompt_file,
                                prompt_hash=prompt.prompt_hash),
        check=Check(not reasons, tuple(reasons)),
    )
