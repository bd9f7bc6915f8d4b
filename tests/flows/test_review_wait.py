"""The review round as flows: the parent flow ends in AwaitingReview after its push; the
collect flow waits until every task has its votes (or the deadline passed), then exports and
evaluates, once. Label Studio itself is tested in tests/review; here its push and pull
functions are replaced by a fake server that hands out votes when told to."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from annotation.pull import PullResult
from annotation.push import PushResult


class FakeLabelStudio:
    """push/pull with the signatures of annotation.push.push and annotation.pull.pull."""

    def __init__(self) -> None:
        self.tasks: dict[str, int] = {}  # item id -> task id
        self.annotated: set[str] = set()
        self.pushes = self.pulls = 0
        self.pool: Any = None

    def push(self, run_dir: str | Path, config: Any, passages_path: Any = None, predictions: Any = None,
             pool: Any = None) -> PushResult:
        self.pushes += 1
        self.pool = pool
        items = [json.loads(line)["id"] for line in (Path(run_dir) / "items.jsonl").read_text().splitlines()]
        new = [item for item in items if item not in self.tasks]
        self.tasks.update({item: len(self.tasks) + 1 for item in new})
        return PushResult(project_id=7, created=len(new), existing=len(items) - len(new), skipped_failed_checks=0)

    def pull(self, run_dir: str | Path, config: Any) -> PullResult:
        self.pulls += 1
        review = Path(run_dir) / "review"
        done = sum(1 for item in self.tasks if item in self.annotated)
        counts = {"accepted": done, "pending": len(self.tasks) - done}
        return PullResult(review / "reviewed.jsonl", review / "agreement.json", {k: v for k, v in counts.items() if v})


@pytest.fixture
def studio(monkeypatch: pytest.MonkeyPatch) -> FakeLabelStudio:
    fake = FakeLabelStudio()
    monkeypatch.setattr("annotation.push.push", fake.push)
    monkeypatch.setattr("annotation.pull.pull", fake.pull)
    return fake


def test_the_parent_flow_waits_for_review_and_collect_continues_once(
        build_benchmark: Any, studio: FakeLabelStudio, calls: Counter[str], small_config: Path, tmp_path: Path) -> None:
    from pipeline.orchestration.flows import AWAITING_REVIEW, collect_review_flow

    run_dir = tmp_path / "runs" / "reviewed"
    state = build_benchmark(run_dir, review=True)
    assert state.is_completed() and state.name == AWAITING_REVIEW
    items = len((run_dir / "items.jsonl").read_text().splitlines())
    assert len(studio.tasks) == items
    assert "waiting for review in Label Studio project 7" in state.message and f"{items} tasks" in state.message
    assert f"comlq review collect {run_dir} --config {small_config}" in state.message
    assert calls["export"] == 0 and not (run_dir / "export").exists()
    # pooled judging: the push got each item's top passages of BM25 and dense, none of its own
    assert studio.pool.retrievers == ("bm25", "dense") and set(studio.pool.candidates) == set(studio.tasks)
    assert all(len(candidates) >= 5 for candidates in studio.pool.candidates.values())

    # votes still missing: the collect flow waits too
    state = collect_review_flow(runs_root=str(tmp_path / "runs"), config=str(small_config), return_state=True)
    assert state.name == AWAITING_REVIEW and f"{items} pending" in state.message
    assert calls["export"] == 0

    # every task annotated: export and evaluation follow, once
    studio.annotated = set(studio.tasks)
    state = collect_review_flow(runs_root=str(tmp_path / "runs"), config=str(small_config), return_state=True)
    assert state.name == "Completed" and state.result()["finished"] == [str(run_dir)]
    assert calls["export"] == 1 and calls["run_evaluation"] == 1
    assert (run_dir / "report" / "metrics.json").is_file()

    pulls = studio.pulls
    state = collect_review_flow(runs_root=str(tmp_path / "runs"), config=str(small_config), return_state=True)
    assert state.result() == {"finished": [], "waiting": []}
    assert studio.pulls == pulls and calls["export"] == 1

    # the parent flow again on the collected run: nothing pushed, exported or evaluated twice
    state = build_benchmark(run_dir, review=True)
    assert state.name == "Completed" and state.result()["review-push"]["created"] == items
    assert studio.pushes == 1 and calls["export"] == 1 and calls["run_evaluation"] == 1


def test_after_the_deadline_collect_continues_with_pending_items_reported(
        build_benchmark: Any, studio: FakeLabelStudio, calls: Counter[str], small_config: Path, tmp_path: Path) -> None:
    from pipeline.orchestration.flows import collect_review_flow

    run_dir = tmp_path / "late"
    build_benchmark(run_dir, review=True)
    studio.annotated = set(list(studio.tasks)[:3])
    state = collect_review_flow(run_dir=str(run_dir), config=str(small_config), deadline_hours=0, evaluate=False,
                                return_state=True)
    assert state.name == "Completed"
    assert calls["export"] == 1 and calls["run_evaluation"] == 0
    marker = json.loads((run_dir / ".comlq" / "review.json").read_text())
    assert marker["counts"] == {"accepted": 3, "pending": len(studio.tasks) - 3}


def test_a_run_whose_export_failed_stays_pending_and_the_next_collect_finishes_it(
        build_benchmark: Any, studio: FakeLabelStudio, calls: Counter[str], small_config: Path, tmp_path: Path) -> None:
    from pipeline.errors import ComlqError
    from pipeline.orchestration.flows import collect_review_flow

    def full_disk(*args: Any, **kwargs: Any) -> Any:
        raise ComlqError("no space left on device")

    run_dir = tmp_path / "runs" / "failed"
    build_benchmark(run_dir, review=True)
    studio.annotated = set(studio.tasks)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr("pipeline.export.stage.export", full_disk)
        state = collect_review_flow(runs_root=str(tmp_path / "runs"), config=str(small_config), evaluate=False,
                                    return_state=True)
    assert state.is_failed() and calls["export"] == 0
    state = collect_review_flow(runs_root=str(tmp_path / "runs"), config=str(small_config), evaluate=False,
                                return_state=True)
    assert state.result()["finished"] == [str(run_dir)] and calls["export"] == 1


def test_a_recorded_run_the_collect_cannot_reach_is_reported_and_kept(
        build_benchmark: Any, studio: FakeLabelStudio, small_config: Path, tmp_path: Path) -> None:
    import shutil

    from pipeline.orchestration import review_runs
    from pipeline.orchestration.flows import collect_review_flow

    gone, elsewhere = tmp_path / "moved" / "gone", tmp_path / "other" / "kept"
    build_benchmark(gone, review=True)
    build_benchmark(elsewhere, review=True)
    shutil.rmtree(gone)
    studio.annotated = set(studio.tasks)
    state = collect_review_flow(runs_root=str(tmp_path / "runs"), config=str(small_config), evaluate=False,
                                return_state=True)
    assert state.is_failed()  # the operator sees it in the UI, and the artifact names the run
    assert f"could not collect: {gone}: run folder not found (moved or deleted?)" in state.message
    assert f"collected 1 run(s): {elsewhere}" in state.message  # the reachable one went on
    assert [(r.run, r.collected is None) for r in review_runs.load(review_runs.review_registry())] == \
        [(str(gone), True), (str(elsewhere), False)]  # not forgotten: reported again at the next collect
    state = collect_review_flow(runs_root=str(tmp_path / "runs"), config=str(small_config), evaluate=False,
                                return_state=True)
    assert state.is_failed() and str(gone) in state.message and "collected 0 run(s)" in state.message


def test_run_review_prints_the_collect_command() -> None:
    from pipeline.run import RunResult

    waiting = RunResult(Path("runs/x"), "AwaitingReview", "runs/x: waiting for review", config="my.toml")
    assert waiting.describe().splitlines()[-1] == "next: comlq review collect runs/x --config my.toml"
    assert "next:" not in RunResult(Path("runs/x")).describe()


def test_run_summary_shows_scores_to_four_places() -> None:
    from pipeline.run import RunResult

    done = RunResult(Path("runs/x"), counts={"evaluate": {"nDCG@10 bm25": 0.69, "nDCG@10 dense": 0.5561},
                                             "generate": {"items": 669}, "train": {"seconds": 312.4}})
    assert "  evaluate: nDCG@10 bm25 0.6900, nDCG@10 dense 0.5561" in done.describe().splitlines()
    assert "  generate: items 669" in done.describe().splitlines()
    assert "  train: seconds 312.4" in done.describe().splitlines()


REVIEW_FIXTURES = Path(__file__).parents[1] / "review" / "fixtures"


@pytest.fixture
def pushed_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run folder of the review fixtures; pooling recorded instead of run (no retriever work)."""
    import shutil

    from annotation.push import Pool

    run = tmp_path / "run"
    run.mkdir()
    for name in ("items.jsonl", "passages.jsonl"):
        shutil.copy(REVIEW_FIXTURES / name, run / name)
    monkeypatch.setattr("pipeline.orchestration.pool.pooled_candidates", lambda items, passages, config: Pool({}))
    return run


