"""Fixtures for the retrieval tests: a tiny BEIR folder (30 passages, 11 queries), one
sentence-transformers encoder shared by the session (loading it is the slow part), and a tiny
OpenAI-compatible server on a free port (`stub`).

The stub's chat answers are scripted from the prompt: a parse prompt gets the question as one
quoted term inside a code fence (the parser must strip it); any other prompt gets
"Reasoning: <question>". Its embeddings are hashed bags of words, so texts sharing words are similar.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from retrieval.beir import BeirData, load_beir
from retrieval.encoders import CachedEncoder, SentenceTransformerEncoder

BEIR = Path(__file__).parent / "fixtures" / "beir"


@pytest.fixture(scope="session")
def beir_path() -> Path:
    return BEIR


@pytest.fixture(scope="session")
def data() -> BeirData:
    return load_beir(BEIR, "test")


@pytest.fixture(scope="session")
def model() -> SentenceTransformerEncoder:
    return SentenceTransformerEncoder()


@pytest.fixture()
def encoder(model, tmp_path) -> CachedEncoder:
    return CachedEncoder(model, tmp_path / "cache")


# -- the OpenAI-compatible stub --------------------------------------------------------

DIM = 64


def embed(text: str) -> list[float]:
    vector = [0.0] * DIM
    for word in re.findall(r"\w+", text.lower()):
        vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % DIM] += 1.0
    return vector


def answer(prompt: str) -> str:
    question = re.findall(r"Question: (.*)", prompt)[-1].strip()
    if "ITLR syntax" in prompt:
        return f'```\n"{question.rstrip("?")}"\n```'
    return f"Reasoning: {question}"


class _Handler(BaseHTTPRequestHandler):
    requests: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "body": body})
        if self.path.endswith("/chat/completions"):
            payload = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant",
                                                "content": answer(body["messages"][-1]["content"])}}],
                       "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        elif self.path.endswith("/embeddings"):
            inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
            payload = {"object": "list", "model": body["model"], "usage": {"prompt_tokens": 1, "total_tokens": 1},
                       "data": [{"object": "embedding", "index": i, "embedding": embed(t)}
                                for i, t in enumerate(inputs)]}
        else:
            self.send_error(404)
            return
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


class StubServer:
    def __enter__(self) -> StubServer:
        _Handler.requests = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        return self

    @property
    def requests(self) -> list[dict]:
        return _Handler.requests

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture()
def stub():
    with StubServer() as server:
        yield server
