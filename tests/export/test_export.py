"""The export folder: round trip through `datasets` and BEIR's loader, integrity, schemas,
determinism, reviewed input and the dataset card."""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from beir.datasets.data_loader import GenericDataLoader
from datasets import load_dataset, load_from_disk

from pipeline.cli import main
from pipeline.config import ExportConfig
from pipeline.errors import ComlqError
from pipeline.export import export
from pipeline.export.split import SPLITS
from pipeline.querytypes import TYPE_NAMES
from pipeline.records import GeneratorInfo, Passage
from pipeline.schemas import read_jsonl, validate, write_jsonl


def read_tsv(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle, delimiter="\t"))


def beir_files(export_dir: Path) -> dict[str, bytes]:
    folder = export_dir / "beir"
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _items(run: Path) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in read_jsonl(run / "items.jsonl", "item")}


def _expected_offline(run: Path) -> dict[str, dict[str, Any]]:
    """What an offline export must hold: the items that passed the check, qrels = evidence grades."""
    return {i: r | {"qrels": {e["passage_id"]: e["grade"] for e in r["evidence"]}}
            for i, r in _items(run).items() if r["check"]["ok"]}


def _expected_reviewed(run: Path) -> dict[str, dict[str, Any]]:
    return {r["item"]["id"]: r["item"] | {"qrels": r["review"]["qrels"], "votes": r["review"]["votes"]}
            for r in read_jsonl(run / "review" / "reviewed.jsonl", "reviewed_item")
            if r["review"]["status"] == "accepted"}


def _rows(export: Path) -> dict[str, list[dict[str, Any]]]:
    dataset = load_from_disk(str(export / "dataset"))
    assert list(dataset) == list(SPLITS)
    return {split: dataset[split].to_list() for split in SPLITS}


def test_dataset_round_trip(offline_run: Path, offline_export: Path) -> None:
    expected = _expected_offline(offline_run)
    rows = {row["id"]: row for split in _rows(offline_export).values() for row in split}
    assert rows.keys() == expected.keys()
    for item_id, row in rows.items():
        item = expected[item_id]
        validate(row, "export_item", item_id)
        for key in ("type", "n_passages", "question", "indicator", "grounded_indicator", "target", "logical_form",
                    "answers", "evidence", "violating", "source_passages"):
            assert row[key] == item[key], (item_id, key)
        assert row["triples"] == [{"negated": False, "union": False} | t for t in item["triples"]]
        assert {g["passage_id"]: g["grade"] for g in row["qrels"]} == item["qrels"]
        assert row["negations"] == sum(t["negated"] for t in item["triples"])
        assert row["generator"]["name"] == "kg" and row["generator"]["seed"] == 13
        assert row["review"] is None and row["provenance"]["selection"] == "check:ok"
        assert row["provenance"]["source_urls"][0].startswith("https://en.wikipedia.org/wiki/")


def test_parquet_holds_the_same_rows(offline_export: Path) -> None:
    rows = _rows(offline_export)
    for split in SPLITS:
        assert pq.read_table(offline_export / "data" / f"{split}-00000-of-00001.parquet").to_pylist() == rows[split]
    # The card's YAML header names these files, so the folder loads as it will from the Hub.
    loaded = load_dataset(str(offline_export))
    assert {split: loaded[split].num_rows for split in SPLITS} == {split: len(rows[split]) for split in SPLITS}


def test_beir_round_trip_with_beir_loader(offline_run: Path, offline_export: Path) -> None:
    expected = _expected_offline(offline_run)
    rows = _rows(offline_export)
    passages = {r["id"]: r for r in read_jsonl(offline_run / "passages.jsonl", "passage")}
    seen_queries: set[str] = set()
    for split in SPLITS:
        corpus, queries, qrels = GenericDataLoader(data_folder=str(offline_export / "beir")).load(split=split)
        split_ids = {r["id"] for r in rows[split]}
        assert set(queries) == set(qrels) == split_ids
        seen_queries |= split_ids
        for query_id, judged in qrels.items():
            assert queries[query_id] == expected[query_id]["question"]
            assert judged == expected[query_id]["qrels"]
            assert set(judged) <= set(corpus)  # every corpus id of the qrels is in corpus.jsonl
        violations = read_tsv(offline_export / "beir" / "violations" / f"{split}.tsv")
        assert violations[0] == ["query-id", "corpus-id", "violates"]
        labelled = Counter(q for q, _, v in violations[1:] if v == "1")
        assert all(v == "1" and q in split_ids and p in corpus for q, p, v in violations[1:])
        assert labelled == Counter({i: len(expected[i]["violating"]) for i in split_ids if expected[i]["violating"]})
    assert seen_queries == expected.keys()
    for passage_id, passage in corpus.items():
        assert passage == {"title": passages[passage_id]["title"], "text": passages[passage_id]["text"]}


