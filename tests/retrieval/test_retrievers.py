import numpy as np
import pytest

from pipeline.cli import configure_logging
from pipeline.config import EvaluateConfig, LLMConfig
from pipeline.errors import ComlqError
from retrieval.base import Query, RetrieverUnavailable
from retrieval.bm25 import BM25Retriever
from retrieval.dense import DenseRetriever
from retrieval.encoders import CachedEncoder, OpenAIEncoder
from retrieval.fusion import rrf
from retrieval.llm import Chat
from retrieval.registry import Factory, parse_spec

QUESTIONS = [
    (Query("a", "Which films star Leonardo DiCaprio?"), {"p01", "p07"}),
    (Query("b", "What is the capital of Germany?"), {"p24"}),
    (Query("c", "Which animal lays eggs?"), {"p17"}),
    (Query("d", "science fiction film by James Cameron"), {"p08", "p09"}),
]


def _top1(retriever, data):
    retriever.index(data.corpus)
    run = retriever.retrieve([q for q, _ in QUESTIONS], k=5)
    return {q.id: next(iter(run[q.id])) for q, _ in QUESTIONS}, run


def test_bm25_top1(data):
    top, run = _top1(BM25Retriever(), data)
    assert all(top[q.id] in relevant for q, relevant in QUESTIONS)
    assert all(len(scores) == 5 for scores in run.values())


def test_bm25_term_scores_are_zero_without_indexed_tokens(data):
    bm25 = BM25Retriever()
    bm25.index(data.corpus)
    scores = bm25.term_scores(["the of", "Nolan"])
    assert not scores[0].any()
    assert {data.corpus.ids[i] for i in np.flatnonzero(scores[1])} == {"p01", "p02", "p03", "p04"}


def test_dense_top1(data, encoder):
    top, _ = _top1(DenseRetriever(encoder, progress=False), data)
    assert all(top[q.id] in relevant for q, relevant in QUESTIONS)


class Counting:
    """Wraps an encoder and counts the texts it is asked to encode."""

    def __init__(self, inner):
        self.inner, self.name, self.texts = inner, inner.name, 0

    def encode(self, texts):
        self.texts += len(texts)
        return self.inner.encode(texts)


def test_embedding_cache_encodes_each_text_once_across_runs(data, model, tmp_path):
    counting = Counting(model)
    first = CachedEncoder(counting, tmp_path)
    vectors = first.encode(data.corpus.texts, progress=False)
    assert counting.texts == len(data.corpus) == first.encoded
    again = CachedEncoder(counting, tmp_path).encode(data.corpus.texts, progress=False)  # a new run, same folder
    assert counting.texts == len(data.corpus)  # nothing encoded the second time
    np.testing.assert_array_equal(again, vectors)
    CachedEncoder(counting, tmp_path).encode([*data.corpus.texts[:5], "a new text", "a new text"], progress=False)
    assert counting.texts == len(data.corpus) + 1  # only the unseen text, once
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)


def test_cache_ignores_a_shard_without_its_key_file(model, tmp_path):
    encoder = CachedEncoder(Counting(model), tmp_path)
    encoder.encode(["one", "two"], progress=False)
    shard = next(encoder.cache.dir.glob("shard-*.npy"))
    (shard.parent / "shard-orphan.npy").write_bytes(shard.read_bytes())  # a killed run's half shard
    assert len(CachedEncoder(Counting(model), tmp_path).cache) == 2


@pytest.mark.parametrize("damage", ["truncate", "extra key"])
def test_a_damaged_shard_is_skipped_with_a_warning_and_re_encoded(model, tmp_path, capsys, damage):
    configure_logging()  # as the CLI routes the library's warnings
    first = CachedEncoder(Counting(model), tmp_path)
    vectors = first.encode(["one", "two"], progress=False)
    shard = next(first.cache.dir.glob("shard-*.npy"))
    if damage == "truncate":  # e.g. an OS crash before the data reached the disk
        shard.write_bytes(shard.read_bytes()[:200])
    else:
        keys = shard.with_name(shard.name.replace(".npy", ".keys.json"))
        keys.write_text(keys.read_text().replace("]", ', "0000"]'))
    counting = Counting(model)
    again = CachedEncoder(counting, tmp_path)
    np.testing.assert_allclose(again.encode(["one", "two"], progress=False), vectors, atol=1e-6)
    assert counting.texts == 2  # re-encoded, not a traceback nor silently wrong rows
    assert f"comlq: warning: skipping damaged embedding cache shard {shard}" in capsys.readouterr().err
    assert len(CachedEncoder(Counting(model), tmp_path).cache) == 2  # the new shard serves the next run


