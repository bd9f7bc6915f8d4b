"""Service failures are retried by the flows, other errors are not: the LLM generation task
against a real local endpoint that hangs up on the first requests, then answers (the scripted
OpenAI server with `drop_first`), and against one that rejects the API key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pipeline.passages import select_passages
from tests.support.scripted_openai import Script, ScriptedServer, _error


@pytest.fixture
def llm_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A run folder with passages, and a config file for the llm generator at `url`; network
    retries come without delay (the flows' own backoff is 10 s and more)."""
    from pipeline.orchestration import flows

    monkeypatch.setitem(flows.NETWORK_RETRIES, "retry_delay_seconds", 0)
    monkeypatch.setitem(flows.NETWORK_RETRIES, "retry_jitter_factor", None)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    select_passages("sample", run_dir / "passages.jsonl", limit=30)

    def config(url: str) -> str:
        path = tmp_path / "llm.toml"
        # max_retries = 0: the SDK gives up at once, so every hang-up reaches the flow
        path.write_text(f'[generate]\ngenerator = "llm"\nper_type = 1\n\n[llm]\nbase_url = "{url}"\n'
                        f'model = "scripted-model"\nconcurrency = 1\nmax_retries = 0\nprompts_per_item = 1.0\n'
                        f'passage_counts = [1]\n')
        return str(path)

    return run_dir, config


def test_a_flaky_endpoint_is_retried_until_it_answers(harness: Path, llm_run: Any) -> None:
    from pipeline.orchestration.flows import generate_flow

    run_dir, config = llm_run
    with ScriptedServer(Script(drop_first=2)) as server:
        state = generate_flow(str(run_dir), config(server.url), types=["1p"], return_state=True)
        stats = server.stats()
    assert state.is_completed(), state.message
    assert stats["replies"] == {"drop": 2, "good": 1}  # two attempts failed on the hang-up, the third got its answer
    assert len((run_dir / "items.jsonl").read_text().splitlines()) == 1


def test_a_rejected_api_key_is_not_retried(harness: Path, llm_run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from pipeline.orchestration.flows import generate_flow

    run_dir, config = llm_run
    requests: list[dict[str, Any]] = []

    with ScriptedServer(Script()) as server:
        def unauthorized(body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
            requests.append(body)
            return 401, _error("Incorrect API key provided", "invalid_api_key"), {}

        monkeypatch.setattr(server, "respond", unauthorized)
        state = generate_flow(str(run_dir), config(server.url), types=["1p"], return_state=True)
    assert state.is_failed()
    assert len(requests) == 1  # a ComlqError (the user's key) fails at once
    with pytest.raises(Exception, match="refused the request \\(HTTP 401\\)"):
        state.result()
