"""Bad paths and bad values, verb by verb: one line `comlq: error:` naming what and where, a
non-zero exit, and nothing already on disk touched (no file changed, no stray temp file).

Each row of FAULTS is one probe: (id, a setup that writes what the fault needs into a fresh
folder and returns the command line, text the error line must contain).
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BEIR = ROOT / "tests" / "retrieval" / "fixtures" / "beir"
LLM_PASSAGES = ROOT / "tests" / "llm" / "fixtures" / "passages.jsonl"
REVIEW_ITEMS = ROOT / "tests" / "review" / "fixtures" / "items.jsonl"
REVIEW_PASSAGES = ROOT / "tests" / "review" / "fixtures" / "passages.jsonl"


@dataclass(frozen=True)
class Fault:
    id: str
    setup: Callable[[Path], list[str]]  # writes the fault's inputs under the folder; returns argv
    names: str  # the error line must contain this ({tmp} is the folder)


def _write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def _passages(tmp: Path) -> Path:
    return _write(tmp / "in" / "passages.jsonl", LLM_PASSAGES.read_bytes())


def _run_folder(tmp: Path) -> Path:
    run = tmp / "run"
    _write(run / "items.jsonl", REVIEW_ITEMS.read_bytes())
    _write(run / "passages.jsonl", REVIEW_PASSAGES.read_bytes())
    return run


def _config(tmp: Path, text: str) -> Path:
    return _write(tmp / "bad.toml", text)


def _beir(tmp: Path, edit_qrels: Callable[[str], str]) -> Path:
    """A copy of the BEIR fixture whose test qrels went through `edit_qrels`."""
    folder = tmp / "beir"
    shutil.copytree(BEIR, folder)
    qrels = folder / "qrels" / "test.tsv"
    qrels.write_text(edit_qrels(qrels.read_text()))
    return folder


LINE = json.dumps({"id": "a", "title": "A", "text": "alpha beta"})
HUGE = "x" * 5_000_000  # a 5 MB bad record must not be echoed into the error line

FAULTS = [
    # passages
    Fault("passages-out-is-dir", lambda t: ["passages", "--limit", "5", "--out", _write(t / "d" / "keep", "k").parent],
          "{tmp}/d"),
    Fault("passages-out-parent-is-file",
          lambda t: ["passages", "--limit", "5", "--out", _write(t / "f", "k") / "p.jsonl"],
          "{tmp}/f"),
    Fault("passages-out-unwritable", lambda t: ["passages", "--limit", "5", "--out", "/proc/comlq/p.jsonl"], "/proc"),
    Fault("passages-source-missing", lambda t: ["passages", "--source", t / "nope.jsonl", "--out", t / "p.jsonl"],
          "nope.jsonl"),
    Fault("passages-source-empty",
          lambda t: ["passages", "--source", _write(t / "e.jsonl", ""), "--out", t / "p.jsonl"],
          "no passages"),
    Fault("passages-source-not-utf8",
          lambda t: ["passages", "--source", _write(t / "n.jsonl", LINE.encode() + b"\n\xff\xfe\n"),
                     "--out", t / "p.jsonl"],
          "n.jsonl:2"),
    Fault("passages-source-duplicate-id",
          lambda t: ["passages", "--source", _write(t / "d.jsonl", f"{LINE}\n{LINE}\n"), "--out", t / "p.jsonl"],
          "d.jsonl:2"),
    Fault("passages-source-bad-json", lambda t: ["passages", "--source", _write(t / "b.jsonl", f"{LINE}\n{{oops\n"),
                                                 "--out", t / "p.jsonl"], "b.jsonl:2"),
    Fault("passages-source-huge-bad-record",
          lambda t: ["passages", "--source", _write(t / "h.jsonl", json.dumps({"id": 5, "text": HUGE}) + "\n"),
                     "--out", t / "p.jsonl"], "h.jsonl:1"),
    Fault("passages-source-huge-json-array",
          lambda t: ["passages", "--source", _write(t / "a.jsonl", json.dumps([HUGE])), "--out", t / "p.jsonl"],
          "a.jsonl:1"),
    Fault("passages-source-corrupt-parquet",
          lambda t: ["passages", "--source", _write(t / "c.parquet", b"PAR1" + b"\0" * 100), "--out", t / "p.jsonl"],
          "c.parquet"),
    Fault("passages-source-corrupt-gzip",
          lambda t: ["passages", "--source", _write(t / "g.jsonl.gz", gzip.compress(LINE.encode() * 50)[:40]),
                     "--out", t / "p.jsonl"], "g.jsonl.gz"),
    Fault("passages-source-unsupported", lambda t: ["passages", "--source", _write(t / "s.csv", "a,b\n"),
                                                    "--out", t / "p.jsonl"], "s.csv"),
    Fault("passages-source-folder-not-beir", lambda t: ["passages", "--source", _write(t / "dir" / "x", "").parent,
                                                        "--out", t / "p.jsonl"], "corpus.jsonl"),
    Fault("passages-limit-negative", lambda t: ["passages", "--limit", "-1", "--out", t / "p.jsonl"], "-1"),
    # generate
    Fault("generate-out-is-file", lambda t: ["generate", "--passages", _passages(t), "--per-type", "1", "--types", "2i",
                                             "--out", _write(t / "outfile", "keep")], "{tmp}/outfile"),
    Fault("generate-per-type-zero", lambda t: ["generate", "--passages", _passages(t), "--per-type", "0",
                                               "--out", t / "g"], "per_type"),
    Fault("generate-unknown-type", lambda t: ["generate", "--passages", _passages(t), "--types", "2i,9z",
                                              "--out", t / "g"], "9z"),
    Fault("generate-passages-missing", lambda t: ["generate", "--passages", t / "none.jsonl", "--out", t / "g"],
          "none.jsonl"),
    Fault("generate-passages-empty", lambda t: ["generate", "--passages", _write(t / "e.jsonl", ""), "--out", t / "g"],
          "e.jsonl"),
    Fault("generate-passages-missing-field",
          lambda t: ["generate", "--passages", _write(t / "m.jsonl", '{"id": "a", "title": "A"}\n'), "--out", t / "g"],
          "m.jsonl:1"),
    Fault("generate-triples-missing", lambda t: ["generate", "--passages", _passages(t), "--triples", t / "t.jsonl",
                                                 "--out", t / "g"], "t.jsonl"),
    Fault("config-missing", lambda t: ["generate", "--config", t / "none.toml", "--out", t / "g"], "none.toml"),
    Fault("config-bad-toml", lambda t: ["generate", "--config", _config(t, "[generate\nper_type = 3\n"),
                                        "--out", t / "g"], "bad.toml"),
    Fault("config-unknown-setting", lambda t: ["generate", "--config", _config(t, "[generate]\nper_tipe = 3\n"),
                                               "--out", t / "g"], "per_tipe"),
    Fault("config-wrong-type", lambda t: ["generate", "--config", _config(t, '[generate]\nper_type = "many"\n'),
                                          "--out", t / "g"], "per_type"),
    Fault("config-out-of-range", lambda t: ["generate", "--config", _config(t, "[llm]\ntemperature = 5.0\n"),
                                            "--out", t / "g"], "temperature"),
    Fault("config-negative-concurrency", lambda t: ["generate", "--config", _config(t, "[llm]\nconcurrency = 0\n"),
                                                    "--out", t / "g"], "concurrency"),
    # issue 31: a list's items are checked one by one (a TypeError traceback before)
    Fault("config-list-item-wrong-type",
          lambda t: ["generate", "--config", _config(t, '[llm]\npassage_counts = [1, "2"]\n'), "--out", t / "g"],
          "'passage_counts' item 2 must be int, not '2'"),
    # export
    Fault("export-no-items", lambda t: ["export", _write(t / "empty" / "x", "").parent, "--out", t / "e"], "items"),
    Fault("export-out-not-export", lambda t: ["export", _run_folder(t), "--out", _write(t / "mine" / "notes.txt",
                                                                                        "mine").parent], "{tmp}/mine"),
    Fault("export-out-is-file", lambda t: ["export", _run_folder(t), "--out", _write(t / "ef", "keep")], "{tmp}/ef"),
    Fault("export-bad-ratios", lambda t: ["export", _run_folder(t), "--out", t / "e", "--ratios", "0.5,0.5"], "0.5"),
    Fault("export-negative-ratio", lambda t: ["export", _run_folder(t), "--out", t / "e", "--ratios", "1.2,-0.4,0.2"],
          "ratio"),
    Fault("export-negative-distractors", lambda t: ["export", _run_folder(t), "--out", t / "e", "--distractors", "-1"],
          "distractors"),
    Fault("export-ratios-item-wrong-type",
          lambda t: ["export", _run_folder(t), "--out", t / "e", "--config",
                     _config(t, '[export]\nratios = [0.7, "x", 0.2]\n')], "'ratios' item 2 must be float, not 'x'"),
    Fault("export-corrupt-items",
          lambda t: ["export", _write(t / "r" / "items.jsonl", b'{"id": \n').parent, "--out", t / "e"],
          "items.jsonl:1"),
    # evaluate
    Fault("evaluate-depth-zero", lambda t: ["evaluate", "--beir", BEIR, "--retrievers", "bm25", "--depth", "0",
                                            "--out", t / "rep"], "depth"),
    Fault("evaluate-depth-negative", lambda t: ["evaluate", "--beir", BEIR, "--retrievers", "bm25", "--depth", "-5",
                                                "--out", t / "rep"], "depth"),
    Fault("evaluate-beir-missing", lambda t: ["evaluate", "--beir", t / "nobeir", "--retrievers", "bm25",
                                              "--out", t / "rep"], "nobeir"),
    Fault("evaluate-split-missing", lambda t: ["evaluate", "--beir", BEIR, "--split", "dev", "--retrievers", "bm25",
                                               "--out", t / "rep"], "dev"),
    Fault("evaluate-unknown-retriever", lambda t: ["evaluate", "--beir", BEIR, "--retrievers", "bm99",
                                                   "--out", t / "rep"], "bm99"),
    Fault("evaluate-out-is-file", lambda t: ["evaluate", "--beir", BEIR, "--retrievers", "bm25",
                                             "--out", _write(t / "repfile", "keep")], "{tmp}/repfile"),
    # issue 31: each of these ran before, exit 0 (the defaults for '', a fusion of two for 'rrf(bm25,,dense)')
    Fault("evaluate-retrievers-empty", lambda t: ["evaluate", "--beir", BEIR, "--retrievers", "", "--out", t / "rep"],
          "--retrievers: 'retrievers' must have at least 1 item"),
    Fault("evaluate-rrf-empty-item", lambda t: ["evaluate", "--beir", BEIR, "--retrievers", "rrf(bm25,,dense)",
                                                "--out", t / "rep"], "'rrf(bm25,,dense)': an empty item"),
    Fault("evaluate-config-list-item-wrong-type",
          lambda t: ["evaluate", "--beir", BEIR, "--config", _config(t, '[evaluate]\nretrievers = ["bm25", 7]\n'),
                     "--out", t / "rep"], "[evaluate]: 'retrievers' item 2 must be str, not 7"),
    # the first judgement taken for the header and dropped: 10 of 11 queries evaluated, exit 0
    Fault("evaluate-qrels-without-header",
          lambda t: ["evaluate", "--beir", _beir(t, lambda qrels: qrels.split("\n", 1)[1]), "--retrievers", "bm25",
                     "--out", t / "rep"], "qrels/test.tsv:1: no header line"),
    # nothing relevant: nDCG 0.0000 for every retriever, exit 0
    Fault("evaluate-qrels-no-positive-grade",
          lambda t: ["evaluate", "--beir", _beir(t, lambda qrels: re.sub(r"\t[12]$", "\t0", qrels, flags=re.M)),
                     "--retrievers", "bm25", "--out", t / "rep"], "no judgement has a positive score"),
    # run: all of these fail before the temporary Prefect API starts (no .prefect folder appears)
    Fault("run-config-bad", lambda t: ["run", "--config", _config(t, "[generate\n"), "--out", t / "r"], "bad.toml"),
    Fault("run-out-is-file", lambda t: ["run", "--out", _write(t / "rf", "keep")], "{tmp}/rf"),
    Fault("run-per-type-zero", lambda t: ["run", "--per-type", "0", "--out", t / "r"], "per_type"),
    Fault("run-limit-negative", lambda t: ["run", "--limit", "-3", "--out", t / "r"], "-3"),
    Fault("run-source-missing", lambda t: ["run", "--source", t / "none.jsonl", "--out", t / "r"], "none.jsonl"),
    Fault("run-unknown-generator", lambda t: ["run", "--config", _config(t, '[generate]\ngenerator = "nope"\n'),
                                              "--out", t / "r"], "nope"),
    Fault("run-per-type-too-small-for-test-split", lambda t: ["run", "--per-type", "1", "--out", t / "r"], "per_type"),
    Fault("run-unknown-retriever", lambda t: ["run", "--config", _config(t, '[evaluate]\nretrievers = ["bm99"]\n'),
                                              "--out", t / "r"], "bm99"),
    Fault("run-config-list-item-wrong-type",
          lambda t: ["run", "--config", _config(t, '[evaluate]\nretrievers = ["bm25", 7]\n'), "--out", t / "r"],
          "'retrievers' item 2 must be str, not 7"),
    Fault("run-unknown-itlr-operators", lambda t: ["run", "--config", _config(t, '[evaluate]\noperators = "nope"\n'),
                                                   "--out", t / "r"], "[evaluate] operators: unknown operators 'nope'"),
]


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("fault", FAULTS, ids=[f.id for f in FAULTS])
def test_bad_path_or_value(fault: Fault, probe, tmp_path: Path) -> None:
    argv = [str(a) for a in fault.setup(tmp_path)]
    before = _snapshot(tmp_path)
    outcome = probe.cli(*argv, what=fault.id)
    line = outcome.error_line()
    assert fault.names.format(tmp=tmp_path) in line, line
    after = _snapshot(tmp_path)
    changed = [name for name, data in before.items() if after.get(name) != data]
    stray = sorted(set(after) - set(before))
    probe.probes[-1].lost = len(changed)
    assert not changed, f"{fault.id}: changed or removed {changed}"
    assert not stray, f"{fault.id}: left {stray}"
    assert not any(p.name.startswith(".") and "tmp" in p.name for p in tmp_path.rglob("*")), "a temp file was left"
