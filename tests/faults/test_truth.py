"""What the outputs say must be true: the dataset card's table of generation attempts that
produced no query sums the records' `attempts` (one kg record stands for thousands of attempts).
What a newcomer reads must match what the tool does: the README names every stage a run prints
and every verb, and `--help` names values in words a user would type.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LLM_PASSAGES = ROOT / "tests" / "llm" / "fixtures" / "passages.jsonl"  # 11 passages: no 3i item


def test_card_sums_rejected_attempts(probe, review_run: Path, tmp_path: Path) -> None:
    rejected = [{"generator": "kg", "reason": "dead_end", "attempts": 9000},
                {"generator": "kg", "reason": "dead_end", "attempts": 475},
                {"generator": "llm", "reason": "bad_reply", "attempts": None}]
    (review_run / "rejected.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rejected))
    probe.cli("export", review_run, "--out", tmp_path / "export", "--distractors", "0", "--ratios", "0,0,1",
              what="card attempts").ok()
    card = (tmp_path / "export" / "README.md").read_text()
    assert "| dead_end | 2 | 9475 |" in card and "| bad_reply | 1 | – |" in card, card[-1500:]


def test_huge_single_line_record_is_cut(probe, tmp_path: Path) -> None:
    """A 5 MB one-line record is cut into 100-word passages (docs: passages), not taken as one passage."""
    words = [f"w{i}" for i in range(800_000)]
    source = tmp_path / "huge.jsonl"
    source.write_text(json.dumps({"id": "big", "title": "Big", "text": " ".join(words)}) + "\n")
    out = tmp_path / "p.jsonl"
    probe.cli("passages", "--source", source, "--out", out, what="5 MB one-line record").ok()
    passages = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(passages) == 8000 and all(len(p["text"].split()) == 100 for p in passages)
    assert " ".join(p["text"] for p in passages).split() == words  # nothing lost in the cut
    assert len({p["id"] for p in passages}) == len(passages)


def test_type_without_items_is_said_out_loud(probe, tmp_path: Path) -> None:
    """A query type that got no item at all (failure 7): one line naming it and a non-zero exit,
    not "wrote N items" and exit 0; the outputs stay, with the type in stats.json's short_types."""
    out = tmp_path / "gen"
    line = probe.cli("generate", "--passages", LLM_PASSAGES, "--types", "3i", "--per-type", "1", "--out", out,
                     what="a type with no item").error_line()
    assert "3i" in line and "--allow-short" in line, line
    assert json.loads((out / "stats.json").read_text())["short_types"] == ["3i"]
    probe.cli("generate", "--passages", LLM_PASSAGES, "--types", "3i", "--per-type", "1", "--out", out,
              "--allow-short", what="a type with no item, allowed").ok()


RUN_STAGES = ("passages", "generate", "review", "export", "train", "evaluate")  # `comlq run` prints each


def _verbs(parser: argparse.ArgumentParser, prefix: str = "comlq") -> dict[str, argparse.ArgumentParser]:
    """Every command and sub-command: "comlq review push" -> its parser."""
    found = {prefix: parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found |= _verbs(sub, f"{prefix} {name}")
    return found


def test_readme_shows_every_stage_and_verb(probe) -> None:
    """The run printed "run 4/5: train" while the README's line and command table had no train stage
    (issue 31): the line names every stage a run goes through, the table every verb."""
    from pipeline.cli import build_parser

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = readme.split("```\n", 2)[1]  # the line, the first fenced block
    table = {row.split("|")[1].strip().strip("`") for row in readme.splitlines() if row.startswith("| `comlq ")}
    verbs = {name for name in _verbs(build_parser()) if name.count(" ") == 1}
    probe.record("README against the CLI")
    assert [stage for stage in RUN_STAGES if not re.search(rf"\b{stage}\b", line)] == [], line
    assert verbs - table == set(), f"the README's command table lacks {sorted(verbs - table)}"


def test_help_names_values_in_words(probe) -> None:
    """`comlq generate --help` showed `--per-type GENERATE.PER_TYPE` (the option's configuration key)."""
    from pipeline.cli import build_parser

    shown = {name: re.findall(r"--[\w-]+ ([A-Z_]+\.[A-Z_.]+)", parser.format_help())
             for name, parser in _verbs(build_parser()).items()}
    dotted = {name: metavars for name, metavars in shown.items() if metavars}
    probe.record("metavars in --help")
    assert dotted == {}, dotted
