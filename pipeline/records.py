"""Typed records that mirror the JSON Schemas in `schemas/`.

The schemas are the definition; these dataclasses are a convenience for code. `to_dict`
drops optional fields that are None so the JSONL stays compact, and the result always
validates against the schema of the same name.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

QueryTypeName = Literal["1p", "2p", "3p", "2i", "3i", "pi", "ip", "2u", "up", "2in", "3in", "inp", "pin", "pni"]


def _compact(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


@dataclass(frozen=True, slots=True)
class Passage:
    id: str
    title: str
    text: str
    description: str | None = None
    topic: str | None = None
    links: tuple[str, ...] | None = None
    source: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Passage:
        links = data.get("links")
        return cls(
            id=data["id"], title=data["title"], text=data["text"], description=data.get("description"),
            topic=data.get("topic"), links=tuple(links) if links is not None else None, source=data.get("source"),
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if self.links is not None:
            data["links"] = list(self.links)
        return _compact(data)


@dataclass(frozen=True, slots=True)
class Triple:
    """One edge of a grounded query graph. Names starting with '?' are variables."""

    subject: str
    relation: str
    object: str
    negated: bool = False
    union: bool = False

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Triple:
        return cls(data["subject"], data["relation"], data["object"], bool(data.get("negated", False)),
                   bool(data.get("union", False)))

    def to_dict(self) -> dict[str, Any]:
        # field by field, as asdict() gives them (its deep copy is slow, and every kg item hashes its triples)
        return {"subject": self.subject, "relation": self.relation, "object": self.object, "negated": self.negated,
                "union": self.union}


@dataclass(frozen=True, slots=True)
class GradedPassage:
    passage_id: str
    grade: int  # 2: this passage alone holds the evidence; 1: one of 2-3 evidence passages

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class WitnessFact:
    """One fact of an answer's witness and the sentence of the shipped passage text that states it."""

    subject: str
    relation: str
    object: str
    passage_id: str
    sentence: str  # a substring of the passage's text
    subject_mention: str  # how the sentence names the subject (a substring of it)
    object_mention: str

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WitnessFact:
        return cls(data["subject"], data["relation"], data["object"], data["passage_id"], data["sentence"],
                   data["subject_mention"], data["object_mention"])

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Check:
    ok: bool
    reasons: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "reasons": list(self.reasons)}


@dataclass(frozen=True, slots=True)
class GeneratorInfo:
    name: str  # a registered generator (pipeline/generator.py)
    seed: int | None = None
    model: str | None = None
    prompt_file: str | None = None
    prompt_hash: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _compact(asdict(self))


@dataclass(frozen=True, slots=True)
class Item:
    id: str
    type: QueryTypeName
    n_passages: int
    question: str
    indicator: str
    grounded_indicator: str
    triples: tuple[Triple, ...]
    target: str
    logical_form: str
    answers: tuple[str, ...]
    evidence: tuple[GradedPassage, ...]
    violating: tuple[str, ...]
    source_passages: tuple[str, ...]
    generator: GeneratorInfo
    check: Check = field(default_factory=lambda: Check(True))
    facts: tuple[WitnessFact, ...] = ()  # the answers' witness facts, each with its sentence
    partial: tuple[str, ...] = ()  # passages of entities meeting some but not all intersected conditions
    branches: tuple[tuple[str, ...], ...] = ()  # union types: the passages each branch needs, in triple order
    possible_missed: tuple[str, ...] = ()  # passages that may state an answer the item lacks (shown to reviewers)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Item:
        gen = data["generator"]
        return cls(
            id=data["id"], type=data["type"], n_passages=data["n_passages"], question=data["question"],
            indicator=data["indicator"], grounded_indicator=data["grounded_indicator"],
            triples=tuple(Triple.from_dict(t) for t in data["triples"]), target=data["target"],
            logical_form=data["logical_form"], answers=tuple(data["answers"]),
            evidence=tuple(GradedPassage(e["passage_id"], e["grade"]) for e in data["evidence"]),
            violating=tuple(data["violating"]), source_passages=tuple(data["source_passages"]),
            generator=GeneratorInfo(gen["name"], gen.get("seed"), gen.get("model"), gen.get("prompt_file"),
                                    gen.get("prompt_hash")),
            check=Check(data["check"]["ok"], tuple(data["check"]["reasons"])),
            facts=tuple(WitnessFact.from_dict(f) for f in data.get("facts", ())),
            partial=tuple(data.get("partial", ())), branches=tuple(tuple(b) for b in data.get("branches", ())),
            possible_missed=tuple(data.get("possible_missed", ())),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "type": self.type, "n_passages": self.n_passages, "question": self.question,
            "indicator": self.indicator, "grounded_indicator": self.grounded_indicator,
            "triples": [t.to_dict() for t in self.triples], "target": self.target,
            "logical_form": self.logical_form, "answers": list(self.answers),
            "evidence": [e.to_dict() for e in self.evidence], "violating": list(self.violating),
            "source_passages": list(self.source_passages), "generator": self.generator.to_dict(),
            "check": self.check.to_dict(), "facts": [f.to_dict() for f in self.facts],
            "partial": list(self.partial), "branches": [list(b) for b in self.branches],
        } | ({"possible_missed": list(self.possible_missed)} if self.possible_missed else {})

    @property
    def negations(self) -> int:
        return sum(t.negated for t in self.triples)

    @property
    def variant(self) -> str:
        """ComLQ's type variant name, e.g. '2in_2' for a 2in query over 2 passages."""
        return f"{self.type}_{self.n_passages}"


# The yes/no/unsure questions of a review, in the order the interface asks them.
REVIEW_QUESTIONS = ("structure_ok", "evidence_spread", "answers_correct", "answers_complete", "trivial")


@dataclass(frozen=True, slots=True)
class ReviewVote:
    """One annotator's judgement of one item. A question answered "unsure" is None and named in
    `unsure`; a question not asked (evidence spread where annotation.tasks.asks_spread says no) is None
    and not named."""

    item_id: str
    annotator: str
    structure_ok: bool | None
    evidence_spread: bool | None
    relevance: dict[str, int]
    task_id: int | None = None
    annotation_id: int | None = None
    created_at: str | None = None
    answers_correct: bool | None = None
    answers_complete: bool | None = None
    trivial: bool | None = None
    unsure: tuple[str, ...] = ()
    comment: str | None = None
    ungraded: tuple[str, ...] = ()  # passages shown but left without a grade

    def answer(self, question: str) -> str | None:
        """'yes', 'no', 'unsure', or None when not answered."""
        if question in self.unsure:
            return "unsure"
        value = getattr(self, question)
        return None if value is None else "yes" if value else "no"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReviewVote:
        return cls(data["item_id"], data["annotator"], data["structure_ok"], data["evidence_spread"],
                   dict(data["relevance"]), data.get("task_id"), data.get("annotation_id"), data.get("created_at"),
                   data.get("answers_correct"), data.get("answers_complete"), data.get("trivial"),
                   tuple(data.get("unsure", ())), data.get("comment"), tuple(data.get("ungraded", ())))

    def to_dict(self) -> dict[str, Any]:
        # field by field, not asdict(): its deep copy was most of a 5,000-task pull's time
        data = _compact({f.name: getattr(self, f.name) for f in fields(self)})
        data |= {q: getattr(self, q) for q in REVIEW_QUESTIONS}
        data["relevance"] = dict(self.relevance)
        for name in ("unsure", "ungraded"):
            data[name] = list(getattr(self, name))
            if not data[name]:
                del data[name]
        return data
