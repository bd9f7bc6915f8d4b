"""Label Studio result regions <-> review votes, by the control names of labeling_config.xml.

`structure`, `answers_correct`, `answers_complete`, `trivial` answer yes/no/unsure about the item;
`evidence_0` the evidence-spread question (only where asked: annotation.tasks.asks_spread); `comment` is free text.
A passage's grade is the label (0, 1, 2, or "?" for not graded) of its heading region in the
`grade` control, found by the region id the layout prediction gave it (annotation/tasks.py).
"""

from __future__ import annotations

from typing import Any

from annotation.tasks import GRADE_CONTROL, PASSAGES_OBJECT, UNGRADED, layout_regions
from pipeline.records import ReviewVote

# vote field -> (control name, object it labels); evidence_0 exists only where the spread is asked
CONTROLS = {
    "structure_ok": ("structure", "question"),
    "evidence_spread": ("evidence_0", "spread_0"),
    "answers_correct": ("answers_correct", "question"),
    "answers_complete": ("answers_complete", "question"),
    "trivial": ("trivial", "question"),
}


def _region(from_name: str, to_name: str, choice: str) -> dict[str, Any]:
    return {"from_name": from_name, "to_name": to_name, "type": "choices", "value": {"choices": [choice]}}


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def structure_region(structure_ok: bool) -> dict[str, Any]:
    return _region("structure", "question", _yes_no(structure_ok))


def regions(data: dict[str, Any], vote: ReviewVote) -> list[dict[str, Any]]:
    """The result an annotator submits to get `vote` on a task with this data (what the browser
    produces; used by scripts, tests and benchmarks to annotate through the API)."""
    result = []
    for question, (control, to_name) in CONTROLS.items():
        answer = vote.answer(question)
        if answer is not None and (question != "evidence_spread" or data["spread"]):
            result.append(_region(control, to_name, answer))
    by_region = {p["region"]: p["id"] for p in data["passages"]}
    for region in layout_regions(data):
        grade = vote.relevance.get(by_region[region["id"]])
        region["value"]["hypertextlabels"] = [UNGRADED if grade is None else str(grade)]
        result.append(region)
    if vote.comment:
        result.append({"from_name": "comment", "to_name": "question", "type": "textarea",
                       "value": {"text": [vote.comment]}})
    return result


def _choice(result: list[dict[str, Any]], name: str) -> str | None:
    for region in result:
        if region.get("from_name") == name and region.get("value", {}).get("choices"):
            return region["value"]["choices"][0]
    return None


def _grades(result: list[dict[str, Any]]) -> dict[str, str]:
    """Region id -> its label, for the passage regions of the grade control."""
    grades = {}
    for region in result:
        if region.get("from_name") == GRADE_CONTROL and region.get("to_name") == PASSAGES_OBJECT:
            labels = region.get("value", {}).get("hypertextlabels") or [UNGRADED]
            grades[region.get("id")] = labels[0]
    return grades


def _comment(result: list[dict[str, Any]]) -> str | None:
    texts = [t for r in result if r.get("from_name") == "comment" for t in r.get("value", {}).get("text") or []]
    return "\n".join(t.strip() for t in texts if t.strip()) or None


def read_vote(task: dict[str, Any], annotation: dict[str, Any], annotator: str) -> ReviewVote:
    """One annotator's judgement of an exported task."""
    result = annotation.get("result") or []
    data = task["data"]
    answers = {q: _choice(result, control) for q, (control, _) in CONTROLS.items()}
    if not data["spread"]:
        answers["evidence_spread"] = None
    labels = _grades(result)
    relevance, ungraded = {}, []
    for passage in data["passages"]:
        label = labels.get(passage["region"])
        if label in ("0", "1", "2"):
            relevance[passage["id"]] = int(label)
        else:  # left at "?", or the region was deleted
            ungraded.append(passage["id"])
    yes_no = {q: None if a in (None, "unsure") else a == "yes" for q, a in answers.items()}
    return ReviewVote(
        item_id=data["item_id"], annotator=annotator, structure_ok=yes_no["structure_ok"],
        evidence_spread=yes_no["evidence_spread"], relevance=relevance, task_id=task["id"],
        annotation_id=annotation.get("id"), created_at=annotation.get("created_at"),
        answers_correct=yes_no["answers_correct"], answers_complete=yes_no["answers_complete"],
        trivial=yes_no["trivial"], unsure=tuple(q for q, a in answers.items() if a == "unsure"),
        comment=_comment(result), ungraded=tuple(ungraded),
    )
