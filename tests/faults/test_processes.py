"""kill -9 of `comlq run` (the main pid alone, and the whole process group) while its temporary
Prefect API server is up: nothing of the run may stay behind, listening or not, and a rerun on
the same folder completes (the stale lock is taken over, finished stages are kept). Ctrl-C (SIGINT)
ends a run within seconds with one line and exit code 130, and its rerun is a clean run's; a
rerun with nothing to do starts no Prefect; a closed pipe ends a command quietly.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
TRACEBACK = "Traceback (most recent call last)"
KILLS = ["main-pid", "process-group", "api-server"]
INTERRUPTED = "comlq: interrupted; rerun the same command to resume"
CTRL_C_SECONDS = 5.0  # issue 31: Ctrl-C ends any verb within this


def _wait(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds} s waiting for {what}")
        time.sleep(0.2)


def _listener(procs, pid: int) -> int:
    """The descendant of `pid` that listens on a TCP port (the temporary API server)."""
    return next(p for p in procs.descendants(pid) if procs.listening_ports([p]))


def _ctrl_c(main: subprocess.Popen, output: Path, group: bool = True) -> tuple[float, list[str]]:
    """SIGINT to a run (its process group, as a terminal's Ctrl-C, or its main pid alone): how long
    it took to end, and the lines of `output` after the signal. A run still going after 60 s is
    killed (the caller's check then fails)."""
    before = len(output.read_text().splitlines())
    sent = time.monotonic()
    os.killpg(main.pid, signal.SIGINT) if group else os.kill(main.pid, signal.SIGINT)
    try:
        main.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(main.pid, signal.SIGKILL)
        main.wait()
    return time.monotonic() - sent, output.read_text().splitlines()[before:]


def _ended_on_ctrl_c(main: subprocess.Popen, seconds: float, after: list[str], output: Path) -> None:
    """Exit 130 within CTRL_C_SECONDS; no traceback or Prefect log; the one line, and nothing after it
    (lines the run wrote before it took the signal may come first)."""
    text = output.read_text()
    assert main.returncode == 130 and seconds < CTRL_C_SECONDS, \
        f"exit {main.returncode} {seconds:.1f} s after Ctrl-C: {text[-3000:]}"
    assert TRACEBACK not in text and " | ERROR " not in text and "EventsWorker" not in text, text[-3000:]
    assert after and after[-1] == INTERRUPTED and after.count(INTERRUPTED) == 1, after


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return b""


@pytest.mark.parametrize("kill", KILLS)
def test_kill_run_leaves_no_orphan(kill: str, probe, procs, tmp_path: Path, reaper: list[int]) -> None:
    # 60 passages leave some types without items: that shortfall is not what this test is about
    config = procs.line_config(tmp_path / "small.toml")
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
        # working: the watchdog is up (it starts once the API answers: a kill in the few ms before is not
        # guarded), or a first stage has finished (code without a watchdog)
        working = any(b"watchdog" in _cmdline(p) for p in below) or any((out / ".comlq").glob("*.json"))
        return (bool(procs.listening_ports(below)) and working) or main.poll() is not None

    _wait(api_up, 240, "the temporary Prefect API to listen and the run to work")
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


@pytest.mark.parametrize("who", ["process-group", "main-pid"])
def test_ctrl_c_stops_the_run_and_its_temporary_api(who: str, probe, procs, tmp_path: Path, reaper: list[int]) -> None:
    """Ctrl-C during generation (issue 31: the run went on for 66-213 s and dumped Prefect's log): exit
    130 within 5 s with one line, the temporary API stopped before the run ends, nothing left running,
    and the rerun completes. To the process group, as a terminal sends it, or to the main pid alone."""
    config, out, output = procs.line_config(tmp_path / "small.toml"), tmp_path / "run", tmp_path / "output"
    with output.open("w") as sink:
        main = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "run", "--out", str(out), "--config",
                                 str(config), "--limit", "60", "--per-type", "2"], cwd=ROOT,
                                env=procs.clean_env(PYTHONPATH=str(ROOT)), start_new_session=True,
                                stdout=sink, stderr=sink)
    reaper.append(main.pid)
    _wait(lambda: "run 2/5: generate" in output.read_text() or main.poll() is not None, 300, "the generate stage")
    assert main.poll() is None, output.read_text()[-3000:]
    time.sleep(1.0)  # generation under way, in Prefect's worker thread
    seen = procs.descendants(main.pid)
    reaper.extend(seen)
    api = _listener(procs, main.pid)
    seconds, after = _ctrl_c(main, output, group=who == "process-group")
    api_left = procs.alive(api)
    deadline = time.monotonic() + 10  # the watchdog ends once it sees the run gone
    while (left := [p for p in seen if procs.alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.2)
    probe.record(f"Ctrl-C ({who}) of comlq run", traceback=TRACEBACK in output.read_text(), orphans=len(left))
    _ended_on_ctrl_c(main, seconds, after, output)
    assert not api_left, "the temporary Prefect API was still running when the run ended"
    assert not left, "left running: " + "; ".join(_cmdline(p).decode()[:200] for p in left)
    assert not (out / ".comlq" / "run.lock").exists()
    if who == "process-group":
        rerun = probe.run("run", "--out", out, "--config", config, "--limit", "60", "--per-type", "2",
                          what="rerun after Ctrl-C", env=procs.clean_env(PYTHONPATH=str(ROOT)), timeout=600)
        rerun.ok()
        assert (out / "report" / "report.md").is_file()


def test_second_run_on_a_running_folder(probe, procs, tmp_path: Path, reaper: list[int]) -> None:
    """Two `comlq run` on one folder (failure 2): the second gets one line naming the first, before
    any work; the first completes and the folder holds the first run's outputs."""
    config = procs.line_config(tmp_path / "small.toml")
    out = tmp_path / "run"
    env = procs.clean_env(PYTHONPATH=str(ROOT))
    first = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "run", "--out", str(out), "--config", str(config),
                              "--limit", "60", "--per-type", "2"], cwd=ROOT, env=env, start_new_session=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reaper.append(first.pid)
    # the first run holds the folder once it has written anything there (its lock, or Prefect's home)
    _wait(lambda: (out / ".comlq" / "run.lock").exists() or (out / ".prefect").exists() or first.poll() is not None,
          240, "the first run to start")
    second = probe.run("run", "--out", out, "--config", config, "--limit", "60", "--per-type", "3",
                       what="second run on a running folder", env=env, timeout=600)
    line = second.error_line()
    assert f"pid {first.pid}" in line and str(out) in line, line
    stdout, stderr = first.communicate(timeout=600)
    probe.record("first run of two on one folder", traceback="Traceback (most recent" in stderr)
    assert first.returncode == 0, stderr[-3000:]
    counts = Counter(json.loads(row)["type"] for row in (out / "items.jsonl").read_text().splitlines())
    assert max(counts.values()) <= 2, f"the folder holds another run's items: {counts}"
    assert "items" in stdout and not (out / ".comlq" / "run.lock").exists()


