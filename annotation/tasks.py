"""What one Label Studio task shows: the item, and its passages in labelled groups.

The passages are one HTML document (the `passages` HyperText of labeling_config.xml):

    Evidence for the answers   the item's evidence; the sentences that state its facts highlighted
    Excluded by NOT            the violating passages, with the condition that removes them
    Other candidates           passages the retrievers ranked high that the generator did not use
                               (pooled judging), and any other source passage of the item

Answers, anchors and the two ends of every fact are marked inside the text. Each passage opens
with a heading ("[E1] Danube") that the task's prediction turns into a region labelled "?"; the
annotator grades a passage by selecting its region (Alt+. moves to the next one) and pressing
0, 1 or 2, which relabels it. Items without facts (LLM items) show their passages unmarked.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.errors import ComlqError
from pipeline.logical_form import parse, terms
from pipeline.querytypes import get_type
from pipeline.records import Passage

GRADE_CONTROL = "grade"  # the HyperTextLabels control whose region labels are the grades
PASSAGES_OBJECT = "passages"  # the HyperText showing every passage
UNGRADED = "?"  # the label every passage region starts with
LAYOUT_VERSION = "comlq-layout"  # model_version of the prediction that lays out the regions

# group -> (heading prefix letter, heading)
GROUPS = {
    "evidence": ("E", "Evidence for the answers"),
    "excluded": ("X", "Excluded by NOT"),
    "candidate": ("C", "Other candidates"),
}


@dataclass(frozen=True)
class Shown:
    """One passage on a task: its group, its heading label (E1, X2, C3) and its region id."""

    passage_id: str
    group: str
    label: str

    @property
    def region(self) -> str:
        return f"passage-{self.label}"

    def to_dict(self) -> dict[str, str]:
        return {"id": self.passage_id, "group": self.group, "label": self.label, "region": self.region}


def passage_groups(item: dict[str, Any], pooled: Sequence[str] = ()) -> list[Shown]:
    """Every passage the task shows, in order: evidence, excluded by NOT, other candidates.

    Other candidates are the item's source passages that are neither evidence nor violating (an
    LLM prompt's unused passages), then the pooled ones; nothing is shown twice.
    """
    evidence = [e["passage_id"] for e in item["evidence"]]
    excluded = [p for p in item["violating"] if p not in evidence]
    used = set(evidence) | set(excluded)
    others = [p for p in (*item["source_passages"], *pooled) if p not in used]
    shown: list[Shown] = []
    for group, ids in (("evidence", evidence), ("excluded", excluded), ("candidate", others)):
        letter = GROUPS[group][0]
        for pid in dict.fromkeys(ids):
            shown.append(Shown(pid, group, f"{letter}{sum(s.group == group for s in shown) + 1}"))
    return shown


# ---------------------------------------------------------------------------- highlighting


@dataclass(frozen=True, order=True)
class Span:
    start: int
    end: int
    kind: str  # fact | answer | anchor | mention


def _occurrences(text: str, phrase: str) -> Iterable[tuple[int, int]]:
    """Whole-word, case-insensitive occurrences of `phrase` in `text`."""
    if not phrase.strip():
        return
    for match in re.finditer(rf"(?<!\w){re.escape(phrase)}(?!\w)", text, flags=re.IGNORECASE):
        yield match.start(), match.end()


def fact_spans(text: str, facts: Iterable[dict[str, Any]]) -> list[Span]:
    """The sentences of `text` that state a fact, and both ends' mentions inside each sentence;
    a sentence the text does not contain (another version of the passage) is skipped."""
    spans = []
    for fact in facts:
        start = text.find(fact.get("sentence") or "\0")
        if start < 0:
            continue
        end = start + len(fact["sentence"])
        spans.append(Span(start, end, "fact"))
        for key in ("subject_mention", "object_mention"):
            at = fact["sentence"].find(fact.get(key) or "\0")
            if at >= 0:
                spans.append(Span(start + at, start + at + len(fact[key]), "mention"))
    return spans


def name_spans(text: str, answers: Iterable[str], anchors: Iterable[str]) -> list[Span]:
    return [Span(s, e, kind) for kind, names in (("answer", answers), ("anchor", anchors))
            for name in names for s, e in _occurrences(text, name)]


NAME_PRIORITY = {"answer": 0, "anchor": 1, "mention": 2}  # on the same words, an answer shows as an answer


def _disjoint(spans: Iterable[Span]) -> list[Span]:
    """Leftmost-longest, non-overlapping spans."""
    kept: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start, -(s.end - s.start), NAME_PRIORITY[s.kind])):
        if not kept or span.start >= kept[-1].end:
            kept.append(span)
    return kept


def _merged(spans: Iterable[Span]) -> list[Span]:
    """Overlapping or touching sentence spans joined into one."""
    merged: list[Span] = []
    for span in sorted(spans):
        if merged and span.start <= merged[-1].end:
            merged[-1] = Span(merged[-1].start, max(merged[-1].end, span.end), span.kind)
        else:
            merged.append(span)
    return merged


def highlight(text: str, spans: Iterable[Span]) -> str:
    """`text` as HTML: fact sentences in <mark>, names in <span class="comlq-KIND"> (inside a
    sentence or outside one, never across its edge)."""
    spans = list(spans)
    sentences = _merged(s for s in spans if s.kind == "fact")
    names = _disjoint(s for s in spans if s.kind != "fact"
                      and not any(s.start < sent.start < s.end or s.start < sent.end < s.end for sent in sentences))
    opens: dict[int, list[str]] = {}
    closes: dict[int, list[str]] = {}
    for sent in sentences:
        opens.setdefault(sent.start, []).append('<mark class="comlq-fact">')
        closes.setdefault(sent.end, []).append("</mark>")
    for name in names:
        opens.setdefault(name.start, []).append(f'<span class="comlq-{name.kind}">')
        closes.setdefault(name.end, []).append("</span>")
    out, last = [], 0
    for cut in sorted(set(opens) | set(closes) | {len(text)}):
        out.append(html.escape(text[last:cut], quote=False))
        out.extend(reversed(closes.get(cut, [])))  # names close before the sentence around them
        out.extend(sorted(opens.get(cut, []), key=lambda tag: not tag.startswith("<mark")))
        last = cut
    return "".join(out)


# ---------------------------------------------------------------------------- the task


def anchors(item: dict[str, Any]) -> list[str]:
    """The constants of the query graph (names not starting with '?')."""
    names = (t[end] for t in item["triples"] for end in ("subject", "object"))
    return list(dict.fromkeys(n for n in names if not n.startswith("?")))


def negated_terms(item: dict[str, Any]) -> list[str]:
    """What the NOT excludes, as the logical form words it (the negated triples when it cannot be parsed)."""
    try:
        found = list(terms(parse(item["logical_form"]), positive=False))
    except ComlqError:
        found = []
    return found or [f"{t['subject']} {t['relation']} {t['object']}" for t in item["triples"] if t.get("negated")]


class _Document:
    """The passages' HTML and its text as the browser sees it (Label Studio's global offsets
    count the characters of the text nodes, in code points)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0

    def tag(self, markup: str) -> None:
        self.parts.append(markup)

    def text(self, text: str, markup: str | None = None) -> tuple[int, int]:
        """Append `text` (rendered as `markup` when given: the same characters, marked up)."""
        start = self.length
        self.parts.append(markup if markup is not None else html.escape(text, quote=False))
        self.length += len(text)
        return start, self.length


