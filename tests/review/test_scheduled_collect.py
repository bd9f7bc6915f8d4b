"""A scheduled collect as an operator's server runs it: `comlq serve start` (on
$COMLQ_TEST_PREFECT_PORT, with a configuration of its own) in a shell holding the Label Studio
token checks it against Label Studio and saves it in the Prefect Secret block; the Prefect server
and process worker it spawns hold no token in their environment. A run folder outside runs/ was
pushed with its own configuration file. The collect-every-15-min deployment of flows.yaml, run with
the parameters its schedule uses, finds the run in the review-run registry, reads the token from
the block, pulls the votes and writes the export with the run's own configuration."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.orchestration.serve import Service
from pipeline.schemas import read_jsonl

pytestmark = [pytest.mark.labelstudio, pytest.mark.slow]

PORT = int(os.environ.get("COMLQ_TEST_PREFECT_PORT", "14200"))  # parallel checkouts set their own
COMLQ = [sys.executable, "-m", "pipeline.cli"]
ANNOTATORS = ("sched-a@example.org", "sched-b@example.org", "sched-c@example.org")


def _run(argv: list[str], env: dict[str, str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def _environment(pid: int) -> dict[str, str]:
    """The environment a running process was started with."""
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(entry.decode(errors="replace").partition("=")[::2] for entry in raw if entry)


READ_BLOCK = ("import os, sys; from prefect.blocks.system import Secret; "
              "sys.exit(0 if Secret.load('comlq-label-studio-token').get() == os.environ['EXPECTED'] else 1)")


def test_a_scheduled_collect_reads_the_token_from_the_secret_block_and_exports_a_run_outside_runs(
        ls, tmp_path, make_run, votes, review_toml):
    token_env = ls.config.token_env
    token = os.environ[token_env]
    serving = tmp_path / "serving"  # where `serve start` runs: the worker's folder, its runs/ empty
    (serving / "runs").mkdir(parents=True)
    run = make_run(tmp_path / "elsewhere" / "run")
    config = review_toml(tmp_path / "elsewhere" / "own.toml", ls.config, "scheduled collect", "pool_k = 0\n")
    # a fresh shell's environment, with its own $COMLQ_HOME (the review-run registry)
    shell = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_") and k != "DO_NOT_TRACK"}
    shell["COMLQ_HOME"] = str(tmp_path / "comlq-home")
    no_token = {k: v for k, v in shell.items() if k != token_env}

    pushed = _run([*COMLQ, "review", "push", str(run), "--config", str(config)], shell, serving)
    assert pushed.returncode == 0, pushed.stderr
    items = [i for i in read_jsonl(run / "items.jsonl", "item") if i["check"]["ok"]]
    rejected = items[0]["id"]
    ls.annotate(ls.project("scheduled collect"), votes(items, ANNOTATORS, rejected))

    service = Service(tmp_path / "serve", PORT)
    client = {**no_token, "PREFECT_API_URL": service.api_url, "PREFECT_HOME": str(tmp_path / "client"),
              "COLUMNS": "200"}
    # the serving configuration: the same Label Studio, another project and the default retrievers; the
    # run's own configuration (project "scheduled collect", BM25 only) must win for the run
    serve_config = tmp_path / "serving.toml"
    serve_config.write_text(f'[review]\nurl = "{ls.config.url}"\ntoken_env = "{token_env}"\n'
                            f'data_dir = "{ls.config.data_dir}"\nproject_title = "serving default"\n', encoding="utf-8")
    serve = [*COMLQ, "serve", "start", "--port", str(PORT), "--home", str(service.home), "--config", str(serve_config)]
    try:
        # the operator's shell holds the token: serve start checks it and keeps it in the Secret block
        started = _run(serve, shell, serving)
        assert started.returncode == 0, started.stderr
        assert (f"Label Studio token: ${token_env} checked against {ls.config.url} and saved in Prefect Secret block "
                "'comlq-label-studio-token' (scheduled runs read it there, not from the worker's environment)"
                in started.stdout.splitlines())
        assert token not in started.stdout + started.stderr
        for name in ("server", "worker"):  # neither got the token in its environment
            environment = _environment(service.pid(name))
            assert token_env not in environment and token not in "\0".join(environment.values()), name
        assert _run([sys.executable, "-c", READ_BLOCK], {**client, "EXPECTED": token}, serving).returncode == 0

        # started again from a shell without the token: the block's token is checked, the rest redeployed
        again = _run(serve, no_token, serving)
        assert again.returncode == 0, again.stderr
        assert (f"Label Studio token: the one in Prefect Secret block 'comlq-label-studio-token', checked against "
                f"{ls.config.url}" in again.stdout.splitlines())

        # no token in the environment and no terminal to type it: one line saying what to do
        missing = _run([*COMLQ, "review", "token", "save", "--config", str(config)], client, serving)
        assert missing.returncode == 2
        assert missing.stderr.splitlines() == [f"comlq: error: no token: set ${token_env} to the Label Studio API "
                                               "token, or run this in a terminal to type it at a hidden prompt"]
        wrong = _run([*COMLQ, "review", "token", "save", "--config", str(config)],
                     {**client, token_env: "not-the-servers-token"}, serving)
        assert wrong.returncode == 2 and "rejected the API token" in wrong.stderr

        bad = review_toml(tmp_path / "bad.toml", ls.config, "scheduled collect", 'secret_block = "Not A Name"\n')
        refused = _run([*COMLQ, "review", "token", "save", "--config", str(bad)], {**client, token_env: token}, serving)
        assert refused.returncode == 2 and refused.stderr.splitlines() == [
            f"comlq: error: the Prefect server at {service.api_url} did not save Secret block 'Not A Name' "
            "(ValidationError); check review.secret_block (lowercase letters, digits, dashes)"]

        saved = _run([*COMLQ, "review", "token", "save", "--config", str(config)], {**client, token_env: token},
                     serving)
        assert saved.returncode == 0, saved.stderr
        assert saved.stdout.startswith(f"saved the Label Studio token in Prefect Secret block "
                                       f"'comlq-label-studio-token' at {service.api_url}, checked against")
        assert token not in saved.stdout + saved.stderr + missing.stderr + wrong.stderr + refused.stderr

        # the deployment with its schedule's parameters (runs_root runs, config: serving.toml), token only in the block
        ran = _run([sys.executable, "-m", "prefect", "deployment", "run", "collect-review/collect-every-15-min",
                    "--watch", "--watch-timeout", "600"], client, serving, timeout=700)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert "Completed" in ran.stdout
        worker_log = service.process("worker").log_file.read_text()
    finally:
        stopped = _run([*COMLQ, "serve", "stop", "--port", str(PORT), "--home", str(service.home)], no_token, serving)
    assert stopped.returncode == 0, stopped.stderr
    assert token not in worker_log

    reviewed = {r["item"]["id"]: r["review"]["status"] for r in read_jsonl(run / "review" / "reviewed.jsonl",
                                                                           "reviewed_item")}
    assert reviewed == {i["id"]: "rejected" if i["id"] == rejected else "accepted" for i in items}
    queries = {q["_id"] for q in read_jsonl(run / "export" / "beir" / "queries.jsonl", None)}
    assert queries == {i["id"] for i in items} - {rejected}
    assert (run / "report" / "metrics.json").is_file()  # evaluated with the run's own [evaluate]: bm25 only
    assert list(json.loads((run / "report" / "metrics.json").read_text())["retrievers"]) == ["bm25"]
    registry = json.loads((tmp_path / "comlq-home" / "review-runs.json").read_text())
    assert [(r["run"], r["config"], r["collected"] is not None) for r in registry["runs"]] == \
        [(str(run), str(config), True)]
    assert not any((serving / "runs").iterdir())
