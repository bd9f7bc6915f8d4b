"""The ServiceUnavailable contract: a service that is down or failing on its side raises
ServiceUnavailable (the flows retry it); a request the service refuses raises a plain ComlqError;
the CLI prints either as one line."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from annotation.client import connect
from pipeline.cli import main
from pipeline.config import LLMConfig, ReviewConfig
from pipeline.errors import ComlqError, ServiceUnavailable
from pipeline.passages import iter_passages
from pipeline.services.ledger import Ledger
from pipeline.services.openai_client import LLMClient


def closed_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def answering() -> Iterator[Callable[[int], str]]:
    """A local HTTP server answering every GET with the status the test sets."""
    status = [200]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            self.send_response(status[0])
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=http.serve_forever, args=(0.05,), daemon=True).start()

    def url_answering(code: int) -> str:
        status[0] = code
        return f"http://127.0.0.1:{http.server_address[1]}"

    try:
        yield url_answering
    finally:
        http.shutdown()
        http.server_close()


@pytest.fixture
def review_config(monkeypatch: pytest.MonkeyPatch) -> ReviewConfig:
    monkeypatch.setenv("COMLQ_TEST_TOKEN", "0123456789abcdef")
    return ReviewConfig(url=f"http://127.0.0.1:{closed_port()}", token_env="COMLQ_TEST_TOKEN")


def test_label_studio_down_or_failing_is_unavailable(review_config: ReviewConfig,
                                                     answering: Callable[[int], str]) -> None:
    with pytest.raises(ServiceUnavailable, match="Label Studio is not reachable at"):
        connect(review_config)
    review_config.url = answering(503)
    with pytest.raises(ServiceUnavailable, match="answered 503 to /health"):
        connect(review_config)


def test_label_studio_refusing_a_request_is_not_unavailable(review_config: ReviewConfig,
                                                            answering: Callable[[int], str]) -> None:
    review_config.url = answering(404)
    with pytest.raises(ComlqError, match="answered 404 to /health") as raised:
        connect(review_config)
    assert not isinstance(raised.value, ServiceUnavailable)


def test_an_unreachable_llm_endpoint_is_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    url = f"http://127.0.0.1:{closed_port()}/v1"
    client = LLMClient(LLMConfig(base_url=url, max_retries=0, timeout=5.0), tmp_path, Ledger(url, "m"))
    with pytest.raises(ServiceUnavailable, match=f"cannot reach the LLM endpoint {url}"):
        client.complete([{"role": "user", "content": "hello"}])


def test_the_hub_failing_is_unavailable_but_offline_mode_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    import datasets

    def no_network(*args: object, **kwargs: object) -> None:
        raise ConnectionError("Couldn't reach 'some/dataset' on the Hub (ConnectError)")

    monkeypatch.setattr(datasets, "load_dataset", no_network)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", False)
    with pytest.raises(ServiceUnavailable, match="hf:some/dataset: cannot load dataset"):
        list(iter_passages("hf:some/dataset"))
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)  # the user turned the network off
    with pytest.raises(ComlqError, match="hf:some/dataset: cannot load dataset") as raised:
        list(iter_passages("hf:some/dataset"))
    assert not isinstance(raised.value, ServiceUnavailable)


def test_the_cli_prints_an_unavailable_service_as_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    url = f"http://127.0.0.1:{closed_port()}/v1"
    config = tmp_path / "llm.toml"
    config.write_text(f'[llm]\nbase_url = "{url}"\nmax_retries = 0\npassage_counts = [1]\n')
    code = main(["generate", "--generator", "llm", "--types", "1p", "--per-type", "1", "--config", str(config),
                 "--out", str(tmp_path / "out")])
    assert code == 2
    assert capsys.readouterr().err.splitlines() == [
        f"comlq: error: cannot reach the LLM endpoint {url}: Connection error."]
