"""A full or read-only disk, and two runs on one folder.

Full disk: a 64 KiB tmpfs mounted inside the test (root only; skipped otherwise). The write
fails with one line naming the file, no half-written file is left as if complete, and an
earlier complete file at that path is kept.
Lock: a second `comlq run` on a folder another run holds gets one line naming the holder,
before any work; a lock left by a dead run is taken over. The same for the output folders of
`export`, `train` and `evaluate` (`--out`), which are written whole and moved into place, so a
later report leaves no file of an earlier one.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMLQ = [sys.executable, "-m", "pipeline.cli"]
PASSAGES = ROOT / "tests" / "llm" / "fixtures" / "passages.jsonl"


def _can_mount() -> bool:
    return os.geteuid() == 0 and Path("/bin/mount").exists()


@dataclass(frozen=True)
class DiskFault:
    id: str
    argv: Callable[[Path], list[str]]  # the command, writing under the small disk
    output: str  # the path (under the disk) the command writes
    read_only: bool = False
    earlier: bytes | None = None  # a complete earlier file at that path, which must survive


DISK_FAULTS = [
    DiskFault("passages-disk-full", lambda d: ["passages", "--limit", "300", "--out", d / "p.jsonl"], "p.jsonl"),
    DiskFault("passages-disk-full-over-earlier", lambda d: ["passages", "--limit", "300", "--out", d / "p.jsonl"],
              "p.jsonl", earlier=b'{"id": "kept"}\n'),
    DiskFault("passages-read-only-disk", lambda d: ["passages", "--limit", "5", "--out", d / "p.jsonl"], "p.jsonl",
              read_only=True),
    DiskFault("generate-disk-full", lambda d: ["generate", "--passages", PASSAGES, "--per-type", "3",
                                               "--allow-short", "--out", d / "gen"], "gen/items.jsonl"),
    DiskFault("generate-read-only-disk", lambda d: ["generate", "--passages", PASSAGES, "--per-type", "1",
                                                    "--types", "2i", "--out", d / "gen"], "gen/items.jsonl",
              read_only=True),
]


@pytest.mark.skipif(not _can_mount(), reason="mounting a small tmpfs needs root")
@pytest.mark.parametrize("fault", DISK_FAULTS, ids=[f.id for f in DISK_FAULTS])
def test_disk_fault(fault: DiskFault, probe, tmp_path: Path, small_disk) -> None:
    disk = small_disk(tmp_path / "disk", earlier={fault.output: fault.earlier} if fault.earlier else {},
                      read_only=fault.read_only)
    if fault.id.startswith("generate-disk-full"):  # fill the disk so that the outputs cannot fit
        (disk / "filler").write_bytes(b"\0" * (60 * 1024))
    outcome = probe.cli(*fault.argv(disk), what=fault.id)
    line = outcome.error_line()
    assert_nothing_lost(disk, fault, line)


def assert_nothing_lost(disk: Path, fault: DiskFault, line: str) -> None:
    """One `cannot write` line naming the disk; no half-written output, an earlier file kept, no temp file."""
    assert str(disk) in line and "cannot write" in line, line
    target = disk / fault.output
    if fault.earlier:
        assert target.read_bytes() == fault.earlier, "the earlier complete file was lost"
    else:
        assert not target.exists(), f"a half-written {target.name} was left as if complete"
    stray = [p.name for p in disk.rglob("*") if ".tmp" in p.name or p.name.startswith(".")]
    assert not stray, f"temp files left: {stray}"


@pytest.mark.parametrize("fault", [f for f in DISK_FAULTS if not f.read_only], ids=lambda f: f"{f.id}-file-size-limit")
def test_write_cut_short(fault: DiskFault, probe, tmp_path: Path) -> None:
    """The full-disk probes for any user: a 4 KiB limit on the size of every file the command writes
    (RLIMIT_FSIZE), so the write fails part-way as on a full disk."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if fault.earlier:
        (disk / fault.output).write_bytes(fault.earlier)
    line = probe.run(*fault.argv(disk), what=f"{fault.id} (file size limit)", max_file_bytes=4 * 1024).error_line()
    assert_nothing_lost(disk, fault, line)


