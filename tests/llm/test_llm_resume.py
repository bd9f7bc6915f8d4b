"""A `comlq generate --generator llm` killed halfway (SIGKILL) and restarted repeats no answered call."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pipeline.schemas import read_json, read_jsonl
from tests.support.scripted_openai import Script

COMLQ = Path(sys.executable).with_name("comlq")
TYPES = "1p,2in,up"
PER_TYPE = 2


def _command(config: Path, passages: Path, out: Path) -> list[str]:
    return [str(COMLQ), "generate", "--generator", "llm", "--config", str(config), "--passages", str(passages),
            "--types", TYPES, "--per-type", str(PER_TYPE), "--out", str(out)]


def _wait_for(condition, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the generator")
        time.sleep(0.02)


def test_killed_run_restarted_makes_no_repeated_call(server, tmp_path, passages_path):
    config = tmp_path / "llm.toml"
    config.write_text(f'[llm]\nbase_url = "{server.url}"\nmodel = "scripted-model"\nconcurrency = 1\n'
                      f'max_retries = 0\n[generate]\ncompleteness = "off"\n', encoding="utf-8")  # (scripted answers)
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-not-a-secret"}
    env.pop("COMLQ_CONFIG", None)
    out = tmp_path / "run"
    answered_before_kill = 3
    server.script = Script(hang_after=answered_before_kill)  # the 4th request never gets an answer

    first = subprocess.Popen(_command(config, passages_path, out), env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for(lambda: server.stats()["requests"] > answered_before_kill)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert first.returncode == -signal.SIGKILL
    assert not (out / "items.jsonl").exists()  # killed before the end: no output, no half file
    assert len(list((out / "cache" / "llm").rglob("*.json"))) == answered_before_kill

    server.script = Script()  # releases the hanging request; answers everything from now on
    second = subprocess.run(_command(config, passages_path, out), env=env, capture_output=True, text=True,
                            timeout=60)
    assert second.returncode == 0, second.stderr

    answered = server.answered()
    total = len(TYPES.split(",")) * PER_TYPE
    assert len(answered) == total
    assert len(set(answered)) == total  # no request was answered (paid for) twice
    ledger = read_json(out / "ledger.json", "llm_ledger")
    assert (ledger["cache_hits"], ledger["calls"]) == (answered_before_kill, total - answered_before_kill)
    items = list(read_jsonl(out / "items.jsonl", "item"))
    assert len(items) == total and all(i["check"]["ok"] for i in items)
