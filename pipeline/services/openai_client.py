"""Chat completions through the `openai` SDK, with an on-disk cache, a rate limit and a ledger;
used by the LLM generator (pipeline/llm) and the LLM-backed retrievers (retrieval/llm.py).

Works with any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server): the
endpoint is `config.llm.base_url` (default $OPENAI_BASE_URL, else OpenAI) and the key is read
from the environment variable `config.llm.api_key_env` when the client is made; it is never
logged or stored. HTTP retries with exponential backoff on 408/409/429/5xx and connection
errors are the SDK's own (`max_retries`, honouring Retry-After); the timeout is per request.

Every answered request is cached in one file named by the sha256 of (endpoint, model,
messages, parameters), written atomically before the answer is used, so a re-run or a run
killed halfway never pays for the same request twice.

Failures: an endpoint that cannot be reached raises ServiceUnavailable (the flows retry it); one
that refuses the request (key, permission, model) raises ComlqError; a request that fails after
the SDK's retries (timeout, 429, 5xx, 400) raises CallError, which costs one prompt, not the run.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import openai

from pipeline.config import LLMConfig
from pipeline.errors import ComlqError, ServiceUnavailable
from pipeline.schemas import AtomicWriter, load_schema
from pipeline.services.ledger import Ledger

OPENAI_URL = "https://api.openai.com/v1"
FORMATS = ("json_schema", "json_object", "text")  # strongest first; 'auto' walks down on HTTP 400
_REFUSED_FORMAT = re.compile(r"response.?format|json.?schema|json.?object|guided|grammar", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Reply:
    text: str | None
    prompt_tokens: int
    completion_tokens: int
    cached: bool


class CallError(Exception):
    """A request that failed after the SDK's retries; costs one prompt, not the run."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason  # rate_limited | server_error | timeout | bad_request | api_error | bad_reply
        self.detail = detail

    @property
    def transient(self) -> bool:
        """The endpoint's own failure (timeout, 429, 5xx): a later attempt may succeed."""
        return self.reason in ("rate_limited", "server_error", "timeout")


