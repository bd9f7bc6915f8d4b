"""`comlq review pull DIR`: export the annotations, vote, and write reviewed.jsonl and agreement.json."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from annotation.agreement import agreement
from annotation.client import connect, export_tasks, find_project, service_errors, user_emails
from annotation.push import review_items
from annotation.results import read_vote
from annotation.vote import decide
from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError
from pipeline.records import ReviewVote
from pipeline.runfolder import RunFolder
from pipeline.schemas import read_jsonl, write_json, write_jsonl


@dataclass(frozen=True)
class PullResult:
    reviewed: Path
    agreement: Path
    counts: dict[str, int]  # status -> items

    def describe(self) -> str:
        counts = ", ".join(f"{n} {status}" for status, n in sorted(self.counts.items()))
        return f"wrote {self.reviewed} ({counts}) and {self.agreement}"


def _account(user: Any, emails: dict[int, str]) -> str:
    """An exported user field (an id, or an inlined user) as an e-mail."""
    if isinstance(user, dict):  # some export options inline the user
        return user.get("email") or str(user.get("id"))
    return emails.get(user, str(user))


def _annotator(annotation: dict[str, Any], emails: dict[int, str]) -> str:
    """Who submitted an exported annotation (its completed_by)."""
    return _account(annotation.get("completed_by"), emails)


def _editor(annotation: dict[str, Any], emails: dict[int, str]) -> str | None:
    """Who saved an exported annotation last (its updated_by), if Label Studio recorded it."""
    user = annotation.get("updated_by")
    return None if user is None else _account(user, emails)


class EarlierVotes:
    """The votes the last pull wrote (RUN/review/reviewed.jsonl), by annotation id. Each is its
    author's own version: a vote another account edited is written as the author's earlier version
    or not at all. Read only when an edited vote needs it (most pulls never read it)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._votes: dict[int, dict[str, Any]] | None = None

    def find(self, annotation_id: int | None, author: str, task_id: int) -> ReviewVote | None:
        if self._votes is None:
            self._votes = {}
            if self.path is not None and self.path.is_file():
                for record in read_jsonl(self.path, None):
                    self._votes.update((v.get("annotation_id"), v) for v in record["review"]["votes"])
        found = self._votes.get(annotation_id)
        if found is None or found["annotator"] != author or found.get("task_id") != task_id:
            return None  # another server's annotation with the same id, or none
        return ReviewVote.from_dict(found)


def task_votes(task: dict[str, Any], emails: dict[int, str],
               earlier: EarlierVotes | None = None) -> tuple[list[ReviewVote], list[dict[str, Any]]]:
    """Submitted (not skipped) annotations, the latest one per annotator, oldest annotator first;
    and the edits: annotations another account saved last (Label Studio Community lets any
    account change any annotation). An edited vote counts in its author's own version from
    an earlier pull when `earlier` holds one, else it is left out."""
    latest: dict[str, dict[str, Any]] = {}
    for annotation in task.get("annotations") or []:
        if annotation.get("was_cancelled"):
            continue
        who = _annotator(annotation, emails)
        if who not in latest or (annotation.get("id") or 0) > (latest[who].get("id") or 0):
            latest[who] = annotation
    votes, edits = [], []
    for who, annotation in sorted(latest.items(), key=lambda kv: kv[1].get("id") or 0):
        editor = _editor(annotation, emails)
        if editor is None or editor == who:
            votes.append(read_vote(task, annotation, who))
            continue
        own = earlier.find(annotation.get("id"), who, task["id"]) if earlier else None
        if own is not None:
            votes.append(own)
        edits.append({"annotator": who, "editor": editor, "annotation_id": annotation.get("id"),
                      "edited_at": annotation.get("updated_at"), "kept": own is not None})
    return votes, edits


def candidates_of(task: dict[str, Any] | None) -> list[str]:
    """The other-candidate passages a task showed (pooled judging)."""
    return [p["id"] for p in (task or {}).get("data", {}).get("passages", []) if p.get("group") == "candidate"]


def decide_all(items: list[dict[str, Any]], tasks: list[dict[str, Any]], emails: dict[int, str],
               needed: int, earlier: EarlierVotes | None = None) -> list[dict[str, Any]]:
    """reviewed.jsonl's records: every item, decided from its task's votes (pending when it has
    too few, or was never pushed: nothing is dropped)."""
    by_item = {t["data"]["item_id"]: t for t in tasks if "item_id" in t.get("data", {})}
    reviewed = []
    for item in items:
        task = by_item.get(item["id"])
        votes, edits = task_votes(task, emails, earlier) if task else ([], [])
        reviewed.append({"item": item, "review": decide(item, votes, needed, candidates_of(task), edits)})
    return reviewed


class Fetched(NamedTuple):
    tasks: list[dict[str, Any]]  # every task of the review project, with its annotations
    emails: dict[int, str]  # user id -> e-mail
    project: Any  # the project as Label Studio holds it now, settings included


def fetch(config: ReviewConfig) -> Fetched:
    """Every task of the review project with its annotations, the annotators' e-mails, the project."""
    client = connect(config)
    with service_errors(config.url, config):
        project = find_project(client, config.project_title)
        if project is None:
            raise ComlqError(f"no Label Studio project titled '{config.project_title}' at {config.url} "
                             "(run `comlq review push RUN` first, or check review.project_title)")
        return Fetched(export_tasks(client, project.id), user_emails(client), client.projects.get(id=project.id))


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
        tasks, emails, _ = fetch(config)
        reviewed = decide_all(items, tasks, emails, config.annotators_per_item, EarlierVotes(run.review.reviewed))
        write_jsonl(run.review.reviewed, reviewed, "reviewed_item")
        write_json(run.review.agreement, agreement(reviewed, config.annotators_per_item), "agreement")
    return PullResult(run.review.reviewed, run.review.agreement,
                      dict(Counter(r["review"]["status"] for r in reviewed)))
