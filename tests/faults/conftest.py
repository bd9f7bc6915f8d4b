"""The fault-injection suite: every probe injects one fault (bad input, bad reply, a killed
process, a full disk) and the test asserts what the user must see: one line `comlq: error: ...`
and a non-zero exit, or a run that heals, never a traceback, a lost item or a process left behind.

Each probe is tallied (`probe` fixture): tried, tracebacks seen (any "Traceback (most recent
call last)" in the output of the command, run in-process or as a subprocess), items lost,
orphan processes and silently wrong results. The tally is printed at the end of the session
(`pytest_terminal_summary`).

A silently wrong result is a command that exits 0 without an error or warning line where the
probe wants one (`Outcome.error_line`, `Outcome.warning_line` count it on their own), or whose
output the probe finds untrue (`Prober.wrong_unless`): what a user would take for a good result.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import subprocess
import sys
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "faults" / "fixtures"
BEIR = ROOT / "tests" / "retrieval" / "fixtures" / "beir"  # 30 passages, 11 queries
LLM_PASSAGES = ROOT / "tests" / "llm" / "fixtures" / "passages.jsonl"
REVIEW_ITEMS = ROOT / "tests" / "review" / "fixtures" / "items.jsonl"
REVIEW_PASSAGES = ROOT / "tests" / "review" / "fixtures" / "passages.jsonl"
SMALL = ROOT / "tests" / "flows" / "fixtures" / "small.toml"
COMLQ = [sys.executable, "-m", "pipeline.cli"]
TRACEBACK = "Traceback (most recent call last)"
ERROR_LINE = re.compile(r"^comlq: error: .+")
QUOTE_LIMIT = 200  # a bad record is quoted to at most this many characters


@dataclass
class Probe:
    test: str
    area: str
    what: str
    traceback: bool = False
    lost: int = 0
    orphans: int = 0
    wrong: int = 0  # silently wrong results: exit 0, no error or warning line, and untrue


TALLY = pytest.StashKey[list[Probe]]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[TALLY] = []


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    probes = config.stash.get(TALLY, [])
    if not probes:
        return
    write = terminalreporter.write_line
    terminalreporter.section("fault injection")
    for area, n in sorted(Counter(p.area for p in probes).items()):
        write(f"  {area:<14} {n:>3} probes")
    for p in probes:
        if p.traceback or p.lost or p.orphans or p.wrong:
            write(f"  FAULT {p.test} [{p.what}]: traceback={p.traceback} lost={p.lost} orphans={p.orphans} "
                  f"wrong={p.wrong}")
    tests = {p.test for p in probes}
    passed = {r.nodeid.split("::", 1)[-1] for r in terminalreporter.stats.get("passed", [])
              if r.when == "call" and "tests/faults/" in r.nodeid}
    write(f"faults: {len(tests)} probe tests, {len(tests & passed)} passed; {len(probes)} probes tried, "
          f"{sum(p.traceback for p in probes)} tracebacks, "
          f"{sum(p.lost for p in probes)} items lost, {sum(p.orphans for p in probes)} orphan processes; "
          f"silently wrong results: {sum(p.wrong for p in probes)}")


@dataclass
class Outcome:
    """What one command did: exit code, stdout, stderr."""

    argv: list[str]
    rc: int
    out: str
    err: str
    probe: Probe | None = None  # its tally entry

    @property
    def traceback(self) -> bool:
        return TRACEBACK in self.out or TRACEBACK in self.err

    def _silently_wrong(self) -> None:
        """Exit 0 and not a word (no error or warning line) where the probe wants one."""
        said = any(line.startswith(("comlq: error:", "comlq: warning:")) for line in self.err.splitlines())
        if self.rc == 0 and not said and not self.traceback and self.probe is not None:
            self.probe.wrong = 1

    def error_line(self) -> str:
        """The one error line; fails unless the command failed with exactly one `comlq: error:` line."""
        assert not self.traceback, f"{self.argv}: traceback:\n{self.err[-3000:]}"
        if self.rc == 0:
            self._silently_wrong()
        assert self.rc != 0, f"{self.argv}: exit 0 for a fault\nstdout: {self.out[-1000:]}\nstderr: {self.err[-1000:]}"
        errors = [line for line in self.err.splitlines() if line.startswith("comlq: error:")]
        assert len(errors) == 1 and ERROR_LINE.match(errors[0]), f"{self.argv}: stderr:\n{self.err[-3000:]}"
        line = errors[0]
        assert len(line) <= 1000, f"{self.argv}: an error line of {len(line)} characters"
        return line

    def ok(self) -> Outcome:
        assert not self.traceback, f"{self.argv}: traceback:\n{self.err[-3000:]}"
        assert self.rc == 0, f"{self.argv}: exit {self.rc}\n{self.err[-3000:]}"
        return self

    def warning_line(self, *words: str) -> str:
        """The `comlq: warning:` line holding every one of `words`, of a command that went on (exit 0)."""
        self.ok()
        found = [line for line in self.err.splitlines()
                 if line.startswith("comlq: warning:") and all(word in line for word in words)]
        if not found and self.probe is not None:
            self.probe.wrong = 1
        assert found, f"{self.argv}: no warning naming {words}\nstderr: {self.err[-3000:]}"
        return found[0]


@dataclass
class Prober:
    """Runs the probes of one test and tallies them."""

    test: str
    area: str
    tally: list[Probe]
    probes: list[Probe] = field(default_factory=list)

    def record(self, what: str, *, traceback: bool = False, lost: int = 0, orphans: int = 0) -> Probe:
        probe = Probe(self.test, self.area, what, traceback, lost, orphans)
        self.probes.append(probe)
        self.tally.append(probe)
        return probe

    def wrong_unless(self, holds: bool, message: str) -> None:
        """The last command's output must be true: if not, it is a silently wrong result (and the test fails)."""
        if not holds:
            self.probes[-1].wrong = 1
        assert holds, message

    def cli(self, *argv: str | os.PathLike[str], what: str | None = None) -> Outcome:
        """`comlq ARGV` in this process (fast); an escaping exception is printed as Python would."""
        from pipeline.cli import main

        args = [str(a) for a in argv]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(args)
            except SystemExit as exc:  # argparse
                rc = exc.code if isinstance(exc.code, int) else 1
            except BaseException:  # noqa: BLE001 - the fault the suite is here to catch
                traceback.print_exc()
                rc = 1
        outcome = Outcome(args, rc, out.getvalue(), err.getvalue())
        outcome.probe = self.record(what or " ".join(args[:2]), traceback=outcome.traceback)
        return outcome

    def run(self, *argv: str | os.PathLike[str], what: str | None = None, env: dict[str, str] | None = None,
            timeout: float = 600, cwd: Path | None = None, max_file_bytes: int | None = None) -> Outcome:
        """`comlq ARGV` as a subprocess; `max_file_bytes`: no file it writes may grow past this size
        (RLIMIT_FSIZE: a write past it fails as on a full disk, for any user)."""
        args = [str(a) for a in argv]
        done = subprocess.run([*COMLQ, *args], capture_output=True, text=True, env=env, timeout=timeout,
                              cwd=cwd or ROOT, preexec_fn=None if max_file_bytes is None else
                              lambda: _limit_file_size(max_file_bytes))
        outcome = Outcome(args, done.returncode, done.stdout, done.stderr)
        outcome.probe = self.record(what or " ".join(args[:2]), traceback=outcome.traceback)
        return outcome


