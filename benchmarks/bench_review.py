"""Time `review push` and `review pull` of 5,000 tasks, each with 5 pooled candidate passages,
against a real Label Studio server.

Goal: under 15 s each. The script starts its own server (port $COMLQ_BENCH_LS_PORT, default
18090, temporary data dir; the server venv is installed first when missing), pushes 5,000 items
(copies of the test fixtures with new ids, 5 pooled passages each, given as plain data as the
push gets them), then pulls a project holding the same 5,000 tasks with three annotators' votes
on every question and passage. Those 15,000 annotations are imported with the tasks (Label
Studio keeps `completed_by`), because submitting them one request at a time would take minutes
and is not what pull does. The figures before pooled judging and the new questions (README,
quiet machine) are printed next to the new ones.

Each step prints its wall time and the CPU time it cost this process (the client) and the
server process. On a shared machine the wall time grows with the load; client + server CPU is
what the step costs on a quiet one (the client waits while the server works, so they add up).

    .venv/bin/python benchmarks/bench_review.py [--tasks 5000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from annotation import server  # noqa: E402
from annotation.client import connect, ensure_project, export_tasks, find_project  # noqa: E402
from annotation.pull import pull  # noqa: E402
from annotation.push import Pool, push, review_items  # noqa: E402
from annotation.results import regions  # noqa: E402
from annotation.tasks import task_data  # noqa: E402
from annotation.users import add_annotator  # noqa: E402
from pipeline.config import ReviewConfig  # noqa: E402
from pipeline.passages import load_passages  # noqa: E402
from pipeline.records import REVIEW_QUESTIONS, ReviewVote  # noqa: E402
from pipeline.schemas import read_jsonl, write_jsonl  # noqa: E402

FIXTURES = ROOT / "tests" / "review" / "fixtures"
GOAL_SECONDS = 15.0
POOLED = 5
# before pooled judging and the answers/comment questions (README, load average 1)
OLD = {"push": 1.6, "re-push": 2.2, "pull": 10.5, "export": 9.0}
# with pooling and the new questions, before the export snapshot was encoded in C (load average 1)
SLOW_EXPORT = {"push": 10.2, "pull": 19.3, "export": 17.1}
# 2026-12-02, before the garbage collector was paused in export, import and pull (wall time)
GC_ON = {"push": 10.5, "pull": 14.9, "export": 12.9}


@dataclass
class Cost:
    wall: float = 0.0
    client: float = 0.0  # CPU seconds of this process
    server: float = 0.0  # CPU seconds of the Label Studio process

    def __str__(self) -> str:
        return (f"{self.wall:.1f} s wall (CPU: client {self.client:.1f} s + server {self.server:.1f} s "
                f"= {self.client + self.server:.1f} s)")

    def verdict(self) -> str:
        quiet = self.client + self.server
        return (f"goal < {GOAL_SECONDS:.0f} s: {'met' if self.wall < GOAL_SECONDS else 'MISSED'} in wall time, "
                f"{'met' if quiet < GOAL_SECONDS else 'MISSED'} in CPU time")


def _cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system + times.children_user + times.children_system


@contextmanager
def measured(server_pid: int) -> Iterator[Cost]:
    me, studio = psutil.Process(), psutil.Process(server_pid)
    cost = Cost()
    wall, client, server_cpu = time.perf_counter(), _cpu(me), _cpu(studio)
    yield cost
    cost.wall, cost.client, cost.server = (time.perf_counter() - wall, _cpu(me) - client, _cpu(studio) - server_cpu)


def make_run(run: Path, n: int) -> None:
    """n checked items cycling through the fixture items, with fresh ids."""
    templates = [i for i in read_jsonl(FIXTURES / "items.jsonl", "item") if i["check"]["ok"]]
    items = [templates[k % len(templates)] | {"id": f"bench-{k:05d}"} for k in range(n)]
    write_jsonl(run / "items.jsonl", items, "item")
    (run / "passages.jsonl").write_bytes((FIXTURES / "passages.jsonl").read_bytes())


def make_pool(run: Path) -> Pool:
    """5 passages per item that are neither its evidence nor violating (what pooling would add)."""
    passages = list(load_passages(run / "passages.jsonl"))
    pool = {}
    for item in read_jsonl(run / "items.jsonl", "item"):
        own = {e["passage_id"] for e in item["evidence"]} | set(item["violating"])
        pool[item["id"]] = [p for p in passages if p not in own][:POOLED]
    return Pool(pool, ("bm25", "dense"))


def random_vote(rng: random.Random, data: dict, who: str) -> ReviewVote:
    answers = {q: rng.choice(("yes", "yes", "yes", "no", "unsure")) for q in REVIEW_QUESTIONS}
    if not data["spread"]:
        answers["evidence_spread"] = None
    value = {q: None if a in (None, "unsure") else a == "yes" for q, a in answers.items()}
    return ReviewVote(data["item_id"], who, value["structure_ok"], value["evidence_spread"],
                      {p["id"]: rng.choice((0, 1, 1, 2)) for p in data["passages"]},
                      answers_correct=value["answers_correct"], answers_complete=value["answers_complete"],
                      trivial=value["trivial"], unsure=tuple(q for q, a in answers.items() if a == "unsure"),
                      comment="a comment" if rng.random() < 0.1 else None)


def import_annotated(config: ReviewConfig, run: Path, annotators: dict[str, int], pool: Pool) -> None:
    """The run's tasks, each with one random vote per annotator, in a project of their own."""
    rng = random.Random(13)
    client = connect(config)
    project = ensure_project(client, config)
    passages = load_passages(run / "passages.jsonl")
    tasks = []
    for item in review_items(run, config)[0]:
        data = task_data(item, passages, pool.candidates[item["id"]], pool.retrievers)
        tasks.append({"data": data, "annotations": [
            {"completed_by": user_id, "result": regions(data, random_vote(rng, data, email))}
            for email, user_id in annotators.items()]})
    for start in range(0, len(tasks), config.batch_size):
        client.projects.import_tasks(project.id, request=tasks[start:start + config.batch_size])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=5000)
    args = parser.parse_args()
    os.environ.setdefault(server.VENV_ENV, str(ROOT / ".venv-ls"))
    os.environ["COMLQ_BENCH_LS_TOKEN"] = secrets.token_hex(20)
    with tempfile.TemporaryDirectory() as scratch:
        port = int(os.environ.get("COMLQ_BENCH_LS_PORT", "18090"))
        config = ReviewConfig(url=f"http://127.0.0.1:{port}", token_env="COMLQ_BENCH_LS_TOKEN",
                              data_dir=str(Path(scratch) / "ls"), project_title="bench push")
        run = Path(scratch) / "run"
        run.mkdir()
        make_run(run, args.tasks)
        pool = make_pool(run)
        server.start(config, log=print)
        try:
            pid = int(server.status(config)["pid"])  # type: ignore[call-overload]
            with measured(pid) as cost:
                result = push(run, config, pool=pool)
            print(f"push: {result.created} tasks, {result.pooled} pooled passages, in {cost} "
                  f"(before: {OLD['push']} s wall without pooling, {SLOW_EXPORT['push']} s with it, "
                  f"{GC_ON['push']} s with the collector on); {cost.verdict()}")

            with measured(pid) as cost:
                again = push(run, config, pool=pool)
            print(f"re-push (nothing new): {again.existing} found in {cost} (before: {OLD['re-push']} s)")

            client = connect(config)
            emails = [f"bench-{k}@example.org" for k in range(3)]
            for email in emails:
                add_annotator(config, email)
            ids = {u.email: u.id for u in client.users.list() if u.email in emails}
            annotated = replace(config, project_title="bench pull")
            import_annotated(annotated, run, ids, pool)

            with measured(pid) as export_cost:
                export_tasks(client, find_project(client, annotated.project_title).id)
            with measured(pid) as cost:
                pulled = pull(run, annotated)
            agreement = json.loads(pulled.agreement.read_text())
            print(f"pull: {args.tasks} tasks, {3 * args.tasks} annotations in {cost} "
                  f"(before: {OLD['pull']} s wall without pooling, {SLOW_EXPORT['pull']} s with it, "
                  f"{GC_ON['pull']} s with the collector on); {cost.verdict()}")
            print(f"      of which Label Studio's export alone takes about {export_cost} "
                  f"(before: {OLD['export']} s, {SLOW_EXPORT['export']} s, {GC_ON['export']} s)")
            print(f"      statuses {pulled.counts}; structure kappa "
                  f"{agreement['overall']['structure_ok']['fleiss_kappa']} (random votes: near 0)")
        finally:
            server.stop(config, log=print)
    # the machine may be shared: the load average says how much of it the numbers had
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average (1, 5, 15 min): {load} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