@pytest.fixture
def small_disk():
    import subprocess

    mounted: list[Path] = []

    def mount(path: Path, earlier: dict[str, bytes], read_only: bool) -> Path:
        path.mkdir(parents=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(path)], check=True)
        mounted.append(path)
        for name, data in earlier.items():
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_bytes(data)
        if read_only:
            subprocess.run(["mount", "-o", "remount,ro", str(path)], check=True)
        return path

    yield mount
    for path in mounted:
        subprocess.run(["umount", "-l", str(path)], check=False)


def test_second_run_on_a_held_folder(probe, tmp_path: Path) -> None:
    from pipeline.runlock import RunLock  # here, not at the top: the other probes run on code without it

    run = tmp_path / "run"
    (run / "keep.txt").parent.mkdir(parents=True)
    (run / "keep.txt").write_text("the first run's output")
    with RunLock(run):
        outcome = probe.cli("run", "--out", run, "--per-type", "2", what="run-on-held-folder")
        line = outcome.error_line()
        assert f"pid {os.getpid()}" in line and socket.gethostname() in line and str(run) in line, line
        assert json.loads((run / ".comlq" / "run.lock").read_text())["pid"] == os.getpid()  # the holder's lock kept
    assert (run / "keep.txt").read_text() == "the first run's output"
    assert not (run / ".prefect").exists(), "the second run started Prefect before checking the lock"
    assert not (run / ".comlq" / "run.lock").exists(), "the holder did not remove its lock file"


def test_stale_lock_is_taken_over(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from pipeline.runlock import RunLock

    run = tmp_path / "run"
    (run / ".comlq").mkdir(parents=True)
    (run / ".comlq" / "run.lock").write_text(json.dumps({"pid": 999999, "host": "gone", "started": "then"}))
    # what the dead run's writers left (a kill -9 inside AtomicWriter); a user's dot-file stays
    (run / "export").mkdir()
    partials = [run / ".passages.jsonl.vdvjuxb7", run / "export" / ".corpus.jsonl.k2_9abcd"]
    for path in partials:
        path.write_text("half")
    (run / ".notes").write_text("mine")
    with caplog.at_level("WARNING"), RunLock(run):
        assert json.loads((run / ".comlq" / "run.lock").read_text())["pid"] == os.getpid()
    assert "stale lock" in caplog.text and "pid 999999" in caplog.text
    assert not [p for p in partials if p.exists()] and (run / ".notes").read_text() == "mine"


# ---------------------------------------------------------------- one writer per output folder (issue 31)

BEIR = ROOT / "tests" / "retrieval" / "fixtures" / "beir"


@contextmanager
def _held(out: Path) -> Iterator[None]:
    """Hold `out`'s lock as another comlq command would: an flock on its hidden sibling `.NAME.lock`
    (pipeline/runlock.py), naming this process. Written out here, so that the probe also runs
    against code that has no such lock and shows what it did then."""
    lock = out.parent / f".{out.name}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": "now"}).encode())
        yield
    finally:
        lock.unlink(missing_ok=True)
        os.close(fd)


@pytest.mark.parametrize("verb", ["export", "train", "evaluate"])
def test_second_writer_on_a_held_output_folder(verb: str, probe, review_run: Path, small_export: Path,
                                               tmp_path: Path) -> None:
    """`export --out`, `train --out` and `evaluate --out` while another command writes that folder:
    one line naming the holder, and the folder untouched (before, both wrote into it, exit 0)."""
    out = tmp_path / "out"
    argv = {"export": ["export", review_run, "--ratios", "0,0,1", "--distractors", "0"],
            "train": ["train", "reranker", small_export, "--max-groups", "4", "--epochs", "1", "--quiet"],
            "evaluate": ["evaluate", "--beir", BEIR, "--retrievers", "bm25", "--quiet"]}[verb]
    with _held(out):
        line = probe.cli(*argv, "--out", out, what=f"{verb} on a held --out").error_line()
    assert f"pid {os.getpid()}" in line and "another comlq command is writing this folder" in line, line
    assert not out.exists(), f"{verb} wrote into a folder another command holds"
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.")], "staging or lock left"


