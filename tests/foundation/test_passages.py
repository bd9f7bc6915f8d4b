"""Passage sources: shipped sample, passage/BEIR JSONL, Parquet, a local dataset in HF Hub layout."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.errors import ComlqError, RecordError
from pipeline.passages import SAMPLE_PATH, iter_passages, load_passages, select_passages, split_words
from pipeline.schemas import read_jsonl


def test_sample_is_shipped_and_valid():
    passages = load_passages(SAMPLE_PATH)
    assert len(passages) >= 2000
    with_description = [p for p in passages.values() if p.description]
    assert len(with_description) / len(passages) > 0.95
    assert all(p.source == "wiki-vital" and p.title for p in passages.values())


def test_select_passages_writes_schema_valid_jsonl(tmp_path):
    out = tmp_path / "x.jsonl"
    assert select_passages("sample", out, limit=100) == 100
    rows = list(read_jsonl(out, "passage"))
    assert len(rows) == 100 and len({r["id"] for r in rows}) == 100


def test_passage_jsonl_and_beir_corpus(tmp_path):
    own = tmp_path / "own.jsonl"
    own.write_text(json.dumps({"id": "p1", "title": "A", "text": "alpha", "links": ["B"]}) + "\n")
    assert [p.links for p in iter_passages(str(own))] == [("B",)]
    beir = tmp_path / "beir"
    beir.mkdir()
    (beir / "corpus.jsonl").write_text(
        json.dumps({"_id": "10", "title": "T", "text": "some text"}) + "\n"
        + json.dumps({"_id": 11, "text": "more"}) + "\n")
    from_folder = list(iter_passages(str(beir)))
    assert [(p.id, p.title, p.text) for p in from_folder] == [("10", "T", "some text"), ("11", "", "more")]
    assert list(iter_passages(str(beir / "corpus.jsonl"))) == from_folder


def test_parquet(tmp_path):
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"id": ["a", "b"], "title": ["A", "B"], "text": ["x y", "z"],
                             "description": ["d", None]}), path)
    passages = list(iter_passages(str(path)))
    assert [(p.id, p.description) for p in passages] == [("a", "d"), ("b", None)]
    pq.write_table(pa.table({"id": ["a"], "title": ["A"], "text": [None]}), path)
    with pytest.raises(RecordError, match=r"p.parquet:row 1: field 'text'"):
        list(iter_passages(str(path)))


def _hub_folder(root):
    """A tiny dataset in the Hub's layout (config folder of parquet shards + README configs)."""
    (root / "20231101.en").mkdir(parents=True)
    (root / "README.md").write_text(
        "---\nconfigs:\n- config_name: 20231101.en\n  data_files:\n  - split: train\n"
        "    path: 20231101.en/train-*\n---\n# tiny wikipedia\n")
    long_text = " ".join(f"w{i}" for i in range(230))
    pq.write_table(pa.table({"id": ["12", "13"], "url": ["u", "v"], "title": ["Alpha", "Beta"],
                             "text": [long_text, "Beta is short."]}),
                   root / "20231101.en" / "train-00000-of-00001.parquet")
    return root


def test_hf_source_streams_and_splits_into_100_word_passages(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    root = _hub_folder(tmp_path / "hub")
    passages = list(iter_passages(f"hf:{root}:20231101.en"))
    assert [(p.id, p.title, len(p.text.split())) for p in passages] == [
        ("12-0", "Alpha", 100), ("12-1", "Alpha", 100), ("12-2", "Alpha", 30), ("13-0", "Beta", 3)]
    assert passages[0].source == f"hf:{root}:20231101.en"
    assert len(list(iter_passages(f"hf:{root}:20231101.en", limit=2))) == 2


def test_split_words_keeps_every_word():
    text = " ".join(str(i) for i in range(260))
    chunks = split_words(text)
    assert [len(c.split()) for c in chunks] == [100, 100, 60]
    assert " ".join(chunks) == text
    # A tail under a quarter of a window joins the previous passage instead of standing alone.
    assert [len(c.split()) for c in split_words(" ".join(["w"] * 210))] == [100, 110]


def test_bad_sources_are_clear_errors(tmp_path):
    with pytest.raises(ComlqError, match="no such file"):
        list(iter_passages(str(tmp_path / "missing.jsonl")))
    with pytest.raises(ComlqError, match="cannot load dataset"):
        list(iter_passages(f"hf:{tmp_path / 'nothing-here'}"))
    dup = tmp_path / "dup.jsonl"
    dup.write_text('{"id": "a", "title": "A", "text": "x"}\n{"id": "a", "title": "A", "text": "y"}\n')
    with pytest.raises(ComlqError, match="duplicate passage id 'a'"):
        select_passages(str(dup), tmp_path / "o.jsonl")


def test_undecodable_or_non_object_lines_are_one_line_errors(tmp_path):
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes('{"id": "a", "title": "Caf\xe9", "text": "x"}\n'.encode("latin-1"))
    with pytest.raises(RecordError, match="not UTF-8"):
        list(iter_passages(str(latin)))
    beir = tmp_path / "corpus.jsonl"
    beir.write_text('{"_id": "1", "text": "a"}\n[1, 2]\n')
    with pytest.raises(RecordError, match=r"corpus.jsonl:2: expected a JSON object, got list"):
        list(iter_passages(str(beir)))
    with pytest.raises(ComlqError, match="limit must be 0 or more"):
        iter_passages("sample", limit=-1)