def test_kill_during_encoding_keeps_finished_shards(probe, tmp_path: Path) -> None:
    """kill -9 during dense encoding (failure 9): what was encoded before the kill is kept, except at
    most one shard (the encoder's own shard size), so the rerun does not encode everything again."""
    from retrieval.encoders import SHARD_ROWS, CachedEncoder
    from tests.support.slow_encoder import NAME

    log = tmp_path / "encoded.txt"
    child = subprocess.Popen([sys.executable, str(ROOT / "tests" / "support" / "slow_encoder.py"),
                              str(tmp_path / "cache"), str(log), "2000", "64", "0.1"], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})

    def encoded() -> int:
        return sum(int(n) for n in log.read_text().split()) if log.exists() else 0

    try:
        _wait(lambda: encoded() >= 1100 or child.poll() is not None, 120, "1100 texts encoded")
    finally:
        child.kill()
        child.wait()
    before = encoded()
    assert before < 2000, "the encoding ended before the kill"

    class Counting:
        name = NAME
        texts = 0

        def encode(self, texts):
            self.texts += len(texts)
            return np.ones((len(texts), 4), dtype=np.float32) / 2

    rerun = Counting()
    CachedEncoder(rerun, tmp_path / "cache", batch_size=64).encode([f"text {i}" for i in range(2000)], progress=False)
    kept = 2000 - rerun.texts  # texts the rerun found in the cache
    healed = kept > 0 and before - kept <= SHARD_ROWS
    probe.record("kill -9 during dense encoding", lost=0 if healed else before - kept)
    assert healed, f"{before} texts were encoded before the kill, the rerun found {kept} of them (shard {SHARD_ROWS})"


