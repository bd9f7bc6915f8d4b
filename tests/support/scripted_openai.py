"""A scripted OpenAI-compatible chat-completions server, for tests, benchmarks and trying the wiring.

It returns SCRIPTED answers, not model output: a "good" answer is built mechanically from the
prompt's query type and passage titles so that it passes the checks; the other replies are
the failures a real endpoint produces. It is test support, not part of the installed package;
run it by hand from the repository root with

    .venv/bin/python -m tests.support.scripted_openai --port 8765 --latency 0.2

and point the generator at http://127.0.0.1:8765/v1 (any API key).

Which reply a request gets: every conversation (identified by its first user message) walks
through a list of replies, one per request (HTTP retries and fix-up follow-ups included), the
last one repeating. The list is the first rule whose text occurs in the prompt, else the
default. Replies:
  good            schema-valid JSON of the right type
  text            the good JSON inside prose and a ``` fence
  broken          truncated JSON
  wrong_structure JSON that does not match the schema
  wrong_type      schema-valid JSON whose triples form another type
  one_passage     evidence citing only P1
  no_negation     no negation in the question or the logical form
  empty           an empty message
  slow            `slow_seconds` of delay, then good
  hang            never answers (until the server stops)
  429, 500        that HTTP error, with a short Retry-After
Independently of the replies, `drop_first` closes the connection of the first N requests without
an answer (a server restarting): the SDK sees a connection error.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pipeline.querytypes import CATALOGUE, Formula

REPLIES = ("good", "text", "broken", "wrong_structure", "wrong_type", "one_passage", "no_negation", "empty",
           "slow", "hang", "429", "500")
_HEAD = re.compile(r"^Query type: (\S+), from (\d) passage", re.MULTILINE)
_NOT_NAMES = {"The", "This", "His", "Her", "Its", "They", "There", "It", "He", "She"}  # capitalised, not names


@dataclass(frozen=True)
class Script:
    default: tuple[str, ...] = ("good",)
    rules: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (text occurring in the prompt, replies)
    latency: float = 0.0  # seconds before every answer
    slow_seconds: float = 2.0
    hang_after: int | None = None  # answer this many requests, then hang every further one
    refuse_formats: tuple[str, ...] = ()  # response_format types answered with HTTP 400
    retry_after_ms: int = 1
    drop_first: int = 0  # close the connection of the first N requests without answering

    def __post_init__(self) -> None:
        for replies in (self.default, *(r for _, r in self.rules)):
            unknown = [r for r in replies if r not in REPLIES]
            if unknown or not replies:
                raise ValueError(f"unknown scripted replies {unknown or replies}; known: {', '.join(REPLIES)}")

    def replies_for(self, prompt: str) -> tuple[str, ...]:
        for text, replies in self.rules:
            if text in prompt:
                return replies
        return self.default


def parse_rule(text: str) -> tuple[str, tuple[str, ...]]:
    """'TEXT=reply,reply' -> (TEXT, (reply, reply))."""
    match, sep, replies = text.rpartition("=")
    if not sep or not match:
        raise argparse.ArgumentTypeError(f"rule {text!r}: expected TEXT=reply[,reply...]")
    return match, tuple(replies.split(","))


def _quote(text: str) -> str:
    return text.replace("\\", "/").replace('"', "'")  # keeps the ITLR term a plain quoted string


@cache
def _formula(type_name: str) -> Formula:
    return CATALOGUE[type_name].formula  # parsed once: the server answers the same 14 types all day


def good_answer(prompt: str) -> dict[str, Any]:
    """A schema-valid answer of the prompt's type that passes the checks, made mechanically from
    the passages: anchors, bridges, excluded entities and the answer are distinct words of the
    passages (titles, then capitalised words, then long lower-case ones)."""
    head = _HEAD.search(prompt)
    if head is None:
        raise ValueError("not a comlq prompt (no 'Query type:' line)")
    type_name, n = head.group(1), int(head.group(2))
    task = prompt.split("## Your task", 1)[-1]
    blocks = re.findall(r"^\[P\d\] id: .*\ntitle: (.*)\ntext: (.*)$", task, re.MULTILINE)
    titles = [title.strip() for title, _ in blocks if title.strip()]
    in_titles = {w for title in titles for w in title.split()}

    def candidates(texts: list[str]) -> list[str]:
        text = " ".join(texts)
        return [w for w in re.findall(r"\b[A-Z][a-z]{2,}\b", text) + re.findall(r"\b[a-z]{5,}\b", text)
                if w not in _NOT_NAMES and w not in in_titles]

    used: set[str] = set()

    def take(pool: list[str]) -> str:
        name = next(w for w in [*pool, *(f"Entity{k}" for k in range(1, 9))] if w not in used)  # Entity: too few words
        used.add(name)
        return name

    everything = [*titles, *candidates([text for _, text in blocks])]
    last = [blocks[-1][0].strip(), *candidates([blocks[-1][1]])] if blocks else []
    formula = _formula(type_name)
    roles = dict(CATALOGUE[type_name].pattern.nodes(data="role"))
    anchors = {node: take(everything) for node, role in sorted(roles.items()) if role == "anchor"}
    bridges = [{"variable": node, "entity": take(everything)} for node, role in sorted(roles.items())
               if role == "variable"]
    positive, negative, terms, alternatives, negated = [], [], [], [], []
    for atom in formula.atoms():
        subject, obj = anchors.get(atom.subject, atom.subject), anchors.get(atom.object, atom.object)
        relation = f"scripted relation {atom.relation}"
        term = f'"{_quote(subject)} {relation} {_quote(obj)}"'
        if atom.negated:
            negative.append({"subject": subject, "relation": relation, "object": obj})
            negated.append(term)
        else:
            positive.append({"subject": subject, "relation": relation, "object": obj, "union": atom.union})
            (alternatives if atom.union else terms).append(term)
    if alternatives:
        terms.insert(0, "(" + " OR ".join(alternatives) + ")")
    logical_form = " AND ".join(terms + [f"NOT {t}" for t in negated])
    question = "Which entities are linked to " + " and ".join(sorted(set(anchors.values())))
    question += " but not as the negated condition says?" if negative else "?"
    excluded = [{"entity": take(last), "passage": f"P{n}"}] if negative else []  # named in the last passage
    return {
        "query": question, "answers": [take(everything)], "target": formula.target,
        "positive": positive, "negative": negative, "excluded": excluded, "bridges": bridges,
        "logical_form": logical_form,
        "evidence": [{"passage": f"P{k}", "fact": f"scripted fact from P{k}"} for k in range(1, n + 1)],
    }


def scripted_content(reply: str, prompt: str) -> str:
    """The message text of a 200 reply."""
    if reply == "empty":
        return ""
    answer = good_answer(prompt)
    if reply == "wrong_structure":
        return json.dumps({"question": answer["query"], "triples": [answer["logical_form"]]})
    if reply == "wrong_type":
        answer["positive"].append({"subject": answer["target"], "relation": "scripted extra relation",
                                   "object": "Scripted extra entity", "union": False})
    elif reply == "one_passage":
        answer["evidence"] = answer["evidence"][:1]
    elif reply == "no_negation":
        answer["query"] = answer["query"].replace(" but not as the negated condition says", "")
        answer["logical_form"] = answer["logical_form"].replace("NOT ", "")
    text = json.dumps(answer, ensure_ascii=False)
    if reply == "broken":
        return text[: len(text) // 2]
    if reply == "text":
        return f"Here is the question you asked for:\n```json\n{text}\n```\nI hope it helps."
    return text


@dataclass
class _State:
    script: Script
    requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    replies: Counter[str] = field(default_factory=Counter)
    answered: list[str] = field(default_factory=list)  # fingerprint of every request answered with 200
    turns: Counter[str] = field(default_factory=Counter)  # requests seen per conversation
    bodies: list[dict[str, Any]] = field(default_factory=list)  # every request body, in arrival order


class ScriptedServer:
    """The server on a background thread (port 0: a free port). Use as a context manager."""

    def __init__(self, script: Script | None = None, host: str = "127.0.0.1", port: int = 0):
        self._state = _State(script or Script())
        for name in CATALOGUE:  # parse the 14 indicators now, not in 32 request threads at once
            _ = _formula(name), CATALOGUE[name].pattern
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._http = ThreadingHTTPServer((host, port), _Handler)
        self._http.daemon_threads = True
        self._http.scripted = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._http.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def script(self) -> Script:
        return self._state.script

    @script.setter
    def script(self, script: Script) -> None:
        with self._lock:
            self._state.script = script
            self._release.set()  # hanging requests of the old script may go
            self._release = threading.Event()

    def stats(self) -> dict[str, Any]:
        with self._lock:
            s = self._state
            return {"requests": s.requests, "answered": len(s.answered),
                    "duplicates": len(s.answered) - len(set(s.answered)),
                    "statuses": {str(k): v for k, v in sorted(s.statuses.items())}, "replies": dict(s.replies)}

    def answered(self) -> list[str]:
        with self._lock:
            return list(self._state.answered)

    def bodies(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._state.bodies)

    def start(self) -> ScriptedServer:
        self._thread = threading.Thread(target=self._http.serve_forever, args=(0.05,), name="scripted-openai",
                                        daemon=True)  # polls shutdown every 50 ms: quick test teardown
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve on the calling thread (the command line's way); Ctrl-C stops."""
        try:
            self._http.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self._http.server_close()

    def stop(self) -> None:
        self._release.set()
        self._http.shutdown()
        self._http.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def respond(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]] | None:
        """(status, JSON body, extra headers) for one chat-completions request; None: hang up."""
        messages = body.get("messages") or []
        prompt = next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")
        conversation = hashlib.sha256(prompt.encode("utf-8")).hexdigest()
        fingerprint = hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()
        with self._lock:
            state = self._state
            script, release = state.script, self._release
            state.requests += 1
            state.bodies.append(body)
            replies = script.replies_for(prompt)
            reply = replies[min(state.turns[conversation], len(replies) - 1)]
            state.turns[conversation] += 1
            fmt = (body.get("response_format") or {}).get("type")
            if state.requests <= script.drop_first:
                reply = "drop"
            elif fmt in script.refuse_formats:
                reply = "refuse_format"
            elif script.hang_after is not None and len(state.answered) >= script.hang_after:
                reply = "hang"
            state.replies[reply] += 1
        if reply == "drop":
            return None
        if reply == "hang":
            release.wait()
            return self._finish(503, _error("scripted hang released", "server_error"), {}, None)
        time.sleep(script.latency + (script.slow_seconds if reply == "slow" else 0.0))
        retry = {"retry-after-ms": str(script.retry_after_ms)}
        if reply == "refuse_format":
            refusal = _error(f"response_format {fmt} is not supported", "invalid_request_error")
            return self._finish(400, refusal, {}, None)
        if reply in ("429", "500"):
            return self._finish(int(reply), _error(f"scripted HTTP {reply}", "scripted_error"), retry, None)
        content = scripted_content("good" if reply == "slow" else reply, prompt)
        prompt_tokens = sum(len(m.get("content") or "") for m in messages) // 4
        payload = {
            "id": f"chatcmpl-scripted-{fingerprint[:12]}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "scripted"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(content) // 4 + 1,
                      "total_tokens": prompt_tokens + len(content) // 4 + 1},
        }
        return self._finish(200, payload, {}, fingerprint)

    def _finish(self, status: int, payload: dict[str, Any], headers: dict[str, str],
                fingerprint: str | None) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._lock:
            self._state.statuses[status] += 1
            if fingerprint is not None:
                self._state.answered.append(fingerprint)
        return status, payload, headers


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": None}}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the SDK reuses connections
    disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms delayed-ACK stall

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client went away (killed, or timed out): nothing to answer

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        server: ScriptedServer = self.server.scripted  # type: ignore[attr-defined]
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model", "owned_by": "comlq"}]})
        elif self.path.rstrip("/").endswith("/_stats"):
            self._send(200, server.stats())
        else:
            self._send(404, _error(f"no route {self.path}", "not_found"))

    def do_POST(self) -> None:  # noqa: N802
        server: ScriptedServer = self.server.scripted  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self._send(400, _error("request body is not JSON", "invalid_request_error"))
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, _error(f"no route {self.path}", "not_found"))
            return
        answer = server.respond(body)
        if answer is None:
            self.close_connection = True  # no response at all: the client sees the connection drop
            return
        self._send(*answer)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet by default
        pass


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.support.scripted_openai",
                                     description="Scripted OpenAI-compatible server: "
                                                 "scripted answers, NOT model output.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before every answer")
    parser.add_argument("--slow-seconds", type=float, default=2.0, help="extra delay of a 'slow' reply")
    parser.add_argument("--default", default="good", help=f"comma-separated replies ({', '.join(REPLIES)})")
    parser.add_argument("--rule", action="append", type=parse_rule, default=[], metavar="TEXT=REPLY[,REPLY...]",
                        help="replies for prompts containing TEXT, e.g. 'Query type: 2in,=broken,good'")
    parser.add_argument("--hang-after", type=int, default=None, help="answer N requests, then hang")
    parser.add_argument("--refuse-format", action="append", default=[], choices=["json_schema", "json_object"],
                        help="answer requests with this response_format with HTTP 400")
    args = parser.parse_args(argv)
    try:
        script = Script(tuple(args.default.split(",")), tuple(args.rule), args.latency, args.slow_seconds,
                        args.hang_after, tuple(args.refuse_format))
    except ValueError as exc:
        parser.error(str(exc))
    server = ScriptedServer(script, args.host, args.port)
    print(f"scripted OpenAI-compatible server at {server.url} (scripted answers, not model output); "
          f"stats at {server.url}/_stats; Ctrl-C stops", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
