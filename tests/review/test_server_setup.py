"""Server settings and one-line errors that need no running server."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from annotation import server
from pipeline.cli import main
from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError
from pipeline.services.process import ManagedProcess


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
    again = server.server_env(config, server.Server.from_config(config))
    assert again["LABEL_STUDIO_PASSWORD"] == env["LABEL_STUDIO_PASSWORD"]


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


@pytest.fixture()
def booting_server(config, monkeypatch):
    """A live process recorded in the pid file like our server, that never answers /health
    (config's port is free); starting a second server fails the test."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    server.Server.from_config(config).process.record(process.pid)

    def no_second_server(*args, **kwargs):
        raise AssertionError("start() launched a second Label Studio")

    monkeypatch.setattr(ManagedProcess, "spawn", no_second_server)
    monkeypatch.setattr(server.time, "sleep", lambda _: None)
    try:
        yield process.pid
    finally:
        process.kill()
        process.wait()


def test_start_never_launches_a_second_server_next_to_an_unhealthy_one(config, booting_server):
    with pytest.raises(ComlqError, match=rf"Label Studio \(pid {booting_server}\) is running but not healthy; "
                                         rf"see .*server\.log$"):
        server.start(config, timeout=0.2, log=lambda _: None)
    assert server.Server.from_config(config).pid() == booting_server  # kept: the server is still ours to stop


def test_start_waits_for_a_server_that_is_still_booting(config, booting_server, monkeypatch):
    answers = iter([False, False, True])
    monkeypatch.setattr(server.Server, "healthy", lambda self, timeout=2.0: next(answers))
    monkeypatch.setattr(server, "_check_token", lambda config, srv: None)  # no server to ask
    assert server.start(config, timeout=60.0, log=lambda _: None) == booting_server
    assert next(answers, "polled until healthy") == "polled until healthy"


@pytest.mark.parametrize("verb", ["push", "pull", "status", "collect"])
def test_a_folder_that_is_no_run_is_one_line(verb, tmp_path, capsys):
    assert main(["review", verb, str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err == (f"comlq: error: {tmp_path / 'nowhere'}: not a run folder (no items.jsonl); "
                                       "give the folder `comlq run` or `comlq generate` wrote\n")


@pytest.mark.parametrize("verb", [["status"], ["pull"], ["collect"], ["annotators", "list"]])
def test_no_server_is_one_line_for_every_verb(verb, config, tmp_path, capsys, make_run):
    toml = tmp_path / "c.toml"
    toml.write_text(f'[review]\nurl = "{config.url}"\ntoken_env = "{config.token_env}"\n')
    run = [] if verb[0] == "annotators" else [str(make_run(tmp_path / "run"))]
    if verb == ["collect"]:  # collect needs a pushed run
        from pipeline.config import Config
        from pipeline.orchestration.review_runs import record_push

        record_push(run[0], str(toml), Config(review=config), {})
    assert main(["review", *verb, *run, "--config", str(toml)]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (f"comlq: error: Label Studio is not reachable at {config.url} "
                                                        "(start it with `comlq review server start`)")


def test_reset_password_without_the_server_venv_is_one_line(config, tmp_path, monkeypatch, capsys):
    from annotation import users

    monkeypatch.setattr(users, "accounts", lambda config: [users.Account(1, "ana@example.org", None, None)])
    (Path(config.data_dir) / server.DB_NAME).parent.mkdir(parents=True)
    (Path(config.data_dir) / server.DB_NAME).touch()  # the server's data dir is here, its venv is not
    monkeypatch.setenv(server.VENV_ENV, str(tmp_path / "no-venv"))
    toml = tmp_path / "c.toml"
    toml.write_text(f'[review]\nurl = "{config.url}"\ntoken_env = "{config.token_env}"\n'
                    f'data_dir = "{config.data_dir}"\n')
    assert main(["review", "annotators", "reset-password", "ana@example.org", "--config", str(toml)]) == 2
    assert capsys.readouterr().err == (
        f"comlq: error: reset-password runs the server's own `label-studio` command, and {tmp_path}/no-venv/bin/"
        "label-studio is not there: run it where `comlq review server start` ran (the repository root), "
        f"or set ${server.VENV_ENV}\n")


def test_token_save_without_a_prefect_server_or_label_studio_is_one_line(config, tmp_path, monkeypatch, capsys):
    toml = tmp_path / "c.toml"
    toml.write_text(f'[review]\nurl = "{config.url}"\ntoken_env = "{config.token_env}"\n')
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    assert main(["review", "token", "save", "--config", str(toml)]) == 2
    assert capsys.readouterr().err == ("comlq: error: no Prefect server: set PREFECT_API_URL to the one `comlq serve "
                                       "start` started (it printed `export PREFECT_API_URL=...`) or give --api-url\n")
    nowhere = f"http://127.0.0.1:{_free_port()}/api"
    assert main(["review", "token", "save", "--config", str(toml), "--api-url", nowhere]) == 2
    assert capsys.readouterr().err == (f"comlq: error: the Prefect server at {nowhere} does not answer "
                                       "(start it with `comlq serve start`)\n")
    # a Prefect server that answers: the token is checked on Label Studio next, before anything is saved
    monkeypatch.setattr("pipeline.orchestration.secret.prefect_api", lambda given: "http://127.0.0.1:4200/api")
    monkeypatch.setattr("pipeline.orchestration.secret.save_token", lambda *args: pytest.fail("saved unchecked"))
    assert main(["review", "token", "save", "--config", str(toml)]) == 2
    err = capsys.readouterr().err
    assert err == (f"comlq: error: Label Studio is not reachable at {config.url} "
                   "(start it with `comlq review server start`)\n")
    assert "0123456789abcdef" not in err


class _Recorder:
    """Stands in for pipeline.progress.Progress: what a progress step was told."""

    made: list[_Recorder] = []

    def __init__(self, desc: str, total: int | None = None, unit: str = "item", **_: object) -> None:
        self.desc, self.unit, self.n, self.postfixes = desc, unit, 0, []
        _Recorder.made.append(self)

    def update(self, n: int = 1) -> None:
        self.n += n

    def set_postfix_str(self, label: str) -> None:
        self.postfixes.append(label)

    def __enter__(self) -> _Recorder:
        return self

    def __exit__(self, *_: object) -> None:
        pass


def _fake_pip(venv: Path, output: str, code: int) -> None:
    (venv / "bin").mkdir(parents=True)
    pip = venv / "bin" / "pip"
    pip.write_text(f"#!/bin/sh\ncat <<'OUT'\n{output}\nOUT\nexit {code}\n")
    pip.chmod(0o755)


def test_the_server_install_counts_the_packages_pip_collects(tmp_path, monkeypatch):
    _Recorder.made.clear()
    monkeypatch.setattr(server, "Progress", _Recorder)
    _fake_pip(tmp_path / "venv", "Collecting label-studio==1.23.2\n  Using cached label_studio.whl\n"
                                 "Collecting Django<5.2\nCollecting boto3\n"
                                 "Installing collected packages: boto3, Django, label-studio\n"
                                 "Successfully installed", 0)
    server._pip_install(tmp_path / "venv", server.LS_REQUIREMENT)
    (bar,) = _Recorder.made
    assert (bar.desc, bar.unit, bar.n) == (f"installing {server.LS_REQUIREMENT}", "package", 3)
    assert bar.postfixes == ["label-studio==1.23.2", "Django<5.2", "boto3", "installing 3 packages"]


def test_a_failed_server_install_is_one_line_with_pips_reason(tmp_path, monkeypatch):
    monkeypatch.setattr(server, "Progress", _Recorder)
    _fake_pip(tmp_path / "venv", "Collecting label-studio==1.23.2\n"
                                 "ERROR: No matching distribution found for label-studio==1.23.2\n", 1)
    reason = "ERROR: No matching distribution found for label-studio==1.23.2"
    with pytest.raises(ComlqError, match=re.escape(f"Label Studio setup failed while running pip install "
                                                   f"label-studio==1.23.2: {reason}") + "$"):
        server._pip_install(tmp_path / "venv", server.LS_REQUIREMENT)
