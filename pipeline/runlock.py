"""One writer per folder: one `comlq run` per run folder (RUN/.comlq/run.lock), and one
`comlq evaluate`, `export` or `train` per output folder (`--out`; the lock is the hidden sibling
`.NAME.lock`, as the folder itself is replaced whole: `staged_folder`).

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
import shutil
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from pipeline.errors import ComlqError
from pipeline.runfolder import STAGING, RunFolder, output_lock, staging_folder, staging_folders
from pipeline.schemas import check_output_folder, discard_partials, disk_errors

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

    busy = "another comlq run is working in this folder"

    def __init__(self, run_dir: str | os.PathLike[str]):
        self.run_dir = Path(run_dir)
        self.path = RunFolder(run_dir).lock
        self._fd: int | None = None

    def discard_partials(self) -> list[Path]:
        """What the dead holder's writers were writing when it died."""
        return discard_partials(self.run_dir)

    def __enter__(self) -> RunLock:
        with disk_errors(self.path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = self._acquire()
            stale = _holder(self._fd)
            if stale:
                log.warning("%s: taking over a stale lock (%s, no longer running)", self.path, describe(stale))
                for partial in self.discard_partials():
                    log.info("%s: removed what the dead run left half-written", partial)
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
                raise ComlqError(f"{self.run_dir}: {self.busy} ({describe(holder)}); wait for it to end, "
                                 "or use another --out") from None
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


class OutputLock(RunLock):
    """`with OutputLock(folder):` one `comlq evaluate`, `export` or `train` writing `folder`."""

    busy = "another comlq command is writing this folder"

    def __init__(self, folder: str | os.PathLike[str]):
        super().__init__(folder)
        self.path = output_lock(folder)

    def discard_partials(self) -> list[Path]:
        removed = staging_folders(self.run_dir)
        for path in removed:
            shutil.rmtree(path, ignore_errors=True)
        return removed


def check_replaceable(out: str | os.PathLike[str], ours: Callable[[Path], bool], what: str) -> Path:
    """Fail now, before any work, unless `out` is missing, empty or `what` (`ours` says: an earlier
    output of this command), and its parent folder writable: `staged_folder` replaces it whole."""
    out = Path(out)
    if out.exists() and not (out.is_dir() and (not any(out.iterdir()) or ours(out))):
        raise ComlqError(f"{out}: exists and is not {what}; refusing to replace it")
    check_output_folder(out.parent)
    return out


@contextmanager
def staged_folder(out: str | os.PathLike[str], ours: Callable[[Path], bool], what: str) -> Iterator[Path]:
    """`with staged_folder(out, ...) as staging:` the block writes a whole output folder into
    `staging`, holding `out`'s lock; on success it replaces `out`, so no file of an earlier output
    survives, and a failed or killed block leaves the earlier output as it was."""
    out = check_replaceable(out, ours, what)
    with OutputLock(out):
        check_replaceable(out, ours, what)  # again, now that no one else writes it
        staging, old = (staging_folder(out, kind, os.getpid()) for kind in STAGING)
        shutil.rmtree(staging, ignore_errors=True)
        with disk_errors(staging):
            staging.mkdir()
        try:
            yield staging
            with disk_errors(out):
                if out.exists():
                    out.rename(old)
                staging.rename(out)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            shutil.rmtree(old, ignore_errors=True)
