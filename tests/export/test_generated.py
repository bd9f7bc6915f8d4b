"""Export of items made by the offline kg generator (`comlq generate --generator kg`)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import networkx as nx
import pytest
from beir.datasets.data_loader import GenericDataLoader

from pipeline.cli import main
from pipeline.export.split import SPLITS
from pipeline.itemchecks import check_witnesses
from pipeline.querytypes import TYPE_NAMES
from pipeline.records import Item
from pipeline.runfolder import BeirFolder
from pipeline.schemas import read_jsonl

pytestmark = pytest.mark.slow  # generates with the kg generator (several seconds)


@pytest.fixture(scope="module")
def generated_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    run = tmp_path_factory.mktemp("kg-run")
    assert main(["passages", "--source", "sample", "--limit", "800", "--out", str(run / "passages.jsonl")]) == 0
    assert main(["generate", "--generator", "kg", "--per-type", "5", "--passages", str(run / "passages.jsonl"),
                 "--allow-short", "--out", str(run)]) == 0
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
    # the draw must leave the rule below something to test: types in 3 or more groups (how many is the
    # draw's: 10 at reading-10, 6 at reading-11, as the reader's facts change which items share passages)
    assert len(input_types) >= 12 and sum(n >= 3 for n in groups_of_type.values()) >= 5
    # a type in k groups reaches the k largest splits (0.7 / 0.1 / 0.2: train, then test, then validation),
    # as far as the groups' sizes let it: the greedy cover never puts a group larger than a split's share
    # in it, nor one another type's cover already took; the card names every type the test split lacks
    rank = {"train": 1, "test": 2, "validation": 3}
    card = (export / "README.md").read_text(encoding="utf-8")
    for split in SPLITS:
        split_types = {q["type"] for q in queries.values() if q["split"] == split}
        reachable = {t for t in input_types if groups_of_type[t] >= rank[split]}
        assert split_types <= reachable, split
        if split == "train":
            assert split_types == reachable
        elif split == "test":
            missing = [t for t in TYPE_NAMES if t in input_types - split_types]
            assert len(missing) <= 3 and (not missing or f"**Not in the test split:** {', '.join(missing)}." in card)
        else:  # covered first, but only by groups the size of a 10% share
            assert len(split_types) >= len(reachable) - 2, split


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


def test_partial_and_branch_labels_and_witness_sentences_are_exported(generated_export: tuple[Path, Path]) -> None:
    run, export = generated_export
    items = {i["id"]: i for i in read_jsonl(run / "items.jsonl", "item") if i["check"]["ok"]}
    beir = BeirFolder(export / "beir")
    corpus = {p["_id"]: p["text"] for p in read_jsonl(beir.corpus, "beir_corpus")}
    partial: dict[str, set[str]] = defaultdict(set)
    branches: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for split in SPLITS:
        header, *rows = beir.partial(split).read_text().splitlines()
        assert header == "query-id\tcorpus-id\tpartial"
        for query_id, passage_id, value in (row.split("\t") for row in rows):
            assert value == "1" and passage_id in corpus
            partial[query_id].add(passage_id)
        header, *rows = beir.branches(split).read_text().splitlines()
        assert header == "query-id\tcorpus-id\tbranch"
        for query_id, passage_id, branch in (row.split("\t") for row in rows):
            assert passage_id in corpus
            branches[query_id][int(branch)].add(passage_id)
    assert partial and partial == {i: set(item["partial"]) for i, item in items.items() if item["partial"]}
    assert branches and {i: [b[n] for n in sorted(b)] for i, b in branches.items()} == {
        i: [set(b) for b in item["branches"]] for i, item in items.items() if item["branches"]}
    # every exported witness sentence is in the exported text of its passage and names both ends
    from datasets import load_from_disk

    exported = [row for split in load_from_disk(str(export / "dataset")).values() for row in split]
    assert sorted(row["id"] for row in exported) == sorted(items)
    for row in exported:
        item = Item.from_dict(items[row["id"]])
        assert row["facts"] == [f.to_dict() for f in item.facts]
        assert check_witnesses(item, corpus) == [], row["id"]
    assert sum(len(row["facts"]) for row in exported) >= len(exported)
