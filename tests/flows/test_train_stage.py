"""The train stage of the line: export -> RUN/models/reranker -> an evaluation with `rerank` on the
run's own model; trained once per export and [train] settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pipeline.runfolder import RunFolder

RERANK = """
[evaluate]
retrievers = ["bm25", "rerank"]

[train]
max_groups = 8
max_length = 48
negatives = 3
first_k = 10
"""


def test_line_trains_the_reranker_once_and_evaluates_with_it(harness: Path, small_config: Path, tmp_path: Path,
                                                             monkeypatch: Any) -> None:
    from pipeline.orchestration.flows import build_benchmark

    monkeypatch.chdir(tmp_path)  # model=auto must find the run's own model, not one elsewhere
    config = tmp_path / "rerank.toml"
    config.write_text(small_config.read_text().split("[evaluate]")[0] + RERANK)
    run = RunFolder(tmp_path / "run")
    state = build_benchmark(run_dir=str(run.root), config=str(config), return_state=True)
    assert state.is_completed(), state.message
    counts = state.result()
    assert counts["train"]["groups"] == 8
    info = json.loads(run.models.reranker.info.read_text())
    assert info["settings"]["max_groups"] == 8
    metrics = json.loads(run.report.metrics.read_text())
    assert list(metrics["retrievers"]) == ["bm25", "rerank"]
    assert metrics["retrievers"]["rerank"]["config"]["model"] == str(run.models.reranker.root)
    trained = run.models.reranker.info.stat().st_mtime_ns
    again = build_benchmark(run_dir=str(run.root), config=str(config), return_state=True)
    assert again.is_completed() and run.models.reranker.info.stat().st_mtime_ns == trained  # not trained again
