"""Render the subgraph-indicator prompts in `prompts/llm/`.

Layout of `prompts/llm/` (templates use `$name` placeholders, see string.Template):
- `system.md`: the system message;
- `<type>.md`, one per query type: a common head (the type's definition and subgraph
  indicator, filled in from pipeline.querytypes.CATALOGUE so they cannot drift) and at least
  two sections `## Worked example (N passage[s])` on real-length passages, all of them shown;
- `task.md`: the passages to use and the JSON instruction, shared by every type;
- `fix.md`: the follow-up message carrying a validation error.
The prompt for (type, n) is head + worked examples + task. Its hash covers the unrendered
templates (fix.md included), so it changes exactly when the prompt's wording changes.

One notation throughout: the indicator is shown with its anchors written A1, A2, ... (the
constants to ground with entity names) and its variables as `?x`, `?y`, ... (kept as they are in
the answer), the same names the head, the rules and the worked examples use.
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
    passages: tuple[Passage, ...] = ()  # in label order


@dataclass(frozen=True, slots=True)
class _Template:
    head: str
    examples: str
    hash: str


@cache
def _template(type_name: str) -> _Template:
    relpath = f"{PROMPT_DIR}/{type_name}.md"
    text = read_prompt(relpath)
    head, _, examples = text.partition("## Worked example")
    if len(_SECTION.findall(text)) < 2:
        raise ComlqError(f"prompts/{relpath}: needs at least two sections '## Worked example (N passages)'")
    examples = "## Worked example" + examples
    digest = hashlib.sha256()
    for piece in (system_text(), head, examples, read_prompt(f"{PROMPT_DIR}/task.md"),
                  read_prompt(f"{PROMPT_DIR}/fix.md")):
        digest.update(piece.encode("utf-8"))
    return _Template(head, examples, digest.hexdigest())


@cache
def prompt_indicator(type_name: str) -> str:
    """The type's indicator with its anchors written A1, A2, ... in order of appearance and its
    variables as ComLQ writes them: "{?x | (A1, R1, ?x) ∧ ¬(?x, R2, A2)}"."""
    qtype = get_type(type_name)
    anchors = {node for node, role in qtype.pattern.nodes(data="role") if role == "anchor"}
    names: dict[str, str] = {}
    for variable in re.findall(r"\?[A-Za-z][A-Za-z0-9_]*", qtype.indicator):
        if variable in anchors and variable not in names:
            names[variable] = f"A{len(names) + 1}"
    return re.sub(r"\?[A-Za-z][A-Za-z0-9_]*", lambda m: names.get(m.group(0), m.group(0)), qtype.indicator)


@cache
def system_text() -> str:
    return read_prompt(f"{PROMPT_DIR}/system.md").strip()


def render(type_name: str, passages: Sequence[Passage]) -> Prompt:
    """The prompt asking for one `type_name` query grounded in `passages` (1-3 of them)."""
    n = len(passages)
    if n not in EVIDENCE_RULES:
        raise ComlqError(f"a prompt takes 1, 2 or 3 passages, not {n}")
    qtype = get_type(type_name)
    template = _template(type_name)
    relpath = f"prompts/{PROMPT_DIR}/{type_name}.md"
    labels = {f"P{i}": p.id for i, p in enumerate(passages, start=1)}
    fields = {
        "type": type_name,
        "n_passages": str(n),
        "passage_word": "passage" if n == 1 else "passages",
        "definition": qtype.definition,
        "indicator": prompt_indicator(type_name),
        "passages": "\n\n".join(_passage_block(label, p) for label, p in zip(labels, passages)),
        "labels": ", ".join(labels),
        "evidence_rule": EVIDENCE_RULES[n],
        "negation_rule": ("The question must say the negated condition in words (not, never, without, except ...). "
                          "`excluded` lists the entities the negation removes: each meets every positive "
                          "condition and also the negated one, with the passage that shows it."
                          if type_name in NEGATION_TYPES
                          else "Leave `negative` and `excluded` empty: this type has no negation."),
    }
    try:
        user = "\n\n".join(Template(part).substitute(fields).strip()
                           for part in (template.head, template.examples, read_prompt(f"{PROMPT_DIR}/task.md")))
    except (KeyError, ValueError) as exc:
        raise ComlqError(f"{relpath}: bad placeholder {exc}") from None
    return Prompt(type_name, n, system_text(), user, f"{relpath}#{n}", template.hash, labels, tuple(passages))


def _passage_block(label: str, passage: Passage) -> str:
    # The first line's shape is read back by the scripted test server (tests/support/scripted_openai.py).
    return f"[{label}] id: {passage.id}\ntitle: {passage.title}\ntext: {passage.text}"


def fix_message(error: str) -> str:
    return Template(read_prompt(f"{PROMPT_DIR}/fix.md")).substitute(error=error).strip()
