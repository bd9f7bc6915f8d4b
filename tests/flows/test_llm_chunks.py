"""LLM generation through the flow, against the scripted OpenAI-compatible server: one chunk
per query type, and a second run in another folder makes no call (the chunk cache)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.scripted_openai import Script, ScriptedServer


def test_llm_chunks_are_cached_across_runs(line: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from pipeline.orchestration.flows import generate_flow

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    with ScriptedServer(Script()) as server:
        config = tmp_path / "llm.toml"
        config.write_text(f'[generate]\ngenerator = "llm"\nper_type = 1\n\n'
                          f'[llm]\nbase_url = "{server.url}"\nmodel = "scripted-model"\nconcurrency = 2\n'
                          f'prompts_per_item = 1.0\npassage_counts = [1]\n')
        runs = [tmp_path / "first", tmp_path / "second"]
        for run_dir in runs:
            run_dir.mkdir()
            shutil.copy(line.run_dir / "passages.jsonl", run_dir)

        counts = generate_flow(str(runs[0]), str(config), types=["1p", "2in"])
        calls = server.stats()["requests"]
        assert calls >= 2 and counts["items"] == 2
        assert sorted(p.name for p in (runs[0] / "chunks").iterdir()) == ["1p", "2in"]  # one chunk per type
        assert (runs[0] / "cache" / "llm").is_dir()  # the generator's own call cache, in the run folder
        stats = json.loads((runs[0] / "stats.json").read_text())
        assert (stats["per_type"], stats["items"], stats["prompts"]) == (1, 2, 2)  # settings kept, counts summed
        ledger = json.loads((runs[0] / "ledger.json").read_text())  # the run's ledger: the chunks' summed
        assert ledger["calls"] == calls and ledger["endpoint"] == server.url

        assert generate_flow(str(runs[1]), str(config), types=["1p", "2in"]) == counts
        assert server.stats()["requests"] == calls  # no call repeated
    items = [[json.loads(line) for line in (run / "items.jsonl").read_text().splitlines()] for run in runs]
    assert items[0] == items[1] and {item["generator"]["name"] for item in items[0]} == {"llm"}
