"""Ctrl-C ends any `comlq` command within seconds: one line, exit code 130, nothing half-written.

Python turns SIGINT into a KeyboardInterrupt in the main thread. That stops a verb whose work
runs there, but not `comlq run`: Prefect's worker threads go on after the main thread has given
up, the interpreter waits for them at exit, and Prefect's client retries its temporary API (which
got the Ctrl-C too) for minutes, logging as it goes. So, once `install` has run:

- the first SIGINT raises KeyboardInterrupt in the main thread, so `finally` blocks run, and
  `main` ends the process (`ending`: however its body ends, with no waiting for threads, atexit
  handlers or the interpreter's teardown, seconds once torch is loaded). Not in the middle of an
  import: an exception there can abort the process from C++ (torch's), so it comes once the
  import is over;
- inside `ending_at_once()` (Prefect running flows in the main thread) nothing is raised: the
  process ends at once;
- whatever the main thread is doing (a long call into C, a `finally` that waits), the process
  ends `GRACE_SECONDS` after the first SIGINT; a second SIGINT ends it at once.

The first SIGINT says `MESSAGE` on stderr at once; from then on nothing else reaches the
terminal (log records, warnings, a library's own prints: stdout and stderr go to /dev/null), and
worker processes forked by multiprocessing (spaCy's) leave the Ctrl-C to this process. Ending the
process (`finish`) runs the cleanups registered with `at_interrupt` and `on_interrupt` (temporary
files and folders being written, the temporary Prefect API, a run folder's lock), stops those
worker processes and exits with code 130.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType
from typing import NoReturn

MESSAGE = "comlq: interrupted; rerun the same command to resume"
EXIT_CODE = 130  # 128 + SIGINT, as a shell reports a command Ctrl-C ended
GRACE_SECONDS = 2.0
RETRY_SECONDS = 0.05  # how often a KeyboardInterrupt held back during an import is tried again

_cleanups: list[Callable[[], None]] = []  # run, last first, when an interrupt ends the process
_at_once = 0  # depth of ending_at_once() blocks
_installed = False
_raised = False  # the first SIGINT was taken; the next one ends the process
_said = threading.Event()
_ending = threading.RLock()  # a SIGINT may come while the main thread is in finish() already


def install() -> None:
    """Take over SIGINT for this process (the `comlq` command calls this; a library never should)."""
    global _installed
    if _installed:
        return
    _installed = True
    signal.signal(signal.SIGINT, _on_sigint)
    os.register_at_fork(after_in_child=_forked)
    # The C-level handler writes each signal's number to this pipe at once, even while the main
    # thread is busy in C code and cannot run _on_sigint: the deadline starts from the signal itself.
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    threading.Thread(target=_deadline, args=(read_end,), name="comlq-interrupt", daemon=True).start()


def at_interrupt(cleanup: Callable[[], None]) -> None:
    """Run `cleanup` (quick, safe from any thread) should an interrupt end the process; the last
    registered runs first."""
    if cleanup not in _cleanups:
        _cleanups.append(cleanup)


def forget(cleanup: Callable[[], None]) -> None:
    with suppress(ValueError):
        _cleanups.remove(cleanup)


@contextmanager
def on_interrupt(cleanup: Callable[[], None]) -> Iterator[None]:
    """Run `cleanup` should an interrupt end the process during the block (e.g. remove what it writes)."""
    at_interrupt(cleanup)
    try:
        yield
    finally:
        forget(cleanup)


@contextmanager
def ending_at_once() -> Iterator[None]:
    """In this block a SIGINT ends the process at once instead of raising KeyboardInterrupt."""
    global _at_once
    _at_once += 1
    try:
        yield
    finally:
        _at_once -= 1


@contextmanager
def ending() -> Iterator[None]:
    """`main`'s body: once a SIGINT was taken, the process ends (`finish`) when the body does, whatever
    it raised or returned (an unwinding library may turn the KeyboardInterrupt into another error)."""
    try:
        yield
    finally:
        if _raised:
            finish()


def say() -> None:
    """Write MESSAGE to stderr, once per process."""
    if _said.is_set():
        return
    _said.set()
    isatty = getattr(sys.stderr, "isatty", None)
    line = ("\r\x1b[K" if isatty and isatty() else "") + MESSAGE + "\n"  # over a progress bar's line
    try:
        sys.stderr.write(line)
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - stderr's buffer may be mid-write in the interrupted thread
        with suppress(OSError):
            os.write(2, line.encode())


def finish() -> NoReturn:
    """Say MESSAGE, run the cleanups and end the process with EXIT_CODE (no waiting for threads)."""
    with _ending:  # one thread ends the process; another that comes here waits for it
        say()
        _quiet()
        for cleanup in reversed(_cleanups[:]):
            with suppress(Exception):
                cleanup()
        _end_multiprocessing()
        os._exit(EXIT_CODE)


def _end_multiprocessing() -> None:
    """Kill the worker processes (spaCy's, a Dask cluster's) and release the semaphores multiprocessing
    made, as its exit handler would (else its resource tracker, a process of its own, warns on the
    terminal that they leaked); half a second at most."""
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is None:
        return
    for child in multiprocessing.active_children():
        child.kill()
    release = threading.Thread(target=multiprocessing.util._run_finalizers, args=(0,), daemon=True)
    release.start()
    release.join(0.5)


def _quiet() -> None:
    """Nothing but MESSAGE reaches the terminal: no log record, warning or print of an unwinding library."""
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    for stream in (sys.stdout, sys.stderr):
        with suppress(Exception):
            stream.flush()
    with suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)


def _forked() -> None:
    """In a worker process forked by multiprocessing: Ctrl-C ends it silently (its parent says the line)."""
    with suppress(ValueError):
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    global _raised
    if _at_once or _raised:
        finish()
    _raised = True
    say()
    _quiet()
    _raise_when_safe(frame)


def _raise_when_safe(frame: FrameType | None) -> None:
    if _at_once:
        finish()
    if not _importing(frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGALRM, lambda signum, frame: _raise_when_safe(frame))
    signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS)


def _importing(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def _deadline(read_end: int) -> None:
    while signal.SIGINT not in os.read(read_end, 64):
        pass
    time.sleep(GRACE_SECONDS)
    finish()