# ---------------------------------------------------------------- kill -9 at each stage

STEP = re.compile(r"^run (\d+)/(\d+): (\w+)", re.M)  # the step counter's line as each stage starts
TIMING = re.compile(r"(_s|_seconds|per_second)$")  # keys whose values are timings


def _comparable(run: Path) -> dict[str, bytes]:
    """The run's outputs as a user sees them, with the folder's own path and name and timings blanked."""
    files = {}
    for path in sorted(run.rglob("*")):
        name = str(path.relative_to(run))
        if not path.is_file() or name.split("/")[0] in (".comlq", ".prefect", "cache"):
            continue
        data = path.read_bytes().replace(str(run).encode(), b"RUN")  # both runs' folders have one name
        if path.suffix == ".json":
            data = json.dumps(_untimed(json.loads(data)), sort_keys=True).encode()
        files[name] = data
    return files


def _untimed(value):
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if not TIMING.search(k) and k != "timing"}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


@dataclass(frozen=True)
class CleanLine:
    done: subprocess.CompletedProcess
    config: Path
    out: Path


@pytest.fixture(scope="module")
def clean_line(tmp_path_factory: pytest.TempPathFactory, procs) -> CleanLine:
    """One clean `comlq run` of the small line on the temporary API, its output going to pipes (not a
    terminal), as a user would run it with output to a file."""
    tmp = tmp_path_factory.mktemp("clean")
    config, out = procs.line_config(tmp / "small.toml"), tmp / "line"
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "run", "--out", str(out), "--config", str(config),
                           "--limit", "60", "--per-type", "2"],
                          cwd=ROOT, env=procs.clean_env(PYTHONPATH=str(ROOT)), capture_output=True, text=True,
                          timeout=900)
    return CleanLine(done, config, out)


def test_run_to_a_file_says_where_it_is(probe, clean_line) -> None:
    """Progress with output to a file (failure 10): a line as each stage starts, naming it, and a
    closing summary that names report/report.md."""
    done = clean_line.done
    probe.record("clean run, output to a file", traceback="Traceback (most recent" in done.stderr)
    assert done.returncode == 0, done.stderr[-3000:]
    steps = [s[2] for s in STEP.findall(done.stderr)]
    assert steps[:3] == ["passages", "generate", "export"] and steps[-1] == "evaluate", done.stderr[-3000:]
    assert f"report: {clean_line.out / 'report' / 'report.md'}" in done.stdout, done.stdout


@pytest.fixture(scope="module")
def prefect_api(tmp_path_factory: pytest.TempPathFactory):
    """A Prefect server for the kill chains: a run on it starts in seconds (the temporary API of
    `comlq run` takes 20-60 s; its own kill -9 cases are test_kill_run_leaves_no_orphan)."""
    from pipeline.orchestration.serve import Service

    port = int(os.environ.get("COMLQ_TEST_PREFECT_PORT", "14400"))
    service = Service(tmp_path_factory.mktemp("prefect-server"), port)
    service.start(deploy=False, worker=False)
    try:
        yield service
    finally:
        service.stop()


