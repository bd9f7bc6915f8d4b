"""One configuration, read once (TOML file + environment) and passed to every stage.

Secrets never live here: the LLM key and the Label Studio token are read from the
environment variables named below, at the moment they are needed.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import tomllib
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

from pipeline.errors import ComlqError, quote


@dataclass(frozen=True)
class Range:
    """The values a numeric setting (or each number of a list setting) may take; None is always allowed."""

    low: float
    high: float | None = None
    above: bool = False  # low itself is excluded

    def __contains__(self, value: float) -> bool:
        return (value > self.low if self.above else value >= self.low) and (self.high is None or value <= self.high)

    def __str__(self) -> str:
        if self.high is not None:
            return f"{self.low:g} to {self.high:g}"
        return f"{'>' if self.above else '>='} {self.low:g}"


def bounded(default: Any, low: float, high: float | None = None, above: bool = False) -> Any:
    """A dataclass field whose value must lie in Range(low, high, above): checked wherever a value is
    set (file, command line, flow parameter) and shown on docs/configuration.md."""
    return field(default=default, metadata={"range": Range(low, high, above)})


def value_range(f: dataclasses.Field) -> Range | None:
    return f.metadata.get("range")


@dataclass
class PassagesConfig:
    """Where the passages come from (`comlq passages`, the first stage of `comlq run`)."""

    source: str = "sample"  # 'sample', a JSONL/Parquet/BEIR path, or 'hf:NAME[:CONFIG]'
    limit: int | None = bounded(None, 0)  # at most this many passages (unset: all)


@dataclass
class GenerateConfig:
    """Item generation (`comlq generate`); `[llm]` holds the llm generator's endpoint."""

    generator: str = "kg"  # 'kg' (offline) or 'llm'
    per_type: int = bounded(50, 1)  # items per query type
    seed: int = 13  # sampling and planning seed (kg: the same seed gives byte-identical items)
    max_answers: int = bounded(20, 1)  # queries with more answers are rejected
    triples: str | None = None  # user-supplied triples JSONL for the kg generator
    relation_weights: dict[str, float] = field(default_factory=dict)  # kg sampling weights (pipeline/kg/weights.yaml)
    corpus_check: bool = True  # kg: drop items whose answers the corpus text may contradict (pipeline/kg/complete.py)
    max_entity_share: float = bounded(0.03, 0, 1, above=True)  # kg: no named anchor or answer in more of the items
    completeness: str = "drop"  # kg: an item with possible missed answers: drop | review (kept for reviewers) | off
    allow_short: bool = False  # go on when a type got no usable item at all (--allow-short; stats.json says so)


@dataclass
class LLMConfig:
    """The OpenAI-compatible endpoint of the llm generator and of LLM-using retrievers."""

    base_url: str | None = None  # default: $OPENAI_BASE_URL, else the OpenAI API
    model: str = "gpt-4o-mini"  # model name at the endpoint
    api_key_env: str = "OPENAI_API_KEY"  # environment variable holding the API key (local servers need none)
    concurrency: int = bounded(8, 1)  # requests in flight
    requests_per_second: float | None = bounded(None, 0, above=True)  # optional rate limit, shared by all workers
    timeout: float = bounded(60.0, 0, above=True)  # seconds per request
    max_retries: int = bounded(5, 0)  # HTTP retries with backoff on 429/5xx
    fix_attempts: int = bounded(2, 0)  # follow-up messages carrying the validation error
    temperature: float = bounded(0.7, 0, 2)  # sampling temperature (LLM-using retrievers use 0)
    price_prompt_per_1m: float = bounded(0.0, 0)  # USD per million prompt tokens, for the cost ledger
    price_completion_per_1m: float = bounded(0.0, 0)  # USD per million completion tokens
    response_format: str = "auto"  # auto (json_schema, then json_object, then text) | json_schema | json_object | text
    max_tokens: int | None = bounded(1024, 0)  # 0: not sent
    passage_counts: tuple[int, ...] = bounded(
        (1, 2, 3), 1, 3)  # ComLQ variants to generate (type_1, type_2, type_3), in turn
    prompts_per_item: float = bounded(2.0, 0, above=True)  # top-up bound: at most per_type * this many prompts per type
    cache_dir: str | None = None  # default: <out>/cache/llm


