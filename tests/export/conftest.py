"""Run folders for export tests, built from the shipped Wikipedia sample.

Items are grounded from each type's pattern graph (anchors become article titles, relations
get names), so their triples really have the declared type; some share source passages, a few
failed the automatic check, and negation types carry violating passages.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pipeline.config import ExportConfig
from pipeline.export import export
from pipeline.passages import SAMPLE_PATH, iter_passages
from pipeline.querytypes import CATALOGUE, TYPE_NAMES, grounded_indicator
from pipeline.records import Check, GeneratorInfo, GradedPassage, Item, Passage, Triple
from pipeline.schemas import write_json, write_jsonl

POOL_SIZE = 400


@pytest.fixture(scope="session")
def pool() -> list[Passage]:
    return list(iter_passages(str(SAMPLE_PATH), POOL_SIZE))


def _item(type_name: str, index: int, sources: list[Passage], violating: list[str], ok: bool) -> Item:
    pattern = CATALOGUE[type_name].pattern
    anchors = [n for n, role in pattern.nodes(data="role") if role == "anchor"]
    # one anchor per source passage title; extra anchors get a distinct name from the same article
    node = {n: n for n in pattern.nodes} | {
        a: sources[k % len(sources)].title + ("" if k < len(sources) else f" (part {k})")
        for k, a in enumerate(anchors)}
    target = next(n for n, role in pattern.nodes(data="role") if role == "target")
    triples = tuple(Triple(node[s], f"relation {data['index'] + 1}", node[o], data["negated"], data["union"])
                    for s, o, data in sorted(pattern.edges(data=True), key=lambda e: e[2]["index"]))
    def term(t: Triple) -> str:
        named = " ".join(n for n in (t.subject, t.object) if not n.startswith("?"))
        return ("NOT " if t.negated else "") + f'"{t.relation} {named}"'.replace(" \"", "\"")

    union = [term(t) for t in triples if t.union]
    terms = ([f"({' OR '.join(union)})"] if union else []) + [term(t) for t in triples if not t.union]
    grade = 2 if len(sources) == 1 else 1
    return Item(
        id=f"kg-{type_name}-{index:03d}", type=type_name, n_passages=len(sources),
        question=f"Which entity is the answer to this {type_name} question about {sources[0].title}?",
        indicator=CATALOGUE[type_name].indicator, grounded_indicator=grounded_indicator(triples, target),
        triples=triples, target=target, logical_form=" AND ".join(terms), answers=(sources[-1].title,),
        evidence=tuple(GradedPassage(p.id, grade) for p in sources), violating=tuple(violating),
        source_passages=tuple(p.id for p in sources), generator=GeneratorInfo("kg", seed=13),
        check=Check(True) if ok else Check(False, ("triples form 2p, expected 3p",)),
    )


def make_items(pool: list[Passage], per_type: int, seed: int = 1) -> list[Item]:
    """`per_type` items of each type over 1-3 passages; every 4th item reuses a passage of the one before."""
    rng = random.Random(seed)
    items: list[Item] = []
    for type_name in TYPE_NAMES:
        for index in range(per_type):
            n = 1 + index % 3
            sources = rng.sample(pool[:300], n)
            if items and index % 4 == 3:
                sources[0] = next(p for p in pool if p.id == items[-1].source_passages[0])
                sources = list({p.id: p for p in sources}.values())
            violating = [p.id for p in rng.sample(pool[300:], 2)] if CATALOGUE[type_name].negations else []
            items.append(_item(type_name, index, sources, violating, ok=index != 1 or type_name not in ("3p", "pi")))
    return items


def _votes(item: Item, grades: list[dict[str, int]], structure: list[bool]) -> list[dict[str, Any]]:
    spread = None if item.n_passages == 1 else True
    return [{"item_id": item.id, "annotator": f"annotator{k + 1}@example.org", "structure_ok": ok,
             "evidence_spread": spread, "relevance": g} for k, (g, ok) in enumerate(zip(grades, structure))]


def reviewed_record(item: Item, status: str) -> dict[str, Any]:
    """A reviewed_item record: three votes; accepted items of 2 passages get a 0 for their last one."""
    evidence = {e.passage_id: e.grade for e in item.evidence}
    grades = [dict(evidence) for _ in range(3)]
    if status == "accepted" and item.n_passages == 2:
        for g in grades[:2]:
            g[item.evidence[-1].passage_id] = 0
    structure = [status != "rejected", status != "rejected", True]
    qrels = grades[0] if status == "accepted" else {}
    return {"item": item.to_dict(), "review": {
        "status": status, "votes": _votes(item, grades, structure) if status != "pending" else [],
        "structure_ok": None if status == "pending" else status != "rejected",
        "evidence_spread": None if status == "pending" or item.n_passages == 1 else True,
        "relevance": qrels, "flags": [], "qrels": qrels,
        "reason": "structure: question does not match the type" if status == "rejected" else None}}


def _agreement(records: list[dict[str, Any]]) -> dict[str, Any]:
    """A review/agreement.json as the Label Studio pull writes it (figures made up)."""
    def stats(alpha: float) -> dict[str, Any]:
        return {q: {"units": 30, "fleiss_kappa": alpha - 0.05, "krippendorff_alpha": alpha}
                for q in ("structure_ok", "evidence_spread", "answers_correct", "answers_complete", "trivial",
                          "relevance")}

    pending = sum(r["review"]["status"] == "pending" for r in records)
    return {"annotators_per_item": 3, "items": {"total": len(records), "complete": len(records) - pending,
                                                "pending": pending},
            "overall": stats(0.7234567), "by_type": {"2in": stats(0.5), "1p": stats(0.9)},
            "disagreements": [  # two judgements and a comment
                {"item_id": "kg-1p-000", "type": "1p", "question": "structure_ok", "passage_id": None,
                 "votes": {"annotator1@example.org": 1, "annotator2@example.org": 0, "annotator3@example.org": 1}},
                {"item_id": "kg-1p-000", "type": "1p", "question": "trivial", "passage_id": None,
                 "votes": {"annotator1@example.org": 2, "annotator2@example.org": 2, "annotator3@example.org": 2}},
                {"item_id": "kg-1p-000", "type": "1p", "question": "comment", "passage_id": None, "votes": {},
                 "comment": "a note", "annotator": "annotator2@example.org"}],
            "edits": [  # one vote kept in its author's earlier version, one left out
                {"item_id": "kg-2in-000", "type": "2in", "annotator": "annotator1@example.org",
                 "editor": "annotator2@example.org", "annotation_id": 7, "edited_at": "2026-12-01T10:00:00Z",
                 "kept": True},
                {"item_id": "kg-1p-001", "type": "1p", "annotator": "annotator3@example.org",
                 "editor": "annotator2@example.org", "annotation_id": 9, "edited_at": "2026-12-01T10:05:00Z",
                 "kept": False}],
            "pool": {"overall": {"judged": 40, "relevant": 3, "items_repaired": 2},
                     "by_type": {"2in": {"judged": 25, "relevant": 3, "items_repaired": 2},
                                 "1p": {"judged": 15, "relevant": 0, "items_repaired": 0},
                                 "3p": {"judged": 0, "relevant": 0, "items_repaired": 0}}}}


def write_run(folder: Path, pool: list[Passage], items: list[Item], reviewed: bool = False) -> Path:
    """A run folder: passages.jsonl, items.jsonl, rejected.jsonl, stats.json (+ review/ when reviewed)."""
    write_jsonl(folder / "passages.jsonl", (p.to_dict() for p in pool), "passage")
    write_jsonl(folder / "items.jsonl", (i.to_dict() for i in items), "item")
    write_jsonl(folder / "rejected.jsonl", [
        {"generator": "kg", "type": "3in", "n_passages": 3, "reason": "empty_answer"},
        {"generator": "kg", "type": "pni", "n_passages": 2, "reason": "empty_answer"},
        {"generator": "kg", "type": "up", "n_passages": 1, "reason": "too_many_answers"}], "rejected")
    write_json(folder / "stats.json", {"items": len(items), "rejected": 3, "seconds": 1.25})
    if reviewed:
        statuses = itertools.cycle(["accepted"] * 5 + ["rejected", "accepted", "pending"])
        records = [reviewed_record(i, next(statuses)) for i in items if i.check.ok]
        write_jsonl(folder / "review" / "reviewed.jsonl", records, "reviewed_item")
        write_json(folder / "review" / "agreement.json", _agreement(records), "agreement")
    return folder


def _export_of(run: Path, out: Path, seed: int = 13, distractors: int = 50) -> Path:
    export(run, out, ExportConfig(seed=seed, distractors=distractors))
    return out


@pytest.fixture(scope="session")
def build_items() -> Callable[..., list[Item]]:
    """make_items(pool, per_type, seed=1)"""
    return make_items


@pytest.fixture(scope="session")
def build_reviewed() -> Callable[[Item, str], dict[str, Any]]:
    """reviewed_record(item, status)"""
    return reviewed_record


@pytest.fixture(scope="session")
def export_of() -> Callable[..., Path]:
    """export_of(run, out, seed=13, distractors=50) -> out"""
    return _export_of


@pytest.fixture(scope="session")
def offline_run(tmp_path_factory: pytest.TempPathFactory, pool: list[Passage]) -> Path:
    return write_run(tmp_path_factory.mktemp("offline"), pool, make_items(pool, per_type=6))


@pytest.fixture(scope="session")
def reviewed_run(tmp_path_factory: pytest.TempPathFactory, pool: list[Passage]) -> Path:
    return write_run(tmp_path_factory.mktemp("reviewed"), pool, make_items(pool, per_type=6), reviewed=True)


@pytest.fixture(scope="session")
def offline_export(offline_run: Path) -> Path:
    return _export_of(offline_run, offline_run / "export")


@pytest.fixture(scope="session")
def reviewed_export(reviewed_run: Path) -> Path:
    return _export_of(reviewed_run, reviewed_run / "export")
