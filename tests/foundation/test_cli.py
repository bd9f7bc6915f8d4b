"""The `comlq` command as a user runs it: output, exit codes, one-line errors."""

import json
import subprocess
import sys

from pipeline.schemas import read_jsonl


def comlq(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True, cwd=cwd)


def test_types_json_lists_the_14_types():
    result = comlq("types", "--json")
    assert result.returncode == 0
    rows = json.loads(result.stdout)
    assert [r["name"] for r in rows][:3] == ["1p", "2p", "3p"] and len(rows) == 14
    pin = next(r for r in rows if r["name"] == "pin")
    assert (pin["anchors"], pin["relations"], pin["negations"]) == (2, 3, 1)
    assert pin["indicator"] == "{?z | (?x, R1, ?y) ∧ (?y, R2, ?z)} ∩ {?z | ¬(?w, R3, ?z)}"


def test_passages_from_sample(tmp_path):
    out = tmp_path / "x.jsonl"
    result = comlq("passages", "--source", "sample", "--limit", "100", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert len(list(read_jsonl(out, "passage"))) == 100


def test_malformed_lines_give_one_line_errors(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "title": "A", "text": "ok"}\n{"id": "b", "title": \n')
    result = comlq("passages", "--source", str(bad), "--out", str(tmp_path / "o.jsonl"))
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"comlq: error: {bad}:2: bad JSON")

    bad.write_text('{"id": "a", "title": "A", "text": "ok"}\n{"id": "b", "title": "B"}\n')
    result = comlq("passages", "--source", str(bad), "--out", str(tmp_path / "o.jsonl"))
    assert result.returncode == 2
    assert result.stderr.strip() == f"comlq: error: {bad}:2: field 'text': is missing"
    assert not (tmp_path / "o.jsonl").exists()  # nothing half-written
