"""Server settings and one-line errors that need no running server."""

from __future__ import annotations

import socket

import pytest

from annotation import server
from pipeline.cli import main
from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture()
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("COMLQ_TEST_TOKEN", "0123456789abcdef")
    return ReviewConfig(url=f"http://127.0.0.1:{_free_port()}", token_env="COMLQ_TEST_TOKEN",
                        data_dir=str(tmp_path / "ls"))


def test_the_server_environment_is_offline_and_drops_login_variables(config, monkeypatch):
    monkeypatch.setenv("USERNAME", "someone")
    monkeypatch.setenv("PASSWORD", "shell-password")
    monkeypatch.delenv("LABEL_STUDIO_PASSWORD", raising=False)
    env = server.server_env(config, server.Server.from_config(config))
    assert "USERNAME" not in env and "PASSWORD" not in env
    assert env["LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN"] == "true"
    assert env["SENTRY_DSN"] == "" and env["COLLECT_ANALYTICS"] == "false" and env["LATEST_VERSION_CHECK"] == "false"
    assert env["LABEL_STUDIO_USER_TOKEN"] == "0123456789abcdef"
    assert env["LABEL_STUDIO_USERNAME"] == config.admin_email
    # a generated admin password is kept private in the data dir and reused
    stored = server.Server.from_config(config).data_dir / "admin-password"
    assert env["LABEL_STUDIO_PASSWORD"] == stored.read_text().strip()
    assert stored.stat().st_mode & 0o077 == 0
    assert server.server_env(config, server.Server.from_config(config))["LABEL_STUDIO_PASSWORD"] == env["LABEL_STUDIO_PASSWORD"]


def test_a_missing_token_is_a_clear_error(config, monkeypatch):
    monkeypatch.delenv("COMLQ_TEST_TOKEN")
    with pytest.raises(ComlqError, match=r"set \$COMLQ_TEST_TOKEN to the Label Studio API token"):
        server.api_token(config)


def test_start_refuses_a_port_someone_else_uses(config):
    with socket.socket() as other:
        other.bind(("127.0.0.1", server.Server.from_config(config).port))
        other.listen()
        with pytest.raises(ComlqError, match=r"port \d+ is in use by another process"):
            server.start(config, log=lambda _: None)


def test_stop_and_status_without_a_server(config):
    assert server.stop(config, log=lambda _: None) is False
    assert server.status(config)["running"] is False and server.status(config)["healthy"] is False


def test_push_to_no_server_is_one_line(config, tmp_path, capsys, make_run):
    toml = tmp_path / "c.toml"
    toml.write_text(f'[review]\nurl = "{config.url}"\ntoken_env = "{config.token_env}"\n')
    assert main(["review", "push", str(make_run(tmp_path / "run")), "--config", str(toml)]) == 2
    assert capsys.readouterr().err == (f"comlq: error: Label Studio is not reachable at {config.url} "
                                       "(start it with `comlq review server start`)\n")