@dataclass
class ReviewConfig:
    """The Label Studio review (`comlq review`, `comlq run --review`)."""

    url: str = "http://127.0.0.1:8080"  # the Label Studio server
    token_env: str = "LABEL_STUDIO_USER_TOKEN"  # environment variable holding the admin API token
    project_title: str = "ComLQ review"  # the project is found or created by this title
    annotators_per_item: int = bounded(3, 1)  # annotations per task; the first this many votes decide
    include_failed_checks: bool = False  # also send items whose automatic check failed
    data_dir: str = "work/label-studio"  # the server's database and media (relative to the working folder)
    admin_email: str = "admin@comlq.local"  # password from $LABEL_STUDIO_PASSWORD, else generated into data_dir
    batch_size: int = bounded(1000, 1)  # tasks per import request
    predictions: bool = False  # pre-fill the structure answer with the automatic check (annotators see it: not blind)
    pool_k: int = 5  # pooled judging: each retriever's top-k passages per item shown as "other candidates" (0: off)
    pool_retrievers: tuple[str, ...] = ("bm25", "dense")  # two or more retrievers ([evaluate] model etc. apply)
    audit_pool_k: int = bounded(10, 1)  # an audit (`review push --beir`): each pool retriever's top k per query
    registry: str | None = None  # runs awaiting review, for scheduled collect (default: $COMLQ_HOME/review-runs.json)
    secret_block: str = "comlq-label-studio-token"  # Prefect Secret block of the token (serve start saves it)


@dataclass
class ExportConfig:
    """The benchmark export (`comlq export`)."""

    ratios: tuple[float, float, float] = bounded((0.7, 0.1, 0.2), 0, 1)  # train, validation, test shares
    seed: int = 13  # seed for the split and the distractors
    distractors: int = bounded(1000, 0)  # extra passages drawn from the pool into the BEIR corpus
    licence: str = "cc-by-sa-4.0"  # of the passage text (the sample is Wikipedia); Hub licence id


@dataclass
class TrainConfig:
    """`comlq train reranker|dense` and the line's train stage (retrieval/train.py)."""

    seed: int = 13  # example sampling, initialisation of the head and batch order
    negatives: int = 4  # negatives per positive (listwise groups of 1 + negatives)
    kinds: tuple[str, ...] = ("violating", "partial", "twins")  # hard-negative kinds besides the retrieved ones
    max_groups: int = 1200  # at most this many groups (twin pairs count): about 4,000 pairs per epoch
    epochs: int = 2  # passes over the groups
    batch_groups: int = 4  # groups per optimiser step
    learning_rate: float = 1e-4  # AdamW peak rate: linear warm-up over the first 10% of steps, then linear decay
    max_length: int = 160  # tokens per training pair (the sample's passages: median 101, 90th percentile 167)
    first_k: int = 30  # the first stage's top k mined for negatives and reranked on the validation split
    precision: str = "auto"  # bf16 autocast where the CPU has bf16 units (auto), or fp32


