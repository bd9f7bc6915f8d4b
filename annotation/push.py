"""`comlq review push DIR`: send the items of a run folder to Label Studio, each task once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError
from pipeline.passages import load_passages
from pipeline.records import Passage
from pipeline.runfolder import RunFolder
from pipeline.schemas import read_jsonl, write_jsonl

from annotation.client import connect, ensure_project, service_errors, task_ids_by_item
from annotation.results import structure_region


@dataclass(frozen=True)
class PushResult:
    project_id: int
    created: int
    existing: int
    skipped_failed_checks: int

    def describe(self) -> str:
        return (f"project {self.project_id}: {self.created} tasks created, {self.existing} already there, "
                f"{self.skipped_failed_checks} items with a failed automatic check not sent")


def review_items(run_dir: Path, config: ReviewConfig) -> tuple[list[dict[str, Any]], int]:
    """The items sent to review (check.ok unless include_failed_checks) and how many were left out."""
    path = RunFolder(run_dir).items
    items = list(read_jsonl(path, "item"))
    counts = Counter(i["id"] for i in items)
    repeated = next((item_id for item_id, n in counts.items() if n > 1), None)
    if repeated is not None:  # the item id is the task's key on the server
        raise ComlqError(f"{path}: item id '{repeated}' appears {counts[repeated]} times")
    chosen = [i for i in items if i["check"]["ok"] or config.include_failed_checks]
    return chosen, len(items) - len(chosen)


def shown_passages(item: dict[str, Any]) -> list[str]:
    """The passages annotators grade: the source passages, then any other evidence passage."""
    ids = list(dict.fromkeys(item["source_passages"]))
    return ids + [e["passage_id"] for e in item["evidence"] if e["passage_id"] not in ids]


def task_data(item: dict[str, Any], passages: dict[str, Passage]) -> dict[str, Any]:
    shown = []
    for n, pid in enumerate(shown_passages(item), start=1):
        if pid not in passages:
            raise ComlqError(f"item {item['id']}: passage '{pid}' is not in the passages file")
        passage = passages[pid]
        shown.append({"id": pid, "text": f"[{n}] {passage.title}: {passage.text}"})
    n = item["n_passages"]
    return {
        "item_id": item["id"],
        "query_type": f"{item['type']} ({n} passage{'s' if n > 1 else ''})",
        "question": item["question"],
        "indicator": item["indicator"],
        "grounded": item["grounded_indicator"],
        "logical_form": item["logical_form"],
        "answers": "; ".join(item["answers"]),
        "spread": [{"passages": f"{n} passages"}] if n > 1 else [],  # one entry: the question shows
        "passages": shown,
    }


def check_prediction(item: dict[str, Any]) -> dict[str, Any]:
    """The automatic structure check as a pre-filled answer to the structure question."""
    return {
        "model_version": "automatic-check",
        "score": 1.0 if item["check"]["ok"] else 0.0,
        "result": [structure_region(item["check"]["ok"])],
    }


def _batches(records: list[dict[str, Any]], size: int) -> Iterable[list[dict[str, Any]]]:
    for start in range(0, len(records), size):
        yield records[start:start + size]


def push(run_dir: str | Path, config: ReviewConfig, passages_path: str | Path | None = None,
         predictions: bool | None = None) -> PushResult:
    run_dir = Path(run_dir)
    items, left_out = review_items(run_dir, config)
    passages = load_passages(Path(passages_path) if passages_path else RunFolder(run_dir).passages)
    tasks = [{"data": task_data(item, passages)} for item in items]  # all built first: bad input fails before any import
    if predictions if predictions is not None else config.predictions:
        for task, item in zip(tasks, items):
            task["predictions"] = [check_prediction(item)]
    client = connect(config)
    with service_errors(config.url, config):
        project = ensure_project(client, config)
        on_server = task_ids_by_item(config, project.id)
        new = [t for t in tasks if t["data"]["item_id"] not in on_server]
        for batch in _batches(new, config.batch_size):
            response = client.projects.import_tasks(project.id, request=batch, return_task_ids=True)
            on_server.update(zip((t["data"]["item_id"] for t in batch), response.task_ids or []))
    log = [{"item_id": item["id"], "task_id": on_server.get(item["id"])} for item in items]
    write_jsonl(RunFolder(run_dir).review.push_log, log, None)
    return PushResult(project.id, len(new), len(tasks) - len(new), left_out)
