"""The reranker end to end on a tiny export made by the real line (kg generator on 300 sample
passages, then export): training examples, negated twins, `comlq train reranker`,
the `rerank` retriever with its pair-score cache, model resolution and its one-line errors."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from sentence_transformers import CrossEncoder

from pipeline.cli import main
from pipeline.config import Config, ExportConfig, GenerateConfig, TrainConfig
from pipeline.errors import ComlqError
from pipeline.export.stage import export
from pipeline.generate import generate
from pipeline.passages import select_passages
from pipeline.runfolder import ModelFolder, RunFolder
from retrieval.base import Corpus, Query, RetrieverUnavailable
from retrieval.beir import load_corpus
from retrieval.evaluate import run_evaluation
from retrieval.negation import twin
from retrieval.rerank import CrossEncoderScorer, RerankRetriever, quiet_loading, resolve_model
from retrieval.train import base_model_path, seed_everything, train_reranker
from retrieval.train_data import PER_KIND, build_groups, counts, export_folder, read_rows, retrieve_for

FILMS = Path(__file__).parents[1] / "kg" / "fixtures"
TINY = TrainConfig(max_groups=32, max_length=48, epochs=4, learning_rate=3e-4, negatives=3, first_k=10)


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory) -> RunFolder:
    """A run folder with an export of 300 sample passages, 4 items per type (the film graph's
    items all share passages, and export refuses a test split without every type)."""
    run = RunFolder(tmp_path_factory.mktemp("tiny") / "run")
    run.root.mkdir()
    select_passages("sample", str(run.passages), 300)
    generate(Config(generate=GenerateConfig(per_type=4)), run.passages, run.root)
    export(run.root, run.export.root, ExportConfig(distractors=0))
    return run


@pytest.fixture(scope="session")
def tiny_model(tiny_run, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("models") / "reranker"
    train_reranker(tiny_run.export.root, out, TINY, progress=False)
    return out


@pytest.mark.parametrize("text, mention, expected", [
    ("Multan is a city in the Punjab province. It is big.", "Punjab",
     "Multan is not a city in the Punjab province. It is big."),
    ("Name the places that are located in Punjab.", "Punjab", "Name the places that are not located in Punjab."),
    ("Which playwright created The Bacchae?", "The Bacchae", "Which playwright never created The Bacchae?"),
    ("Name the city in Nicaragua.", "Nicaragua", "Name the city not in Nicaragua."),
    ("Which people worked as writers and never worked as directors?", "directors",
     "Which people worked as writers and worked as directors?"),
    ("He isn't a director.", "director", "He is a director."),
    ("Lake Titicaca lies high.", "Lake Titicaca", None),  # nothing before the mention to negate
    ("The capital of Peru.", "Peru", None),  # "of" is no clause: "the birth not of X" would be nonsense
    ("A city in Chile.", "Peru", None),  # not mentioned
])
def test_twins_insert_or_remove_the_negation_in_the_clause_of_the_mention(text, mention, expected) -> None:
    assert twin(text, mention) == expected


def test_groups_hold_each_kind_and_twin_questions(tiny_run) -> None:
    exported = export_folder(tiny_run.root)  # a run folder is accepted for its export
    rows = read_rows(exported, "train")
    corpus = load_corpus(exported.beir.corpus)
    groups = build_groups(rows, corpus, retrieve_for(rows, corpus, 10), negatives=3)
    tally = counts(groups)
    assert tally["positive"] == tally["groups"] and tally["twin"] > 0 and tally["violating"] > 0
    for group in groups:
        assert group.examples[0].label == 1 and all(e.label == 0 for e in group.examples[1:])
        assert len(group.examples) <= max(4, 1 + 2 * PER_KIND + 1)  # labelled kinds and the twin come first
    asked = [g for g in groups if g.query_id.endswith("~not")]
    assert asked, "no twin question was made"
    for group in asked:  # the twin passage answers the twin question; its original is the only negative
        positive, negative = group.examples
        assert positive.id == negative.id + "~not" and negative.kind == "twin"
        # one negation added or removed: "was not", or "never" before a past-tense verb
        assert len(re.findall(r"\b(?:not|never)\b", positive.text)) != len(re.findall(r"\b(?:not|never)\b",
                                                                                      negative.text))
    plain = build_groups(rows, corpus, retrieve_for(rows, corpus, 10), kinds=(), negatives=3)
    assert set(counts(plain)) == {"groups", "positive", "retrieved"}
    with pytest.raises(ComlqError, match="unknown training example kind"):
        build_groups(rows, corpus, {}, kinds=("typo",))


def test_trained_model_loads_and_ranks_a_twin_below_its_original(tiny_model) -> None:
    folder = ModelFolder(tiny_model)
    info = json.loads(folder.info.read_text())
    assert info["kind"] == "reranker" and info["examples"]["twin"] > 0 and info["training"]["pairs"] > 0
    assert "# reranker: a ComLQ reranker" in folder.card.read_text()
    groups = [json.loads(line) for line in folder.training_data.read_text().splitlines()]
    assert len(groups) == TINY.max_groups
    pairs = [(g["question"], g["examples"][0]["text"], e["text"]) for g in groups for e in g["examples"]
             if e["kind"] == "twin" and not g["query_id"].endswith("~not")]
    assert pairs
    scorer = CrossEncoderScorer(tiny_model, None, "fp32", 48)  # fp32: a tiny model's margins are below bf16's step
    margin = scorer.score([(q, p) for q, p, _ in pairs]) - scorer.score([(q, t) for q, _, t in pairs])
    seed_everything(info["settings"]["seed"])  # the untrained start: the packaged weights with the seeded new head
    with quiet_loading():
        start = CrossEncoder(base_model_path(), num_labels=1, max_length=48, device="cpu")

    def untrained(chosen):
        return start.predict(chosen, activation_fn=torch.nn.Identity())

    before = untrained([(q, p) for q, p, _ in pairs]) - untrained([(q, t) for q, _, t in pairs])
    # only pairs whose negation falls inside the 48 tokens the model reads can differ at all
    seen = np.array([start.tokenizer(q, p, truncation=True, max_length=48)["input_ids"]
                     != start.tokenizer(q, t, truncation=True, max_length=48)["input_ids"] for q, p, t in pairs])
    assert seen.any()
    # the twin is ranked below its original on average, and further below than before training
    assert margin[seen].mean() > 0 and margin[seen].mean() > before[seen].mean()


def test_rerank_retriever_in_an_evaluation_with_its_pair_cache(tiny_run, tiny_model, tmp_path) -> None:
    config = Config().with_overrides({"evaluate.cache_dir": str(tmp_path / "cache"), "evaluate.split": "train"})
    spec = f"rerank(first=bm25,k=5,model={tiny_model})"
    metrics = run_evaluation(tiny_run.export.beir.root, tmp_path / "report", config, retrievers=["bm25", spec],
                             progress=False)
    described = metrics["retrievers"][spec]["config"]
    assert described["k"] == 5 and described["pairs_scored"] == 5 * metrics["dataset"]["queries"]
    again = run_evaluation(tiny_run.export.beir.root, tmp_path / "again", config, retrievers=[spec], progress=False)
    assert again["retrievers"][spec]["config"]["pairs_scored"] == 0  # every pair from the disk cache
    assert again["retrievers"][spec]["overall"] == metrics["retrievers"][spec]["overall"]


def test_rerank_orders_the_head_and_keeps_the_first_stages_tail(tiny_model) -> None:
    class Fixed:  # a first stage with a known ranking
        name = "fixed"

        def index(self, corpus):
            pass

        def retrieve(self, queries, k):
            return {"q": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}, "empty": {}}

    class Reader:
        def score(self, pairs):
            import numpy as np

            return np.array([{"A": 0.0, "B": 5.0}[passage] for _, passage in pairs])

    retriever = RerankRetriever(Fixed(), Reader(), k=2)
    retriever.index(Corpus(("a", "b", "c", "d"), ("A", "B", "C", "D")))
    run = retriever.retrieve([Query("q", "question"), Query("empty", "question")], 4)
    assert sorted(run["q"], key=run["q"].get, reverse=True) == ["b", "a", "c", "d"]
    assert run["empty"] == {}
    assert retriever.describe()["notes"] == ["1 of 2 queries got no passage from the first stage"]
    big = RerankRetriever(Fixed(), Reader(), k=50)
    big.index(Corpus(("a", "b"), ("A", "B")))
    assert "larger than the corpus (2 passages)" in big.describe()["notes"][0]


def test_missing_or_broken_model_is_one_line_error(tiny_run, tmp_path, capsys) -> None:
    with pytest.raises(ComlqError, match="no such CrossEncoder model folder"):
        CrossEncoderScorer(tmp_path / "nope")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text("{not json")
    (broken / "model.safetensors").write_bytes(b"garbage")
    scorer = CrossEncoderScorer(broken, None)
    with pytest.raises(ComlqError, match="cannot load CrossEncoder model"):
        scorer.score([("q", "p")])
    code = main(["evaluate", "--beir", str(tiny_run.export.beir.root), "--split", "train", "--quiet",
                 "--retrievers", f"rerank(model={tmp_path / 'nope'})", "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "no such CrossEncoder model folder" in err[0]


def test_model_auto_is_the_newest_run_model_else_skipped_with_a_note(tiny_model, tmp_path) -> None:
    with pytest.raises(RetrieverUnavailable, match="comlq train reranker"):
        resolve_model("auto", tmp_path / "runs")
    for name in ("old", "new"):
        shutil.copytree(tiny_model, RunFolder(tmp_path / "runs" / name).models.reranker.root)
    assert resolve_model("auto", tmp_path / "runs") == tmp_path / "runs" / "new" / "models" / "reranker"
    assert resolve_model("elsewhere", tmp_path / "runs") == Path("elsewhere")


def test_default_evaluation_without_a_model_skips_rerank(tiny_run, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # no runs/ here
    metrics = run_evaluation(tiny_run.export.beir.root, tmp_path / "report", Config().with_overrides(
        {"evaluate.split": "train", "evaluate.retrievers": ["bm25", "rerank"]}), progress=False)
    assert list(metrics["retrievers"]) == ["bm25"]
    assert "comlq train reranker" in metrics["skipped"]["rerank"]


def test_train_cli_writes_the_model_and_refuses_other_folders(tiny_run, tmp_path, capsys) -> None:
    out = tmp_path / "model"
    args = ["train", "reranker", str(tiny_run.export.root), "--out", str(out), "--max-groups", "4", "--epochs", "1",
            "--kinds", "twins", "--quiet"]
    assert main(args) == 0
    assert capsys.readouterr().out.startswith(f"wrote reranker model {out} (4 groups")
    info = json.loads(ModelFolder(out).info.read_text())
    assert info["settings"]["kinds"] == ["twins"] and info["training"]["steps"] == 1
    # one step moved the weights: the saved model scores unlike the seeded untrained start it began from
    seed_everything(info["settings"]["seed"])
    with quiet_loading():
        start = CrossEncoder(base_model_path(), num_labels=1, max_length=48, device="cpu")
    pairs = [("Which films did Ridley Scott direct?", "Alien is a 1979 film directed by Ridley Scott.")]
    trained = CrossEncoderScorer(out, None, "fp32", 48).score(pairs)
    assert abs(trained[0] - float(start.predict(pairs, activation_fn=torch.nn.Identity())[0])) > 1e-4
    assert main(args) == 0  # its own model folder is replaced
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    assert main([*args[:3], "--out", str(other), *args[5:]]) == 2
    assert "refusing to replace it" in capsys.readouterr().err
    assert (other / "notes.txt").read_text() == "mine"


def test_dense_fine_tune_trains_each_triple_once_and_loads(tiny_run, tmp_path) -> None:
    from sentence_transformers import SentenceTransformer

    from retrieval.train import train_dense
    config = TrainConfig(max_groups=32, max_length=48, epochs=1, learning_rate=3e-4, negatives=3, first_k=10)
    info = train_dense(tiny_run.export.root, tmp_path / "dense", config, progress=False)
    groups = [json.loads(line) for line in ModelFolder(tmp_path / "dense").training_data.read_text().splitlines()]
    pairs = [g for g in groups if g["query_id"].endswith("~pair")]
    assert pairs, "no twin pair group to leave out"
    # a "~pair" group repeats its source group's positive and twin: one triple per other group
    assert info["kind"] == "dense" and info["training"]["triples"] == len(groups) - len(pairs)
    with quiet_loading():
        model = SentenceTransformer(str(tmp_path / "dense"), device="cpu")
    assert model.encode(["a question"]).shape == (1, 384)