def _group_note(group: str, item: dict[str, Any], count: int, pooled_by: Sequence[str]) -> str:
    plural = "s" if count != 1 else ""
    if group == "evidence":
        return f"{count} passage{plural} the generator used to support the answers."
    if group == "excluded":
        removed = " / ".join(f'"{t}"' for t in negated_terms(item)) or "the negated condition"
        return (f"{count} passage{plural} about entities that meet the other conditions but also {removed}: "
                "the NOT removes them. Grade 0 unless a passage also shows a real answer.")
    by = f" by {', '.join(pooled_by)}" if pooled_by else ""
    return (f"{count} passage{plural} retrieved{by} for this question that the generator did not use. "
            "Grade them like the evidence: a relevant one is a missing answer or missing evidence.")


def asks_spread(item: dict[str, Any]) -> bool:
    """Is question 2 (evidence spread) asked: more than one evidence passage, and answers that rest
    on more than one fact? A 1p, 2u or 2in item with several answers has one passage per answer,
    each holding all its answer's facts, so the question has no good answer there."""
    return item["n_passages"] > 1 and get_type(item["type"]).answer_facts > 1


def require_passages(item: dict[str, Any], passages: dict[str, Passage], pooled: Sequence[str] = ()) -> None:
    """Every passage the task would show is in the passages file (cheap: no task is built)."""
    ids = (*(e["passage_id"] for e in item["evidence"]), *item["violating"], *item["source_passages"], *pooled)
    missing = next((pid for pid in ids if pid not in passages), None)
    if missing is not None:
        raise ComlqError(f"item {item['id']}: passage '{missing}' is not in the passages file")


