"""The process helper (pipeline.services.process) and the two services that use it: a pid file
that is missing, empty, garbage, pid 0 or names a reused pid means "not running", and nothing
is signalled; a real process is spawned in its own session and stopped with its children."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from annotation import server as ls_server
from pipeline.config import ReviewConfig
from pipeline.orchestration.serve import Service
from pipeline.services.process import ManagedProcess

SLEEPER = [sys.executable, "-c", "import time; time.sleep(120)"]
# a parent that starts a child of its own and then sleeps: stop() must end both
PARENT = [sys.executable, "-c", "import subprocess, sys, time; "
          "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); time.sleep(120)"]
# ignores SIGTERM: stop() must fall back to SIGKILL after the grace period
STUBBORN = [sys.executable, "-c", "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print('ready', flush=True); time.sleep(120)"]


@pytest.fixture
def bystander() -> Iterator[subprocess.Popen[bytes]]:
    """A live process that is not ours: a reused pid points at something like it."""
    process = subprocess.Popen(SLEEPER, start_new_session=True)
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def bad_pid_files(bystander_pid: int) -> dict[str, str]:
    started = psutil.Process(bystander_pid).create_time()
    return {
        "empty": "",
        "blank": "\n",
        "garbage": "not a pid\n",
        "pid 0": f"0 {started}\n",
        "negative": f"-1 {started}\n",
        "pid only": f"{bystander_pid}\n",  # no start time: it cannot be checked, so it is not trusted
        "reused pid": f"{bystander_pid} {started - 3600}\n",  # that pid, but a process started an hour later
    }


@pytest.mark.parametrize("case", ["empty", "blank", "garbage", "pid 0", "negative", "pid only", "reused pid"])
def test_a_bad_or_stale_pid_file_means_not_running_and_signals_nothing(tmp_path, bystander, case):
    managed = ManagedProcess(tmp_path / "x.pid", tmp_path / "x.log")
    managed.pid_file.write_text(bad_pid_files(bystander.pid)[case])
    assert managed.pid() is None
    assert managed.stop(grace=1.0) is None
    assert not managed.pid_file.exists()
    assert bystander.poll() is None  # still running: never signalled


@pytest.mark.parametrize("case", ["empty", "garbage", "pid 0", "pid only", "reused pid"])
def test_prefect_service_with_a_bad_pid_file_is_not_running(tmp_path, bystander, case):
    # Before the helper an empty file read as pid 0 (alive, since os.kill(0, 0) succeeds) and stop
    # then sent SIGTERM to the caller's own process group; garbage raised ValueError.
    service = Service(tmp_path / "serve", port=1)
    service.home.mkdir()
    for name in ("server", "worker"):
        (service.home / f"{name}.pid").write_text(bad_pid_files(bystander.pid)[case])
    assert service.pid("server") is None and service.pid("worker") is None  # asked before stop() is called
    assert service.stop() == ["worker: not running", "server: not running"]
    assert bystander.poll() is None


@pytest.mark.parametrize("case", ["empty", "garbage", "pid 0", "pid only", "reused pid"])
def test_label_studio_with_a_bad_pid_file_is_not_running(tmp_path, bystander, case):
    config = ReviewConfig(url="http://127.0.0.1:1", data_dir=str(tmp_path / "ls"))
    (tmp_path / "ls").mkdir()
    (tmp_path / "ls" / "server.pid").write_text(bad_pid_files(bystander.pid)[case])
    assert ls_server.Server.from_config(config).pid() is None
    assert ls_server.stop(config, log=lambda _: None) is False
    assert bystander.poll() is None


def test_spawn_records_a_live_process_and_stop_ends_its_group(tmp_path):
    managed = ManagedProcess(tmp_path / "home" / "p.pid", tmp_path / "home" / "p.log")
    process = managed.spawn(PARENT, cwd=tmp_path)
    assert managed.pid() == process.pid
    assert os.getpgid(process.pid) == process.pid != os.getpgrp()  # its own group, not ours
    while not psutil.Process(process.pid).children():
        time.sleep(0.05)
    child = psutil.Process(process.pid).children()[0]
    stopped = managed.stop(grace=10.0)
    assert stopped is not None and (stopped.pid, stopped.killed) == (process.pid, False)
    assert managed.pid() is None and not managed.pid_file.exists()
    assert process.poll() is not None
    child.wait(timeout=10)  # the child got the group's SIGTERM too (it would sleep 120 s otherwise)
    assert not child.is_running()


def test_a_process_that_ignores_sigterm_is_killed_after_the_grace_period(tmp_path):
    managed = ManagedProcess(tmp_path / "p.pid", tmp_path / "p.log")
    managed.spawn(STUBBORN)
    while "ready" not in managed.log_file.read_text():  # the SIGTERM handler is in place
        time.sleep(0.05)
    stopped = managed.stop(grace=0.5)
    assert stopped is not None and stopped.killed
    assert managed.pid() is None


def test_a_process_that_exited_is_not_running(tmp_path):
    managed = ManagedProcess(tmp_path / "p.pid", tmp_path / "p.log")
    process = managed.spawn([sys.executable, "-c", "print('bye')"])
    process.wait()
    assert managed.pid() is None
    assert managed.stop() is None
    assert managed.log_file.read_text() == "bye\n"  # output goes to the log file


def test_record_adopts_a_running_process(tmp_path, bystander):
    managed = ManagedProcess(tmp_path / "p.pid", tmp_path / "p.log")
    managed.record(bystander.pid)
    assert managed.pid() == bystander.pid
    assert Path(managed.pid_file).read_text().split()[0] == str(bystander.pid)  # the pid comes first