@dataclass
class EvaluateConfig:
    """Retrieval evaluation (`comlq evaluate`, the last stage of `comlq run`)."""

    retrievers: tuple[str, ...] = ("bm25", "dense", "itlr")  # specs, e.g. "rrf(bm25,dense)"; "rerank" trains a model
    parse: str = "gold"  # 'gold' (the item's logical form), 'rules' or 'llm'
    split: str = "test"  # the qrels split evaluated
    model: str | None = None  # sentence-transformers model; default: the packaged all-MiniLM-L6-v2
    embeddings_base_url: str | None = None  # OpenAI-compatible /embeddings endpoint (then `model` is its model name)
    cache_dir: str | None = None  # embedding cache; default: $COMLQ_CACHE/embeddings, else ~/.cache/comlq/embeddings
    precision: str = "auto"  # dense encoding: auto (bf16 if the CPU has native bf16, else fp32) | fp32 | bf16 | int8
    operators: str = "product"  # ITLR operator set: product | sum | minmax | inverse
    calibration: str = "raw"  # ITLR term-score calibration: raw | shift | minmax
    candidates_k: int | None = bounded(1000, 0)  # ITLR candidates per query (0 or None: all passages)
    candidates: str = "terms"  # ITLR candidates: 'terms' (union of positive terms' top-k) | 'query' (question's top-k)
    depth: int = bounded(100, 1)  # passages retrieved per query (MAP@100, Recall@100, LSNC@100 need 100)
    shuffle_corpus: int | None = None  # seed: evaluate on the corpus permuted, passage ids renamed to opaque ids
    qrels_variant: str | None = None  # 'audited': qrels/SPLIT.audited.tsv (an audit's) instead of qrels/SPLIT.tsv
    reranker_model: str = "auto"  # CrossEncoder folder for `rerank`; auto: the newest runs/*/models/reranker
    rerank_k: int = 30  # passages of the first stage the reranker reads per query


@dataclass
class Config:
    passages: PassagesConfig = field(default_factory=PassagesConfig)
    generate: GenerateConfig = field(default_factory=GenerateConfig)
    llm: LLMConfig = field(default_factory=LLMConfig)
    review: ReviewConfig = field(default_factory=ReviewConfig)
    export: ExportConfig = field(default_factory=ExportConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    evaluate: EvaluateConfig = field(default_factory=EvaluateConfig)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def with_overrides(self, overrides: dict[str, Any], where: str = "override") -> Config:
        """A copy with `{"section.key": value}` applied (None keeps the value), checked like the file."""
        config = copy.deepcopy(self)
        for name, value in overrides.items():
            section_name, _, key = name.partition(".")
            section = getattr(config, section_name, None)
            if not key or not dataclasses.is_dataclass(section):
                raise ComlqError(f"{where}: unknown setting {name!r} (expected SECTION.KEY)")
            if value is not None:
                _apply(section, {key: value}, f"{where} {name}")
        return config


def _fits(value: Any, hint: Any) -> bool:
    """Does a TOML value fit a field's annotation (int, float, str, bool, X | None, tuple, dict)?"""
    if get_origin(hint) in (Union, types.UnionType):
        return any(_fits(value, h) for h in get_args(hint))
    if hint is type(None):
        return value is None
    if get_origin(hint) is tuple:
        return isinstance(value, (list, tuple))
    if get_origin(hint) is dict:
        return isinstance(value, dict)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _apply(section: Any, values: dict[str, Any], where: str) -> None:
    known = {f.name: f for f in dataclasses.fields(section)}
    hints = get_type_hints(type(section))
    for key, value in values.items():
        if key not in known:
            raise ComlqError(f"{where}: unknown setting '{key}' (known: {', '.join(known)})")
        if not _fits(value, hints[key]):
            raise ComlqError(f"{where}: '{key}' must be {known[key].type}, not {quote(value)}")
        allowed = value_range(known[key])
        numbers = value if isinstance(value, (list, tuple)) else [value]
        if allowed and any(n is not None and n not in allowed for n in numbers):
            raise ComlqError(f"{where}: '{key}' must be {allowed}, not {quote(value)}")
        if isinstance(value, list):
            value = tuple(value)
        setattr(section, key, value)


def load_config(path: str | Path | None = None) -> Config:
    """Defaults, overridden by the TOML file at `path` (or $COMLQ_CONFIG) when given."""
    config = Config()
    path = path or os.environ.get("COMLQ_CONFIG")
    if path:
        path = Path(path)
        if not path.is_file():
            raise ComlqError(f"{path}: configuration file not found")
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ComlqError(f"{path}: bad TOML: {exc}") from None
        for name, values in data.items():
            section = getattr(config, name, None)
            if section is None or not isinstance(values, dict):
                raise ComlqError(f"{path}: unknown section [{name}]")
            _apply(section, values, f"{path} [{name}]")
    if config.llm.base_url is None:
        config.llm.base_url = os.environ.get("OPENAI_BASE_URL") or None
    return config
