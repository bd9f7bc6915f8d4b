"""Prompts for the LLM-backed retrievers (LLM parse for ITLR, BRIGHT-style rewrite), sent to an
OpenAI-compatible chat endpoint with the openai SDK. Without an endpoint they are unavailable
and evaluation skips them with a message."""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from tqdm import tqdm

from pipeline.config import LLMConfig
from pipeline.errors import ComlqError
from pipeline.resources import read_prompt
from retrieval.base import RetrieverUnavailable


def render(prompt_file: str, question: str) -> str:
    """The prompt file prompts/<prompt_file> with {question} filled in."""
    return read_prompt(prompt_file).replace("{question}", question)


class Chat:
    def __init__(self, llm: LLMConfig):
        base_url = llm.base_url or os.environ.get("OPENAI_BASE_URL")
        key = os.environ.get(llm.api_key_env)
        if not base_url and not key:
            raise RetrieverUnavailable(f"no LLM endpoint configured (set [llm] base_url or OPENAI_BASE_URL, "
                                       f"and ${llm.api_key_env} if the endpoint needs a key)")
        from openai import OpenAI

        self.model = llm.model
        self.concurrency = max(1, llm.concurrency)
        self.max_tokens = getattr(llm, "max_tokens", None)
        self.endpoint = base_url or "the OpenAI API"
        self._client = OpenAI(base_url=base_url, api_key=key or "none", timeout=llm.timeout, max_retries=llm.max_retries)

    def complete(self, prompt: str) -> str:
        try:
            response = self._client.chat.completions.create(
                model=self.model, messages=[{"role": "user", "content": prompt}], temperature=0.0,
                max_tokens=self.max_tokens)
        except Exception as exc:  # noqa: BLE001 - connection, HTTP and API errors alike
            raise ComlqError(f"LLM endpoint {self.endpoint}: {exc}") from None
        return (response.choices[0].message.content or "").strip()

    def complete_all(self, prompts: Sequence[str], desc: str) -> list[str]:
        with ThreadPoolExecutor(self.concurrency) as pool:
            return list(tqdm(pool.map(self.complete, prompts), total=len(prompts), desc=desc, disable=len(prompts) < 8))
