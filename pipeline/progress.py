"""Progress of a long step that a person can trust, on a terminal and in a log file alike.

    with Progress("encoding", total=len(texts), unit="text") as bar:
        for batch in batches:
            ...
            bar.update(len(batch))

When stderr is a terminal, a tqdm bar on stderr. Otherwise (a file, a pipe, CI) no bar but plain
lines through logging (`pipeline.progress`, routed to stderr by the CLI), at most one every
`LINE_INTERVAL` seconds. Either way a step that took at least `SUMMARY_AFTER` seconds ends with
one summary line ("encoding: 11251/11251 texts in 3m05s"), so a terminal keeps the history of
what ran after its bars have gone. Log lines go through `write_line`, which lifts the bars out of
the way, so a bar and a log line never share a line.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from types import TracebackType

from tqdm import tqdm

log = logging.getLogger(__name__)
LINE_INTERVAL = 10.0  # seconds between two plain progress lines (not a terminal)
SUMMARY_AFTER = 3.0  # a step at least this long ends with a summary line


def on_terminal() -> bool:
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())


def write_line(text: str) -> None:
    """One line on stderr, above any live bar (tqdm clears and redraws them)."""
    tqdm.write(text, file=sys.stderr)


def duration(seconds: float) -> str:
    """3.2 -> '3.2s', 185 -> '3m05s', 3725 -> '1h02m05s'."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


class Progress:
    """A step's progress: `update(n)`, `total` (may grow), `set_postfix_str(label)`, `close()`.

    terminal: None asks whether stderr is a terminal; enabled=False shows nothing at all (not even
    the summary); estimate=False shows no rate and no time left (steps of unlike lengths, such as
    the stages of a run). clock: for tests.
    """

    def __init__(self, desc: str, total: int | None = None, unit: str = "item", *, enabled: bool = True,
                 terminal: bool | None = None, estimate: bool = True, interval: float = LINE_INTERVAL,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.desc, self.unit, self.n, self.postfix = desc, unit, 0, ""
        self._total = total
        self.enabled, self.estimate, self.interval, self._clock = enabled, estimate, interval, clock
        self.started = self._last_line = clock()
        terminal = on_terminal() if terminal is None else terminal
        plain = None if estimate else "{l_bar}{bar}| {n_fmt}/{total_fmt} {unit} [{elapsed}{postfix}]"
        self._bar = (tqdm(total=total, desc=desc, unit=unit, leave=False, file=sys.stderr, dynamic_ncols=True,
                          bar_format=plain) if enabled and terminal else None)
        self._closed = False

    @property
    def total(self) -> int | None:
        return self._total

    @total.setter
    def total(self, value: int | None) -> None:
        self._total = value
        if self._bar is not None:
            self._bar.total = value
            self._bar.refresh()

    def update(self, n: int = 1) -> None:
        self.n += n
        if self._bar is not None:
            self._bar.update(n)
        elif self.enabled and not self._finished() and self._clock() - self._last_line >= self.interval:
            self._line()  # a finished step gets its summary instead (close)

    def _finished(self) -> bool:
        return bool(self._total) and self.n >= self._total

    def set_postfix_str(self, label: str) -> None:
        """What the step is doing now (shown on the bar, and on the next plain line)."""
        self.postfix = label
        if self._bar is not None:
            self._bar.set_postfix_str(label)

    def _done(self) -> str:
        """'3/14 types' (units are singular nouns; the count makes them plural)."""
        done = f"{self.n}/{self._total}" if self._total else str(self.n)
        return f"{done} {self.unit}{'' if (self._total or self.n) == 1 else 's'}"

    def line(self) -> str:
        """The plain line for where the step is now."""
        elapsed = self._clock() - self.started
        parts = [f"{self.desc}: {self._done()}"]
        if self.estimate and self._total and 0 < self.n < self._total:
            left = elapsed * (self._total - self.n) / self.n
            parts.append(f"({100 * self.n / self._total:.0f}%, {duration(elapsed)}, about {duration(left)} left)")
        else:
            parts.append(f"({duration(elapsed)})")
        if self.postfix:
            parts.append(f"[{self.postfix}]")
        return " ".join(parts)

    def _line(self) -> None:
        self._last_line = self._clock()
        log.info("%s", self.line())

    def close(self, failed: bool = False) -> None:
        if self._closed:
            return
        self._closed = True
        if self._bar is not None:
            self._bar.close()
        elapsed = self._clock() - self.started
        if self.enabled and elapsed >= SUMMARY_AFTER:
            log.info("%s: %s %s %s", self.desc, self._done(), "stopped after" if failed else "in", duration(elapsed))

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close(failed=error is not None)
