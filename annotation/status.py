"""`comlq review status RUN`: who is behind, and where each query type stands. Reads the server,
decides in memory like the pull, writes nothing."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.client import settings_changed
from annotation.pull import EarlierVotes, decide_all, fetch
from annotation.push import review_items
from pipeline.config import ReviewConfig
from pipeline.querytypes import TYPE_NAMES
from pipeline.runfolder import RunFolder

STATUSES = ("accepted", "rejected", "pending")


@dataclass
class ReviewStatus:
    tasks: int  # the run's items on the server
    not_pushed: int  # the run's items without a task
    annotators: dict[str, tuple[int, int]] = field(default_factory=dict)  # e-mail -> (done, remaining)
    types: dict[str, Counter[str]] = field(default_factory=dict)  # query type -> status -> items
    edits: list[str] = field(default_factory=list)  # one line per vote another account changed
    settings_changed: list[str] = field(default_factory=list)  # project settings no longer the push's

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
        if self.edits:
            votes = "1 vote" if len(self.edits) == 1 else f"{len(self.edits)} votes"
            lines += ["", f"{votes} edited by another account:", *self.edits]
        if self.settings_changed:
            changed = ", ".join(self.settings_changed)
            lines += ["", f"project settings changed in Label Studio since the push: {changed} "
                          "(`comlq review push RUN` sets them back)"]
        return "\n".join(lines)


def edit_line(item_id: str, edit: dict[str, Any]) -> str:
    counted = ("counted as the author's own version from an earlier pull" if edit["kept"]
               else "left out (no earlier pull holds the author's own version)")
    return (f"  item {item_id}: {edit['annotator']}'s vote (annotation {edit['annotation_id']}) was saved by "
            f"{edit['editor']} at {edit['edited_at']}; {counted}")


def review_status(run_dir: str | Path, config: ReviewConfig) -> ReviewStatus:
    """Per annotator: the run's tasks they submitted, and those still short of votes that they
    have not done; per query type: accepted, rejected and pending items; every vote edited by
    another account, as the pull would count it; the project settings changed since the push."""
    items, _ = review_items(Path(run_dir), config)
    ids = {item["id"] for item in items}
    tasks, emails, project = fetch(config)
    tasks = [t for t in tasks if t.get("data", {}).get("item_id") in ids]  # the project may hold other runs
    earlier = EarlierVotes(RunFolder(run_dir).review.reviewed)  # what the pull would count an edited vote as
    reviewed = decide_all(items, tasks, emails, config.annotators_per_item, earlier)
    on_server = {t["data"]["item_id"] for t in tasks}
    # item id -> who submitted it (an edited vote's author too: they did the task)
    voters = {r["item"]["id"]: {v["annotator"] for v in r["review"]["votes"]}
              | {e["annotator"] for e in r["review"].get("edits", [])}
              for r in reviewed if r["item"]["id"] in on_server}
    short = [item_id for item_id, who in voters.items() if len(who) < config.annotators_per_item]
    people = sorted({*emails.values(), *(w for who in voters.values() for w in who)} - {config.admin_email})
    people += sorted({config.admin_email} & {w for who in voters.values() for w in who})  # the admin, if it voted
    status = ReviewStatus(tasks=len(tasks), not_pushed=len(ids) - len(tasks))
    for person in people:
        done = sum(person in who for who in voters.values())
        status.annotators[person] = (done, sum(person not in voters[item_id] for item_id in short))
    by_type: dict[str, Counter[str]] = {}
    for record in reviewed:
        by_type.setdefault(record["item"]["type"], Counter())[record["review"]["status"]] += 1
    status.types = {t: by_type[t] for t in TYPE_NAMES if t in by_type}
    status.edits = [edit_line(r["item"]["id"], e) for r in reviewed for e in r["review"].get("edits", [])]
    status.settings_changed = settings_changed(project, config)
    return status