def _config(path: Path, evaluate: str) -> str:
    path.write_text(f"[evaluate]\n{evaluate}\n", encoding="utf-8")
    return str(path)


def test_the_push_runs_again_when_the_pools_evaluate_settings_change(
        harness: Path, studio: FakeLabelStudio, pushed_run: Path, tmp_path: Path) -> None:
    from pipeline.orchestration.flows import push_review_flow

    push_review_flow(str(pushed_run), _config(tmp_path / "a.toml", 'retrievers = ["bm25"]'))
    assert studio.pushes == 1
    # what the evaluation runs is not what the pool ranks with: still done
    push_review_flow(str(pushed_run), _config(tmp_path / "b.toml", 'retrievers = ["bm25", "dense"]\nsplit = "dev"'))
    assert studio.pushes == 1
    # the dense retriever of the pool reads another model: other candidates, so pushed again
    push_review_flow(str(pushed_run), _config(tmp_path / "c.toml", 'retrievers = ["bm25"]\nmodel = "other-model"'))
    assert studio.pushes == 2
    # with pooling off the [evaluate] settings do not matter
    off = tmp_path / "d.toml"
    off.write_text('[review]\npool_k = 0\n[evaluate]\nmodel = "one"\n', encoding="utf-8")
    push_review_flow(str(pushed_run), str(off))
    assert studio.pushes == 3
    off.write_text('[review]\npool_k = 0\n[evaluate]\nmodel = "another"\n', encoding="utf-8")
    push_review_flow(str(pushed_run), str(off))
    assert studio.pushes == 3


