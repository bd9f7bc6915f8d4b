"""A checked model answer -> an Item, with the automatic checks.

The checks mark (never drop) an item when:
- its triples do not form the intended type;
- a multi-passage prompt's evidence uses only one passage;
- a negation type has no negation in the question or the logical form, or names no entity
  that the negation removes (`excluded`);
- an answer, anchor, excluded or bridge entity is not named in the passages;
- the question names an answer;
- an intermediate variable has no bridge entity, or the question or the logical form names one
  (the question hides it: naming it would make the query one hop shorter).
Marked items are written with check.ok = false and, by default, are not sent to reviewers;
the generator first sends the reasons back to the model for a corrected answer.

The passages of the excluded entities become the item's violating passages (LSNC@K): the
prompt passage cited for each, unless it is also evidence, and any passage of the corpus titled
with its name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pipeline.errors import ComlqError
from pipeline.itemchecks import answers_in_question, mentions
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


def intermediate_variables(triples: tuple[Triple, ...], target: str) -> list[str]:
    """Variables other than the target (the bridges the question hides), in order of appearance."""
    names = (n for t in triples for n in (t.subject, t.object))
    return [n for n in dict.fromkeys(names) if n.startswith("?") and n != target]


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
        if not answer["excluded"]:
            reasons.append("negation type but `excluded` names no entity that the negated condition removes")
    elif answer["excluded"]:
        reasons.append(f"{type_name} has no negation, so `excluded` must be empty")
    return reasons


def grounding_reasons(answer: dict[str, Any], triples: tuple[Triple, ...], prompt: Prompt) -> list[str]:
    """Everything the answer names is in the passages; the question gives away no answer and no bridge."""
    text = "\n".join(f"{p.title}\n{p.text}" for p in prompt.passages)
    by_label = {label: f"{p.title}\n{p.text}" for label, p in zip(prompt.labels, prompt.passages)}
    anchors = dict.fromkeys(n for t in triples for n in (t.subject, t.object) if not n.startswith("?"))
    reasons = [f"the {kind} {name!r} is not named in the passages"
               for kind, names in (("answer", dict.fromkeys(answer["answers"])), ("anchor", anchors),
                                   ("bridge entity", [b["entity"] for b in answer["bridges"]]))
               for name in names if not mentions(text, name)]
    reasons += [f"the excluded entity {e['entity']!r} is not named in {e['passage']}" for e in answer["excluded"]
                if not mentions(by_label[e["passage"]], e["entity"])]
    reasons += [f"{e['entity']!r} is both an answer and excluded" for e in answer["excluded"]
                if e["entity"] in answer["answers"]]
    reasons += answers_in_question(answer["query"], dict.fromkeys(answer["answers"]))
    bridged = {b["variable"] for b in answer["bridges"]}
    reasons += [f"no bridge entity given for {v}" for v in intermediate_variables(triples, answer["target"])
                if v not in bridged]
    for bridge in answer["bridges"]:
        for where in ("query", "logical_form"):
            if mentions(answer[where], bridge["entity"]):
                what = "question" if where == "query" else "logical form"
                reasons.append(f"the {what} names the bridge entity {bridge['entity']!r} of {bridge['variable']}, "
                               "which the question must describe, not name")
    return reasons


def violating_passages(answer: dict[str, Any], prompt: Prompt, evidence: set[str],
                       titles: Mapping[str, str]) -> tuple[str, ...]:
    """The passages of the excluded entities that are not evidence: the cited prompt passage, and
    any passage of the corpus titled with the entity's name (`titles`: title -> passage id)."""
    found = {prompt.labels[e["passage"]] for e in answer["excluded"]}
    found |= {titles[e["entity"]] for e in answer["excluded"] if e["entity"] in titles}
    return tuple(sorted(found - evidence))


def build_item(item_id: str, answer: dict[str, Any], prompt: Prompt, model: str, seed: int | None = None,
               titles: Mapping[str, str] | None = None) -> Item:
    triples = answer_triples(answer)
    cited = list(dict.fromkeys(prompt.labels[e["passage"]] for e in answer["evidence"]))
    reasons = structure_reasons(answer, triples, prompt.type, prompt.n_passages, cited)
    reasons += grounding_reasons(answer, triples, prompt)
    try:
        grounded = grounded_indicator(triples, answer["target"], prompt.type)
    except ComlqError:  # the triples do not form the intended type (already a check reason)
        grounded = get_type(prompt.type).indicator
    grade = 2 if len(cited) == 1 else 1  # ComLQ: one passage holding all the evidence -> 2, else 1 each
    violating = violating_passages(answer, prompt, set(cited), titles or {})
    return Item(
        id=item_id, type=prompt.type, n_passages=prompt.n_passages, question=answer["query"],
        indicator=get_type(prompt.type).indicator, grounded_indicator=grounded, triples=triples,
        target=answer["target"], logical_form=answer["logical_form"],
        answers=tuple(dict.fromkeys(answer["answers"])),
        evidence=tuple(GradedPassage(pid, grade) for pid in cited),
        violating=violating, source_passages=tuple(dict.fromkeys([*prompt.labels.values(), *violating])),
        generator=GeneratorInfo("llm", seed=seed, model=model, prompt_file=prompt.prompt_file,
                                prompt_hash=prompt.prompt_hash),
        check=Check(not reasons, tuple(reasons)),
    )
