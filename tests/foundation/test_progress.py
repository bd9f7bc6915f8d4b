"""Progress a person can trust (pipeline/progress.py): a bar on a terminal, plain lines at most
every 10 s otherwise, a summary line for a long step, and log lines that never share a line with
a bar."""

from __future__ import annotations

import io
import logging

import pytest

from pipeline.cli import LIBRARY_LOGGERS, configure_logging
from pipeline.progress import Progress, duration


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "pipeline.progress"]


@pytest.fixture
def caplog(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> pytest.LogCaptureFixture:
    # configure_logging stops propagation (Prefect owns the root logger): catch the records here, once
    logger = logging.getLogger("pipeline.progress")
    monkeypatch.setattr(logger, "propagate", False)
    logger.addHandler(caplog.handler)
    caplog.set_level(logging.INFO, "pipeline.progress")
    yield caplog
    logger.removeHandler(caplog.handler)


@pytest.fixture(autouse=True)
def redraw_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """tqdm redraws at most every 0.1 s of real time; the tests want every update drawn."""
    from tqdm import tqdm

    class Eager(tqdm):  # a subclass, not a partial: write_line needs the class method tqdm.write
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, mininterval=0, **kwargs)

    monkeypatch.setattr("pipeline.progress.tqdm", Eager)


def test_without_a_terminal_at_most_one_line_every_10_seconds(caplog) -> None:
    clock = Clock()
    with Progress("encoding", total=100, unit="text", terminal=False, clock=clock) as bar:
        for _ in range(100):  # one text every 0.25 s: 25 s in all
            clock.now += 0.25
            bar.update()
    assert messages(caplog) == [
        "encoding: 40/100 texts (40%, 10.0s, about 15.0s left)",  # 10 s after the start, not before
        "encoding: 80/100 texts (80%, 20.0s, about 5.0s left)",  # 10 s after the line before
        "encoding: 100/100 texts in 25.0s",  # the summary of a step longer than 3 s
    ]


def test_a_finished_step_gets_its_summary_and_no_progress_line_besides(caplog) -> None:
    clock = Clock()
    with Progress("encoding terms", total=233, unit="text", terminal=False, clock=clock) as bar:
        clock.now += 18.3
        bar.update(233)  # one batch, 18 s: more than the 10 s between lines, but the step is done
    assert messages(caplog) == ["encoding terms: 233/233 texts in 18.3s"]


def test_a_short_step_prints_nothing_and_a_failed_one_says_so(caplog) -> None:
    clock = Clock()
    with Progress("push", total=3, unit="task", terminal=False, clock=clock) as bar:
        clock.now += 2.0
        bar.update(3)
    assert messages(caplog) == []
    with pytest.raises(RuntimeError), Progress("pull", unit="status check", terminal=False, clock=clock) as bar:
        bar.set_postfix_str("downloading")
        clock.now += 12.0
        bar.update()
        raise RuntimeError("server gone")
    assert messages(caplog) == ["pull: 1 status check (12.0s) [downloading]",
                                "pull: 1 status check stopped after 12.0s"]


def test_on_a_terminal_a_bar_and_no_plain_lines(caplog, monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    clock = Clock()
    with Progress("llm prompts", total=4, unit="prompt", clock=clock) as bar:  # terminal: asked of sys.stderr
        clock.now += 20.0
        bar.update(2)
        assert "llm prompts:  50%" in terminal.getvalue() and "2/4" in terminal.getvalue()
    assert messages(caplog) == ["llm prompts: 2/4 prompts in 20.0s"]  # the summary stays after the bar goes


def test_log_lines_never_share_a_line_with_a_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    for name in LIBRARY_LOGGERS:  # configure_logging changes these loggers: undone after the test
        logger = logging.getLogger(name)
        monkeypatch.setattr(logger, "handlers", list(logger.handlers))
        monkeypatch.setattr(logger, "propagate", logger.propagate)
        monkeypatch.setattr(logger, "setLevel", lambda level: None)  # the level stays as it was
    configure_logging()
    with Progress("export", total=4, unit="step", estimate=False) as bar:
        bar.update()
        logging.getLogger("pipeline.test").warning("a log line")
        bar.update()
    out = terminal.getvalue()
    before, after = out.split("comlq: warning: a log line", 1)
    assert before.rstrip(" ").endswith("\r")  # the bar was cleared to the start of its line first
    assert after.startswith("\n")
    assert "export:  25%" in before and "export:  25%" in after  # then drawn again below it
    assert "s/step" not in out and "<" not in out  # estimate=False: no rate, no time left


@pytest.mark.parametrize("seconds, text", [(3.24, "3.2s"), (185, "3m05s"), (3725, "1h02m05s")])
def test_durations(seconds: float, text: str) -> None:
    assert duration(seconds) == text
