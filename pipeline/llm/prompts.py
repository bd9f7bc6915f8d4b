"""Render the subgraph-indicator prompts in `prompts/llm/`.

Layout of `prompts/llm/` (templates use `$name` placeholders, see string.Template):
- `system.md`: the system message;
- `<type>.md`, one per query type: a common head (the type's definition and subgraph
  indicator, filled in from pipeline.querytypes.CATALOGUE so they cannot drift) and three
  sections `## Worked example (N passage[s])`, one worked example per passage count;
- `task.md`: the passages to use and the JSON instruction, shared by every type;
- `fix.md`: the follow-up message carrying a validation error.
The prompt for (type, n) is head + section n + task. Its hash covers the unrendered
templates (fix.md included), so it changes exactly when the prompt's wording changes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from string import Template

from pipeline.errors import ComlqError
from pipeline.querytypes import NEGATION_TYPES, get_type
from pipeline.records import Passage
from pipeline.resources import read_prompt as _read_prompt

PROMPT_DIR = "llm"
_SECTION = re.compile(r"^## Worked example \((\d) passages?\)\s*$", re.MULTILINE)

EVIDENCE_RULES = {
    1: "All the facts come from the one passage: cite it (P1) in `evidence`.",
    2: "Use both passages: each must give at least one fact, and cite each of them in `evidence`.",
    3: "Use all three passages: each must give at least one fact, and cite each of them in `evidence`.",
}


read_prompt = cache(_read_prompt)  # prompt files are read once per process


@dataclass(frozen=True, slots=True)
class Prompt:
    type: str
    n_passages: int
    system: str
    user: str
    prompt_file: str  # e.g. prompts/llm/2in.md#2
    prompt_hash: str  # sha256 of the unrendered templates
    labels: dict[str, str]  # passage label in the prompt (P1..P3) -> passage id


@dataclass(frozen=True, slots=True)
class _Template:
    head: str
    example: str
    file: str
    hash: str


@cache
def _template(type_name: str, n_passages: int) -> _Template:
    relpath = f"{PROMPT_DIR}/{type_name}.md"
    text = read_prompt(relpath)
    parts = _SECTION.split(text)  # [head, n, body, n, body, ...]
    sections = {int(n): body for n, body in zip(parts[1::2], parts[2::2])}
    if n_passages not in sections:
        raise ComlqError(f"prompts/{relpath}: no section '## Worked example ({n_passages} passages)'")
    example = f"## Worked example ({n_passages} passage{'s' if n_passages > 1 else ''})\n" + sections[n_passages]
    digest = hashlib.sha256()
    for piece in (system_text(), parts[0], example, read_prompt(f"{PROMPT_DIR}/task.md"),
                  read_prompt(f"{PROMPT_DIR}/fix.md")):
        digest.update(piece.encode("utf-8"))
    return _Template(parts[0], example, f"prompts/{relpath}#{n_passages}", digest.hexdigest())


@cache
def system_text() -> str:
    return read_prompt(f"{PROMPT_DIR}/system.md").strip()


def render(type_name: str, passages: Sequence[Passage]) -> Prompt:
    """The prompt asking for one `type_name` query grounded in `passages` (1-3 of them)."""
    n = len(passages)
    if n not in EVIDENCE_RULES:
        raise ComlqError(f"a prompt takes 1, 2 or 3 passages, not {n}")
    qtype = get_type(type_name)
    template = _template(type_name, n)
    labels = {f"P{i}": p.id for i, p in enumerate(passages, start=1)}
    fields = {
        "type": type_name,
        "n_passages": str(n),
        "passage_word": "passage" if n == 1 else "passages",
        "definition": qtype.definition,
        "indicator": qtype.indicator,
        "passages": "\n\n".join(_passage_block(label, p) for label, p in zip(labels, passages)),
        "labels": ", ".join(labels),
        "evidence_rule": EVIDENCE_RULES[n],
        "negation_rule": ("The question must say the negated condition in words (not, never, without, except ...)."
                          if type_name in NEGATION_TYPES else "Leave `negative` empty: this type has no negation."),
    }
    try:
        user = "\n\n".join(Template(part).substitute(fields).strip()
                           for part in (template.head, template.example, read_prompt(f"{PROMPT_DIR}/task.md")))
    except (KeyError, ValueError) as exc:
        raise ComlqError(f"{template.file}: bad placeholder {exc}") from None
    return Prompt(type_name, n, system_text(), user, template.file, template.hash, labels)


def _passage_block(label: str, passage: Passage) -> str:
    # The first line's shape is read back by the scripted test server (tests/support/scripted_openai.py).
    return f"[{label}] id: {passage.id}\ntitle: {passage.title}\ntext: {passage.text}"


def fix_message(error: str) -> str:
    return Template(read_prompt(f"{PROMPT_DIR}/fix.md")).substitute(error=error).strip()
