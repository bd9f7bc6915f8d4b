"""`comlq generate` with the kg generator: short types are printed, an empty type fails the run
unless --allow-short, and the generator's own shortfall records are kept (not doubled)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pipeline.cli import main
from pipeline.schemas import read_json, read_jsonl

FIXTURES = Path(__file__).parent / "fixtures"


def test_an_empty_type_fails_unless_allowed_and_kg_records_are_kept(tmp_path: Path, capsys) -> None:
    tiny = tmp_path / "tiny.triples.jsonl"  # one edge: Lolita published_in_decade 1960s -> at most 2 items of 1p, no 3p
    tiny.write_text((FIXTURES / "films.triples.jsonl").read_text().splitlines()[2] + "\n")
    # (the corpus check off: the films' text dates other works of the 1960s, which one edge cannot hold)
    config = tmp_path / "no-check.toml"
    config.write_text("[generate]\ncorpus_check = false\n")
    argv = ["generate", "--types", "1p,3p", "--per-type", "3", "--triples", str(tiny), "--config", str(config),
            "--passages", str(FIXTURES / "films.passages.jsonl"), "--out", str(tmp_path / "run")]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    written = len(list(read_jsonl(tmp_path / "run" / "items.jsonl", "item")))
    assert 1 <= written < 3 and f"wrote {written} items" in out
    assert f"short types (usable of requested): 1p {written} of 3, 3p 0 of 3" in out
    error = [line for line in err.splitlines() if line.startswith("comlq: error:")]
    assert len(error) == 1 and "no usable item of type 3p (short:" in error[0]  # 1p is short, not empty
    shortfalls = [r for r in read_jsonl(tmp_path / "run" / "rejected.jsonl", "rejected") if r["reason"] == "shortfall"]
    assert Counter(r["type"] for r in shortfalls) == {"1p": 1, "3p": 1}  # the kg generator's own, with its detail
    assert all("sampled groundings" in r["detail"] for r in shortfalls)
    assert read_json(tmp_path / "run" / "stats.json")["short_types"] == ["1p", "3p"]
    assert main([*argv, "--allow-short"]) == 0
