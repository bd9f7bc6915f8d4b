"""The parent flow on the offline line, re-runs (markers and the cross-run cache), retries and
progress artifacts, against the session's test API (conftest.py)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

STAGES = ("passages", "generate", "export", "evaluate")


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_parent_flow_runs_the_offline_line_end_to_end(line: Any) -> None:
    assert line.state.is_completed(), line.state.message
    assert line.calls == Counter({"select_passages": 1, "generate": 1, "export": 1, "run_evaluation": 1})
    counts = line.state.result()
    assert counts["passages"]["passages"] == len(lines(line.run_dir / "passages.jsonl")) == 300
    items = lines(line.run_dir / "items.jsonl")
    assert counts["generate"]["items"] == len(items) > 0
    assert {item["type"] for item in items} == {k.split()[1] for k in counts["generate"] if k.startswith("items ")}
    beir = line.run_dir / "export" / "beir"
    queries = {q["_id"] for q in lines(beir / "queries.jsonl")}
    assert sum(v for k, v in counts["export"].items() if k.startswith("queries ")) == len(queries)
    metrics = json.loads((line.run_dir / "report" / "metrics.json").read_text())
    assert list(metrics["retrievers"]) == ["bm25"]
    assert counts["evaluate"]["nDCG@10 bm25"] == round(metrics["retrievers"]["bm25"]["overall"]["nDCG@10"], 4)
    for stage in STAGES:
        assert (line.run_dir / ".comlq" / f"{stage}.json").is_file()


def test_rerun_of_a_finished_run_does_nothing_again(line: Any, calls: Counter[str], build_benchmark: Any) -> None:
    before = (line.run_dir / "items.jsonl").read_bytes()
    state = build_benchmark(line.run_dir)
    assert state.is_completed()
    assert sum(calls.values()) == 0
    assert state.result() == line.state.result()
    assert (line.run_dir / "items.jsonl").read_bytes() == before


def test_second_run_elsewhere_hits_the_generation_cache(line: Any, calls: Counter[str], tmp_path: Path,
                                                          build_benchmark: Any) -> None:
    state = build_benchmark(tmp_path / "again")
    assert state.is_completed()
    # the passages are selected again (another folder), generation comes from the cache
    assert calls == Counter({"select_passages": 1, "export": 1, "run_evaluation": 1})
    assert (tmp_path / "again" / "items.jsonl").read_bytes() == (line.run_dir / "items.jsonl").read_bytes()


def test_a_changed_setting_reruns_its_stage_and_those_after_it(line: Any, calls: Counter[str],
                                                               tmp_path: Path, build_benchmark: Any) -> None:
    run_dir = tmp_path / "copy"
    shutil.copytree(line.run_dir, run_dir)
    state = build_benchmark(run_dir, per_type=3)
    assert state.is_completed()
    assert calls == Counter({"generate": 1, "export": 1, "run_evaluation": 1})
    counts = Counter(item["type"] for item in lines(run_dir / "items.jsonl"))
    assert max(counts.values()) == 3


def flow_run_ids(run_dir: Path) -> set[Any]:
    """The parent flow run on `run_dir` and its subflow runs."""
    from prefect import get_client

    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(limit=200)
    return {run.id for run in runs if run.parameters.get("run_dir") == str(run_dir)}


def artifacts(run_dir: Path, kind: str) -> list[Any]:
    from prefect import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId, ArtifactFilterType

    ids = flow_run_ids(run_dir)
    with get_client(sync_client=True) as client:
        return client.read_artifacts(artifact_filter=ArtifactFilter(
            flow_run_id=ArtifactFilterFlowRunId(any_=list(ids)), type=ArtifactFilterType(any_=[kind])))


def test_progress_artifacts_exist_and_end_at_100(line: Any) -> None:
    progress = {artifact.key: artifact.data for artifact in artifacts(line.run_dir, "progress")}
    assert set(progress) == {"comlq-run-progress", "comlq-prepare-progress", "comlq-generate-progress"}
    assert all(value == 100 for value in progress.values())


def test_each_stage_leaves_a_table_of_its_counts(line: Any) -> None:
    tables = {artifact.key: json.loads(artifact.data) for artifact in artifacts(line.run_dir, "table")}
    assert {f"comlq-{stage}" for stage in STAGES} <= set(tables)
    generated = {row["what"]: row["count"] for row in tables["comlq-generate"]}
    assert generated["items"] == len(lines(line.run_dir / "items.jsonl"))


class Flaky:
    """select_passages that fails with a network error the first `failures` times."""

    def __init__(self, real: Any, error: Exception, failures: int = 1) -> None:
        self.real, self.error, self.failures, self.calls = real, error, failures, 0

    def __call__(self, *args: Any, **kwargs: Any) -> int:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return self.real(*args, **kwargs)


def test_a_task_that_fails_once_is_retried(harness: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import pipeline.passages
    from pipeline.orchestration.flows import generation as flows

    flaky = Flaky(pipeline.passages.select_passages, ConnectionError("connection reset by peer"))
    monkeypatch.setattr(pipeline.passages, "select_passages", flaky)
    monkeypatch.setattr(flows, "select_passages_task", flows.select_passages_task.with_options(retry_delay_seconds=0))
    state = flows.select_passages_flow(str(tmp_path), "sample", 5, return_state=True)
    assert state.is_completed()
    assert flaky.calls == 2
    assert len(lines(tmp_path / "passages.jsonl")) == 5


def test_a_user_error_is_not_retried(harness: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from pipeline.errors import ComlqError
    from pipeline.orchestration.flows import generation as flows

    missing = tmp_path / "missing.jsonl"
    flaky = Flaky(None, ComlqError(f"{missing}: no such file"), failures=10)
    monkeypatch.setattr("pipeline.passages.select_passages", flaky)
    monkeypatch.setattr(flows, "select_passages_task", flows.select_passages_task.with_options(retry_delay_seconds=0))
    state = flows.select_passages_flow(str(tmp_path), str(missing), None, return_state=True)
    assert state.is_failed()
    assert flaky.calls == 1
    with pytest.raises(ComlqError, match="no such file"):
        state.result()


def test_allow_short_is_checked_after_generation_not_part_of_its_key(line: Any, calls: Counter[str],
                                                                       tmp_path: Path) -> None:
    from pipeline.generator import empty_types
    from pipeline.orchestration.flows import build_benchmark
    from tests.flows.conftest import SMALL

    run_dir = tmp_path / "strict"
    shutil.copytree(line.run_dir, run_dir)
    strict = tmp_path / "strict.toml"
    strict.write_text(SMALL.read_text().replace("allow_short = true", "allow_short = false"))
    state = build_benchmark(run_dir=str(run_dir), config=str(strict), return_state=True)
    assert calls["generate"] == 0  # same items asked for: the line's are kept, not generated again
    empty = empty_types(json.loads((line.run_dir / "stats.json").read_text()))
    assert empty, "the small line is expected to leave a type empty (300 passages)"
    assert state.is_failed() and f"no usable item of type {', '.join(empty)}" in state.message
