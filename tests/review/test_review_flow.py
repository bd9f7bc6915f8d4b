"""The review round as Prefect flows against the real Label Studio server: build_benchmark pushes
and rests in AwaitingReview; collect-review waits while votes are missing, then exports only the
accepted items and evaluates, once. (tests/flows/test_review_wait.py covers the same flows
against a fake server, with the deadline.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotation.client import connect, export_tasks, find_project
from pipeline.config import ReviewConfig
from pipeline.schemas import read_jsonl

pytestmark = pytest.mark.labelstudio

ANNOTATORS = ("flow-a@example.org", "flow-b@example.org", "flow-c@example.org")
TYPES = ["1p", "2i", "2in"]  # one and two passages, with and without negation


def line_config(path: Path, review: ReviewConfig) -> Path:
    """A tiny line reviewed on the test server: 300 passages, one item per type, every accepted
    item in the test split (the one evaluated), BM25 only."""
    path.write_text(f"""[passages]
source = "sample"
limit = 300

[generate]
generator = "kg"
per_type = 1

[export]
ratios = [0.0, 0.0, 1.0]

[evaluate]
retrievers = ["bm25"]

[review]
url = "{review.url}"
token_env = "{review.token_env}"
data_dir = "{review.data_dir}"
project_title = "{review.project_title}"
""", encoding="utf-8")
    return path


def statuses(run: Path) -> dict[str, str]:
    reviewed = read_jsonl(run / "review" / "reviewed.jsonl", "reviewed_item")
    return {r["item"]["id"]: r["review"]["status"] for r in reviewed}


def test_build_pushes_and_waits_collect_exports_the_accepted_items_once(ls, prefect_harness, tmp_path, votes):
    """The run lives outside the collect's runs_root, and the collect is given no configuration:
    it finds the run in the review-run registry, with the configuration the run was made with."""
    from pipeline.orchestration.flows import AWAITING_REVIEW, build_benchmark, collect_review_flow

    review = ls.project("review flow")
    config = str(line_config(tmp_path / "line.toml", review))
    runs = tmp_path / "runs"  # empty: the scheduled collect's runs_root
    run = tmp_path / "elsewhere" / "reviewed"

    state = build_benchmark(run_dir=str(run), config=config, types=TYPES, review=True, return_state=True)
    assert state.is_completed() and state.name == AWAITING_REVIEW
    items = [r for r in read_jsonl(run / "items.jsonl", "item") if r["check"]["ok"]]
    assert {i["type"] for i in items} == set(TYPES)
    client = connect(review)
    tasks = export_tasks(client, find_project(client, review.project_title).id)
    assert sorted(t["data"]["item_id"] for t in tasks) == sorted(i["id"] for i in items)
    assert f"({len(items)} tasks)" in state.message and not (run / "export").exists()
    assert f"comlq review collect {run} --config {config}" in state.message
    pooled = [p for t in tasks for p in t["data"]["passages"] if p["group"] == "candidate"]
    assert len(pooled) >= 5 * len(items)  # each item's top 5 of BM25 and of dense, minus its own passages

    # two of three votes in: the collect flow waits, every item pending
    rejected = items[0]["id"]
    ls.annotate(review, votes(items, ANNOTATORS[:2], rejected, ANNOTATORS[0]))
    state = collect_review_flow(runs_root=str(runs), return_state=True)
    (waiting,) = state.result()["waiting"]
    assert state.name == AWAITING_REVIEW and waiting.startswith(f"{run} ({len(items)} pending, deadline in 7")
    assert set(statuses(run).values()) == {"pending"} and not (run / "export").exists()

    # the third annotator: the votes are decided, the accepted items exported and evaluated
    ls.annotate(review, votes(items, ANNOTATORS[2:], rejected, ANNOTATORS[0]))
    state = collect_review_flow(runs_root=str(runs), return_state=True)
    assert state.name == "Completed" and state.result() == {"finished": [str(run)], "waiting": []}
    assert statuses(run) == {i["id"]: "rejected" if i["id"] == rejected else "accepted" for i in items}
    beir = run / "export" / "beir"
    accepted = {i["id"] for i in items} - {rejected}
    assert {q["_id"] for q in read_jsonl(beir / "queries.jsonl", None)} == accepted
    qrels = {line.split("\t")[0] for tsv in (beir / "qrels").glob("*.tsv") for line in tsv.read_text().splitlines()[1:]}
    assert qrels == accepted
    metrics = json.loads((run / "report" / "metrics.json").read_text())
    assert list(metrics["retrievers"]) == ["bm25"]

    # collected: nothing pulled, exported or evaluated again
    outputs = [run / "review" / "reviewed.jsonl", beir / "queries.jsonl", run / "report" / "metrics.json",
               *(run / ".comlq").glob("*.json")]
    before = {path: path.stat().st_mtime_ns for path in outputs}
    state = collect_review_flow(runs_root=str(runs), return_state=True)
    assert state.name == "Completed" and state.result() == {"finished": [], "waiting": []}
    assert {path: path.stat().st_mtime_ns for path in outputs} == before
