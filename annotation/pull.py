"""`comlq review pull DIR`: export the annotations, vote, and write reviewed.jsonl and agreement.json."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError
from pipeline.records import ReviewVote
from pipeline.runfolder import RunFolder
from pipeline.schemas import write_json, write_jsonl

from annotation.agreement import agreement
from annotation.client import connect, export_tasks, find_project, service_errors, user_emails
from annotation.push import review_items
from annotation.results import read_vote
from annotation.vote import decide


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


def pull(run_dir: str | Path, config: ReviewConfig) -> PullResult:
    run_dir = Path(run_dir)
    items, _ = review_items(run_dir, config)
    client = connect(config)
    with service_errors(config.url, config):
        project = find_project(client, config.project_title)
        if project is None:
            raise ComlqError(f"no Label Studio project titled '{config.project_title}' (run `comlq review push` first)")
        tasks = export_tasks(client, project.id)
        emails = user_emails(client)
    votes = {t["data"]["item_id"]: task_votes(t, emails) for t in tasks if "item_id" in t.get("data", {})}
    # every reviewed item is written: one never pushed or not yet annotated is pending, not dropped
    reviewed = [{"item": item, "review": decide(item, votes.get(item["id"], []), config.annotators_per_item)}
                for item in items]
    out = RunFolder(run_dir).review
    write_jsonl(out.reviewed, reviewed, "reviewed_item")
    write_json(out.agreement, agreement(reviewed, config.annotators_per_item), "agreement")
    return PullResult(out.reviewed, out.agreement,
                      dict(Counter(r["review"]["status"] for r in reviewed)))