@pytest.mark.parametrize("kill", ["process-group", "main-pid", "ctrl-c"])
def test_kill_at_each_stage_then_rerun_matches_a_clean_run(kill: str, clean_line, prefect_api, probe, procs,
                                                          tmp_path: Path, reaper: list[int]) -> None:
    """kill -9 of `comlq run` as each stage starts, one stage after the other on one folder: nothing is
    left running after a kill, and the rerun completes with outputs byte-identical to a clean run's.
    ctrl-c: SIGINT to the process group instead, and each run ends as _ended_on_ctrl_c says."""
    assert clean_line.done.returncode == 0, clean_line.done.stderr[-3000:]
    stages = [s[2] for s in STEP.findall(clean_line.done.stderr)]
    out = tmp_path / clean_line.out.name
    argv = [sys.executable, "-m", "pipeline.cli", "run", "--out", str(out), "--config", str(clean_line.config),
            "--limit", "60", "--per-type", "2"]
    env = procs.clean_env(PYTHONPATH=str(ROOT), PREFECT_API_URL=prefect_api.api_url,
                          PREFECT_HOME=str(tmp_path / "prefect-client"))
    for stage in stages:
        err = tmp_path / f"{stage}.err"
        with err.open("w") as sink:
            main = subprocess.Popen(argv, cwd=ROOT, env=env, start_new_session=True, stderr=sink,
                                    stdout=sink if kill == "ctrl-c" else subprocess.DEVNULL)
        reaper.append(main.pid)
        seen: set[int] = set()

        def started(stage: str = stage, err: Path = err, main: subprocess.Popen = main, seen: set[int] = seen) -> bool:
            seen.update(procs.descendants(main.pid))
            return any(s[2] == stage for s in STEP.findall(err.read_text())) or main.poll() is not None

        _wait(started, 300, f"stage {stage}")
        assert main.poll() is None, f"the run ended before its {stage} stage: {err.read_text()[-2000:]}"
        seen.update(procs.descendants(main.pid))
        reaper.extend(seen)
        if kill == "ctrl-c":
            seconds, after = _ctrl_c(main, err)
        else:
            os.killpg(main.pid, signal.SIGKILL) if kill == "process-group" else os.kill(main.pid, signal.SIGKILL)
            main.wait()
        deadline = time.monotonic() + 30
        while (left := [p for p in seen if procs.alive(p)]) and time.monotonic() < deadline:
            time.sleep(0.2)
        probe.record(f"{kill} at {stage}", orphans=len(left), traceback=TRACEBACK in err.read_text())
        assert not left, f"orphans after {kill} at {stage}: " + "; ".join(_cmdline(p).decode()[:200] for p in left)
        if kill == "ctrl-c":
            _ended_on_ctrl_c(main, seconds, after, err)
    probe.run(*argv[3:], what=f"rerun after {kill} at each stage", env=env, timeout=600).ok()
    clean, rerun = _comparable(clean_line.out), _comparable(out)
    assert sorted(rerun) == sorted(clean)
    differ = [name for name in clean if clean[name] != rerun[name]]
    probe.probes[-1].lost = len(differ)
    assert not differ, f"outputs unlike a clean run's: {differ}"


# ---------------------------------------------------------------- a rerun with nothing to do


@pytest.fixture
def finished_copy(clean_line, tmp_path: Path) -> Path:
    """A copy of the clean run's folder, without the home of its temporary Prefect API."""
    import shutil

    assert clean_line.done.returncode == 0, clean_line.done.stderr[-3000:]
    copy = tmp_path / clean_line.out.name
    shutil.copytree(clean_line.out, copy, ignore=shutil.ignore_patterns(".prefect"))
    return copy


