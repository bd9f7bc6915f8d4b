"""Stop a process when its parent dies: `python -m pipeline.orchestration.watchdog PARENT CHILD`.

Prefect stops the temporary API server of `comlq run` at a normal exit only (atexit); a run
killed with kill -9 would leave it running and listening. `comlq run` starts this watchdog
next to the server: it waits for either process to end and, when the parent ended first,
stops the child (SIGTERM, then SIGKILL after a grace period). Standard library only: it must
start in milliseconds and outlive the parent.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

GRACE_SECONDS = 5.0


def _wait_either(parent: int, child: int) -> bool:
    """Block until the parent or the child ends; True when the parent ended (the child may run on)."""
    if hasattr(os, "pidfd_open"):  # Linux: no polling
        try:
            parent_fd, child_fd = os.pidfd_open(parent), os.pidfd_open(child)
        except ProcessLookupError:
            return _gone(parent)
        ready, _, _ = select.select([parent_fd, child_fd], [], [])
        return parent_fd in ready and child_fd not in ready
    while os.getppid() == parent and not _gone(child):  # elsewhere: reparenting says the parent ended
        time.sleep(0.5)
    return os.getppid() != parent


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _stop(pid: int) -> None:
    for signum in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + GRACE_SECONDS
        while time.monotonic() < deadline:
            if _gone(pid):
                return
            time.sleep(0.1)


def watch(parent: int, child: int) -> None:
    if _wait_either(parent, child):
        _stop(child)


def start(child: int) -> subprocess.Popen[bytes]:
    """A watchdog that stops `child` if this process dies first."""
    return subprocess.Popen([sys.executable, "-m", __name__, str(os.getpid()), str(child)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C reaches the whole process group: outlive the parent
    watch(int(sys.argv[1]), int(sys.argv[2]))
