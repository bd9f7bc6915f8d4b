"""The LLM generator: plan prompts, run them concurrently, check the answers, keep everything.

Per query type it asks for `generate.per_type` items whose structure check passes, cycling
through the passage counts in `llm.passage_counts` (ComLQ's type_1, type_2, type_3 variants),
and tops up the shortfall in further rounds, at most `per_type * llm.prompts_per_item` prompts
per type. Each prompt is one conversation: the prompt, then up to `llm.fix_attempts`
follow-ups carrying the validation error. What still fails becomes a rejected record with
the raw reply; a failed request (after the SDK's HTTP retries) rejects that prompt only.
Planning is deterministic (seeded) and every answered request is cached, so a re-run, or a
run killed halfway and started again, replays the answers it already paid for.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from pipeline.completeness import bm25_search, held_against_corpus
from pipeline.config import Config
from pipeline.errors import ComlqError
from pipeline.generator import BaseGenerator, GenerationResult
from pipeline.llm.build import build_item
from pipeline.llm.grouping import mention_graph, passage_groups, spread
from pipeline.llm.parse import parse_answer
from pipeline.llm.prompts import fix_message, render
from pipeline.logical_form import parse as parse_logical_form
from pipeline.progress import Progress
from pipeline.querytypes import TYPE_NAMES, get_type
from pipeline.records import Item, Passage
from pipeline.runfolder import RunFolder
from pipeline.schemas import write_json
from pipeline.services.ledger import Ledger
from pipeline.services.openai_client import CallError, LLMClient

Outcome = Item | dict[str, Any]  # an item, or a rejected record (schemas/rejected)


@dataclass(frozen=True, slots=True)
class Job:
    type: str
    n_passages: int
    index: int  # per type, in planning order
    passage_ids: tuple[str, ...]

    @property
    def key(self) -> tuple[str, int, tuple[str, ...]]:
        return self.type, self.n_passages, self.passage_ids

    @property
    def item_id(self) -> str:
        return f"llm-{self.type}_{self.n_passages}-{self.index:04d}"


class Planner:
    """Hands out passage groups per size, in a seeded order, reusing passages as late as possible."""

    def __init__(self, passages: dict[str, Passage], sizes: tuple[int, ...], seed: int):
        graph = mention_graph(passages) if any(n > 1 for n in sizes) else nx.empty_graph(passages)
        self.groups = {n: spread(passage_groups(graph, n, seed)) for n in sizes}
        self._next = Counter[int]()
        self._used: dict[tuple[str, int], set[tuple[str, ...]]] = {}

    def sizes(self) -> tuple[int, ...]:
        return tuple(n for n, groups in self.groups.items() if groups)

    def take(self, n: int, type_name: str) -> tuple[str, ...] | None:
        """The next group of n passages this type has not had yet (None when it has had them all):
        the same type and group would send the same prompt, i.e. a duplicate item from the cache."""
        groups, used = self.groups[n], self._used.setdefault((type_name, n), set())
        if len(used) == len(groups):
            return None
        while True:
            group = groups[self._next[n] % len(groups)]
            self._next[n] += 1
            if group not in used:
                used.add(group)
                return group


def rejected_record(type_name: str, n_passages: int, passage_ids: tuple[str, ...], reason: str, detail: str,
                    raw: str | None = None, attempts: int | None = None) -> dict[str, Any]:
    return {"generator": "llm", "type": type_name, "n_passages": n_passages, "reason": reason,
            "detail": detail, "raw": raw, "attempts": attempts, "source_passages": list(passage_ids)}


def run_job(job: Job, passages: dict[str, Passage], client: LLMClient, config: Config,
            titles: dict[str, str] | None = None) -> Outcome:
    """One prompt and its fix-up follow-ups -> an Item or a rejected record. Never raises for a bad answer.

    A reply that cannot be read, or whose item fails the automatic checks, goes back to the model
    with the reasons; an item that still fails them after the last follow-up is kept, marked.
    `titles` (passage title -> id) finds the passages of the entities a negation excludes.
    """
    prompt = render(job.type, [passages[pid] for pid in job.passage_ids])
    messages = [{"role": "system", "content": prompt.system}, {"role": "user", "content": prompt.user}]
    attempts = config.llm.fix_attempts + 1
    for attempt in range(1, attempts + 1):
        try:
            reply = client.complete(messages)
        except CallError as exc:
            return rejected_record(*job.key, exc.reason, exc.detail, None, attempt)
        answer, error = parse_answer(reply.text, job.n_passages)
        if error is None:
            try:
                item = build_item(job.item_id, answer, prompt, config.llm.model, config.generate.seed, titles)
            except Exception as exc:  # noqa: BLE001 - one odd answer must not stop the run; it is kept
                return rejected_record(*job.key, "build_failed", f"{type(exc).__name__}: {exc}", reply.text, attempt)
            if item.check.ok or attempt == attempts:
                return item
            detail = "; ".join(item.check.reasons)
        else:
            detail = error.detail
        messages = [*messages, {"role": "assistant", "content": reply.text or ""},
                    {"role": "user", "content": fix_message(detail)}]
    assert error is not None  # the last attempt returned unless its reply could not be read
    return rejected_record(*job.key, error.reason, f"after {attempts} attempts: {error.detail}", reply.text,
                           attempts)


class LLMGenerator(BaseGenerator):
    """One type per chunk (a chunk is a unit of retry and of caching), retried on service failures."""

    name = "llm"
    types_per_chunk = 1
    network = True
    shared_stats = frozenset({"generator", "per_type", "passage_groups", "endpoint", "model"})

    def generate(self, passages: dict[str, Passage], config: Config, types: tuple[str, ...],
                 out_dir: Path) -> GenerationResult:
        return generate_llm(passages, config, types, out_dir)

    def write(self, result: GenerationResult, out_dir: Path) -> None:
        super().write(result, out_dir)
        write_json(RunFolder(out_dir).ledger, result.stats["llm"], "llm_ledger")  # the chunks' ledgers summed


def generate_llm(passages: dict[str, Passage], config: Config, types: tuple[str, ...],
                 out_dir: Path) -> GenerationResult:
    """Generate items for `types` from `passages`; writes the cache and <out_dir>/ledger.json."""
    out_dir = Path(out_dir)
    settings = config.llm
    _check_settings(settings.concurrency, settings.passage_counts, passages)
    cache_dir = Path(settings.cache_dir) if settings.cache_dir else RunFolder(out_dir).llm_cache
    ledger = Ledger(settings.base_url or "https://api.openai.com/v1", settings.model,
                    settings.price_prompt_per_1m, settings.price_completion_per_1m)
    client = LLMClient(settings, cache_dir, ledger)
    _build_shared_state()
    started = time.perf_counter()
    planner = Planner(passages, tuple(dict.fromkeys(settings.passage_counts)), config.generate.seed)
    planning_seconds = time.perf_counter() - started

    outcomes: list[Outcome] = []
    for n in settings.passage_counts:
        if n not in planner.sizes():  # e.g. no two passages share an entity: say so once per type, do not guess
            outcomes.extend(rejected_record(t, n, (), "no_passage_group", f"no group of {n} passages sharing an entity")
                            for t in types)
    prompts = Counter[str]()
    try:
        outcomes.extend(_run_rounds(passages, config, types, planner, client, prompts))
    finally:
        client.close()
        write_json(RunFolder(out_dir).ledger, ledger.to_dict(), "llm_ledger")

    stats = _stats(outcomes, types, prompts, planner, ledger, config.generate.per_type)
    stats["planning_seconds"] = round(planning_seconds, 3)
    return GenerationResult([o for o in outcomes if isinstance(o, Item)],
                            [o for o in outcomes if not isinstance(o, Item)], stats)


def _build_shared_state() -> None:
    """Build the cached parsers and pattern graphs every worker uses, once and
    here: functools.cache does not lock, so the first workers would each build them (~30 ms apiece)."""
    for name in TYPE_NAMES:  # the structure check may classify an answer as any type
        _ = get_type(name).pattern
    parse_logical_form('"warm-up"')


def _check_settings(concurrency: int, passage_counts: tuple[int, ...], passages: dict[str, Passage]) -> None:
    if concurrency < 1:
        raise ComlqError(f"llm.concurrency must be at least 1, not {concurrency}")
    if not passage_counts or any(n not in (1, 2, 3) for n in passage_counts):
        raise ComlqError(f"llm.passage_counts must list 1, 2 and/or 3, not {list(passage_counts)}")
    if not passages:
        raise ComlqError("the LLM generator got no passages")


def _run_rounds(passages: dict[str, Passage], config: Config, types: tuple[str, ...], planner: Planner,
                client: LLMClient, prompts: Counter[str]) -> list[Outcome]:
    """Rounds of prompts until every type has per_type checked items or has spent its budget."""
    per_type = config.generate.per_type
    # title -> passage id (the first id of a repeated title): the passages of excluded entities
    titles = {p.title: p.id for p in sorted(passages.values(), key=lambda p: p.id, reverse=True) if p.title}
    budget = math.ceil(per_type * config.llm.prompts_per_item)
    # answers held against the whole corpus (pipeline/completeness.py), before an item counts as good
    search = bm25_search(passages) if config.generate.completeness != "off" else None
    sizes = planner.sizes()
    good = Counter[str]()
    outcomes: list[Outcome] = []
    exhausted: set[str] = set()
    with ThreadPoolExecutor(config.llm.concurrency) as pool, \
            Progress("llm prompts", total=0, unit="prompt") as progress:
        while sizes:
            jobs = []
            for type_name in (t for t in types if t not in exhausted):
                for _ in range(max(0, min(per_type - good[type_name], budget - prompts[type_name]))):
                    n = sizes[prompts[type_name] % len(sizes)]
                    group = planner.take(n, type_name)
                    if group is None:
                        exhausted.add(type_name)
                        outcomes.append(rejected_record(type_name, n, (), "no_fresh_group", (
                            f"every group of {n} passage(s) was already used for {type_name}; "
                            "more passages are needed for more items")))
                        break
                    jobs.append(Job(type_name, n, prompts[type_name], group))
                    prompts[type_name] += 1
            if not jobs:
                break
            progress.total = (progress.total or 0) + len(jobs)
            futures = [pool.submit(run_job, job, passages, client, config, titles) for job in jobs]
            for future in futures:  # in planning order, whatever order they finish in
                outcome = _result(future, futures)
                if isinstance(outcome, Item) and search is not None:
                    outcome = held_against_corpus(outcome, passages, search, config.generate.completeness == "review")
                outcomes.append(outcome)
                if isinstance(outcome, Item) and outcome.check.ok:
                    good[outcome.type] += 1
                progress.update()
    return outcomes


def _result(future: Future, futures: list[Future]) -> Outcome:
    try:
        return future.result()
    except ComlqError:  # endpoint unreachable or refusing us: stop; answered requests stay cached
        for other in futures:
            other.cancel()
        raise


def _stats(outcomes: list[Outcome], types: tuple[str, ...], prompts: Counter[str],
           planner: Planner, ledger: Ledger, per_type: int) -> dict[str, Any]:
    by_type: dict[str, dict[str, int]] = {t: {"prompts": prompts[t], "items": 0, "check_ok": 0, "rejected": 0}
                                          for t in types}
    variants, reasons, check_reasons = Counter[str](), Counter[str](), Counter[str]()
    for outcome in outcomes:
        if isinstance(outcome, Item):
            row = by_type[outcome.type]
            row["items"] += 1
            row["check_ok"] += outcome.check.ok
            variants[outcome.variant] += 1
            check_reasons.update(outcome.check.reasons)
        else:
            by_type[outcome["type"]]["rejected"] += 1
            reasons[outcome["reason"]] += 1
    return {
        "generator": "llm", "per_type": per_type, "prompts": sum(prompts.values()),
        "items": sum(row["items"] for row in by_type.values()),
        "items_check_ok": sum(row["check_ok"] for row in by_type.values()),
        "rejected": sum(row["rejected"] for row in by_type.values()),
        "types": by_type, "variants": dict(sorted(variants.items())),
        "rejection_reasons": dict(sorted(reasons.items())), "check_reasons": dict(sorted(check_reasons.items())),
        "passage_groups": {str(n): len(groups) for n, groups in planner.groups.items()},
        "llm": ledger.to_dict(),
    }