def test_beir_records_match_their_schemas(offline_export: Path) -> None:
    queries = list(read_jsonl(offline_export / "beir" / "queries.jsonl", "beir_query"))
    corpus = list(read_jsonl(offline_export / "beir" / "corpus.jsonl", "beir_corpus"))
    assert [q["_id"] for q in queries] == sorted(q["_id"] for q in queries)
    assert [p["_id"] for p in corpus] == sorted(p["_id"] for p in corpus)
    split_of = {row["id"]: split for split, rows in _rows(offline_export).items() for row in rows}
    assert {q["_id"]: q["split"] for q in queries} == split_of
    for split in SPLITS:
        header, *rows = read_tsv(offline_export / "beir" / "qrels" / f"{split}.tsv")
        assert header == ["query-id", "corpus-id", "score"]
        assert rows == sorted(rows) and all(r[2] in ("0", "1", "2") for r in rows)


def test_corpus_has_every_judged_and_violating_passage_plus_distractors(offline_run: Path,
                                                                       offline_export: Path) -> None:
    expected = _expected_offline(offline_run)
    needed = set()
    for item in expected.values():
        needed |= set(item["qrels"]) | set(item["violating"]) | set(item["source_passages"])
    corpus = {p["_id"] for p in read_jsonl(offline_export / "beir" / "corpus.jsonl", "beir_corpus")}
    assert needed <= corpus
    assert len(corpus - needed) == 50  # the fixture export asks for 50 distractors


def test_same_seed_gives_byte_identical_beir_files(offline_run: Path, offline_export: Path, tmp_path: Path,
                                                   export_of) -> None:
    again = export_of(offline_run, tmp_path / "again")
    assert beir_files(again) == beir_files(offline_export)
    other = export_of(offline_run, tmp_path / "other", seed=99)
    assert beir_files(other)["corpus.jsonl"] != beir_files(offline_export)["corpus.jsonl"]


def test_reviewed_input_exports_only_accepted_items_with_review_qrels(reviewed_run: Path,
                                                                        reviewed_export: Path) -> None:
    expected = _expected_reviewed(reviewed_run)
    rows = {row["id"]: row for split in _rows(reviewed_export).values() for row in split}
    assert rows.keys() == expected.keys()
    emails = sorted({v["annotator"] for item in expected.values() for v in item["votes"]})
    pseudonyms = {email: f"annotator-{n}" for n, email in enumerate(emails, 1)}
    zero_grades = 0
    for item_id, row in rows.items():
        assert {g["passage_id"]: g["grade"] for g in row["qrels"]} == expected[item_id]["qrels"]
        assert row["review"]["status"] == "accepted" and row["provenance"]["selection"] == "review:accepted"
        assert [v["annotator"] for v in row["review"]["votes"]] == [pseudonyms[v["annotator"]]
                                                                    for v in expected[item_id]["votes"]]
        assert 0 <= row["review"]["agreement"] <= 1
        zero_grades += sum(g["grade"] == 0 for g in row["qrels"])
    assert zero_grades > 0  # the fixture's reviewers graded some evidence passages 0 ...
    qrels = [r for split in SPLITS for r in read_tsv(reviewed_export / "beir" / "qrels" / f"{split}.tsv")[1:]]
    assert sum(r[2] == "0" for r in qrels) == zero_grades  # ... and the BEIR qrels keep them


def test_no_exported_file_names_an_annotator(reviewed_run: Path, reviewed_export: Path) -> None:
    emails = {v["annotator"] for r in read_jsonl(reviewed_run / "review" / "reviewed.jsonl", "reviewed_item")
              for v in r["review"]["votes"]}
    assert emails and all("@" in e for e in emails)  # the fixture's votes carry e-mails ...
    for path in sorted(p for p in reviewed_export.rglob("*") if p.is_file()):
        if path.suffix == ".parquet":  # compressed: compare the decoded rows
            text = json.dumps(pq.read_table(path).to_pylist())
        else:
            text = path.read_bytes().decode("utf-8", errors="ignore")
        assert not any(e in text for e in emails), path  # ... and no export file holds one
        if path.suffix in {".parquet", ".jsonl", ".json", ".tsv", ".md"}:  # nor any e-mail address at all
            assert re.search(r"[\w.+-]+@[\w-]+\.\w", text) is None, path


