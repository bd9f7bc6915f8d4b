"""LLM replies that are not what an OpenAI-compatible endpoint should send: each probe makes
the replies for one query type (2u) faulty and leaves the other (2i) good. The run must not
crash: the good type's item is written, and every faulty prompt is either healed (retried) or
quarantined in rejected.jsonl with a reason; an unusable endpoint gives one error line.
"""

from __future__ import annotations

import json
import socket
import struct
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Lock, Thread
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PASSAGES = ROOT / "tests" / "llm" / "fixtures" / "passages.jsonl"
GOOD, FAULTY = "2i", "2u"


@dataclass(frozen=True)
class Reply:
    id: str
    body: str = "pass"  # how the HTTP reply is mangled (FaultyEndpoint.send)
    scripted: str = "good"  # the scripted server's reply for the faulty type
    times: int | None = None  # faulty for this many requests of a conversation, then good (None: always)
    heals: bool = False  # the faulty type still gets its item
    flagged: bool = False  # the faulty type's item is kept, its automatic check failed (for review)
    aborts: bool = False  # the endpoint counts as unreachable: the command stops with one line


REPLIES = [
    Reply("html-body", body="html"),
    Reply("truncated-json-body", body="truncated"),
    Reply("empty-body", body="empty"),
    Reply("wrong-content-type", body="text_plain", heals=True),  # a good JSON body: the SDK reads it
    Reply("json-without-choices", body="shape:foo"),
    Reply("choices-not-a-list", body="shape:choices_str"),
    Reply("choices-null", body="shape:choices_null"),
    Reply("content-not-text", body="shape:content_int"),
    Reply("message-missing", body="shape:no_message"),
    Reply("usage-garbage", body="shape:usage_str"),
    Reply("slow-trickle", body="trickle", heals=True),
    Reply("connection-reset-mid-body", body="reset", times=1, heals=True),
    Reply("connection-reset-always", body="reset", aborts=True),
    Reply("429-with-retry-after", body="429", times=1, heals=True),
    Reply("truncated-json-content", scripted="broken"),
    Reply("wrong-structure-content", scripted="wrong_structure"),
    Reply("empty-content", scripted="empty"),
    Reply("prose-wrapped-content", scripted="text", heals=True),
    Reply("content-of-another-type", scripted="wrong_type", flagged=True),
]


class FaultyEndpoint:
    """The scripted server's answers, sent faulty for prompts of one query type."""

    def __init__(self, scripted: Any, reply: Reply):
        rules = ((f"Query type: {FAULTY},", (reply.scripted,)),)
        self.inner = scripted.ScriptedServer(scripted.Script(rules=rules, retry_after_ms=1))
        self.inner._http.server_close()  # only its respond() is used
        self.reply = reply
        self.turns: Counter[str] = Counter()
        self.lock = Lock()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                endpoint.send(self, body)

            def log_message(self, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/v1"

    def __enter__(self) -> FaultyEndpoint:
        Thread(target=self.http.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.shutdown()
        self.http.server_close()

    def send(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        prompt = next((m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "user"), "")
        with self.lock:
            turn = self.turns[prompt]
            self.turns[prompt] += 1
        status, payload, headers = self.inner.respond(body)
        mode = self.reply.body
        if f"Query type: {FAULTY}," not in prompt or (self.reply.times is not None and turn >= self.reply.times):
            mode = "pass"
        data = json.dumps(payload).encode()
        kind = "application/json"
        if mode == "html":
            data, kind = b"<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html"
        elif mode == "truncated":
            data = data[: len(data) // 2]
        elif mode == "empty":
            data = b""
        elif mode == "text_plain":
            kind = "text/plain"
        elif mode.startswith("shape:"):
            data = json.dumps(_shape(mode[6:], payload)).encode()
        elif mode == "429":
            status, data, headers = 429, b'{"error": {"message": "slow down"}}', {"Retry-After": "1"}
        handler.send_response(status)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        if mode == "trickle":  # every gap below the client's timeout, the whole reply above it
            for i in range(0, len(data), max(1, len(data) // 6)):
                handler.wfile.write(data[i:i + max(1, len(data) // 6)])
                handler.wfile.flush()
                time.sleep(0.4)
        elif mode == "reset":  # half the body, then a TCP reset
            handler.wfile.write(data[: len(data) // 2])
            handler.wfile.flush()
            handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            handler.connection.close()
            handler.close_connection = True
        else:
            handler.wfile.write(data)


def _shape(kind: str, good: dict[str, Any]) -> Any:
    message = good["choices"][0]["message"]
    return {
        "foo": {"foo": 1},
        "choices_str": {**good, "choices": "x"},
        "choices_null": {**good, "choices": None},
        "content_int": {**good, "choices": [{"index": 0, "message": {**message, "content": 5}}]},
        "no_message": {**good, "choices": [{"index": 0, "finish_reason": "stop"}]},
        "usage_str": {**good, "usage": "lots"},
    }[kind]


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.parametrize("reply", REPLIES, ids=[r.id for r in REPLIES])
def test_llm_reply(reply: Reply, scripted, probe, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    monkeypatch.delenv("COMLQ_CONFIG", raising=False)
    with FaultyEndpoint(scripted, reply) as endpoint:
        config = tmp_path / "llm.toml"
        config.write_text(f'[llm]\nbase_url = "{endpoint.url}"\nmodel = "scripted-model"\nconcurrency = 2\n'
                          "timeout = 1.0\nmax_retries = 2\nfix_attempts = 1\nprompts_per_item = 1.0\n"
                          '[generate]\ncompleteness = "off"\n')  # (scripted answers: not read against the corpus)
        out = tmp_path / "gen"
        outcome = probe.cli("generate", "--generator", "llm", "--config", config, "--passages", PASSAGES,
                            "--types", f"{GOOD},{FAULTY}", "--per-type", "1", "--out", out, what=reply.id)
    if reply.aborts:
        assert "cannot reach the LLM endpoint" in outcome.error_line()
        return
    if reply.heals:
        outcome.ok()
    else:  # the faulty type has no usable item: said in one line with a non-zero exit (failure 7), files kept
        line = outcome.error_line()
        assert f"no usable item of type {FAULTY}" in line, line
    written = _read_jsonl(out / "items.jsonl")
    items = Counter(item["type"] for item in written)
    rejected = _read_jsonl(out / "rejected.jsonl")
    assert items[GOOD] == 1, f"{reply.id}: the good type lost its item: {items}"
    if reply.heals:
        assert items[FAULTY] == 1, f"{reply.id}: not healed: {rejected}"
    elif reply.flagged:
        assert [item["check"]["ok"] for item in written if item["type"] == FAULTY] == [False], written
    else:
        quarantined = [r for r in rejected if r.get("type") == FAULTY]
        assert items[FAULTY] == 0 and quarantined, f"{reply.id}: a faulty reply was neither kept nor quarantined"
        assert all(r.get("reason") for r in quarantined)
        probe.probes[-1].what += f" -> {quarantined[0]['reason']}"
    stats = json.loads((out / "stats.json").read_text())
    assert stats.get("short_types") == ([] if reply.heals else [FAULTY]), stats.get("short_types")
    for name, row in stats.get("by_type", {}).items():  # every prompt is an item or a rejected record
        lost = row["prompts"] - row["items"] - row["rejected"]
        probe.probes[-1].lost += max(lost, 0)
        assert lost <= 0, f"{reply.id}: {name}: {row}"
