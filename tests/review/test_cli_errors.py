"""The operator's commands as a shell runs them (`python -m pipeline.cli` in a subprocess) when the
Label Studio token is missing or wrong, the server is not there, or the run folder is wrong:
exit code 2 and one line on stderr that says what to do, never a traceback, never the token.

push, status and collect need no Prefect for these (collect checks the folder, the push and, with
the token in the environment, the server before it starts a temporary Prefect API); a missing token
reaches collect's flow, and serve start starts its Prefect server to look for the token in the
Secret block, so those two cases are slow. The wrong-token cases need the real server (`ls`).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.config import Config, ReviewConfig
from pipeline.orchestration.review_runs import record_push
from pipeline.orchestration.serve import Service

TOKEN_ENV = "COMLQ_CLI_TEST_TOKEN"  # the token variable of the configurations below
WRONG = "not-the-servers-token-0123456789"
PREFECT_PORT = int(os.environ.get("COMLQ_TEST_PREFECT_PORT", "14200"))
NOT_REACHABLE = "comlq: error: Label Studio is not reachable at {url} (start it with `comlq review server start`)"
NO_TOKEN = (f"comlq: error: set ${TOKEN_ENV} to the Label Studio API token: the one its data dir was first started "
            f"with, or for a new server 6-40 characters, e.g. `export {TOKEN_ENV}=$(openssl rand -hex 20)`")
NO_REVIEW = "; to schedule the runs without review: `comlq serve start --no-review`"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _toml(path: Path, url: str, data_dir: Path | str) -> Path:
    path.write_text(f'[review]\nurl = "{url}"\ntoken_env = "{TOKEN_ENV}"\ndata_dir = "{data_dir}"\n'
                    'project_title = "cli errors"\n', encoding="utf-8")
    return path


def comlq(*argv: str, token: str | None, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """The command in a fresh shell's environment (no Prefect settings), with `token` in $TOKEN_ENV or none."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_") and k not in ("DO_NOT_TRACK", TOKEN_ENV)}
    if token is not None:
        env[TOKEN_ENV] = token
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *argv], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def one_line_error(done: subprocess.CompletedProcess[str], expected: str) -> None:
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output
    assert done.returncode == 2, output
    assert done.stderr.splitlines() == [expected], output
    assert WRONG not in output


@pytest.fixture()
def pushed(tmp_path, make_run) -> Path:
    """A run folder recorded as pushed (collect's precondition), with its configuration."""
    run = make_run(tmp_path / "run")
    record_push(run, None, Config(review=ReviewConfig(token_env=TOKEN_ENV)), {"project": 1, "created": 5})
    return run


# ------------------------------------------------------------------------ no server, no token, no run folder


@pytest.mark.parametrize("verb", ["push", "status", "collect"])
def test_an_unreachable_server_is_one_line(verb, tmp_path, pushed):
    url = f"http://127.0.0.1:{_free_port()}"
    config = _toml(tmp_path / "c.toml", url, tmp_path / "ls")
    done = comlq("review", verb, str(pushed), "--config", str(config), token="0123456789abcdef", cwd=tmp_path)
    one_line_error(done, NOT_REACHABLE.format(url=url))


@pytest.mark.parametrize("verb", ["push", "status"])
def test_a_missing_token_is_one_line(verb, tmp_path, pushed):
    config = _toml(tmp_path / "c.toml", f"http://127.0.0.1:{_free_port()}", tmp_path / "ls")
    one_line_error(comlq("review", verb, str(pushed), "--config", str(config), token=None, cwd=tmp_path), NO_TOKEN)


@pytest.mark.slow
def test_a_missing_token_is_one_line_for_collect_after_the_flow_looked_in_the_secret_block(tmp_path, pushed):
    config = _toml(tmp_path / "c.toml", f"http://127.0.0.1:{_free_port()}", tmp_path / "ls")
    done = comlq("review", "collect", str(pushed), "--config", str(config), token=None, cwd=tmp_path)
    one_line_error(done, NO_TOKEN)
    assert not (pushed / "review" / "reviewed.jsonl").exists()


