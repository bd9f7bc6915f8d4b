"""`comlq review push DIR`: send the items of a run folder to Label Studio, each task once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotation.client import connect, ensure_project, service_errors, task_ids_by_item
from annotation.results import structure_region
from annotation.tasks import LAYOUT_VERSION, layout_regions, require_passages, task_data
from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError
from pipeline.passages import load_passages
from pipeline.progress import Progress
from pipeline.runfolder import RunFolder
from pipeline.schemas import read_jsonl, write_jsonl


@dataclass(frozen=True)
class PushResult:
    project_id: int
    created: int
    existing: int
    skipped_failed_checks: int
    pooled: int = 0  # pooled candidate passages on the tasks created

    def describe(self) -> str:
        pooled = f", {self.pooled} pooled candidate passages" if self.pooled else ""
        return (f"project {self.project_id}: {self.created} tasks created, {self.existing} already there, "
                f"{self.skipped_failed_checks} items with a failed automatic check not sent{pooled}")


def review_items(run_dir: Path, config: ReviewConfig) -> tuple[list[dict[str, Any]], int]:
    """The items sent to review (check.ok unless include_failed_checks) and how many were left out."""
    path = RunFolder(run_dir).items
    if not path.is_file():
        raise ComlqError(f"{run_dir}: not a run folder (no items.jsonl); give the folder `comlq run` or "
                         "`comlq generate` wrote")
    items = list(read_jsonl(path, "item"))
    counts = Counter(i["id"] for i in items)
    repeated = next((item_id for item_id, n in counts.items() if n > 1), None)
    if repeated is not None:  # the item id is the task's key on the server
        raise ComlqError(f"{path}: item id '{repeated}' appears {counts[repeated]} times")
    chosen = [i for i in items if i["check"]["ok"] or config.include_failed_checks]
    return chosen, len(items) - len(chosen)


@dataclass(frozen=True)
class Pool:
    """Pooled judging: per item, passages the retrievers ranked high that are neither evidence nor
    violating (computed by the caller, pipeline/orchestration/pool.py; plain data here)."""

    candidates: dict[str, list[str]]  # item id -> passage ids, best first
    retrievers: tuple[str, ...] = ()  # named on the task ("retrieved by bm25, dense")


def layout_prediction(item: dict[str, Any], data: dict[str, Any], check: bool) -> dict[str, Any]:
    """The prediction each new annotation starts from: an ungraded region per passage and, with
    `check`, the automatic structure check as a pre-filled answer."""
    result = layout_regions(data)
    if check:
        result.append(structure_region(item["check"]["ok"]))
    return {"model_version": LAYOUT_VERSION, "score": 1.0 if item["check"]["ok"] else 0.0, "result": result}


def _batches(records: list[dict[str, Any]], size: int) -> Iterable[list[dict[str, Any]]]:
    for start in range(0, len(records), size):
        yield records[start:start + size]


def push(run_dir: str | Path, config: ReviewConfig, passages_path: str | Path | None = None,
         predictions: bool | None = None, pool: Pool | None = None) -> PushResult:
    run = RunFolder(run_dir)
    items, left_out = review_items(run.root, config)
    passages = load_passages(Path(passages_path) if passages_path else run.passages)
    pool = pool or Pool({})
    check = predictions if predictions is not None else config.predictions
    for item in items:  # bad input fails before the server is touched
        require_passages(item, passages, pool.candidates.get(item["id"], []))
    client = connect(config)
    with service_errors(config.url, config):
        project = ensure_project(client, config)
        on_server = task_ids_by_item(config, project.id)
        new = []
        for item in items:  # only items not on the server yet are built (a re-push builds none), all before any import
            if item["id"] not in on_server:
                data = task_data(item, passages, pool.candidates.get(item["id"], []), pool.retrievers)
                new.append({"data": data, "predictions": [layout_prediction(item, data, check)]})
        with Progress("review push", total=len(new), unit="task") as bar:
            for batch in _batches(new, config.batch_size):
                response = client.projects.import_tasks(project.id, request=batch, return_task_ids=True)
                on_server.update(zip((t["data"]["item_id"] for t in batch), response.task_ids or []))
                bar.update(len(batch))
    log = [{"item_id": item["id"], "task_id": on_server.get(item["id"])} for item in items]
    write_jsonl(run.review.push_log, log, None)
    return PushResult(project.id, len(new), len(items) - len(new), left_out,
                      sum(len(pool.candidates.get(t["data"]["item_id"], [])) for t in new))
