"""--shuffle-corpus: the corpus permuted and its ids made opaque, every label renamed with it."""

import csv

import pytest

from pipeline.cli import main
from pipeline.runfolder import ReportFolder
from pipeline.schemas import read_json
from retrieval.base import read_trec
from retrieval.shuffle import shuffle_corpus


def test_shuffle_renames_every_id_consistently(data):
    shuffled, names = shuffle_corpus(data, seed=3)
    old_text = dict(zip(data.corpus.ids, data.corpus.texts))
    new_text = dict(zip(shuffled.corpus.ids, shuffled.corpus.texts))
    assert sorted(new_text.values()) == sorted(old_text.values())
    assert set(names) == set(data.corpus.ids) and len(set(names.values())) == len(names)
    assert not set(names.values()) & set(names)  # no original id survives
    assert all(len(n) == 12 and int(n, 16) >= 0 for n in names.values())
    order = [names[pid] for pid in data.corpus.ids]
    assert list(shuffled.corpus.ids) != order  # permuted, not only renamed
    back = {new: old for old, new in names.items()}
    for qid, judged in data.qrels.items():
        assert {back[p]: g for p, g in shuffled.qrels[qid].items()} == judged
    assert {q: {back[p] for p in ps} for q, ps in shuffled.violations.items()} == data.violations
    assert {q: {back[p] for p in ps} for q, ps in shuffled.partial.items()} == data.partial
    assert shuffled.branches["q04"] == {"1": {names["p21"]}, "2": {names["p23"]}}
    titles = dict(zip(data.corpus.ids, data.corpus.documents))
    assert dict(zip(shuffled.corpus.ids, shuffled.corpus.documents)) == {names[p]: t for p, t in titles.items()}
    assert shuffled.describe()["shuffled"] == {"seed": 3, "ids": "opaque"}
    assert data.describe()["shuffled"] is None


def test_shuffle_is_seeded(data):
    first, names = shuffle_corpus(data, seed=3)
    again, same = shuffle_corpus(data, seed=3)
    other, different = shuffle_corpus(data, seed=4)
    assert (first.corpus, names) == (again.corpus, same)
    assert different != names and other.corpus.ids != first.corpus.ids


@pytest.fixture(scope="module")
def reports(tmp_path_factory, beir_path):
    out = {}
    for seed in (None, 5):
        folder = tmp_path_factory.mktemp(f"report-{seed}")
        args = ["evaluate", "--beir", str(beir_path), "--split", "test", "--quiet", "--retrievers", "bm25,itlr-bm25",
                "--out", str(folder)] + (["--shuffle-corpus", str(seed)] if seed is not None else [])
        assert main(args) == 0
        out[seed] = ReportFolder(folder)
    return out


def test_the_report_says_whether_and_how_the_corpus_was_shuffled(reports):
    shuffled, plain = reports[5], reports[None]
    assert read_json(shuffled.metrics, "metrics")["dataset"]["shuffled"] == {"seed": 5, "ids": "opaque"}
    assert read_json(plain.metrics, "metrics")["dataset"]["shuffled"] is None
    assert "Corpus **shuffled** (seed 5)" in shuffled.markdown.read_text()
    assert "Corpus **not shuffled**" in plain.markdown.read_text()
    assert not plain.shuffled_ids.exists()


def test_a_shuffled_run_maps_back_to_the_same_passages(reports):
    with open(reports[5].shuffled_ids, encoding="utf-8") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    assert rows[0] == ["opaque-id", "original-id"] and len(rows) == 31
    back = dict(rows[1:])
    for name in ("bm25", "itlr-bm25"):
        plain = read_trec(reports[None].trec(name))
        shuffled = read_trec(reports[5].trec(name))
        for qid, scores in plain.items():
            # bag-of-words scores do not depend on order or ids: the same score for every passage
            assert {back[p]: s for p, s in shuffled[qid].items()} == pytest.approx(scores)
    plain, shuffled = (read_json(r.metrics)["retrievers"]["bm25"]["overall"] for r in (reports[None], reports[5]))
    assert shuffled["Recall@100"] == plain["Recall@100"] and shuffled["LSOC@100"] == plain["LSOC@100"]
