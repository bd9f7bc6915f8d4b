"""Prompts for the LLM-backed retrievers (LLM parse for ITLR, BRIGHT-style rewrite), sent through
the project's LLM client (pipeline/services/openai_client.py: openai SDK, on-disk response cache,
retries, rate limit). Without an endpoint they are unavailable and evaluation skips them with a message."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pipeline.config import LLMConfig
from pipeline.errors import ComlqError, ServiceUnavailable
from pipeline.progress import Progress
from pipeline.resources import read_prompt
from retrieval.base import RetrieverUnavailable


def render(prompt_file: str, question: str) -> str:
    """The prompt file prompts/<prompt_file> with {question} filled in."""
    return read_prompt(prompt_file).replace("{question}", question)


class Chat:
    """Plain-text completions at temperature 0; a request answered before comes from the cache."""

    def __init__(self, llm: LLMConfig, cache_dir: Path):
        base_url = llm.base_url or os.environ.get("OPENAI_BASE_URL")
        if not base_url and not os.environ.get(llm.api_key_env):
            raise RetrieverUnavailable(f"no LLM endpoint configured (set [llm] base_url or OPENAI_BASE_URL, "
                                       f"and ${llm.api_key_env} if the endpoint needs a key)")
        from pipeline.services.ledger import Ledger
        from pipeline.services.openai_client import LLMClient

        config = dataclasses.replace(llm, base_url=base_url, response_format="text", temperature=0.0)
        self.model = llm.model
        self.concurrency = max(1, llm.concurrency)
        self.ledger = Ledger(base_url or "the OpenAI API", llm.model)
        self._client = LLMClient(config, cache_dir, self.ledger)

    def complete(self, prompt: str) -> str:
        from pipeline.services.openai_client import CallError

        try:
            reply = self._client.complete([{"role": "user", "content": prompt}])
        except CallError as exc:
            failure = ServiceUnavailable if exc.transient else ComlqError
            raise failure(f"LLM endpoint {self._client.endpoint}: {exc.detail}") from None
        return (reply.text or "").strip()

    def complete_all(self, prompts: Sequence[str], desc: str) -> list[str]:
        answers = []
        with ThreadPoolExecutor(self.concurrency) as pool, \
                Progress(desc, total=len(prompts), unit="prompt", enabled=len(prompts) >= 8) as bar:
            for answer in pool.map(self.complete, prompts):
                answers.append(answer)
                bar.update()
        return answers

    def describe(self) -> dict[str, object]:
        return {"llm": self.model, "llm_calls": self.ledger.calls, "llm_cache_hits": self.ledger.cache_hits}
