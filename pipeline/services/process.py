"""Background processes started by pid file: Label Studio, the Prefect server and its worker.

A process is spawned in its own session (so its group holds it and its children), and its pid
file records the pid and the process's start time. It counts as running only while a process
with that pid AND that start time exists: after a crash the pid may be reused by an unrelated
process, which must neither pass for ours nor be stopped. An empty, unreadable or non-positive
pid file means "not running" (pid 0 would address the caller's own process group).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

START_TOLERANCE = 1.0  # seconds; the kernel's boot time (and so a start time) can shift by a tick


@dataclass(frozen=True)
class Recorded:
    pid: int
    started: float  # the process's start time, seconds since the epoch (psutil's create_time)


@dataclass(frozen=True)
class Stopped:
    pid: int
    killed: bool  # it did not stop within the grace period and got SIGKILL


@dataclass(frozen=True)
class ManagedProcess:
    """One background process: its pid file and its log file."""

    pid_file: Path
    log_file: Path

    def recorded(self) -> Recorded | None:
        """What the pid file says ("PID START_TIME"), or None when it is missing, empty or garbage."""
        try:
            pid_text, started_text = self.pid_file.read_text().split()
            recorded = Recorded(int(pid_text), float(started_text))
        except (OSError, ValueError):
            return None
        return recorded if recorded.pid > 0 else None

    def pid(self) -> int | None:
        """The pid of our live process, or None (no pid file, garbage, dead, or the pid now belongs to another)."""
        recorded = self.recorded()
        return recorded.pid if recorded is not None and _alive(recorded) else None

    def spawn(self, command: Sequence[str], env: Mapping[str, str] | None = None,
              cwd: Path | None = None) -> subprocess.Popen[bytes]:
        """Start `command` in its own session, output appended to the log file, and record it."""
        self.pid_file.parent.mkdir(parents=True, exist_ok=True)
        with self.log_file.open("ab") as out:
            process = subprocess.Popen(list(command), env=None if env is None else dict(env), cwd=cwd, stdout=out,
                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        started = psutil.Process(process.pid).create_time()  # it is our unreaped child: it still exists
        self.pid_file.write_text(f"{process.pid} {started}\n")
        return process

    def record(self, pid: int) -> None:
        """Record a process started elsewhere (it must be alive)."""
        self.pid_file.parent.mkdir(parents=True, exist_ok=True)
        self.pid_file.write_text(f"{pid} {psutil.Process(pid).create_time()}\n")

    def stop(self, grace: float = 30.0) -> Stopped | None:
        """SIGTERM the process's group, SIGKILL it after `grace` seconds, and remove the pid file.

        None when it was not running (then nothing is signalled)."""
        recorded = self.recorded()
        alive = recorded is not None and _alive(recorded)
        self.pid_file.unlink(missing_ok=True)
        if recorded is None or not alive:
            return None
        _signal(recorded.pid, signal.SIGTERM)
        if _wait_gone(recorded, grace):
            return Stopped(recorded.pid, killed=False)
        _signal(recorded.pid, signal.SIGKILL)
        _wait_gone(recorded, 10.0)
        return Stopped(recorded.pid, killed=True)


def _alive(recorded: Recorded) -> bool:
    """Whether the recorded process still runs: same pid, same start time, not a zombie."""
    try:
        process = psutil.Process(recorded.pid)
        if abs(process.create_time() - recorded.started) >= START_TOLERANCE:
            return False  # the pid now belongs to another process
        if process.status() != psutil.STATUS_ZOMBIE:
            return True
    except psutil.Error:  # gone, or not ours to look at
        return False
    with contextlib.suppress(ChildProcessError):
        os.waitpid(recorded.pid, os.WNOHANG)  # ours and exited: reap it when it is our child
    return False


def _signal(pid: int, signum: int) -> None:
    """Signal the process's group when it leads one (as spawned: its own session), else only the process."""
    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, signum)
        else:
            os.kill(pid, signum)
    except ProcessLookupError:  # it exited in the meantime
        pass


def _wait_gone(recorded: Recorded, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _alive(recorded):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True
