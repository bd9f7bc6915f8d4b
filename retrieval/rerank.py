"""A reader over the first stage: rerank(first=bm25, k=30, model=PATH, w=...) scores the first
stage's top k (question, passage) pairs with a sentence-transformers CrossEncoder folder (local,
offline; trained here by `comlq train reranker`) and orders them by

    score(d) = cross-encoder logit(q, d) + w * z(first-stage score of d among the k)

w (the first stage's weight) defaults to the one the model's training chose on its validation
split (MODEL/comlq.json), else 0. Passages the first stage ranked below k follow in its order.
Pair scores are cached on disk by (model weights, precision, max_length, question, passage).

model=auto (the default, `[evaluate] reranker_model`) is the newest model a run trained
(runs/*/models/reranker); when there is none the retriever is skipped with a note saying how
to train one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import numpy as np

from pipeline.errors import ComlqError
from pipeline.progress import Progress
from pipeline.runfolder import ModelFolder, latest_model
from pipeline.schemas import AtomicWriter
from retrieval.base import Corpus, Query, Retriever, RetrieverUnavailable, Run, ranked
from retrieval.encoders import native_bf16

log = logging.getLogger(__name__)
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
SHARD_PAIRS = 2048  # pair scores written per cache shard: an interrupted run keeps what it finished


def model_digest(path: Path) -> str:
    """sha256 of a model folder's weights and config: the identity of its scores in the cache."""
    weights = next((path / name for name in WEIGHT_FILES if (path / name).is_file()), None)
    if weights is None or not (path / "config.json").is_file():
        raise ComlqError(f"{path}: not a CrossEncoder model folder (needs config.json and "
                         f"{' or '.join(WEIGHT_FILES)}); train one with `comlq train reranker EXPORT --out MODEL`")
    h = hashlib.sha256((path / "config.json").read_bytes())
    with weights.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


