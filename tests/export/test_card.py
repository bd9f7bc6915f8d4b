"""The dataset card tells the truth: the rejection table sums attempts, short types are named,
and nothing run-dependent (time, the LLM ledger) makes two cards of the same seed differ."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pipeline.records import Passage
from pipeline.schemas import write_json, write_jsonl

# What a kg run writes: one record per type and reason, `attempts` = groundings rejected for it.
REJECTED = [
    {"generator": "kg", "type": "3p", "reason": "dead_end", "attempts": 9000, "detail": "9000 of 9800"},
    {"generator": "kg", "type": "pi", "reason": "dead_end", "attempts": 475, "detail": "475 of 600"},
    {"generator": "kg", "type": "3p", "reason": "empty_answer", "attempts": 12, "detail": "12 of 9800"},
    {"generator": "llm", "type": "2in", "n_passages": 2, "reason": "no_passage_group", "attempts": None,
     "detail": "no group of 2 passages sharing an entity"},
    {"generator": "kg", "type": "3p", "reason": "shortfall", "attempts": 9800,
     "detail": "4 of 6 items after 9800 sampled groundings"},
]


def card_of(folder: Path, pool: list[Passage], items: list[Any], stats: dict[str, Any], export_of) -> str:
    write_jsonl(folder / "passages.jsonl", (p.to_dict() for p in pool), "passage")
    write_jsonl(folder / "items.jsonl", (i.to_dict() for i in items), "item")
    write_jsonl(folder / "rejected.jsonl", REJECTED, "rejected")
    write_json(folder / "stats.json", stats)
    return (export_of(folder, folder / "export") / "README.md").read_text(encoding="utf-8")


def table(card: str, after: str) -> list[list[str]]:
    block = card.split(after, 1)[1].split("\n\n|", 1)[1]
    lines = ("|" + block).split("\n\n", 1)[0].splitlines()
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines if not line.startswith("|---")]


def test_rejection_table_sums_attempts_and_short_types_are_named(pool, build_items, tmp_path, export_of) -> None:
    stats = {"generator": "kg", "items": 80, "short_types": ["3p"],
             "shortfalls": {"3p": {"requested": 6, "usable": 4, "failed_check": 0}}}
    card = card_of(tmp_path / "run", pool, build_items(pool, per_type=6), stats, export_of)
    failures = table(card, "Generation attempts that produced no query")
    assert failures == [["reason", "records", "attempts"],
                        ["dead_end", "2", "9475"],  # 9000 + 475, not 2 records
                        ["empty_answer", "1", "12"],
                        ["no_passage_group", "1", "–"]]  # no record says how many attempts
    # the shortfall record is a summary of a type, not failed attempts: it has its own table
    assert table(card, "fewer usable queries than requested") == [
        ["type", "usable", "requested", "why"], ["3p", "4", "6", "4 of 6 items after 9800 sampled groundings"]]


def test_timing_and_the_llm_ledger_stay_out_of_the_card(pool, build_items, tmp_path, export_of) -> None:
    def stats(seconds: float, cache_hits: int) -> dict[str, Any]:
        return {"generator": "kg", "items": 80, "planning_seconds": seconds,
                "timing": {"graph_build_seconds": seconds, "items_per_second": 100 / seconds},
                "llm": {"calls": 10 - cache_hits, "cache_hits": cache_hits, "seconds": seconds},
                "graph": {"facts": 5000}}

    items = build_items(pool, per_type=6)
    first = card_of(tmp_path / "a", pool, items, stats(1.5, 0), export_of)
    second = card_of(tmp_path / "b", pool, items, stats(2.25, 10), export_of)
    assert first.replace("comlq benchmark: a", "") == second.replace("comlq benchmark: b", "")
    assert "- graph.facts: 5000" in first and "- items: 80" in first  # the rest of stats.json is kept
    assert "seconds" not in first and "cache_hits" not in first


def test_same_seed_gives_a_byte_identical_export_through_the_cli(tmp_path: Path) -> None:
    """Generated twice with the kg generator (its stats.json differs in timing), exported twice."""
    from pipeline.cli import main

    runs = [tmp_path / "a" / "run", tmp_path / "b" / "run"]  # same folder name: the card's title
    for run in runs:
        assert main(["passages", "--limit", "300", "--out", str(run / "passages.jsonl")]) == 0
        assert main(["generate", "--per-type", "3", "--types", "1p,2in,2u", "--passages", str(run / "passages.jsonl"),
                     "--out", str(run)]) == 0
        assert main(["export", str(run), "--out", str(run / "export"), "--distractors", "20"]) == 0
    assert all("timing" in json.loads((run / "stats.json").read_text()) for run in runs)
    files = [{p.relative_to(run / "export"): p.read_bytes() for p in sorted((run / "export").rglob("*"))
              if p.is_file()} for run in runs]
    assert files[0].keys() == files[1].keys() and files[0] == files[1]


def test_every_figure_is_defined_and_the_split_shares_are_the_real_ones(pool, build_items, tmp_path,
                                                                        export_of) -> None:
    stats = {"generator": "kg", "items": 80, "per_type": 6, "graph": {"nodes": 40, "edges": 90},
             "passage_groups": {"2": 7}}
    card = card_of(tmp_path / "run", pool, build_items(pool, per_type=6), stats, export_of)
    assert "LSNC@K = −log((V + 1)/(K + 1)) / log(K + 1)" in card  # the measure the labels are for
    assert "`score` (1 or 2; a passage not listed is not relevant)" in card  # export writes no grade 0
    assert "- graph.edges: 90 (its edges; each fact is stored twice" in card
    assert "- passage_groups.2: 7 (passage groups of this size planned for prompts)" in card  # its section's note
    shares = card.split("Whole groups make the shares ", 1)[1].split(".\n", 1)[0]
    queries = [json.loads(line) for line in (tmp_path / "run" / "export" / "beir" / "queries.jsonl").open()]
    expected = ", ".join(f"{sum(q['split'] == s for q in queries) / len(queries):.0%} ({s})"
                         for s in ("train", "validation", "test"))
    assert shares == expected


def test_an_empty_split_is_named_with_why(pool, build_items, tmp_path, export_of) -> None:
    # 8 items in 7 passage-sharing groups: a 0.1 validation share gets no whole group
    card = card_of(tmp_path / "run", pool, build_items(pool, per_type=2)[:8], {"items": 8}, export_of)
    assert table(card, "Whole groups make the shares")[-1] == ["**all**", "4", "0", "3", "7"]
    note = " ".join(card.split("**The validation split is empty**: ", 1)[1].split("\n\n", 1)[0].split())
    assert note == ("the run's 7 passage-sharing groups were too few to give it any (whole groups go to one split); "
                    "its files are written with no rows.")
    assert "split is empty" not in card.replace("**The validation split is empty**", "")  # train and test have rows
