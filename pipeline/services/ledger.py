"""The ledger of LLM calls: what was paid for, what the cache saved, what failed.

The LLM generator writes it to `<out>/ledger.json` (schemas/llm_ledger.schema.json) and copies it
into stats.json; the LLM-backed retrievers report its counts.
Thread-safe: every worker records into the same ledger.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit


def public_url(url: str) -> str:
    """The URL without user:password and query string, which may carry credentials (the ledger
    goes into stats.json and from there into the dataset card)."""
    parts = urlsplit(url)
    if not parts.netloc:
        return url
    host = (parts.hostname or "") + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


@dataclass
class Ledger:
    endpoint: str
    model: str
    price_prompt_per_1m: float = 0.0
    price_completion_per_1m: float = 0.0
    calls: int = 0  # requests the endpoint answered (paid for)
    cache_hits: int = 0  # requests answered from the on-disk cache (not paid for)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0  # tokens of the cache hits: what the cache saved
    cached_completion_tokens: int = 0
    failures: Counter[str] = field(default_factory=Counter)  # failed requests by reason, after HTTP retries
    http_statuses: Counter[int] = field(default_factory=Counter)  # every HTTP response, retries included
    format_fallbacks: list[str] = field(default_factory=list)  # e.g. 'json_schema -> json_object'
    started: float = field(default_factory=time.time)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.endpoint = public_url(self.endpoint)

    def paid(self, prompt_tokens: int, completion_tokens: int) -> None:
        with self._lock:
            self.calls += 1
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens

    def hit(self, prompt_tokens: int, completion_tokens: int) -> None:
        with self._lock:
            self.cache_hits += 1
            self.cached_prompt_tokens += prompt_tokens
            self.cached_completion_tokens += completion_tokens

    def failed(self, reason: str) -> None:
        with self._lock:
            self.failures[reason] += 1

    def http(self, status: int) -> None:
        with self._lock:
            self.http_statuses[status] += 1

    def fallback(self, step: str) -> None:
        with self._lock:
            self.format_fallbacks.append(step)

    def _cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        usd = prompt_tokens * self.price_prompt_per_1m + completion_tokens * self.price_completion_per_1m
        return round(usd / 1e6, 6)

    def to_dict(self) -> dict[str, Any]:
        with self._lock:
            return {
                "endpoint": self.endpoint, "model": self.model,
                "calls": self.calls, "cache_hits": self.cache_hits, "failed_calls": sum(self.failures.values()),
                "failures": dict(sorted(self.failures.items())),
                "http_statuses": {str(k): v for k, v in sorted(self.http_statuses.items())},
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost_usd": self._cost(self.prompt_tokens, self.completion_tokens),
                "saved_by_cache_usd": self._cost(self.cached_prompt_tokens, self.cached_completion_tokens),
                "price_prompt_per_1m": self.price_prompt_per_1m,
                "price_completion_per_1m": self.price_completion_per_1m,
                "format_fallbacks": list(self.format_fallbacks),
                "seconds": round(time.time() - self.started, 3),
            }
