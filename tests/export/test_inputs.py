"""What an export takes from a run folder, and what it leaves out by reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.config import ExportConfig
from pipeline.errors import ComlqError, RecordError
from pipeline.export import export
from pipeline.export.inputs import pairwise_agreement, read_run
from pipeline.records import Passage
from pipeline.schemas import read_jsonl, write_jsonl


def test_review_reasons_unreviewed_and_failed_checks_are_counted(pool: list[Passage], tmp_path: Path, build_items,
                                                                 build_reviewed) -> None:
    items = build_items(pool, per_type=2)
    ok = [i for i in items if i.check.ok]
    failed = [i for i in items if not i.check.ok]
    rejected = build_reviewed(ok[1], "rejected")
    rejected["review"]["reason"] = "structure inconsistent with the type; no passage judged relevant"
    records = [build_reviewed(ok[0], "accepted"), rejected, build_reviewed(ok[2], "pending")]
    records += [build_reviewed(i, "accepted") for i in ok[4:]]  # ok[3] was never sent to review
    write_jsonl(tmp_path / "items.jsonl", (i.to_dict() for i in items), "item")
    write_jsonl(tmp_path / "review" / "reviewed.jsonl", records, "reviewed_item")

    run = read_run(tmp_path)
    assert run.reviewed and {c.item.id for c in run.candidates} == {ok[0].id} | {i.id for i in ok[4:]}
    assert run.dropped == {("review", "rejected: structure inconsistent with the type"): 1,
                           ("review", "rejected: no passage judged relevant"): 1,
                           ("review", "pending"): 1, ("review", "not reviewed"): 1,
                           ("check", "triples form 2p, expected 3p"): len(failed)}
    assert run.dropped_items == 3 + len(failed)


def test_offline_input_keeps_checked_items_graded_by_evidence(pool: list[Passage], tmp_path: Path,
                                                              build_items) -> None:
    items = build_items(pool, per_type=2)
    write_jsonl(tmp_path / "items.jsonl", (i.to_dict() for i in items), "item")
    run = read_run(tmp_path)
    assert not run.reviewed and run.agreement is None and run.failures == {}
    assert [c.item.id for c in run.candidates] == [i.id for i in items if i.check.ok]
    for candidate in run.candidates:
        grades = set(candidate.qrels.values())
        assert grades == ({2} if candidate.item.n_passages == 1 else {1})


def test_duplicate_item_ids_are_an_error(pool: list[Passage], tmp_path: Path, build_items) -> None:
    item = build_items(pool, per_type=1)[0]
    write_jsonl(tmp_path / "items.jsonl", [item.to_dict(), item.to_dict()], "item")
    with pytest.raises(ComlqError, match=f"items.jsonl: duplicate item id '{item.id}'"):
        read_run(tmp_path)


def test_pairwise_agreement() -> None:
    votes = [{"structure_ok": True, "evidence_spread": None, "relevance": {"a": 2, "b": 1}},
             {"structure_ok": True, "evidence_spread": None, "relevance": {"a": 2, "b": 0}},
             {"structure_ok": False, "evidence_spread": None, "relevance": {"a": 2}}]
    # structure: 1 of 3 pairs agree; a: 3 of 3; b: 0 of 1 -> 4 of 7
    assert pairwise_agreement(votes) == pytest.approx(4 / 7)
    assert pairwise_agreement(votes[:1]) is None


def test_a_failed_export_leaves_the_previous_one(offline_run: Path, offline_export: Path,
                                                  tmp_path: Path) -> None:
    before = {p: p.read_bytes() for p in sorted(offline_export.rglob("*")) if p.is_file()}
    pool = [json.loads(line) for line in (offline_run / "passages.jsonl").read_text().splitlines()]
    bad = tmp_path / "pool.jsonl"
    write_jsonl(bad, pool + [{"id": 'with "quotes"', "title": "T", "text": "x"}], "passage")
    with pytest.raises(RecordError, match="_id"):  # ids go unquoted into the qrels TSV files
        export(offline_run, offline_export, ExportConfig(distractors=len(pool)), passages_path=bad)
    assert {p: p.read_bytes() for p in sorted(offline_export.rglob("*")) if p.is_file()} == before
    assert [p.name for p in offline_export.parent.iterdir() if p.name.startswith(".")] == []
    assert len(list(read_jsonl(offline_export / "beir" / "queries.jsonl", "beir_query"))) > 0
