"""Fixtures for the LLM generator tests: a scripted OpenAI-compatible server on 127.0.0.1
(driven through the real openai SDK over HTTP), the small passage fixture and a config."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config import Config
from pipeline.passages import load_passages
from tests.support.scripted_openai import Script, ScriptedServer

FIXTURES = Path(__file__).parent / "fixtures"
PASSAGES = FIXTURES / "passages.jsonl"


@pytest.fixture
def passages_path():
    return PASSAGES


@pytest.fixture
def passages():
    return load_passages(PASSAGES)


@pytest.fixture
def server():
    with ScriptedServer(Script()) as srv:
        yield srv


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")


@pytest.fixture
def make_config(server):
    """A config pointing at the scripted server; keyword arguments override [llm] settings."""

    def make(**llm) -> Config:
        config = Config()
        config.llm.base_url = server.url
        config.llm.model = "scripted-model"
        config.llm.concurrency = 4
        config.llm.timeout = 5.0
        config.llm.max_retries = 2
        config.llm.prompts_per_item = 1.0
        config.generate.per_type = 1
        # the scripted answers are assembled mechanically from the prompt's passages, not read against the
        # corpus: the completeness check (pipeline/completeness.py) has tests of its own
        config.generate.completeness = "off"
        for key, value in llm.items():
            setattr(config.llm, key, value)
        return config

    return make