def task_data(item: dict[str, Any], passages: dict[str, Passage], pooled: Sequence[str] = (),
              pooled_by: Sequence[str] = ()) -> dict[str, Any]:
    """The task's data: what labeling_config.xml shows (built from the item, nothing else)."""
    require_passages(item, passages, pooled)
    shown = passage_groups(item, pooled)
    facts = item.get("facts") or []
    answers, named = item["answers"], anchors(item)
    doc = _Document()
    regions: dict[str, tuple[int, int]] = {}
    for group, (_, heading) in GROUPS.items():
        members = [s for s in shown if s.group == group]
        if not members:
            continue
        doc.tag(f'<div class="comlq-group comlq-{group}"><h4>')
        doc.text(f"{heading} ({len(members)})")
        doc.tag('</h4><p class="comlq-note">')
        doc.text(_group_note(group, item, len(members), pooled_by))
        doc.tag("</p>")
        for member in members:
            passage = passages[member.passage_id]
            doc.tag('<div class="comlq-passage"><b class="comlq-head">')
            regions[member.region] = doc.text(f"[{member.label}] {passage.title}")
            doc.tag("</b>")
            doc.text(": ")
            spans = [*fact_spans(passage.text, (f for f in facts if f.get("passage_id") == member.passage_id)),
                     *name_spans(passage.text, answers, named)]
            doc.text(passage.text, highlight(passage.text, spans))
            doc.tag("</div>")
        doc.tag("</div>")
    n = item["n_passages"]
    return {
        "item_id": item["id"],
        "question": item["question"],
        "query_type": f"{item['type']}: evidence in {n} passage{'s' if n > 1 else ''}",
        "indicator": item["indicator"],
        "grounded": item["grounded_indicator"],
        "logical_form": item["logical_form"],
        "answers": "; ".join(answers),
        "anchors": "; ".join(named),
        "facts": "; ".join(f"{f['subject']} {f['relation']} {f['object']}" for f in facts) or "(not recorded)",
        "spread": [{"passages": f"{n} passages"}] if asks_spread(item) else [],  # one entry: the question shows
        "html": "".join(doc.parts),
        "passages": [s.to_dict() for s in shown],
        "offsets": {region: list(span) for region, span in regions.items()},
    }


def layout_regions(data: dict[str, Any]) -> list[dict[str, Any]]:
    """One ungraded region per passage heading, for the task's prediction (Label Studio loads it
    into each new annotation; the xpaths are left empty so the global offsets place it)."""
    regions = []
    for passage in data["passages"]:
        start, end = data["offsets"][passage["region"]]
        regions.append({
            "id": passage["region"], "from_name": GRADE_CONTROL, "to_name": PASSAGES_OBJECT, "type": "hypertextlabels",
            "value": {"start": "", "end": "", "startOffset": 0, "endOffset": 0,
                      "globalOffsets": {"start": start, "end": end}, "hypertextlabels": [UNGRADED]},
        })
    return regions