class ResponseCache:
    """One JSON file per answered request: <root>/<key[:2]>/<key>.json."""

    def __init__(self, root: Path):
        self.root = Path(root)

    @staticmethod
    def key(request: dict[str, Any]) -> str:
        return hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            return json.loads(self.path(key).read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None  # a missing (or, with atomic writes, impossible) broken entry is a miss

    def put(self, key: str, entry: dict[str, Any]) -> None:
        with AtomicWriter(self.path(key)) as handle:
            handle.write(json.dumps(entry, ensure_ascii=False))  # one write: json.dump writes piecemeal


class RateLimiter:
    """At most `per_second` request starts per second, spaced evenly (shared by all workers)."""

    def __init__(self, per_second: float | None):
        self.interval = 1.0 / per_second if per_second else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        if not self.interval:
            return
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            time.sleep(start - now)


def _response_format(kind: str) -> dict[str, Any] | None:
    if kind == "json_schema":
        schema = {k: v for k, v in load_schema("llm_output").items() if k not in ("$schema", "$id")}
        return {"type": "json_schema", "json_schema": {"name": "llm_output", "schema": schema, "strict": False}}
    if kind == "json_object":
        return {"type": "json_object"}
    return None


class LLMClient:
    def __init__(self, config: LLMConfig, cache_dir: Path, ledger: Ledger):
        if config.response_format not in ("auto", *FORMATS):
            raise ComlqError(f"llm.response_format: {config.response_format!r} is not one of "
                             f"auto, {', '.join(FORMATS)}")
        self.config = config
        self.endpoint = (config.base_url or OPENAI_URL).rstrip("/")
        self.cache = ResponseCache(cache_dir)
        self.ledger = ledger
        self.limiter = RateLimiter(config.requests_per_second)
        self._format = "json_schema" if config.response_format == "auto" else config.response_format
        self._format_lock = threading.Lock()
        # The hook sees every HTTP response, the SDK's retries included, for the ledger.
        http = openai.DefaultHttpxClient(event_hooks={"response": [lambda r: ledger.http(r.status_code)]})
        self._sdk = openai.OpenAI(api_key=self._api_key(), base_url=self.endpoint, http_client=http,
                                  timeout=config.timeout, max_retries=config.max_retries)

    def _api_key(self) -> str:
        key = os.environ.get(self.config.api_key_env)
        if key:
            return key
        if self.config.base_url is None:
            raise ComlqError(f"the LLM generator needs an API key: set {self.config.api_key_env} "
                             f"(or set llm.base_url / OPENAI_BASE_URL to a local endpoint)")
        return "unused"  # local servers (vLLM, Ollama, llama.cpp) accept any key

    def close(self) -> None:
        self._sdk.close()

    def complete(self, messages: list[dict[str, str]]) -> Reply:
        """One chat completion: from the cache when this exact request was answered before."""
        while True:
            kind = self._format
            params: dict[str, Any] = {"model": self.config.model, "messages": messages,
                                      "temperature": self.config.temperature}
            if self.config.max_tokens:  # 0 or None: not sent (some models want max_completion_tokens)
                params["max_tokens"] = self.config.max_tokens
            if (response_format := _response_format(kind)) is not None:
                params["response_format"] = response_format
            key = ResponseCache.key({"endpoint": self.endpoint, **params})
            if (entry := self.cache.get(key)) is not None:
                self.ledger.hit(entry["prompt_tokens"], entry["completion_tokens"])
                return Reply(entry["text"], entry["prompt_tokens"], entry["completion_tokens"], cached=True)
            try:
                return self._call(key, params)
            except openai.BadRequestError as exc:
                if self.config.response_format == "auto" and _REFUSED_FORMAT.search(_message(exc)) \
                        and self._downgrade(kind):
                    continue  # the endpoint refused this structured-output mode: try the next one
                self.ledger.failed("bad_request")
                raise CallError("bad_request", f"HTTP 400: {_message(exc)}") from None

    def _downgrade(self, refused: str) -> bool:
        with self._format_lock:
            if self._format == refused and refused != FORMATS[-1]:
                self._format = FORMATS[FORMATS.index(refused) + 1]
                self.ledger.fallback(f"{refused} -> {self._format}")
            return self._format != refused

    def _call(self, key: str, params: dict[str, Any]) -> Reply:
        self.limiter.wait()
        try:
            completion = self._sdk.chat.completions.create(**params)
        except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError) as exc:
            raise ComlqError(f"LLM endpoint {self.endpoint} refused the request "
                             f"(HTTP {exc.status_code}): {_message(exc)}") from None
        except openai.BadRequestError:
            raise
        except openai.APITimeoutError:
            self.ledger.failed("timeout")
            raise CallError("timeout", f"no answer within {self.config.timeout} s "
                                       f"({self.config.max_retries} retries)") from None
        except openai.APIConnectionError as exc:
            raise ServiceUnavailable(f"cannot reach the LLM endpoint {self.endpoint}: {exc}") from None
        except openai.APIStatusError as exc:
            reason = ("rate_limited" if exc.status_code == 429 else
                      "server_error" if exc.status_code >= 500 else "api_error")
            self.ledger.failed(reason)
            raise CallError(reason, f"HTTP {exc.status_code} after {self.config.max_retries} retries: "
                                    f"{_message(exc)}") from None
        except (ValueError, httpx.HTTPError) as exc:  # a 200 whose body is not JSON (truncated, cut off)
            self.ledger.failed("bad_reply")
            raise CallError("bad_reply", f"unreadable reply body ({type(exc).__name__}: "
                                         f"{str(exc).splitlines()[0][:200] if str(exc) else ''})") from None
        try:
            text, prompt_tokens, completion_tokens = _unpack(completion)
        except CallError:
            self.ledger.failed("bad_reply")
            raise
        self.cache.put(key, {"text": text, "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                             "model": getattr(completion, "model", None), "created": int(time.time())})
        self.ledger.paid(prompt_tokens, completion_tokens)
        return Reply(text, prompt_tokens, completion_tokens, cached=False)


def _unpack(completion: Any) -> tuple[str | None, int, int]:
    """(text, prompt tokens, completion tokens) of a 200 reply; a body of any other shape (HTML,
    a JSON object without choices) is a CallError, quarantined like an HTTP error."""
    try:
        choices = completion.choices
        text = choices[0].message.content if choices else None
        usage = completion.usage
        prompt_tokens = int(usage.prompt_tokens or 0) if usage else 0
        completion_tokens = int(usage.completion_tokens or 0) if usage else 0
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        shown = str(completion)[:200]
        raise CallError("bad_reply", f"a 200 reply that is not a chat completion: {shown!r}") from None
    if text is not None and not isinstance(text, str):
        raise CallError("bad_reply", f"a 200 reply whose message content is {type(text).__name__}, not text")
    return text, prompt_tokens, completion_tokens


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        body = body.get("message") or body.get("error") or body
    return str(body or exc.message)[:300]
