"""`comlq review pull DIR`: export the annotations, vote, and write reviewed.jsonl and agreement.json."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotation.agreement import agreement
from annotation.client import connect, export_tasks, find_project, service_errors, user_emails
from annotation.push import review_items
from annotation.results import read_vote
from annotation.vote import decide
from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError
from pipeline.records import ReviewVote
from pipeline.runfolder import RunFolder
from pipeline.schemas import write_json, write_jsonl


@dataclass(frozen=True)
class PullResult:
    reviewed: Path
    agreement: Path
    counts: dict[str, int]  # status -> items

    def describe(self) -> str:
        counts = ", ".join(f"{n} {status}" for status, n in sorted(self.counts.items()))
        return f"wrote {self.reviewed} ({counts}) and {self.agreement}"


def _annotator(annotation: dict[str, Any], emails: dict[int, str]) -> str:
    who = annotation.get("completed_by")
    if isinstance(who, dict):  # some export options inline the user
        return who.get("email") or str(who.get("id"))
    return emails.get(who, str(who))


def task_votes(task: dict[str, Any], emails: dict[int, str]) -> list[ReviewVote]:
    """Submitted (not skipped) annotations, the latest one per annotator, oldest annotator first."""
    latest: dict[str, tuple[int, ReviewVote]] = {}
    for annotation in task.get("annotations") or []:
        if annotation.get("was_cancelled"):
            continue
        who = _annotator(annotation, emails)
        key = annotation.get("id") or 0
        if who not in latest or key > latest[who][0]:
            latest[who] = (key, read_vote(task, annotation, who))
    return [vote for _, vote in sorted(latest.values(), key=lambda kv: kv[0])]


def candidates_of(task: dict[str, Any] | None) -> list[str]:
    """The other-candidate passages a task showed (pooled judging)."""
    return [p["id"] for p in (task or {}).get("data", {}).get("passages", []) if p.get("group") == "candidate"]


def decide_all(items: list[dict[str, Any]], tasks: list[dict[str, Any]], emails: dict[int, str],
               needed: int) -> list[dict[str, Any]]:
    """reviewed.jsonl's records: every item, decided from its task's votes (pending when it has
    too few, or was never pushed: nothing is dropped)."""
    by_item = {t["data"]["item_id"]: t for t in tasks if "item_id" in t.get("data", {})}
    reviewed = []
    for item in items:
        task = by_item.get(item["id"])
        votes = task_votes(task, emails) if task else []
        reviewed.append({"item": item, "review": decide(item, votes, needed, candidates_of(task))})
    return reviewed


def fetch(config: ReviewConfig) -> tuple[list[dict[str, Any]], dict[int, str]]:
    """Every task of the review project with its annotations, and the annotators' e-mails."""
    client = connect(config)
    with service_errors(config.url, config):
        project = find_project(client, config.project_title)
        if project is None:
            raise ComlqError(f"no Label Studio project titled '{config.project_title}' at {config.url} "
                             "(run `comlq review push RUN` first, or check review.project_title)")
        return export_tasks(client, project.id), user_emails(client)


@contextmanager
def collector_paused() -> Iterator[None]:
    """No garbage collection inside: the export's millions of parsed objects and the votes read from
    them live until the pull ends, so the collections it triggers free nothing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def pull(run_dir: str | Path, config: ReviewConfig) -> PullResult:
    run = RunFolder(run_dir)
    items, _ = review_items(run.root, config)
    with collector_paused():
        tasks, emails = fetch(config)
        reviewed = decide_all(items, tasks, emails, config.annotators_per_item)
        write_jsonl(run.review.reviewed, reviewed, "reviewed_item")
        write_json(run.review.agreement, agreement(reviewed, config.annotators_per_item), "agreement")
    return PullResult(run.review.reviewed, run.review.agreement,
                      dict(Counter(r["review"]["status"] for r in reviewed)))