def test_rrf_hand_computed():
    fused = rrf([{"q": {"a": 3.0, "b": 2.0}}, {"q": {"b": 9.0, "c": 1.0}}], k0=60)
    assert fused["q"] == pytest.approx({"a": 1 / 61, "b": 1 / 62 + 1 / 61, "c": 1 / 62})


@pytest.mark.parametrize("spec, expected", [
    ("bm25", ("bm25", [], {})),
    ("rrf(bm25, itlr(cal=shift), k0=30)", ("rrf", ["bm25", "itlr(cal=shift)"], {"k0": "30"})),
])
def test_retriever_specs(spec, expected):
    assert parse_spec(spec) == expected


@pytest.mark.parametrize("spec, message", [
    ("bm26", "unknown retriever 'bm26'"),
    ("rrf(bm25", "bad retriever spec"),
    ("rrf(bm25)", "rrf needs at least two retrievers"),
    ("itlr(op=sum)", "itlr takes only"),
    ("itlr(ops=max)", "unknown operator set 'max'"),
    ("itlr(cal=sigmoid)", "unknown calibration 'sigmoid'"),
    ("bm25(k=2)", "bm25 takes only k1, b"),
    ("bm25(b=x)", "bm25 k1 and b must be numbers"),
    ("bm25(b=1.5)", "0 <= b <= 1"),
])
def test_bad_specs(spec, message, tmp_path):
    factory = Factory(EvaluateConfig(cache_dir=str(tmp_path)), progress=False)
    with pytest.raises(ComlqError, match=message):
        factory.build(spec)


def test_bm25_parameters_build_their_own_index(data):
    factory = Factory(progress=False)
    shared, tuned = factory.build("bm25"), factory.build("bm25(k1=1.2, b=1)")
    assert shared is factory.bm25() and tuned is not shared
    assert tuned.describe()["k1"] == 1.2 and tuned.describe()["b"] == 1.0 and tuned.name == "bm25(k1=1.2,b=1)"
    for retriever in (shared, tuned):
        retriever.index(data.corpus)
    query = [Query("a", "Which films star Leonardo DiCaprio?")]
    # b weighs passage length: a full length penalty changes the scores of passages of unequal length
    assert shared.retrieve(query, 5)["a"] != pytest.approx(tuned.retrieve(query, 5)["a"])
    top, _ = _top1(tuned, data)
    assert all(top[q.id] in relevant for q, relevant in QUESTIONS)


@pytest.fixture()
def no_endpoint(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.mark.parametrize("spec", ["rewrite", "itlr(parse=llm)"])
def test_llm_retrievers_are_unavailable_without_endpoint(no_endpoint, spec):
    with pytest.raises(RetrieverUnavailable, match="no LLM endpoint configured"):
        Factory(progress=False).build(spec)


def test_rewrite_and_llm_parse_through_a_stub_endpoint(no_endpoint, data, encoder, stub, tmp_path):
    llm = LLMConfig(base_url=stub.base_url, model="stub", cache_dir=str(tmp_path / "llm"))
    factory = Factory(EvaluateConfig(), llm, progress=False)
    factory.shared("encoder", lambda: encoder)
    rewrite = factory.build("rewrite")
    rewrite.index(data.corpus)
    run = rewrite.retrieve(data.queries[:2], k=3)
    assert rewrite.rewrites["q01"] == f"Reasoning: {data.queries[0].text}"
    assert len(run["q01"]) == 3
    itlr = factory.build("itlr(parse=llm)")
    itlr.retrieve(data.queries[:2], k=3)
    assert itlr.logical_forms["q01"] == '"Which films directed by Christopher Nolan do not star Michael Caine"'
    assert itlr.describe()["parse"] == {"source": "llm", "counts": {"llm": 2}}
    prompts = [r["body"]["messages"][0]["content"] for r in stub.requests]
    assert len(prompts) == 4
    rewrite.retrieve(data.queries[:2], k=3)  # asked again: answered from the response cache
    assert len(stub.requests) == 4
    assert rewrite.describe()["llm_cache_hits"] == 2
    assert any("ITLR syntax" in p for p in prompts) and any("think it through" in p for p in prompts)


def test_openai_embeddings_encoder(no_endpoint, tmp_path, stub):
    encoder = CachedEncoder(OpenAIEncoder("stub-embed", stub.base_url), tmp_path)
    vectors = encoder.encode(["red apple", "red apple pie", "steel bridge"], progress=False)
    assert vectors.shape == (3, 64)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert encoder.cache.dir.name.startswith("openai_")


def test_unreachable_endpoint_is_one_clear_error(no_endpoint, tmp_path):
    chat = Chat(LLMConfig(base_url="http://127.0.0.1:9/v1", max_retries=0, timeout=2), tmp_path)
    with pytest.raises(ComlqError, match="LLM endpoint http://127.0.0.1:9/v1"):
        chat.complete("hello")
