"""A service dying under a running command: Label Studio killed (kill -9) in the middle of a push.
The push says so in one line, and once the server is back the same push completes: every item is
on the server exactly once (no duplicate task, none missing) and the push log names every task.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
REVIEW = ROOT / "tests" / "review" / "fixtures"
COPIES = 8  # of the 6 fixture items: 48 tasks, pushed one per request so that the kill lands mid-push
TOKEN_ENV = "COMLQ_TEST_LS_TOKEN"
# next to the review tests' port: their server lives for the whole session, this one for this module
PORT = int(os.environ.get("COMLQ_TEST_LS_PORT", "18080")) + 1
pytestmark = pytest.mark.labelstudio


@pytest.fixture(scope="module")
def label_studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A real Label Studio on COMLQ_TEST_LS_PORT + 1 with a data dir of its own; yields a config file
    for `comlq review` that pushes one task per request."""
    from annotation import server
    from pipeline.config import ReviewConfig

    os.environ.setdefault(server.VENV_ENV, str(ROOT / server.DEFAULT_VENV))
    if not (server.venv_path() / "bin" / "label-studio").exists():
        pytest.skip(f"no Label Studio in {server.venv_path()} (make install puts it there)")
    os.environ.setdefault(TOKEN_ENV, secrets.token_hex(20))
    tmp = tmp_path_factory.mktemp("label-studio")
    config = ReviewConfig(url=f"http://127.0.0.1:{PORT}", token_env=TOKEN_ENV, data_dir=str(tmp / "data"),
                          project_title="faults: killed mid-push")
    toml = tmp / "review.toml"
    toml.write_text(f'[review]\nurl = "{config.url}"\ntoken_env = "{TOKEN_ENV}"\ndata_dir = "{config.data_dir}"\n'
                    f'project_title = "{config.project_title}"\nbatch_size = 1\npool_k = 0\n'
                    "include_failed_checks = true\n")
    server.start(config, log=lambda _: None)
    try:
        yield toml
    finally:
        server.stop(config, log=lambda _: None)


def _review_config(toml: Path):
    from pipeline.config import load_config

    return load_config(toml).review


def _tasks(config) -> list[str]:
    """The item id of every task in the project (a duplicate task shows twice)."""
    headers = {"Authorization": f"Token {os.environ[config.token_env]}"}
    with httpx.Client(base_url=config.url, headers=headers, timeout=30) as http:
        projects = [p for p in http.get("/api/projects", params={"title": config.project_title}).json()["results"]
                    if p["title"] == config.project_title]
        if not projects:
            return []
        response = http.get("/api/tasks", params={"project": projects[0]["id"], "page_size": 10_000,
                                                  "include": "id,data"})
        return [t["data"]["item_id"] for t in response.json()["tasks"]] if response.status_code == 200 else []


def _run_folder(path: Path) -> list[str]:
    items = [json.loads(line) for line in (REVIEW / "items.jsonl").read_text().splitlines()]
    copies = [{**item, "id": f"{item['id']}-c{k}"} for k in range(COPIES) for item in items]
    path.mkdir()
    (path / "items.jsonl").write_text("".join(json.dumps(item) + "\n" for item in copies))
    (path / "passages.jsonl").write_bytes((REVIEW / "passages.jsonl").read_bytes())
    return [item["id"] for item in copies]


def test_label_studio_killed_mid_push(label_studio: Path, probe, procs, tmp_path: Path) -> None:
    from annotation import server

    config = _review_config(label_studio)
    run = tmp_path / "run"
    ids = _run_folder(run)
    argv = ["review", "push", str(run), "--config", str(label_studio)]
    env = procs.clean_env(PYTHONPATH=str(ROOT))
    push = subprocess.Popen([sys.executable, "-m", "pipeline.cli", *argv], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while len(_tasks(config)) < 5 and push.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert push.poll() is None, f"the push ended before the kill: {push.communicate()[1][-2000:]}"
    pid = server.Server.from_config(config).pid()
    assert pid is not None
    os.killpg(pid, signal.SIGKILL)  # the server and its workers, as the OOM killer or a power cut would
    _, err = push.communicate(timeout=300)
    probe.record("Label Studio killed mid-push", traceback="Traceback (most recent" in err)
    errors = [line for line in err.splitlines() if line.startswith("comlq: error:")]
    assert push.returncode != 0 and "Traceback (most recent" not in err and len(errors) == 1, err[-3000:]
    assert config.url in errors[0], errors[0]

    server.start(config, log=lambda _: None)
    on_server_before = len(_tasks(config))
    assert 0 < on_server_before < len(ids), f"{on_server_before} of {len(ids)} tasks pushed before the kill"
    probe.run(*argv, what="push re-run after Label Studio came back", env=env, timeout=600).ok()
    tasks = Counter(_tasks(config))
    duplicates = sorted(i for i, n in tasks.items() if n > 1)
    missing = sorted(set(ids) - set(tasks))
    probe.probes[-1].lost = len(missing)
    assert not duplicates and not missing, f"duplicates {duplicates}, missing {missing}"
    log = [json.loads(line) for line in (run / "review" / "push_log.jsonl").read_text().splitlines()]
    assert sorted(r["item_id"] for r in log) == sorted(ids) and all(r["task_id"] for r in log)
