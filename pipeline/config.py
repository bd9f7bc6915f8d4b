"""One configuration, read once (TOML file + environment) and passed to every stage.

Secrets never live here: the LLM key and the Label Studio token are read from the
environment variables named below, at the moment they are needed.

What a setting may hold is declared once, on its field: the annotation gives the type (of each
item, for a list or a table), `bounded`, `one_of` and `at_least` add a range, a set of values or
a least number of items (`Rule`). `check_setting` applies them to a value from the TOML file, the
command line or a flow parameter alike, and docs/configuration.md shows them.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import os
import tomllib
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

from pipeline.errors import ComlqError, quote


@dataclass(frozen=True)
class Range:
    """The values a number may take (each number of a list or table setting); None is always allowed."""

    low: float
    high: float | None = None
    above: bool = False  # low itself is excluded

    def __contains__(self, value: float) -> bool:
        return math.isfinite(value) and (value > self.low if self.above else value >= self.low) and (
            self.high is None or value <= self.high)

    def __str__(self) -> str:
        if self.high is not None:
            return f"> {self.low:g} and <= {self.high:g}" if self.above else f"{self.low:g} to {self.high:g}"
        return f"{'>' if self.above else '>='} {self.low:g}"


@dataclass(frozen=True)
class Rule:
    """What a setting may hold beyond its type: a range for its numbers, a set of values for its
    strings (both apply to each item of a list), a least number of items for a list."""

    range: Range | None = None
    choices: tuple[str, ...] = ()
    at_least: int = 0

    def __str__(self) -> str:
        parts = [str(self.range)] if self.range else []
        parts += [", ".join(self.choices)] if self.choices else []
        parts += [f"at least {self.at_least} item{'s' if self.at_least > 1 else ''}"] if self.at_least else []
        return "; ".join(parts)


def _ruled(default: Any, rule: Rule) -> Any:
    if isinstance(default, dict):
        return field(default_factory=lambda: dict(default), metadata={"rule": rule})
    return field(default=default, metadata={"rule": rule})


def bounded(default: Any, low: float, high: float | None = None, above: bool = False, at_least: int = 0) -> Any:
    """A field whose numbers lie in Range(low, high, above)."""
    return _ruled(default, Rule(Range(low, high, above), at_least=at_least))


def one_of(*choices: str, many: bool = False) -> Any:
    """A string field that holds one of `choices` (default: the first), or with `many` a list field
    of some of them (default: all)."""
    return _ruled(choices if many else choices[0], Rule(choices=choices))


def at_least(default: Any, items: int) -> Any:
    """A list field of at least `items` items."""
    return _ruled(default, Rule(at_least=items))


def rule_of(f: dataclasses.Field) -> Rule | None:
    return f.metadata.get("rule")


def choices_of(section: type, key: str) -> tuple[str, ...]:
    """The values a string setting may take (one definition, for the command line's `choices`)."""
    rule = rule_of(next(f for f in dataclasses.fields(section) if f.name == key))
    return rule.choices if rule else ()


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
    seed: int = bounded(13, 0)  # sampling and planning seed (kg: the same seed gives byte-identical items)
    max_answers: int = bounded(20, 1)  # queries with more answers are rejected
    triples: str | None = None  # user-supplied triples JSONL for the kg generator
    relation_weights: dict[str, float] = bounded({}, 0)  # kg sampling weights (pipeline/kg/weights.yaml)
    corpus_check: bool = True  # kg: drop items whose answers the corpus text may contradict (pipeline/kg/complete.py)
    max_entity_share: float = bounded(0.03, 0, 1, above=True)  # kg: no named anchor or answer in more of the items
    completeness: str = one_of("drop", "review", "off")  # kg: an item with possible missed answers: kept for review?
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
    response_format: str = one_of("auto", "json_schema", "json_object", "text")  # auto: json_schema, json_object, text
    max_tokens: int | None = bounded(1024, 0)  # 0: not sent
    passage_counts: tuple[int, ...] = bounded(
        (1, 2, 3), 1, 3, at_least=1)  # ComLQ variants to generate (type_1, type_2, type_3), in turn
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
    pool_k: int = bounded(5, 0)  # pooled judging: each retriever's top k per item as "other candidates" (0: off)
    pool_retrievers: tuple[str, ...] = ("bm25", "dense")  # two or more retrievers ([evaluate] model etc. apply)
    audit_pool_k: int = bounded(10, 1)  # an audit (`review push --beir`): each pool retriever's top k per query
    registry: str | None = None  # runs awaiting review, for scheduled collect (default: $COMLQ_HOME/review-runs.json)
    secret_block: str = "comlq-label-studio-token"  # Prefect Secret block of the token (serve start saves it)


@dataclass
class ExportConfig:
    """The benchmark export (`comlq export`)."""

    ratios: tuple[float, float, float] = bounded((0.7, 0.1, 0.2), 0, 1)  # train, validation, test shares
    seed: int = bounded(13, 0)  # seed for the split and the distractors
    distractors: int = bounded(1000, 0)  # extra passages drawn from the pool into the BEIR corpus
    licence: str = "cc-by-sa-4.0"  # of the passage text (the sample is Wikipedia); Hub licence id


@dataclass
class TrainConfig:
    """`comlq train reranker|dense` and the line's train stage (retrieval/train.py)."""

    seed: int = bounded(13, 0)  # example sampling, initialisation of the head and batch order
    negatives: int = bounded(4, 1)  # negatives per positive (listwise groups of 1 + negatives)
    kinds: tuple[str, ...] = one_of("violating", "partial", "twins", many=True)  # hard negatives besides the retrieved
    max_groups: int = bounded(1200, 1)  # at most this many groups (twin pairs count): about 4,000 pairs per epoch
    epochs: int = bounded(2, 1)  # passes over the groups
    batch_groups: int = bounded(4, 1)  # groups per optimiser step
    learning_rate: float = bounded(
        1e-4, 0, 1, above=True)  # AdamW peak rate: linear warm-up over the first 10% of steps, then linear decay
    max_length: int = bounded(
        160, 8, 512)  # tokens per training pair, up to MiniLM's 512 (the sample's passages: median 101, 90th pct. 167)
    first_k: int = bounded(30, 1)  # the first stage's top k mined for negatives and reranked on the validation split
    precision: str = one_of("auto", "bf16", "fp32")  # auto: bf16 autocast where the CPU has bf16 units, else fp32


@dataclass
class EvaluateConfig:
    """Retrieval evaluation (`comlq evaluate`, the last stage of `comlq run`)."""

    retrievers: tuple[str, ...] = at_least(
        ("bm25", "dense", "itlr"), 1)  # specs, e.g. "rrf(bm25,dense)"; "rerank" trains a model
    parse: str = one_of("gold", "rules", "llm")  # 'gold' (the item's logical form), 'rules' or 'llm'
    split: str = "test"  # the qrels split evaluated
    model: str | None = None  # sentence-transformers model; default: the packaged all-MiniLM-L6-v2
    embeddings_base_url: str | None = None  # OpenAI-compatible /embeddings endpoint (then `model` is its model name)
    cache_dir: str | None = None  # embedding cache; default: $COMLQ_CACHE/embeddings, else ~/.cache/comlq/embeddings
    precision: str = one_of("auto", "fp32", "bf16", "int8")  # dense encoding; auto: bf16 if the CPU has it, else fp32
    operators: str = "product"  # ITLR operator set: product | sum | minmax | inverse
    calibration: str = "raw"  # ITLR term-score calibration: raw | shift | minmax
    candidates_k: int | None = bounded(1000, 0)  # ITLR candidates per query (0 or None: all passages)
    candidates: str = one_of("terms", "query")  # ITLR candidates: terms (union of positive terms' top k) or query
    depth: int = bounded(100, 1)  # passages retrieved per query (MAP@100, Recall@100, LSNC@100 need 100)
    shuffle_corpus: int | None = bounded(None, 0)  # seed: evaluate on the corpus permuted, ids renamed to opaque ones
    qrels_variant: str | None = None  # 'audited': qrels/SPLIT.audited.tsv (an audit's) instead of qrels/SPLIT.tsv
    reranker_model: str = "auto"  # CrossEncoder folder for `rerank`; auto: the newest runs/*/models/reranker
    rerank_k: int = bounded(30, 1)  # passages of the first stage the reranker reads per query


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

    def with_overrides(self, overrides: Mapping[str, Any], where: str = "override",
                       labels: Mapping[str, str] | None = None) -> Config:
        """A copy with `{"section.key": value}` applied (None keeps the value), checked like the file;
        an error names a setting by its label (e.g. the option that set it), else as `where section.key`."""
        config = copy.deepcopy(self)
        for name, value in overrides.items():
            section_name, _, key = name.partition(".")
            section = getattr(config, section_name, None)
            if not key or not dataclasses.is_dataclass(section):
                raise ComlqError(f"{where}: unknown setting {name!r} (expected SECTION.KEY)")
            if value is not None:
                _apply(section, {key: value}, (labels or {}).get(name) or f"{where} {name}")
        return config


def _optional(hint: Any) -> tuple[Any, bool]:
    """(X, True) for `X | None`, (hint, False) otherwise (the configuration's unions are all `X | None`)."""
    if get_origin(hint) in (Union, types.UnionType):
        (inner,) = [h for h in get_args(hint) if h is not type(None)]
        return inner, True
    return hint, False


def _name(hint: Any) -> str:
    return hint.__name__ if isinstance(hint, type) else str(hint)


def _is(value: Any, hint: Any) -> bool:
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _problem(value: Any, hint: Any, rule: Rule) -> str | None:
    """What is wrong with `value` for a field of type `hint` under `rule` ("must be ..."), else None;
    the items of a list and the values of a table are checked one by one."""
    inner, optional = _optional(hint)
    if value is None:
        return None if optional else f"must be {_name(hint)}, not None"
    origin = get_origin(inner)
    if origin in (tuple, dict) and not isinstance(value, (list, tuple) if origin is tuple else dict):
        return f"must be {_name(hint)}, not {quote(value)}"
    if origin is tuple:
        items = get_args(inner)
        if items[-1] is Ellipsis:
            items = (items[0],) * len(value)
        elif len(value) != len(items):
            return f"must be a list of {len(items)} values, not {quote(value)}"
        if len(value) < rule.at_least:
            return f"must have at least {rule.at_least} item{'s' if rule.at_least > 1 else ''}, not {quote(value)}"
        return next((f"item {i} {p}" for i, (v, h) in enumerate(zip(value, items), 1)
                     if (p := _problem(v, h, rule))), None)
    if origin is dict:
        key_hint, value_hint = get_args(inner)
        return next((f"value for {quote(k)} {p}" for k, v in value.items()
                     if (p := _problem(k, key_hint, Rule()) or _problem(v, value_hint, rule))), None)
    if not _is(value, inner):
        return f"must be {_name(hint)}, not {quote(value)}"
    if rule.range is not None and isinstance(value, (int, float)) and value not in rule.range:
        return f"must be {rule.range}, not {quote(value)}"
    if rule.choices and value not in rule.choices:
        return f"must be one of {', '.join(rule.choices)}, not {quote(value)}"
    return None


def check_setting(f: dataclasses.Field, hint: Any, value: Any, where: str) -> Any:
    """`value` as field `f` (of type `hint`) holds it, a list as a tuple; else one line naming `where`
    and the key: "c.toml [train]: 'epochs' must be >= 1, not 0", "... 'retrievers' item 2 must be str, not 7"."""
    problem = _problem(value, hint, rule_of(f) or Rule())
    if problem:
        raise ComlqError(f"{where}: '{f.name}' {problem}")
    return tuple(value) if isinstance(value, list) else value


def _apply(section: Any, values: dict[str, Any], where: str) -> None:
    known = {f.name: f for f in dataclasses.fields(section)}
    hints = get_type_hints(type(section))
    for key, value in values.items():
        if key not in known:
            raise ComlqError(f"{where}: unknown setting '{key}' (known: {', '.join(known)})")
        setattr(section, key, check_setting(known[key], hints[key], value, where))

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