def test_a_push_by_hand_with_other_passages_is_not_the_runs_own_push(
        harness: Path, studio: FakeLabelStudio, pushed_run: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from pipeline.cli import main
    from pipeline.orchestration import review_runs
    from pipeline.orchestration.flows import push_review_flow

    monkeypatch.setattr("annotation.client.connect", lambda review: None)
    config = _config(tmp_path / "c.toml", 'retrievers = ["bm25"]')
    own = pushed_run / "passages.jsonl"
    other = tmp_path / "other-passages.jsonl"  # the same ids, one text changed: other tasks
    other.write_text(own.read_text().replace("Warsaw", "Warsaw, Poland", 1), encoding="utf-8")
    assert other.read_text() != own.read_text()

    assert main(["review", "push", str(pushed_run), "--passages", str(other), "--config", config]) == 0
    marker = json.loads((pushed_run / ".comlq" / "review-push.json").read_text())
    assert marker["key"] == review_runs.push_key(pushed_run, _load(config), other)
    other.write_text(other.read_text().replace("Warsaw, Poland", "Warsaw (Poland)", 1), encoding="utf-8")
    assert marker["key"] != review_runs.push_key(pushed_run, _load(config), other)  # the file's contents count
    # the flow pushes the run's own passages: the hand push with other text does not count as it
    push_review_flow(str(pushed_run), config)
    assert studio.pushes == 2

    # a hand push of the run's own passages file is the flow's push: not repeated
    assert main(["review", "push", str(pushed_run), "--passages", str(own), "--config", config]) == 0
    push_review_flow(str(pushed_run), config)
    assert studio.pushes == 3


def _load(path: str) -> Any:
    from pipeline.config import load_config

    return load_config(path)
