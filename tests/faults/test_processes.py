"""kill -9 of `comlq run` (the main pid alone, and the whole process group) while its temporary
Prefect API server is up: nothing of the run may stay behind, listening or not, and a rerun on
the same folder completes (the stale lock is taken over, finished stages are kept).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KILLS = ["main-pid", "process-group", "api-server"]


def _wait(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds} s waiting for {what}")
        time.sleep(0.2)


def _listener(procs, pid: int) -> int:
    """The descendant of `pid` that listens on a TCP port (the temporary API server)."""
    return next(p for p in procs.descendants(pid) if procs.listening_ports([p]))


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return b""


@pytest.mark.parametrize("kill", KILLS)
def test_kill_run_leaves_no_orphan(kill: str, probe, procs, tmp_path: Path, reaper: list[int]) -> None:
    config = tmp_path / "small.toml"
    # 60 passages leave some types without items: that shortfall is not what this test is about
    config.write_text('[generate]\nallow_short = true\n\n[evaluate]\nretrievers = ["bm25"]\n')
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "pipeline.cli", "run", "--out", str(out), "--config", str(config),
            "--limit", "60", "--per-type", "2"]
    env = procs.clean_env(PYTHONPATH=str(ROOT))
    main = subprocess.Popen(argv, cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    reaper.append(main.pid)
    seen: set[int] = set()

    def api_up() -> bool:
        below = procs.descendants(main.pid)
        seen.update(below)
        reaper.extend(below)
        return (bool(procs.listening_ports(below)) and any(b"watchdog" in _cmdline(p) for p in below)) \
            or main.poll() is not None

    # the watchdog starts once the API answers: a kill in between (a few ms) is not guarded (see report)
    _wait(api_up, 240, "the temporary Prefect API to listen and its watchdog to start")
    assert main.poll() is None, f"the run ended before the kill: {main.stderr.read().decode()[-2000:]}"
    if kill == "api-server":  # mid-flow: the run must say so in one line and end; its rerun completes
        _wait(lambda: any((out / ".comlq").glob("*.json")) or main.poll() is not None, 240, "a first finished stage")
        os.kill(_listener(procs, main.pid), signal.SIGKILL)
        try:
            main.wait(timeout=300)
        finally:
            err = main.stderr.read().decode()
        probe.record("temporary Prefect API killed mid-flow", traceback="Traceback (most recent" in err)
        assert main.returncode != 0 and "Traceback (most recent" not in err, err[-3000:]
        errors = [line for line in err.splitlines() if line.startswith("comlq: error:")]
        assert len(errors) == 1 and "Prefect API" in errors[0], err[-3000:]
    elif kill == "main-pid":
        os.kill(main.pid, signal.SIGKILL)
    else:
        os.killpg(main.pid, signal.SIGKILL)
    main.wait()
    seen.update(procs.descendants(main.pid))
    deadline = time.monotonic() + 30  # the watchdog's grace period is 5 s
    while (left := [p for p in seen if procs.alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.2)
    probe.record(f"kill -9 {kill} of comlq run", orphans=len(left))
    assert not left, f"orphans after kill -9 of the {kill}: " + "; ".join(_cmdline(p).decode()[:200] for p in left)
    assert not procs.listening_ports(left)

    rerun = probe.run("run", "--out", out, "--config", config, "--limit", "60", "--per-type", "2",
                      what=f"rerun after kill -9 {kill}", env=env, timeout=600)
    rerun.ok()
    assert (out / "items.jsonl").is_file() and (out / "report" / "report.md").is_file()
    assert not (out / ".comlq" / "run.lock").exists()