def test_items_without_a_relevant_passage_are_left_out(reviewed_run: Path, tmp_path: Path, export_of) -> None:
    run = tmp_path / "run"
    (run / "review").mkdir(parents=True)
    for name in ("passages.jsonl", "items.jsonl"):
        (run / name).write_bytes((reviewed_run / name).read_bytes())
    records = list(read_jsonl(reviewed_run / "review" / "reviewed.jsonl", "reviewed_item"))
    accepted = [r for r in records if r["review"]["status"] == "accepted"]
    accepted[0]["review"]["qrels"] = {p: 0 for p in accepted[0]["review"]["qrels"]}
    (run / "review" / "reviewed.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    export = export_of(run, tmp_path / "export")
    ids = {q["_id"] for q in read_jsonl(export / "beir" / "queries.jsonl", "beir_query")}
    assert accepted[0]["item"]["id"] not in ids and accepted[1]["item"]["id"] in ids
    assert "| review | accepted without a relevant passage | 1 |" in (export / "README.md").read_text()


def _card_table(card: str, heading: str) -> list[list[str]]:
    section = card.split(heading, 1)[1].split("\n## ", 1)[0]
    return [[c.strip() for c in line.strip("|").split("|")] for line in section.splitlines()
            if line.startswith("|") and not line.startswith("|---")]


def test_card_counts_types_splits_and_dropped_items(reviewed_run: Path, reviewed_export: Path) -> None:
    card = (reviewed_export / "README.md").read_text()
    assert card.startswith("---\nlicense: cc-by-sa-4.0\n")
    assert "CC BY-SA 4.0" in card and "GenericDataLoader" in card and "load_from_disk" in card
    rows = _rows(reviewed_export)
    header, *body = _card_table(card, "## Splits")
    assert header == ["type", *SPLITS, "total"]
    for type_row in body[:-1]:
        counts = [sum(r["type"] == type_row[0] for r in rows[s]) for s in SPLITS]
        assert type_row[1:] == [str(n) for n in [*counts, sum(counts)]]
    assert [r[0] for r in body[:-1]] == [t for t in TYPE_NAMES if any(r["type"] == t for s in SPLITS for r in rows[s])]

    records = list(read_jsonl(reviewed_run / "review" / "reviewed.jsonl", "reviewed_item"))
    status = Counter(r["review"]["status"] for r in records)
    failed_checks = sum(not r["check"]["ok"] for r in _items(reviewed_run).values())
    dropped = {(row[0], row[1]): int(row[2]) for row in _card_table(card, "## Left out")
               if row[0] in ("check", "review")}
    assert dropped[("review", "pending")] == status["pending"]
    assert dropped[("review", "rejected: structure: question does not match the type")] == status["rejected"]
    assert dropped[("check", "triples form 2p, expected 3p")] == failed_checks
    assert "| empty_answer | 2 | – |" in card and "| too_many_answers | 1 | – |" in card  # no attempts given
    agreement = _card_table(card, "Inter-annotator agreement")
    assert agreement[0] == ["question", "units", "Fleiss' κ", "Krippendorff's α"]
    questions = ("structure_ok", "evidence_spread", "answers_correct", "answers_complete", "trivial", "relevance")
    assert agreement[1:7] == [[q, "30", "0.673", "0.723"] for q in questions]
    prose = " ".join(card.split("Inter-annotator agreement", 1)[1].split("|", 1)[0].split())
    assert prose.endswith('pending items left out; 2 judgements not unanimous or answered "unsure", and 1 comment), '
                          'from `review/agreement.json`:')
    edited = " ".join(card.split("**Edited by another account:**", 1)[1].split("\n\n", 1)[0].split())
    assert edited == ("2 votes were last saved in Label Studio by an account other than the annotator who submitted "
                      "them (Label Studio Community lets any account change any annotation). The review counted the "
                      "author's own earlier version of 1 and left out 1, which no earlier pull had read. Items: "
                      "kg-1p-001, kg-2in-000.")
    assert "@example.org" not in card  # the edits name no one
    per_type = _card_table(card, "α per query type")
    assert per_type[0] == ["type", *questions]  # every question, the new ones too
    assert per_type[1:] == [["1p", *["0.900"] * 6], ["2in", *["0.500"] * 6]]  # catalogue order
    # what pooled judging found, overall and per type (types without candidates judged left out)
    prose = " ".join(card.split("Pooled judging:", 1)[1].split("|", 1)[0].split())
    assert prose.startswith("besides the generator's evidence, the reviewers graded 40 passages that retrieval "
                            "systems (the review's pool retrievers) ranked high")
    assert "; 3 of them were graded relevant, passages the generator had missed, and joined the qrels. 2 queries " \
           'voted "answers incomplete" were kept' in prose
    assert _card_table(card, "Pooled judging")[:3] == [
        ["type", "candidates judged", "relevant, missed by the generator", "queries repaired"],
        ["1p", "15", "0", "0"], ["2in", "25", "3", "2"]]


def test_missing_passage_is_a_one_line_error(offline_run: Path, tmp_path: Path) -> None:
    pool = tmp_path / "pool.jsonl"
    missing = next(i for i in _items(offline_run).values() if i["check"]["ok"])["source_passages"][0]
    lines = (offline_run / "passages.jsonl").read_text().splitlines()
    pool.write_text("".join(line + "\n" for line in lines if json.loads(line)["id"] != missing))
    with pytest.raises(ComlqError, match=rf"item kg-.*: passage '{missing}' is not in .*pool.jsonl"):
        export(offline_run, tmp_path / "export", ExportConfig(), passages_path=pool)
    assert not (tmp_path / "export").exists()


def test_nothing_to_export_names_the_reasons(reviewed_run: Path, tmp_path: Path, capsys) -> None:
    run = tmp_path / "run"
    (run / "review").mkdir(parents=True)
    (run / "items.jsonl").write_bytes((reviewed_run / "items.jsonl").read_bytes())
    records = [json.loads(line) for line in (reviewed_run / "review" / "reviewed.jsonl").read_text().splitlines()]
    pending = [r | {"review": r["review"] | {"status": "pending"}} for r in records]
    (run / "review" / "reviewed.jsonl").write_text("".join(json.dumps(r) + "\n" for r in pending))
    assert main(["export", str(run), "--out", str(tmp_path / "export")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("comlq: error: ") and "nothing to export" in err and f"pending ({len(records)})" in err


def test_cli_export_and_its_errors(offline_run: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    out = tmp_path / "export"
    assert main(["export", str(offline_run), "--out", str(out), "--ratios", "0.5,0.25,0.25", "--seed", "3",
                 "--distractors", "5"]) == 0
    assert "exported" in capsys.readouterr().out
    queries = list(read_jsonl(out / "beir" / "queries.jsonl", "beir_query"))
    sizes = Counter(q["split"] for q in queries)
    assert sizes["train"] < 0.7 * len(queries)  # the ratios were used, not the 0.7 default

    assert main(["export", str(offline_run), "--out", str(out), "--ratios", "0.7,0.7"]) == 2
    assert "ratios" in capsys.readouterr().err
    assert main(["export", str(offline_run), "--out", str(out), "--distractors", "-1"]) == 2
    assert "'distractors' must be >= 0, not -1" in capsys.readouterr().err  # range-checked with the settings

    monkeypatch.delenv("HF_TOKEN", raising=False)
    assert main(["export", str(offline_run), "--out", str(tmp_path / "hub"), "--push-to-hub", "me/comlq"]) == 2
    assert "HF_TOKEN" in capsys.readouterr().err
    assert not (tmp_path / "hub").exists()  # refused before doing the work

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "mine.txt").write_text("keep me")
    assert main(["export", str(offline_run), "--out", str(tmp_path / "notes")]) == 2
    assert "not an export folder" in capsys.readouterr().err
    assert (tmp_path / "notes" / "mine.txt").read_text() == "keep me"


def test_card_names_the_llm_model_and_prompt_hash(pool: list[Passage], build_items, tmp_path: Path,
                                                  export_of) -> None:
    llm = GeneratorInfo("llm", model="gpt-4o-mini", prompt_file="llm/generate_2in.md", prompt_hash="sha256:ab12cd")
    items = [replace(i, generator=llm) if i.type == "2in" else i for i in build_items(pool, per_type=6)]
    write_jsonl(tmp_path / "run" / "items.jsonl", (i.to_dict() for i in items), "item")
    write_jsonl(tmp_path / "run" / "passages.jsonl", (p.to_dict() for p in pool), "passage")
    card = (export_of(tmp_path / "run", tmp_path / "export") / "README.md").read_text()
    made = card.split("## How the queries were made", 1)[1].split("##", 1)[0]
    n_kg = sum(i.check.ok and i.type != "2in" for i in items)
    assert f"- `kg`, seed 13: {n_kg} queries" in made
    assert "- `llm`, model `gpt-4o-mini`, prompt `llm/generate_2in.md` (hash `sha256:ab12cd`): 6 queries" in made