@pytest.mark.parametrize("verb", ["push", "status", "collect"])
def test_a_missing_run_folder_is_one_line(verb, tmp_path):
    nowhere = tmp_path / "nowhere"
    done = comlq("review", verb, str(nowhere), token="0123456789abcdef", cwd=tmp_path)
    one_line_error(done, f"comlq: error: {nowhere}: not a run folder (no items.jsonl); give the folder "
                         "`comlq run` or `comlq generate` wrote")


def test_collect_of_a_run_never_pushed_is_one_line(tmp_path, make_run):
    run = make_run(tmp_path / "run")
    done = comlq("review", "collect", str(run), token="0123456789abcdef", cwd=tmp_path)
    one_line_error(done, f"comlq: error: {run}: nothing pushed for review yet (run `comlq review push {run}` "
                         "or `comlq run --review`)")


def test_serve_start_with_an_unreachable_label_studio_is_one_line_and_starts_nothing(tmp_path):
    url = f"http://127.0.0.1:{_free_port()}"
    config = _toml(tmp_path / "c.toml", url, tmp_path / "ls")
    service = Service(tmp_path / "serve", PREFECT_PORT)
    done = comlq("serve", "start", "--config", str(config), "--port", str(PREFECT_PORT), "--home", str(service.home),
                 token="0123456789abcdef", cwd=tmp_path)
    one_line_error(done, NOT_REACHABLE.format(url=url) + NO_REVIEW)
    assert service.pid("server") is None and not service.healthy()


def test_serve_start_with_a_missing_configuration_file_is_one_line(tmp_path):
    missing = tmp_path / "none.toml"
    done = comlq("serve", "start", "--config", str(missing), "--home", str(tmp_path / "serve"), token=None,
                 cwd=tmp_path)
    one_line_error(done, f"comlq: error: {missing}: configuration file not found")


@pytest.mark.slow
def test_serve_start_without_a_token_or_a_saved_one_is_one_line_and_stops_what_it_started(tmp_path):
    config = _toml(tmp_path / "c.toml", f"http://127.0.0.1:{_free_port()}", tmp_path / "ls")
    service = Service(tmp_path / "serve", PREFECT_PORT)
    done = comlq("serve", "start", "--config", str(config), "--port", str(PREFECT_PORT), "--home", str(service.home),
                 token=None, cwd=tmp_path)
    try:
        one_line_error(done, f"comlq: error: no Label Studio token for the scheduled review: set ${TOKEN_ENV} to the "
                             f"token the Label Studio server at {_url(config)} was first started with (serve start "
                             "keeps it in Prefect Secret block 'comlq-label-studio-token')" + NO_REVIEW)
        assert service.pid("server") is None and not service.healthy()  # the Prefect server it needed, stopped
    finally:
        service.stop()


def _url(config: Path) -> str:
    return config.read_text().split('url = "')[1].split('"')[0]


# ------------------------------------------------------------------------ a token the real server rejects


def _rejected(ls) -> str:
    from annotation.server import Server

    data_dir = Server.from_config(ls.config).data_dir
    return (f"comlq: error: Label Studio at {ls.config.url} rejected the API token: it must be the token the server in "
            f"{data_dir} was first started with (check ${TOKEN_ENV} / review.token_env)")


@pytest.mark.labelstudio
@pytest.mark.parametrize("verb", ["push", "status", "collect"])
def test_a_wrong_token_is_one_line(verb, ls, tmp_path, pushed):
    config = _toml(tmp_path / "c.toml", ls.config.url, ls.config.data_dir)
    done = comlq("review", verb, str(pushed), "--config", str(config), token=WRONG, cwd=tmp_path)
    one_line_error(done, _rejected(ls))


@pytest.mark.labelstudio
def test_serve_start_with_a_wrong_token_is_one_line_and_starts_nothing(ls, tmp_path):
    config = _toml(tmp_path / "c.toml", ls.config.url, ls.config.data_dir)
    service = Service(tmp_path / "serve", PREFECT_PORT)
    done = comlq("serve", "start", "--config", str(config), "--port", str(PREFECT_PORT), "--home", str(service.home),
                 token=WRONG, cwd=tmp_path)
    one_line_error(done, _rejected(ls) + NO_REVIEW)
    assert service.pid("server") is None and not service.healthy()
