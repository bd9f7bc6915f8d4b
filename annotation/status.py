"""`comlq review status RUN`: who is behind, and where each query type stands. Reads the server,
decides in memory like the pull, writes nothing."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from annotation.pull import decide_all, fetch, task_votes
from annotation.push import review_items
from pipeline.config import ReviewConfig
from pipeline.querytypes import TYPE_NAMES

STATUSES = ("accepted", "rejected", "pending")


@dataclass
class ReviewStatus:
    tasks: int  # the run's items on the server
    not_pushed: int  # the run's items without a task
    annotators: dict[str, tuple[int, int]] = field(default_factory=dict)  # e-mail -> (done, remaining)
    types: dict[str, Counter[str]] = field(default_factory=dict)  # query type -> status -> items

    def table(self) -> str:
        width = max([len("annotator"), *map(len, self.annotators)])
        lines = [f"{'annotator':<{width}}  {'done':>5}  {'remaining':>9}"]
        lines += [f"{who:<{width}}  {done:>5}  {left:>9}" for who, (done, left) in self.annotators.items()]
        lines += ["", f"{'type':<5}  " + "  ".join(f"{s:>8}" for s in STATUSES)]
        lines += [f"{t:<5}  " + "  ".join(f"{counts[s]:>8}" for s in STATUSES) for t, counts in self.types.items()]
        total = sum(self.types.values(), Counter())
        lines.append(f"{'all':<5}  " + "  ".join(f"{total[s]:>8}" for s in STATUSES))
        if self.not_pushed:
            lines.append(f"{self.not_pushed} items of the run are not on the server (push them: comlq review push RUN)")
        return "\n".join(lines)


def review_status(run_dir: str | Path, config: ReviewConfig) -> ReviewStatus:
    """Per annotator: the run's tasks they submitted, and those still short of votes that they
    have not done; per query type: accepted, rejected and pending items."""
    items, _ = review_items(Path(run_dir), config)
    ids = {item["id"] for item in items}
    tasks, emails = fetch(config)
    tasks = [t for t in tasks if t.get("data", {}).get("item_id") in ids]  # the project may hold other runs
    reviewed = decide_all(items, tasks, emails, config.annotators_per_item)
    voters = {t["id"]: {v.annotator for v in task_votes(t, emails)} for t in tasks}
    short = [task_id for task_id, who in voters.items() if len(who) < config.annotators_per_item]
    people = sorted({*emails.values(), *(w for who in voters.values() for w in who)} - {config.admin_email})
    people += sorted({config.admin_email} & {w for who in voters.values() for w in who})  # the admin, if it voted
    status = ReviewStatus(tasks=len(tasks), not_pushed=len(ids) - len(tasks))
    for person in people:
        done = sum(person in who for who in voters.values())
        status.annotators[person] = (done, sum(person not in voters[task_id] for task_id in short))
    by_type: dict[str, Counter[str]] = {}
    for record in reviewed:
        by_type.setdefault(record["item"]["type"], Counter())[record["review"]["status"]] += 1
    status.types = {t: by_type[t] for t in TYPE_NAMES if t in by_type}
    return status
