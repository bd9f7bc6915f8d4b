"""Label Studio result regions <-> review votes, by the control names of labeling_config.xml.

`structure` answers the structure question, `evidence_0` the evidence question (only present
for multi-passage tasks), `relevance_<i>` grades the task's i-th passage (task data `passages`).
"""

from __future__ import annotations

from typing import Any

from pipeline.records import ReviewVote


def _region(from_name: str, to_name: str, choice: str) -> dict[str, Any]:
    return {"from_name": from_name, "to_name": to_name, "type": "choices", "value": {"choices": [choice]}}


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def structure_region(structure_ok: bool) -> dict[str, Any]:
    return _region("structure", "question", _yes_no(structure_ok))


def regions(data: dict[str, Any], structure_ok: bool, evidence_spread: bool | None,
            relevance: dict[str, int]) -> list[dict[str, Any]]:
    """The result an annotator submits for a task with this data (used by scripts, tests and benchmarks)."""
    result = [structure_region(structure_ok)]
    if data["spread"] and evidence_spread is not None:
        result.append(_region("evidence_0", "spread_0", _yes_no(evidence_spread)))
    for idx, passage in enumerate(data["passages"]):
        if passage["id"] in relevance:
            result.append(_region(f"relevance_{idx}", f"passage_{idx}", str(relevance[passage["id"]])))
    return result


def _choice(result: list[dict[str, Any]], name: str) -> str | None:
    for region in result:
        if region.get("from_name") == name and region.get("value", {}).get("choices"):
            return region["value"]["choices"][0]
    return None


def _bool(value: str | None) -> bool | None:
    return None if value is None else value == "yes"


def read_vote(task: dict[str, Any], annotation: dict[str, Any], annotator: str) -> ReviewVote:
    """One annotator's judgement of an exported task."""
    result = annotation.get("result") or []
    data = task["data"]
    relevance = {}
    for idx, passage in enumerate(data["passages"]):
        grade = _choice(result, f"relevance_{idx}")
        if grade is not None:
            relevance[passage["id"]] = int(grade)
    return ReviewVote(
        item_id=data["item_id"], annotator=annotator, structure_ok=_bool(_choice(result, "structure")),
        evidence_spread=_bool(_choice(result, "evidence_0")) if data["spread"] else None,
        relevance=relevance, task_id=task["id"], annotation_id=annotation.get("id"),
        created_at=annotation.get("created_at"),
    )