def test_rerun_with_nothing_to_do_starts_no_prefect(clean_line, finished_copy: Path, probe, procs) -> None:
    """A rerun of a finished run (issue 31: 27 s, 20 of them starting the temporary API only to skip)
    decides from the done-markers that nothing is left, before Prefect starts: no .prefect folder
    appears, each stage says it was skipped (train too: no rerank retriever needs it), and the summary
    is the clean run's."""
    rerun = probe.run("run", "--out", finished_copy, "--config", clean_line.config, "--limit", "60", "--per-type",
                      "2", what="rerun with nothing to do", env=procs.clean_env(PYTHONPATH=str(ROOT)), timeout=600)
    rerun.ok()
    assert not (finished_copy / ".prefect").exists() and "temporary Prefect API" not in rerun.err, rerun.err
    stages = [s[2] for s in STEP.findall(clean_line.done.stderr)]
    assert [s[2] for s in STEP.findall(rerun.err)] == stages, rerun.err
    for stage in stages:
        assert re.search(rf"^{stage}: (already done, )?skipped", rerun.err, re.M), f"no skip said for {stage}"
    summary = [line for line in rerun.out.replace(str(finished_copy), "RUN").splitlines()
               if not line.startswith("  skipped, already done:")]
    assert summary == clean_line.done.stdout.replace(str(clean_line.out), "RUN").splitlines()
    assert "  skipped, already done: passages, generate, export, evaluate" in rerun.out


def test_train_without_validation_queries_says_so(clean_line, probe, tmp_path: Path) -> None:
    """`comlq train` on an export whose validation split is empty (the small line's) said
    "validation: None" (issue 31); it says why there is no validation score."""
    assert clean_line.done.returncode == 0, clean_line.done.stderr[-3000:]
    trained = probe.run("train", "reranker", clean_line.out / "export", "--out", tmp_path / "model",
                        "--max-groups", "4", "--epochs", "1", "--quiet", what="train without validation queries")
    trained.ok()
    assert "None" not in trained.out + trained.err, trained.out + trained.err
    assert "validation: no validation queries" in trained.out and "validation: no validation queries" in trained.err


# ---------------------------------------------------------------- closed pipes

PIPED = {
    "types": lambda tmp: ["types"],
    "types-json": lambda tmp: ["types", "--json"],
    "help": lambda tmp: ["run", "--help"],
    "passages": lambda tmp: ["passages", "--limit", "3", "--out", tmp / "p.jsonl"],
}


@pytest.mark.parametrize("verb", PIPED)
def test_a_closed_pipe_ends_quietly(verb: str, probe, tmp_path: Path) -> None:
    """`comlq types | head -1` said "comlq: error: I/O: Broken pipe" in 4 of 6 tries (issue 31): the
    reader is gone before the command writes (always the broken case), and it ends without a word."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, PIPED[verb](tmp_path))], cwd=ROOT,
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=300)
    finally:
        os.close(write_end)
    probe.record(f"{verb} into a closed pipe", traceback=TRACEBACK in done.stderr)
    # 141 (128 + SIGPIPE) as a shell reports `cat` ended by the closed pipe; `--help` swallows it (argparse): 0
    assert done.stderr == "" and done.returncode in (0, 128 + signal.SIGPIPE), (done.returncode, done.stderr[-2000:])


def test_a_rerun_into_a_closed_pipe_ends_quietly(clean_line, finished_copy: Path, probe, procs) -> None:
    """The same for `comlq run` (its summary on stdout), on a rerun with nothing to do."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "pipeline.cli", "run", "--out", str(finished_copy), "--config",
                               str(clean_line.config), "--limit", "60", "--per-type", "2"], cwd=ROOT,
                              env=procs.clean_env(PYTHONPATH=str(ROOT)), stdout=write_end, stderr=subprocess.PIPE,
                              text=True, timeout=600)
    finally:
        os.close(write_end)
    probe.record("run into a closed pipe", traceback=TRACEBACK in done.stderr)
    assert done.returncode == 128 + signal.SIGPIPE and "error" not in done.stderr, done.stderr[-2000:]