def test_two_evaluations_on_one_report_folder(probe, reaper: list[int], tmp_path: Path) -> None:
    """Two real `comlq evaluate` on one --out: the second is refused while the first writes, and the
    report is the first's alone (before: both exit 0, report.md and metrics.json from one, a
    runs/bm25.trec with unshuffled ids from the other, no shuffled_ids.tsv)."""
    out = tmp_path / "rep"
    first = subprocess.Popen([*COMLQ, "evaluate", "--beir", str(BEIR), "--retrievers", "dense", "--shuffle-corpus",
                              "3", "--quiet", "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=ROOT)
    reaper.append(first.pid)
    deadline = time.monotonic() + 60  # the first takes the lock once its imports are done
    while not (tmp_path / ".rep.lock").exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    second = probe.run("evaluate", "--beir", BEIR, "--retrievers", "bm25", "--quiet", "--out", out,
                       what="evaluate beside a running evaluate")
    stdout, stderr = first.communicate(timeout=600)
    probe.record("the first evaluate", traceback="Traceback" in stderr)
    assert first.returncode == 0, stderr[-3000:]
    line = second.error_line()
    assert f"pid {first.pid}" in line and str(out) in line, line
    runs = sorted(p.name for p in (out / "runs").iterdir())
    metrics = json.loads((out / "metrics.json").read_text())
    probe.wrong_unless(runs == ["dense.trec"] and list(metrics["retrievers"]) == ["dense"]
                       and (out / "shuffled_ids.tsv").is_file(), f"a mixed report folder: {runs}, {metrics}")


def test_a_later_report_leaves_no_stale_file(probe, tmp_path: Path) -> None:
    """An evaluation with fewer retrievers and no shuffle replaces the whole report folder (before,
    runs/itlr-bm25.trec of the earlier report stayed beside the new one)."""
    out = tmp_path / "rep"
    probe.cli("evaluate", "--beir", BEIR, "--retrievers", "bm25,itlr-bm25", "--shuffle-corpus", "2", "--quiet",
              "--out", out, what="evaluate two retrievers, shuffled").ok()
    assert (out / "runs" / "itlr-bm25.trec").is_file() and (out / "shuffled_ids.tsv").is_file()
    probe.cli("evaluate", "--beir", BEIR, "--retrievers", "bm25", "--quiet", "--out", out,
              what="evaluate one retriever again").ok()
    left = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    probe.wrong_unless(left == ["metrics.json", "ndcg_by_negations.png", "ndcg_by_type.png", "per_query.json",
                                "report.md", "runs/bm25.trec"], f"files of the earlier report left: {left}")
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".rep.")], "staging or lock left"


def test_stale_output_lock_is_taken_over_with_the_dead_writers_folders(tmp_path: Path,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    """A writer killed with -9 leaves its lock file and its half-written staging folder: the next
    writer takes the lock over, removes that folder, and replaces the earlier output whole."""
    from pipeline.runlock import staged_folder

    out = tmp_path / "rep"
    (out / "runs").mkdir(parents=True)
    (out / "metrics.json").write_text("{}")
    (out / "runs" / "old.trec").write_text("earlier")
    (tmp_path / ".rep.lock").write_text(json.dumps({"pid": 999999, "host": "gone", "started": "then"}))
    (tmp_path / ".rep.tmp-999999").mkdir()
    (tmp_path / ".rep.tmp-999999" / "metrics.json").write_text("half")
    with caplog.at_level("WARNING"), staged_folder(out, lambda f: (f / "metrics.json").is_file(), "a report") as new:
        (new / "metrics.json").write_text("{}")
    assert "stale lock" in caplog.text and "pid 999999" in caplog.text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"] and sorted(p.name for p in out.iterdir()) == [
        "metrics.json"]
