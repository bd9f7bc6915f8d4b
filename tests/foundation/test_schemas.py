"""Schemas: records validate, errors name file, line and field, writes are atomic."""

import json

import pytest

from pipeline.errors import RecordError
from pipeline.records import Check, GeneratorInfo, GradedPassage, Item, Passage, ReviewVote, Triple
from pipeline.schemas import SCHEMA_NAMES, load_schema, read_jsonl, validate, write_jsonl


def make_item(**overrides) -> Item:
    fields = dict(
        id="kg-2in-0001", type="2in", n_passages=2,
        question="Which films did Stanley Kubrick direct, not in the 1960s?",
        indicator="{?x | (?y, R1, ?x) ∧ ¬(?x, R2, ?z)}",
        grounded_indicator="{?x | (Stanley Kubrick, directed, ?x) ∧ ¬(?x, released in, 1960s)}",
        triples=(Triple("Stanley Kubrick", "directed", "?x"), Triple("?x", "released in", "1960s", negated=True)),
        target="?x", logical_form='"films by Stanley Kubrick" AND NOT "films from the 1960s"',
        answers=("Barry Lyndon",), evidence=(GradedPassage("wv-1", 1), GradedPassage("wv-2", 1)),
        violating=("wv-3",), source_passages=("wv-1", "wv-2"), generator=GeneratorInfo("kg", seed=1), check=Check(True),
    )
    fields.update(overrides)
    return Item(**fields)


@pytest.mark.parametrize("name", [n for n in SCHEMA_NAMES if n != "llm_output"])
def test_schemas_load(name):
    assert load_schema(name)["$id"] == f"{name}.schema.json"


def test_records_round_trip_through_their_schemas():
    item = make_item()
    validate(item.to_dict(), "item")
    assert Item.from_dict(json.loads(json.dumps(item.to_dict()))) == item
    assert item.negations == 1 and item.variant == "2in_2"
    passage = Passage("wv-1", "Barry Lyndon", "Barry Lyndon is a 1975 film.",
                      description="1975 film by Stanley Kubrick")
    validate(passage.to_dict(), "passage")
    assert Passage.from_dict(passage.to_dict()) == passage
    vote = ReviewVote("kg-2in-0001", "a@example.org", True, True, {"wv-1": 1, "wv-2": 2}, task_id=3)
    validate(vote.to_dict(), "review_vote")
    validate({"item": item.to_dict(), "review": {"status": "pending", "votes": [vote.to_dict()], "structure_ok": None,
                                                 "evidence_spread": None, "relevance": {}, "flags": [], "qrels": {}}},
             "reviewed_item")
    validate({"retrievers": {"bm25": {"overall": {"nDCG@10": 0.5}, "by_type": {"2in": {"nDCG@10": 0.4}}}}}, "metrics")


def test_validation_error_names_the_field():
    record = make_item().to_dict()
    record["evidence"][0]["grade"] = 3
    with pytest.raises(RecordError, match=r"^items.jsonl:4: field 'evidence.0.grade': 3 is not one of \[1, 2\]$"):
        validate(record, "item", "items.jsonl:4")
    del record["question"]
    with pytest.raises(RecordError, match=r"field 'question': is missing"):
        validate(record, "item", "x")


def test_read_jsonl_names_file_and_line(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "a", "title": "A", "text": "ok"}\n\n{"id": "b", "title": "B"}\n')
    with pytest.raises(RecordError, match=r"p.jsonl:3: field 'text': is missing"):
        list(read_jsonl(path, "passage"))
    path.write_text('{"id": "a", "title": "A", "text": "ok"}\n{"id": \n')
    with pytest.raises(RecordError, match=r"p.jsonl:2: bad JSON"):
        list(read_jsonl(path, "passage"))


def test_write_is_atomic_and_validated(tmp_path):
    path = tmp_path / "out.jsonl"
    write_jsonl(path, [{"id": "a", "title": "A", "text": "ok"}], "passage")
    before = path.read_bytes()
    with pytest.raises(RecordError):
        write_jsonl(path, [{"id": "b", "title": "B", "text": "fine"}, {"id": "c"}], "passage")
    assert path.read_bytes() == before  # the bad write left the old file whole
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]  # and no temporary file behind


def test_gzip_output_is_deterministic(tmp_path):
    rows = [{"id": str(i), "title": "t", "text": "x"} for i in range(5)]
    write_jsonl(tmp_path / "a.jsonl.gz", rows, "passage")
    write_jsonl(tmp_path / "b.jsonl.gz", rows, "passage")
    assert (tmp_path / "a.jsonl.gz").read_bytes() == (tmp_path / "b.jsonl.gz").read_bytes()
    assert list(read_jsonl(tmp_path / "a.jsonl.gz", "passage")) == rows


def test_fast_and_exact_validators_agree():
    # validate() answers valid records with jsonschema-rs and explains invalid ones with jsonschema.
    from pipeline.schemas import _fast_validator, validator

    good = make_item().to_dict()
    bad_records = [good | {"type": "4p"}, good | {"answers": []}, {k: v for k, v in good.items() if k != "id"},
                   good | {"triples": [{"subject": "A", "relation": "r"}]}, good | {"extra": 1}]
    for record in [good, *bad_records]:
        assert _fast_validator("item").is_valid(record) == validator("item").is_valid(record)
    reviewed = {"item": good, "review": {"status": "done", "votes": [], "structure_ok": None, "evidence_spread": None,
                                         "relevance": {}, "flags": [], "qrels": {}}}
    assert not _fast_validator("reviewed_item").is_valid(reviewed) and not validator("reviewed_item").is_valid(reviewed)
    with pytest.raises(RecordError, match=r"field 'review.status'"):
        validate(reviewed, "reviewed_item", "r.jsonl:1")
