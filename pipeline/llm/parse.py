"""Turn a model's reply into a checked answer (schemas/llm_output.schema.json), or say why not.

Endpoints that honour JSON mode return bare JSON; the others may wrap it in prose or a
``` fence, so the first JSON object found in the text is used. A reply that fails is
described by a `ParseError` whose detail goes back to the model in the fix-up message.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pipeline.errors import ComlqError, RecordError
from pipeline.logical_form import parse as parse_logical_form
from pipeline.schemas import validate

_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ParseError:
    reason: str  # invalid_json | schema_invalid | bad_evidence | bad_logical_form
    detail: str


def logical_form_error(text: str) -> str | None:
    """None when `text` parses as an ITLR logical form, else the parser's complaint (one line)."""
    try:
        parse_logical_form(text)
    except ComlqError as exc:
        return str(exc).splitlines()[0]
    return None


def extract_json(text: str) -> Any:
    """The JSON value in `text`: the whole text, a fenced block, or the object at the first brace."""
    text = text.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        first_error = exc
    for match in _FENCE.finditer(text):
        try:
            return json.loads(match.group(1))
        except json.JSONDecodeError:
            continue
    start = text.find("{")  # only the first: a later brace may open an object nested in a broken one
    if start >= 0:
        try:
            return json.JSONDecoder().raw_decode(text, start)[0]
        except json.JSONDecodeError:
            pass
    raise first_error


def parse_answer(text: str | None, n_passages: int) -> tuple[dict[str, Any] | None, ParseError | None]:
    """(answer, None) when the reply is usable, else (None, why)."""
    if not text or not text.strip():
        return None, ParseError("invalid_json", "the reply was empty")
    try:
        answer = extract_json(text)
    except json.JSONDecodeError as exc:
        return None, ParseError("invalid_json", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    try:
        validate(answer, "llm_output", "answer")
    except RecordError as exc:
        return None, ParseError("schema_invalid", f"does not match the schema: {exc}")
    labels = {f"P{i}" for i in range(1, n_passages + 1)}
    for key in ("evidence", "excluded"):
        unknown = sorted({e["passage"] for e in answer[key]} - labels)
        if unknown:
            return None, ParseError("bad_evidence", f"{key} cites {', '.join(unknown)}, but the passages are "
                                                    f"{', '.join(sorted(labels))}")
    complaint = logical_form_error(answer["logical_form"])
    if complaint:
        return None, ParseError("bad_logical_form", f"logical_form {answer['logical_form']!r} is not quoted phrases "
                                                    f"joined by AND, OR, NOT and parentheses: {complaint}")
    return answer, None
