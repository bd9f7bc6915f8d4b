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
from dataclasses import replace
from pathlib import Path

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
        server.start(config)
        try:
            started = time.perf_counter()
            result = push(run, config, pool=pool)
            push_s = time.perf_counter() - started
            print(f"push: {result.created} tasks, {result.pooled} pooled passages, in {push_s:.1f} s "
                  f"({result.created / push_s:.0f} tasks/s; before: {OLD['push']} s without pooling); "
                  f"goal < {GOAL_SECONDS:.0f} s: {'met' if push_s < GOAL_SECONDS else 'MISSED'}")

            started = time.perf_counter()
            again = push(run, config, pool=pool)
            print(f"re-push (nothing new): {again.existing} found in {time.perf_counter() - started:.1f} s "
                  f"(before: {OLD['re-push']} s)")

            client = connect(config)
            emails = [f"bench-{k}@example.org" for k in range(3)]
            for email in emails:
                add_annotator(config, email)
            ids = {u.email: u.id for u in client.users.list() if u.email in emails}
            annotated = replace(config, project_title="bench pull")
            import_annotated(annotated, run, ids, pool)

            started = time.perf_counter()
            export_tasks(client, find_project(client, annotated.project_title).id)
            export_s = time.perf_counter() - started
            started = time.perf_counter()
            pulled = pull(run, annotated)
            pull_s = time.perf_counter() - started
            agreement = json.loads(pulled.agreement.read_text())
            print(f"pull: {args.tasks} tasks, {3 * args.tasks} annotations in {pull_s:.1f} s "
                  f"({args.tasks / pull_s:.0f} tasks/s; before: {OLD['pull']} s); goal < {GOAL_SECONDS:.0f} s: "
                  f"{'met' if pull_s < GOAL_SECONDS else 'MISSED'}")
            print(f"      of which Label Studio's export alone takes about {export_s:.1f} s "
                  f"(before: {OLD['export']} s)")
            print(f"      statuses {pulled.counts}; structure kappa "
                  f"{agreement['overall']['structure_ok']['fleiss_kappa']} (random votes: near 0)")
        finally:
            server.stop(config)
    # the machine may be shared: the load average says how much of it the numbers had
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average (1, 5, 15 min): {load} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
