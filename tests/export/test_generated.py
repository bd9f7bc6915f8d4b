"""Export of items made by the offline kg generator (`comlq generate --generator kg`)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import networkx as nx
import pytest
from beir.datasets.data_loader import GenericDataLoader

from pipeline.cli import main
from pipeline.export.split import SPLITS
from pipeline.schemas import read_jsonl

pytestmark = pytest.mark.slow  # generates with the kg generator (several seconds)


@pytest.fixture(scope="module")
def generated_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    run = tmp_path_factory.mktemp("kg-run")
    assert main(["passages", "--source", "sample", "--limit", "800", "--out", str(run / "passages.jsonl")]) == 0
    assert main(["generate", "--generator", "kg", "--per-type", "5", "--passages", str(run / "passages.jsonl"),
                 "--out", str(run)]) == 0
    assert main(["export", str(run), "--out", str(run / "export"), "--distractors", "100"]) == 0
    return run, run / "export"


def test_every_split_has_every_type_the_input_had(generated_export: tuple[Path, Path]) -> None:
    run, export = generated_export
    items = [i for i in read_jsonl(run / "items.jsonl", "item") if i["check"]["ok"]]
    queries = {q["_id"]: q for q in read_jsonl(export / "beir" / "queries.jsonl", "beir_query")}
    assert queries.keys() == {i["id"] for i in items}
    # Leak-free splits can only hold a type in as many splits as it has passage-sharing groups.
    graph = nx.Graph((i["id"], ("passage", p)) for i in items for p in i["source_passages"])
    groups_of_type: dict[str, int] = defaultdict(int)
    for component in nx.connected_components(graph):
        for type_name in {queries[n]["type"] for n in component if n in queries}:
            groups_of_type[type_name] += 1
    input_types = {i["type"] for i in items}
    assert len(input_types) >= 12 and sum(n < 3 for n in groups_of_type.values()) <= 2
    for split in SPLITS:
        split_types = {q["type"] for q in queries.values() if q["split"] == split}
        if split == "validation":  # the smallest split gives way when a type has only two groups
            assert split_types == {t for t in input_types if groups_of_type[t] >= 3}
        else:
            assert split_types == input_types, split


def test_no_passage_is_evidence_in_two_splits(generated_export: tuple[Path, Path]) -> None:
    run, export = generated_export
    split_of = {q["_id"]: q["split"] for q in read_jsonl(export / "beir" / "queries.jsonl", "beir_query")}
    splits_of_passage: dict[str, set[str]] = defaultdict(set)
    for item in read_jsonl(run / "items.jsonl", "item"):
        for passage in item["source_passages"]:
            if item["id"] in split_of:
                splits_of_passage[passage].add(split_of[item["id"]])
    assert splits_of_passage and all(len(s) == 1 for s in splits_of_passage.values())


def test_qrels_and_violations_point_into_queries_and_corpus(generated_export: tuple[Path, Path]) -> None:
    run, export = generated_export
    items = {i["id"]: i for i in read_jsonl(run / "items.jsonl", "item")}
    violations = 0
    for split in SPLITS:
        corpus, queries, qrels = GenericDataLoader(data_folder=str(export / "beir")).load(split=split)
        for query_id, judged in qrels.items():
            assert query_id in queries and set(judged) <= corpus.keys()
            assert judged == {e["passage_id"]: e["grade"] for e in items[query_id]["evidence"]}
        lines = (export / "beir" / "violations" / f"{split}.tsv").read_text().splitlines()
        assert lines[0] == "query-id\tcorpus-id\tviolates"
        for line in lines[1:]:
            query_id, passage_id, value = line.split("\t")
            assert query_id in queries and passage_id in corpus and value == "1"
            assert passage_id in items[query_id]["violating"]
            violations += 1
    assert violations == sum(len(i["violating"]) for i in items.values() if i["check"]["ok"]) > 0
