"""One `comlq run` per run folder: an exclusive lock on RUN/.comlq/run.lock.

The lock is an flock(2) on the file, so the kernel drops it when its holder ends, however it
ends (kill -9 included): a lock left behind by a dead run is stale by construction and the next
run takes it over, saying so. The file names its holder (pid, host, start time), so a run that
finds the folder locked can say who holds it. The holder removes the file when it is done.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import socket
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from pipeline.errors import ComlqError
from pipeline.runfolder import RunFolder
from pipeline.schemas import discard_partials, disk_errors

log = logging.getLogger(__name__)


def _holder(fd: int) -> dict[str, object] | None:
    """Who wrote the lock file (None: empty or unreadable)."""
    os.lseek(fd, 0, os.SEEK_SET)
    try:
        data = json.loads(os.read(fd, 4096) or b"null")
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def describe(holder: dict[str, object] | None) -> str:
    if not holder:
        return "another process"
    return f"pid {holder.get('pid')} on {holder.get('host')}, since {holder.get('started')}"


class RunLock:
    """`with RunLock(run_dir):` the block runs holding the folder, or a ComlqError names the holder."""

    def __init__(self, run_dir: str | os.PathLike[str]):
        self.run_dir = Path(run_dir)
        self.path = RunFolder(run_dir).lock
        self._fd: int | None = None

    def __enter__(self) -> RunLock:
        with disk_errors(self.path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = self._acquire()
            stale = _holder(self._fd)
            if stale:
                log.warning("%s: taking over a stale lock (%s, no longer running)", self.path, describe(stale))
                for partial in discard_partials(self.run_dir):  # what its writers were writing when it died
                    log.info("%s: removed a partial file of the dead run", partial)
            mine = {"pid": os.getpid(), "host": socket.gethostname(),
                    "started": datetime.now(UTC).isoformat(timespec="seconds")}
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, json.dumps(mine).encode() + b"\n", 0)
        return self

    def _acquire(self) -> int:
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                raise ComlqError(f"{self.run_dir}: another comlq run is working in this folder "
                                 f"({describe(holder)}); wait for it to end, or use another --out") from None
            try:
                if os.stat(self.path).st_ino == os.fstat(fd).st_ino:
                    return fd
            except FileNotFoundError:
                pass
            os.close(fd)  # its holder removed the file as we locked it: lock the new one

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._fd is not None:
            try:
                self.path.unlink(missing_ok=True)  # while still holding it: no one can have locked this inode since
            finally:
                os.close(self._fd)
                self._fd = None
