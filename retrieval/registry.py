"""Retrievers by name. A spec is a name with optional arguments, nested for fusion:

    bm25 | bm25(k1=1.5, b=0.75) | dense | itlr | itlr-bm25 | rewrite
    itlr(ops=minmax, cal=shift, parse=rules, k=0, cand=query, terms=bm25)
    rrf(bm25, dense) | rrf(bm25, itlr(cal=shift), k0=60)
    rerank | rerank(first=bm25, k=30, model=PATH) | judge(first=bm25, k=20)

The factory shares one BM25 index, one encoder and one dense index between all retrievers it
builds, so "dense,itlr,rrf(bm25,dense)" encodes the corpus once. Experiments add names with
`register_retriever(name, builder)`; a builder gets the factory, positional and keyword args.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.config import EvaluateConfig, LLMConfig
from pipeline.errors import ComlqError
from retrieval.base import Retriever

Builder = Callable[["Factory", list[str], dict[str, str]], Retriever]
Needs = Callable[[list[str], dict[str, str]], bool]  # (args, kwargs) -> does this spec need corpus embeddings?
BUILDERS: dict[str, Builder] = {}
EMBEDDINGS: dict[str, bool | Needs] = {}


def register_retriever(name: str, builder: Builder, embeddings: bool | Needs = False) -> Builder:
    """Make `name` usable in retriever specs; `embeddings` says whether it encodes the corpus
    (a bool, or a function of the spec's arguments), so the flows can encode it beforehand."""
    BUILDERS[name] = builder
    EMBEDDINGS[name] = embeddings
    return builder


def needs_embeddings(spec: str) -> bool:
    """Does running this spec encode the corpus with the dense encoder?"""
    name, args, kwargs = parse_spec(spec)
    if name not in BUILDERS:
        raise ComlqError(f"unknown retriever '{name}' in '{spec}' (known: {', '.join(BUILDERS)})")
    needs = EMBEDDINGS.get(name, False)
    return needs(args, kwargs) if callable(needs) else needs


def default_cache_dir() -> Path:
    root = os.environ.get("COMLQ_CACHE")
    return Path(root) / "embeddings" if root else Path.home() / ".cache" / "comlq" / "embeddings"


@dataclass
class Factory:
    evaluate: EvaluateConfig = field(default_factory=EvaluateConfig)
    llm: LLMConfig = field(default_factory=LLMConfig)
    progress: bool = True
    _shared: dict[str, object] = field(default_factory=dict)

    def shared(self, key: str, make: Callable[[], object]):
        if key not in self._shared:
            self._shared[key] = make()
        return self._shared[key]

    def texts_encoded(self) -> int:
        """Texts the shared encoder has sent to its model so far (cache misses)."""
        encoder = self._shared.get("encoder")
        return encoder.encoded if encoder is not None else 0

    def bm25(self):
        from retrieval.bm25 import BM25Retriever

        return self.shared("bm25", BM25Retriever)

    def encoder(self):
        from retrieval.encoders import make_encoder

        cfg = self.evaluate
        return self.shared("encoder", lambda: make_encoder(cfg.model, cfg.embeddings_base_url, self.llm.api_key_env,
                                                           cfg.cache_dir or default_cache_dir(), cfg.precision))

    def dense(self):
        from retrieval.dense import DenseRetriever

        return self.shared("dense", lambda: DenseRetriever(self.encoder(), progress=self.progress))

    def pair_cache_dir(self) -> Path:
        """Where rerankers cache pair scores: beside the embeddings, one folder per model."""
        return Path(self.evaluate.cache_dir or default_cache_dir())

    def chat(self):
        from retrieval.llm import Chat

        cache = Path(self.llm.cache_dir) if self.llm.cache_dir else default_cache_dir().parent / "llm"
        return self.shared("chat", lambda: Chat(self.llm, cache))

    def parser(self, source: str):
        from retrieval.logical_forms import GoldParser, LLMParser, RulesParser

        if source == "gold":
            return GoldParser()
        if source == "rules":
            return RulesParser()
        if source == "llm":
            return LLMParser(self.chat())
        raise ComlqError(f"unknown parse source '{source}' (known: gold, rules, llm)")

    def build(self, spec: str) -> Retriever:
        name, args, kwargs = parse_spec(spec)
        if name not in BUILDERS:
            raise ComlqError(f"unknown retriever '{name}' in '{spec}' (known: {', '.join(BUILDERS)})")
        retriever = BUILDERS[name](self, args, kwargs)
        retriever.name = canonical(spec)
        return retriever


def check_settings(evaluate: EvaluateConfig) -> None:
    """What pipeline/config.py cannot check, as the values live in registries: ITLR's operator set
    and calibration (plugins may add more), and every retriever spec (an unknown name fails here)."""
    from retrieval.itlr import CALIBRATIONS, OPERATORS, lookup

    for key, registry in (("operators", OPERATORS), ("calibration", CALIBRATIONS)):
        try:
            lookup(registry, getattr(evaluate, key), key)
        except ComlqError as exc:
            raise ComlqError(f"[evaluate] {key}: {exc}") from None
    for spec in evaluate.retrievers:
        needs_embeddings(spec)


def parse_spec(spec: str) -> tuple[str, list[str], dict[str, str]]:
    """'rrf(bm25, itlr(cal=shift), k0=60)' -> ('rrf', ['bm25', 'itlr(cal=shift)'], {'k0': '60'})."""
    spec = spec.strip()
    match = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*(?:\((.*)\))?", spec, re.S)
    if not match:
        raise ComlqError(f"bad retriever spec '{spec}' (expected NAME or NAME(ARG, KEY=VALUE, ...))")
    name, inner = match[1], match[2]
    args: list[str] = []
    kwargs: dict[str, str] = {}
    try:
        parts = split_top_level(inner or "")
    except ComlqError as exc:
        raise ComlqError(f"bad retriever spec '{spec}': {exc}") from None
    for part in parts:
        key, eq, value = part.partition("=")
        if eq and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key.strip()):
            kwargs[key.strip()] = value.strip()
        else:
            args.append(part)
    return name, args, kwargs


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split at separators outside parentheses ("" has no parts); an empty part ("a,,b", "a,") or
    unbalanced parentheses are an error."""
    parts, depth, current = [], 0, []
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise ComlqError(f"unbalanced parentheses in '{text}'")
        if char == sep and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    if depth != 0:
        raise ComlqError(f"unbalanced parentheses in '{text}'")
    parts.append("".join(current).strip())
    if parts == [""]:
        return []
    if "" in parts:
        raise ComlqError(f"an empty item in '{text}' (item {parts.index('') + 1})")
    return parts


def canonical(spec: str) -> str:
    return re.sub(r"\s+", "", spec)


def _int_or_none(value: str | int | None, what: str) -> int | None:
    try:
        number = int(value) if value is not None else None
    except ValueError:
        raise ComlqError(f"{what} must be an integer, got '{value}'") from None
    return number if number and number > 0 else None


def _no_args(name: str) -> Builder:
    def check(args: list[str], kwargs: dict[str, str]) -> None:
        if args or kwargs:
            raise ComlqError(f"retriever '{name}' takes no arguments")
    return lambda f, a, k: (check(a, k), getattr(f, name)())[1]


def _bm25(factory: Factory, args: list[str], kwargs: dict[str, str]) -> Retriever:
    """Plain `bm25` is the index every retriever shares; `bm25(k1=..., b=...)` builds its own.
    (b=1 beats the default on ComLQ only by demoting its longer LLM-written distractors:
    docs/results.md, so the default stays Lucene's 0.75.)"""
    from retrieval.bm25 import BM25Retriever

    unknown = list(args) + sorted(set(kwargs) - {"k1", "b"})
    if unknown:
        raise ComlqError(f"bm25 takes only k1, b (got {', '.join(unknown)})")
    if not kwargs:
        return factory.bm25()
    try:
        k1, b = float(kwargs.get("k1", "1.5")), float(kwargs.get("b", "0.75"))
    except ValueError:
        raise ComlqError(f"bm25 k1 and b must be numbers, got {kwargs}") from None
    if k1 < 0 or not 0 <= b <= 1:
        raise ComlqError(f"bm25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
    return BM25Retriever(k1=k1, b=b)


def _itlr(factory: Factory, args: list[str], kwargs: dict[str, str], terms: str = "dense") -> Retriever:
    from retrieval.itlr import ITLRRetriever

    cfg = factory.evaluate
    known = {"ops", "cal", "parse", "k", "cand", "terms"}
    unknown = set(kwargs) - known
    if args or unknown:
        raise ComlqError(f"itlr takes only {', '.join(sorted(known))} (got {', '.join(args + sorted(unknown))})")
    terms = kwargs.get("terms", terms)
    if terms not in ("dense", "bm25"):
        raise ComlqError(f"itlr terms must be dense or bm25, got '{terms}'")
    scorer = factory.dense() if terms == "dense" else factory.bm25()
    default_cal = cfg.calibration if terms == "dense" else "minmax"  # raw BM25 scores are unbounded
    return ITLRRetriever(scorer, factory.parser(kwargs.get("parse", cfg.parse)), kwargs.get("ops", cfg.operators),
                         kwargs.get("cal", default_cal), _int_or_none(kwargs.get("k", cfg.candidates_k), "itlr k"),
                         kwargs.get("cand", cfg.candidates))


def _rrf(factory: Factory, args: list[str], kwargs: dict[str, str]) -> Retriever:
    from retrieval.fusion import FusionRetriever

    if len(args) < 2:
        raise ComlqError("rrf needs at least two retrievers, e.g. rrf(bm25,dense)")
    k0 = _int_or_none(kwargs.get("k0", "60"), "rrf k0") or 60
    return FusionRetriever([factory.build(a) for a in args], name="rrf", k0=k0, depth=factory.evaluate.depth)


def _rewrite(factory: Factory, args: list[str], kwargs: dict[str, str]) -> Retriever:
    from retrieval.rewrite import RewriteRetriever

    if args or kwargs:
        raise ComlqError("retriever 'rewrite' takes no arguments")
    chat = factory.chat()  # first: raises RetrieverUnavailable before loading any model
    return RewriteRetriever(factory.dense(), chat)


register_retriever("bm25", _bm25)
register_retriever("dense", _no_args("dense"), embeddings=True)
register_retriever("itlr", _itlr, embeddings=lambda args, kwargs: kwargs.get("terms", "dense") == "dense")
register_retriever("itlr-bm25", lambda f, a, k: _itlr(f, a, k, terms="bm25"),
                   embeddings=lambda args, kwargs: kwargs.get("terms", "bm25") == "dense")
register_retriever("rrf", _rrf, embeddings=lambda args, kwargs: any(needs_embeddings(a) for a in args))
register_retriever("rewrite", _rewrite, embeddings=True)


def _logical(factory: Factory, args: list[str], kwargs: dict[str, str]) -> Retriever:
    from retrieval.logical import build  # soft-logic ITLR variant (benchmarks/bench_comlq.py)

    return build(factory, args, kwargs)


def _logical_embeddings(args: list[str], kwargs: dict[str, str]) -> bool:
    """The hybrid scores cosine to every passage unless BM25 has all the weight (bm25=1)."""
    try:
        return float(kwargs.get("bm25", "0")) < 1
    except ValueError:
        return True  # the builder names the bad value


register_retriever("logical", _logical, embeddings=_logical_embeddings)


def _rerank(factory: Factory, args: list[str], kwargs: dict[str, str]) -> Retriever:
    from retrieval.rerank import build  # a CrossEncoder over the first stage's top k

    return build(factory, args, kwargs)


def _judge(factory: Factory, args: list[str], kwargs: dict[str, str]) -> Retriever:
    from retrieval.rerank import build_judge  # an LLM reads the first stage's top k

    return build_judge(factory, args, kwargs)


register_retriever("rerank", _rerank, embeddings=lambda args, kwargs: needs_embeddings(kwargs.get("first", "bm25")))
register_retriever("judge", _judge, embeddings=lambda args, kwargs: needs_embeddings(kwargs.get("first", "bm25")))