def _limit_file_size(size: int) -> None:
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of killing the process
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


@pytest.fixture
def probe(request: pytest.FixtureRequest) -> Prober:
    area = Path(str(request.node.path)).stem.removeprefix("test_")
    return Prober(request.node.nodeid.split("::", 1)[-1], area, request.config.stash[TALLY])


# ---------------------------------------------------------------- processes


def clean_env(**extra: str) -> dict[str, str]:
    """A fresh shell's environment: none of the test session's Prefect settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_") and k != "DO_NOT_TRACK"}
    return {**env, **extra}


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (from /proc), children first."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Running (a zombie is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def group_members(pgid: int) -> list[int]:
    """Live processes in process group `pgid`."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry.name))
    return members


def listening_ports(pids: list[int]) -> list[int]:
    """TCP ports some process of `pids` listens on."""
    inodes: set[str] = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        inodes.add(target[8:-1])
    ports = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                    ports.append(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def reaper() -> Iterator[list[int]]:
    """Pids a test started; whatever is left of them is killed at the end (the test counts it first)."""
    pids: list[int] = []
    yield pids
    kill_all([p for p in pids if alive(p)])


# ---------------------------------------------------------------- shared inputs


def line_config(path: Path, text: str = '[evaluate]\nretrievers = ["bm25"]\n') -> Path:
    """A configuration for a short line that may leave some types without items: `allow_short`
    is set where the code knows it (code from before the shortfall stop has no such setting and
    needs none), so the same probe also runs against old code to show what it fixed."""
    import dataclasses

    from pipeline.config import GenerateConfig

    if "allow_short" in {f.name for f in dataclasses.fields(GenerateConfig)}:
        text = "[generate]\nallow_short = true\n\n" + text
    path.write_text(text)
    return path


@pytest.fixture(scope="session")
def passages_300(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """300 sample passages (what the small line uses)."""
    from pipeline.passages import select_passages

    path = tmp_path_factory.mktemp("passages") / "passages.jsonl"
    select_passages("sample", path, 300)
    return path


@pytest.fixture(scope="session")
def small_export(passages_300: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An export of kg items, 4 per type, from the 300 passages (34 train, 3 validation and 9 test
    queries; some types short): what `train` and `evaluate` read."""
    import shutil

    from pipeline.config import Config, ExportConfig, GenerateConfig
    from pipeline.export import export
    from pipeline.generate import generate

    run = tmp_path_factory.mktemp("small-export") / "run"
    run.mkdir()
    shutil.copy(passages_300, run / "passages.jsonl")
    generate(Config(generate=GenerateConfig(per_type=4)), run / "passages.jsonl", run)
    export(run, run / "export", ExportConfig(distractors=0))
    return run / "export"


@pytest.fixture
def review_run(tmp_path: Path) -> Path:
    """A run folder holding the review fixture's items and passages (export and push read it)."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "items.jsonl").write_bytes(REVIEW_ITEMS.read_bytes())
    (run / "passages.jsonl").write_bytes(REVIEW_PASSAGES.read_bytes())
    return run


@contextlib.contextmanager
def mounted_tmpfs(path: Path, size: str = "64k", read_only: bool = False) -> Iterator[Path]:
    """A small tmpfs at `path` (root only; the caller skips otherwise)."""
    path.mkdir(parents=True, exist_ok=True)
    options = f"size={size}" + (",ro" if read_only else "")
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], check=True, capture_output=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False, capture_output=True)


def can_mount() -> bool:
    return os.geteuid() == 0 and Path("/bin/mount").exists()


# ---------------------------------------------------------------- the scripted LLM endpoint


@pytest.fixture(scope="session")
def scripted():
    """The scripted OpenAI-compatible server's module (a test double in tests/support)."""
    from tests.support import scripted_openai

    return scripted_openai


@pytest.fixture(scope="session")
def procs():
    """The process helpers above, for test modules (a conftest is not importable as a module)."""
    from types import SimpleNamespace

    return SimpleNamespace(alive=alive, descendants=descendants, listening_ports=listening_ports,
                           clean_env=clean_env, group_members=group_members, kill_all=kill_all,
                           line_config=line_config)