@contextmanager
def quiet_loading() -> Iterator[None]:
    """Offline, and without transformers' per-load weight reports and bars (noise in every log)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may be downloaded at run time
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    level = transformers_logging.get_verbosity()
    transformers_logging.set_verbosity_error()
    st_logger = logging.getLogger("sentence_transformers")
    st_level = st_logger.level
    st_logger.setLevel(logging.ERROR)  # "Converting SentenceTransformer model ... to CrossEncoder" is expected
    try:
        yield
    finally:
        transformers_logging.set_verbosity(level)
        st_logger.setLevel(st_level)


@cache
def load_cross_encoder(path: str, max_length: int | None):
    """One model object per process and setting; a broken folder is a one-line error."""
    from sentence_transformers import CrossEncoder

    try:
        with quiet_loading():
            return CrossEncoder(path, max_length=max_length, device="cpu", local_files_only=True)
    except Exception as exc:  # noqa: BLE001 - transformers raises many kinds for a broken folder
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ComlqError(f"cannot load CrossEncoder model '{path}': {first_line}") from None


class PairCache:
    """Scores of one model on disk: DIR/shard-<uuid>.json, {sha256(question, passage): score}."""

    def __init__(self, directory: Path | None):
        self.dir = directory
        self._scores: dict[str, float] | None = None

    @staticmethod
    def key(question: str, passage: str) -> str:
        return hashlib.sha256(f"{question}\x00{passage}".encode()).hexdigest()

    def scores(self) -> dict[str, float]:
        if self._scores is None:
            self._scores = {}
            for shard in sorted(self.dir.glob("shard-*.json")) if self.dir else ():
                try:
                    self._scores.update(json.loads(shard.read_text(encoding="utf-8")))
                except (OSError, ValueError) as exc:  # a damaged shard: its pairs are scored again
                    log.warning("skipping damaged pair-score cache shard %s: %s", shard, exc)
        return self._scores

    def add(self, scores: dict[str, float]) -> None:
        self.scores().update(scores)
        if self.dir is not None and scores:
            with AtomicWriter(self.dir / f"shard-{uuid.uuid4().hex}.json") as handle:
                json.dump(scores, handle)


class CrossEncoderScorer:
    """(question, passage) -> relevance logit with a local CrossEncoder folder, cached on disk.

    precision: "bf16" (autocast; on CPUs with bf16 units it is several times faster and the
    scores agree to 3 decimals, benchmarks/bench_rerank.py), "fp32", or "auto" (bf16 where the
    CPU has bf16 units). max_length: tokens per pair (None: the model's own, from training).
    """

    def __init__(self, path: str | os.PathLike[str], cache_dir: str | os.PathLike[str] | None = None,
                 precision: str = "auto", max_length: int | None = None, batch_size: int = 32,
                 progress: bool = True):
        self.path = Path(path)
        if not self.path.is_dir():
            raise ComlqError(f"{self.path}: no such CrossEncoder model folder; train one with "
                             f"`comlq train reranker EXPORT --out {self.path}`")
        if precision not in ("auto", "bf16", "fp32"):
            raise ComlqError(f"rerank precision must be auto, bf16 or fp32, got '{precision}'")
        self.precision = ("bf16" if native_bf16() else "fp32") if precision == "auto" else precision
        self.info = ModelFolder(self.path).read_info()
        self.max_length = max_length or self.info.get("max_length")
        self.batch_size = batch_size
        self.progress = progress
        self.name = f"{model_digest(self.path)}-{self.precision}-{self.max_length or 'default'}"
        self.cache = PairCache(Path(cache_dir) / f"rerank-{self.name}" if cache_dir else None)
        self.scored = 0  # pairs sent to the model (cache misses), for reports and tests

    def describe(self) -> dict[str, object]:
        return {"model": str(self.path), "model_key": self.name, "precision": self.precision,
                "max_length": self.max_length, "pairs_scored": self.scored}

    def _predict(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        import torch

        model = load_cross_encoder(str(self.path), self.max_length)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.precision == "bf16"):
            return np.asarray(model.predict(pairs, batch_size=self.batch_size, activation_fn=torch.nn.Identity(),
                                            show_progress_bar=False, convert_to_numpy=True), dtype=np.float64)

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        keys = [PairCache.key(q, p) for q, p in pairs]
        known = self.cache.scores()
        todo = {k: pair for k, pair in zip(keys, pairs) if k not in known}
        if todo:
            items = list(todo.items())
            with Progress(f"reranking ({self.path.name})", total=len(items), unit="pair",
                          enabled=self.progress and len(items) >= 256) as bar:
                for start in range(0, len(items), SHARD_PAIRS):
                    shard = items[start:start + SHARD_PAIRS]
                    logits = self._predict([pair for _, pair in shard])
                    self.cache.add({k: float(s) for (k, _), s in zip(shard, logits)})
                    self.scored += len(shard)
                    bar.update(len(shard))
        return np.array([known[k] for k in keys], dtype=np.float64)


class LLMJudge:
    """Pointwise yes/no relevance from an OpenAI-compatible chat endpoint (prompts/retrieval/judge.md):
    1.0 for yes, 0.0 otherwise; the first stage breaks ties (RerankRetriever's w). Answers are
    cached by the LLM client. (The shared client returns no logprobs, so the judgement is binary.)"""

    PROMPT = "retrieval/judge.md"

    def __init__(self, chat):
        self.chat = chat

    def describe(self) -> dict[str, object]:
        return self.chat.describe()

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        from pipeline.resources import read_prompt

        template = read_prompt(self.PROMPT)
        prompts = [template.replace("{passage}", passage).replace("{question}", question)
                   for question, passage in pairs]
        answers = self.chat.complete_all(prompts, desc="LLM judge")
        return np.array([1.0 if answer.strip().lower().startswith("yes") else 0.0 for answer in answers])


def zscores(values: np.ndarray) -> np.ndarray:
    spread = values.std()
    return (values - values.mean()) / spread if spread > 0 else np.zeros_like(values)


class RerankRetriever:
    """The first stage's top k reordered by a pair scorer (cross-encoder or LLM judge)."""

    def __init__(self, first: Retriever, scorer, k: int = 30, first_weight: float = 0.0):
        if k < 1:
            raise ComlqError(f"rerank k must be at least 1, got {k}")
        self.first, self.scorer, self.k, self.first_weight = first, scorer, k, first_weight
        self.name = "rerank"
        self._texts: dict[str, str] = {}
        self.notes: list[str] = []

    def index(self, corpus: Corpus) -> None:
        self.first.index(corpus)
        self._texts = dict(zip(corpus.ids, corpus.texts))
        if self.k > len(corpus):
            self.notes.append(f"k={self.k} is larger than the corpus ({len(corpus)} passages): "
                              "every passage is reranked")

    def describe(self) -> dict[str, object]:
        extra = getattr(self.scorer, "describe", None)
        return {"first": getattr(self.first, "name", "?"), "k": self.k, "first_weight": self.first_weight,
                **(extra() if callable(extra) else {}), **({"notes": self.notes} if self.notes else {})}

    def retrieve(self, queries: Sequence[Query], k: int) -> Run:
        first = self.first.retrieve(queries, max(k, self.k))
        heads = {q.id: ranked(first.get(q.id, {}))[:self.k] for q in queries}
        empty = sum(not head for head in heads.values())
        if empty:
            self.notes.append(f"{empty} of {len(queries)} queries got no passage from the first stage")
        pairs = [(q.text, self._texts[pid]) for q in queries for pid, _ in heads[q.id]]
        scores = iter(self.scorer.score(pairs).tolist())
        run: Run = {}
        for query in queries:
            head = heads[query.id]
            if not head:
                run[query.id] = {}
                continue
            read = np.array([next(scores) for _ in head])
            combined = read + self.first_weight * zscores(np.array([s for _, s in head]))
            result = dict(zip((pid for pid, _ in head), combined.tolist()))
            floor = float(combined.min())
            tail = ranked(first[query.id])[self.k:k]  # below the reranked head, in the first stage's order
            result.update({pid: floor - 1.0 - i for i, (pid, _) in enumerate(tail)})
            run[query.id] = result
        return run


def resolve_model(value: str | None, runs_root: str | os.PathLike[str] = "runs") -> Path:
    """A model folder from a retriever argument or `[evaluate] reranker_model`: a path, or "auto"."""
    if value and value != "auto":
        return Path(value)
    found = latest_model(runs_root, "reranker")
    if found is None:
        raise RetrieverUnavailable(f"no trained reranker under {runs_root}/*/models/reranker; train one with "
                                   "`comlq train reranker EXPORT --out MODEL` (or `comlq run`) and pass "
                                   "model=MODEL or set [evaluate] reranker_model")
    return found


def build(factory, args: list[str], kwargs: dict[str, str]) -> RerankRetriever:
    """rerank(first=bm25, k=30, model=auto|PATH, w=FIRST_WEIGHT, precision=auto|bf16|fp32, max_length=N)."""
    known = {"first", "k", "model", "w", "precision", "max_length"}
    unknown = list(args) + sorted(set(kwargs) - known)
    if unknown:
        raise ComlqError(f"rerank takes only {', '.join(sorted(known))} (got {', '.join(unknown)})")
    cfg = factory.evaluate
    path = resolve_model(kwargs.get("model", cfg.reranker_model))
    scorer = CrossEncoderScorer(path, factory.pair_cache_dir(), kwargs.get("precision", "auto"),
                                _number(kwargs.get("max_length"), int, "rerank max_length"), progress=factory.progress)
    first_weight = _number(kwargs.get("w"), float, "rerank w")
    if first_weight is None:
        first_weight = float(scorer.info.get("first_weight", 0.0))
    k = _number(kwargs.get("k"), int, "rerank k") or cfg.rerank_k
    return RerankRetriever(factory.build(kwargs.get("first", "bm25")), scorer, k, first_weight)


def build_judge(factory, args: list[str], kwargs: dict[str, str]) -> RerankRetriever:
    """judge(first=bm25, k=20, w=0.1): an LLM reads the first stage's top k ([llm] endpoint)."""
    known = {"first", "k", "w"}
    unknown = list(args) + sorted(set(kwargs) - known)
    if unknown:
        raise ComlqError(f"judge takes only {', '.join(sorted(known))} (got {', '.join(unknown)})")
    chat = factory.chat()  # first: raises RetrieverUnavailable before anything is loaded
    first_weight = _number(kwargs.get("w"), float, "judge w")
    retriever = RerankRetriever(factory.build(kwargs.get("first", "bm25")), LLMJudge(chat),
                                _number(kwargs.get("k"), int, "judge k") or 20,
                                0.1 if first_weight is None else first_weight)
    retriever.name = "judge"
    return retriever


def _number(value: str | None, kind: type, what: str):
    if value is None:
        return None
    try:
        return kind(value)
    except ValueError:
        raise ComlqError(f"{what} must be a number, got '{value}'") from None
