"""The `kg` generator: a knowledge graph from the passages, grounded samples of every type, their items."""

from __future__ import annotations

import gc
import hashlib
import json
import logging
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import yaml

from pipeline.completeness import bm25_search
from pipeline.config import Config, GenerateConfig
from pipeline.errors import ComlqError, quote
from pipeline.generator import BaseGenerator, GenerationResult
from pipeline.itemchecks import answers_in_question, banned_words, check_witnesses
from pipeline.kg.cache import ReadingCache, read_passages
from pipeline.kg.candidates import MissedAnswers
from pipeline.kg.complete import CorpusCheck
from pipeline.kg.enumerators import ChainEnumerator, Enumerating, Enumerator
from pipeline.kg.extract import extract
from pipeline.kg.graph import KnowledgeGraph, from_extraction, read_triples
from pipeline.kg.query import branch_passages, partial_passages, plan_for, witness_triples
from pipeline.kg.sample import Grounding, Reject, Sampler
from pipeline.kg.sense import senseless
from pipeline.kg.variety import Variety
from pipeline.kg.verbalize import MEMBERS, Verbalizer, templates
from pipeline.progress import Progress
from pipeline.querytypes import check_triples, get_type, matches, query_graph, renames_pattern
from pipeline.records import Check, GeneratorInfo, GradedPassage, Item, Passage, Triple, WitnessFact
from pipeline.resources import package_data

log = logging.getLogger(__name__)
EXTRACT_PROCESSES = 2  # spaCy processes for passages not yet in the extraction cache (a big corpus)
ATTEMPTS_PER_ITEM = 400  # sampling budget per requested item before a type is reported short
STALL = 4000  # consecutive failed attempts after which a type is taken as exhausted
SINGLE_SHARE = 0.8  # at most this share of a walked type's items has its evidence in one passage, while others come
DEFER_STALL = 200  # one-passage items set aside in a row after which the walk takes them as they come
_PLACEHOLDER = re.compile(r"\?[A-Za-z][A-Za-z0-9_]*|\bR\d*\b")  # variables and relation placeholders

_REASONS = {
    "duplicate_grounding": "the grounding was already generated",
    "too_many_answers": "more answers than max_answers",
    "evidence_over_3_passages": "the answers' evidence spans more than 3 passages (ComLQ variants have 1-3)",
    "redundant_condition": "dropping an intersected or unioned condition left the answers unchanged",
    "negation_removes_nothing": "the negation removed no answer",
    "negation_has_nothing_to_remove": "the positive part had no other member for the negation to remove",
    "no_violating_passage": "every passage of the removed answers is also evidence",
    "relation_then_inverse": "a relation was followed by its own inverse",
    "anchor_clash": "two anchors had the same name",
    "dead_end": "the walk back from the answer found no usable edge",
    "empty_answer": "the query had no answer",
    "no_evidence": "no passage states the facts",
    "type_check_failed": "the triples did not form the type (bug)",
    "no_witness_sentence": "a witness fact has no sentence that states it",
    "witness_not_in_text": "a witness sentence is not in the passage text or does not name both ends",
    "banned_word": "the question says article, category, subject or class of",
    "answer_in_question": "the question names an answer",
    "answer_alias": "an answer may be another's surname ('Alcott' beside 'Bronson Alcott'): one person twice",
    "no_noun": "no class, topic or relation noun holds for every member of a set",
    "corpus_other_member": "the corpus text may name another entity that meets a condition",
    "corpus_meets_negation": "an answer's own text may say that it meets the negated condition",
    "corpus_narrower_class_member": "the corpus text may name a member of a narrower class (classes.yaml)",
    "corpus_narrower_class_negation": "an answer's own text may name a narrower class of the negated one",
    "negation_unstated": "an answer would pass the NOT only because no value of the negated relation is stated "
                         "for it (open world: silence is not a different value)",
    "broad_unstated": "a nationality the query goes through ('the occupations that Swedish people had') is "
                      "written in a passage where no one was read to hold it, so a member may be missing",
    "corpus_pruned": "a part of a grounding that the corpus check turned down before the rest was enumerated",
    "circular": "an anchor is an answer, a bridge or what a negation removes (the query answers itself)",
    "class_as_answer": "a set of classes reached by instance_of ('the types that X belongs to')",
    "transitive_repeat": "a containment relation repeated on one path or intersected with itself",
    "vague_noun": "a set could only be called 'entities'",
    "noun_names_bridge": "the answers' noun is a bridge of the query, which gives the hop away",
    "noun_holds_condition": "the set's noun already says a condition ('the general that worked as an officer')",
    "nothing_asked": "a class listing whose only condition is the class itself ('Name the cloth that is a cloth')",
    "class_bridge": "members of a set of classes ('the manufacturers that are none of the occupations of X')",
    "duplicate_qrels": "another item of the type has the same answers and evidence (a NOT that only swaps "
                       "whom it removes by is a near-copy)",
    "possible_missed_answer": "a passage of the corpus may state another answer (it names the class and every "
                              "condition of the answers)",
    "overused_entity": "a named anchor or answer would be in more than max_entity_share of the run's items",
}
CORPUS_REASONS = ("corpus_other_member", "corpus_meets_negation", "corpus_narrower_class_member",
                  "corpus_narrower_class_negation", "negation_unstated", "broad_unstated",
                  "possible_missed_answer")


def builtin_inverses() -> dict[str, str]:
    return {name: spec["inverse"] for name, spec in templates()["relations"]["relations"].items()}


def relation_weights(kg: KnowledgeGraph, overrides: dict[str, float]) -> dict[str, float]:
    """Sampling weight of every relation of `kg`, both directions: weights.yaml, then `overrides`."""
    if not isinstance(overrides, dict):
        raise ComlqError(f"[generate] relation_weights: expected a table of relation = weight (got {overrides!r})")
    unknown = sorted(set(overrides) - set(kg.inverses))
    if unknown:
        raise ComlqError(f"[generate] relation_weights: unknown relation {unknown[0]!r} "
                         f"(the graph has: {', '.join(sorted(kg.inverses))})")
    weights: dict[str, float] = {}
    for source in (default_weights(), overrides):
        for relation, weight in source.items():
            if not isinstance(weight, (int, float)) or weight < 0:
                raise ComlqError(f"[generate] relation_weights: weight of {relation!r} must be a number >= 0 "
                                 f"(got {weight!r})")
            if relation in kg.inverses:
                weights[relation] = weights[kg.inverses[relation]] = float(weight)
    if all(weights.get(r, 1.0) == 0 for r in kg.inverses):
        raise ComlqError("[generate] relation_weights: every relation weighs 0, nothing can be sampled")
    return weights


@cache
def default_weights() -> dict[str, float]:
    return yaml.safe_load(package_data("pipeline", "kg/weights.yaml").read_text(encoding="utf-8"))


def build_kg(passages: dict[str, Passage], triples: str | None = None) -> KnowledgeGraph:
    """The graph from a user triples file, or from the built-in extractor over `passages` (whose
    readings come from the extraction cache where `prepare` or an earlier run left them)."""
    if triples:
        return read_triples(triples, passages)
    if not passages:
        raise ComlqError("kg generator: no passages to build a knowledge graph from")
    kg = from_extraction(extract(passages, processes=EXTRACT_PROCESSES), builtin_inverses())
    if kg.shared_titles:  # one article cut into passages, or different things under one title: say so either way
        shown = ", ".join(f"{quote(t)} ({n} passages)" for t, n in sorted(kg.shared_titles.items())[:5])
        log.warning("kg: %d title(s) shared by several passages, each read as one article, one entity: %s%s; "
                    "give passages about different things different titles (stats.json: graph.shared_titles)",
                    len(kg.shared_titles), shown, ", ..." if len(kg.shared_titles) > 5 else "")
    if kg.graph.number_of_edges() == 0:
        raise ComlqError(f"kg generator: no facts found in {len(passages)} passages; supply a triples file (--triples)")
    return kg


class KGGenerator(BaseGenerator):
    """Offline: all requested types in one chunk, since the graph is built once per chunk.

    `prepare` reads a batch of passages into the extraction cache (the flow runs the batches as
    tasks, so a Dask cluster spreads the spaCy work); `generate` then finds them there.
    """

    name = "kg"
    prepare_batch = 500
    shared_stats = frozenset({"generator", "seed", "per_type", "max_answers", "graph"})

    def prepare(self, passages: Sequence[Passage], config: Config) -> None:
        if not config.generate.triples:
            read_passages(passages, ReadingCache())

    def generate(self, passages: dict[str, Passage], config: Config, types: tuple[str, ...],
                 out_dir: Path) -> GenerationResult:
        return generate_kg(passages, config.generate, types)


def generate_kg(passages: dict[str, Passage], config: GenerateConfig, types: tuple[str, ...]) -> GenerationResult:
    if config.per_type < 1:
        raise ComlqError(f"per_type must be at least 1 (got {config.per_type})")
    if config.max_answers < 1:
        raise ComlqError(f"max_answers must be at least 1 (got {config.max_answers})")
    for name in types:
        get_type(name)
    started = time.perf_counter()
    kg = build_kg(passages, config.triples)
    build_seconds = time.perf_counter() - started

    texts = {pid: p.text for pid, p in passages.items()}
    checker = CorpusCheck(kg, passages) if config.corpus_check else None
    missed = MissedAnswers(checker, bm25_search(passages)) if checker and config.completeness != "off" else None
    result = GenerationResult()
    per_type: dict[str, dict] = {}
    variety = Variety(config.per_type * len(types), config.max_entity_share)
    started = time.perf_counter()
    with long_lived(), Progress("kg sampling", total=len(types), unit="type") as bar:
        for name in types:
            bar.set_postfix_str(name)
            checked = missed.checked if missed else 0
            items, summary = generate_type(kg, name, config, texts, checker, variety, missed)
            if missed:
                summary["candidates_checked"] = missed.checked - checked
            if checker:
                checker.forget_groundings()
            result.items.extend(items)
            per_type[name] = summary
            bar.update()
    seconds = time.perf_counter() - started
    result.items = _trimmed(result.items, per_type, variety)
    for name, summary in per_type.items():
        result.rejected.extend(_rejections(name, summary))

    short = {n: s for n, s in per_type.items() if s["generated"] < s["requested"]}
    for name, summary in short.items():
        log.warning("kg: %s: %s", name, summary["shortfall"])
    result.stats = {
        "generator": "kg", "seed": config.seed, "per_type": config.per_type, "max_answers": config.max_answers,
        "graph": {"source": config.triples or "built-in extractor", **kg.stats()},
        "items": len(result.items), "short_types": sorted(short),
        "types": per_type,
        "corpus_check": _corpus_check_stats(per_type, checker is not None),
        "timing": {"graph_build_seconds": round(build_seconds, 3), "sampling_seconds": round(seconds, 3),
                   "items_per_second": round(len(result.items) / seconds, 1) if seconds > 0 else None},
    }
    return result


def _trimmed(items: list[Item], per_type: dict[str, dict], variety: Variety) -> list[Item]:
    """The items `Variety.trim` keeps, each type's summary counting the others as overused_entity."""
    dropped = variety.trim(items)
    for name, summary in per_type.items():
        if lost := sum(i.id in dropped for i in items if i.type == name):
            rejections = Counter(summary["rejections"]) + Counter(overused_entity=lost)
            kept = [i for i in items if i.type == name and i.id not in dropped]
            why = f"{summary['stopped']}; then {lost} dropped: max_entity_share of the items made"
            per_type[name] = summary | _summary(summary["requested"], kept, summary["attempts"], rejections, why)
    return [i for i in items if i.id not in dropped]


@contextmanager
def long_lived() -> Iterator[None]:
    """Sampling with what exists now (the graph, the corpus index) left out of the garbage collector's
    full passes: they live through all of sampling, and walking them was a fifth of its time on the
    sample. Only the collector's bookkeeping changes (gc.freeze, undone after)."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def generate_type(kg: KnowledgeGraph, name: str, config: GenerateConfig, texts: Mapping[str, str] | None = None,
                  checker: CorpusCheck | None = None, variety: Variety | None = None,
                  missed: MissedAnswers | None = None) -> tuple[list[Item], dict]:
    """Up to `config.per_type` items of one type, and a summary of the attempts.

    `texts` (passage id -> the text the benchmark ships) is what witness sentences are checked
    against, `checker` looks for answers the graph lacks, `variety` counts the run's anchors and
    answers, `missed` finds possible missed answers; None skips each (graphs without passages, in tests).
    """
    variety = variety or Variety(10**9, 1.0)
    sampler, draw = _sampler(kg, name, config, checker)
    items: list[Item] = []
    judged: set[tuple] = set()  # (answers, evidence) of the items kept: one item per set of positive qrels
    # a walked type keeps room for evidence over 2-3 passages (ComLQ's variants): one-passage items past
    # SINGLE_SHARE wait in `reserve` while the walk still finds others, and fill what is left at the end
    reserve: list[tuple[Item, Grounding]] = []
    single_cap = int(SINGLE_SHARE * config.per_type) if not isinstance(sampler, Enumerating) else None
    deferred = singles = 0  # one-passage items set aside in a row, and kept
    budget = ATTEMPTS_PER_ITEM * config.per_type
    attempts = failed = 0
    exhausted = False
    while len(items) < config.per_type and attempts < budget and failed < STALL:
        attempts += 1
        grounding = draw()
        if grounding is None and isinstance(sampler, Enumerating):
            exhausted = True  # every combination tried
            break
        item = None
        if grounding:
            try:
                item = make_item(kg, grounding, config.seed, texts, checker, missed, config.completeness == "review")
            except Reject as reason:
                sampler.rejections[str(reason)] += 1
        if item is not None and (signature := (item.answers, item.evidence)) in judged:
            # a near-copy: "grandmasters that are not X" for many X, "the occupations of the parent of Cornelia
            # Sulla that Y never had" for many Y
            sampler.rejections["duplicate_qrels"] += 1
            item = None
        elif item is not None and not variety.admits(grounding):
            sampler.rejections["overused_entity"] += 1
            item = None
        if item is None:
            failed += 1
            continue
        judged.add(signature)
        if single_cap is not None and item.n_passages == 1 and singles >= single_cap:
            reserve.append((item, grounding))
            deferred += 1
            if deferred >= DEFER_STALL:  # the walk finds no more others: take what comes from now on
                single_cap = None
            continue
        failed = deferred = 0
        singles += item.n_passages == 1
        items.append(item)
        variety.add(grounding, item.id)
    for item, grounding in reserve:
        if len(items) < config.per_type and variety.admits(grounding):
            items.append(item)
            variety.add(grounding, item.id)
    why = ("all items asked" if len(items) >= config.per_type else "every grounding enumerated" if exhausted
           else f"{STALL} failures in a row" if failed >= STALL else f"budget {ATTEMPTS_PER_ITEM} per item")
    return items, _summary(config.per_type, items, attempts, sampler.rejections, why)


def _sampler(kg: KnowledgeGraph, name: str, config: GenerateConfig,
             checker: CorpusCheck | None) -> tuple[Sampler, Callable[[], Grounding | None]]:
    """The type's sampler and its draw: the sparse shapes are enumerated (see both enumerators), 1p and 2i walked."""
    plan, rng = plan_for(name), random.Random(f"{config.seed}:{name}")
    weights = relation_weights(kg, config.relation_weights)
    if Enumerator.supports(plan) or ChainEnumerator.supports(plan):
        kind = Enumerator if Enumerator.supports(plan) else ChainEnumerator
        sampler = kind(kg, plan, rng, config.max_answers, weights, checker)
        found = sampler.groundings()
        return sampler, lambda: next(found, None)
    sampler = Sampler(kg, plan, rng, config.max_answers, weights)
    return sampler, sampler.attempt


def _summary(requested: int, items: list[Item], attempts: int, rejections: Counter[str], why: str) -> dict:
    summary = {
        "requested": requested, "generated": len(items), "attempts": attempts, "stopped": why,
        "rejections": dict(sorted(rejections.items())),
        "n_passages": dict(sorted(Counter(str(i.n_passages) for i in items).items())),
    }
    if len(items) < requested:
        top = ", ".join(f"{r} {c}" for r, c in sorted(rejections.items(), key=lambda rc: (-rc[1], rc[0]))[:3])
        summary["shortfall"] = (f"{len(items)} of {requested} items after {attempts} sampled groundings "
                                f"({why}); most frequent rejections: {top or 'none'}")
    return summary


def make_item(kg: KnowledgeGraph, grounding: Grounding, seed: int, texts: Mapping[str, str] | None = None,
              checker: CorpusCheck | None = None, missed: MissedAnswers | None = None,
              keep_missed: bool = False) -> Item:
    """The item of a checked grounding; raises Reject(reason) when it fails an item check. An item with
    possible missed answers (`missed`) is dropped, or kept with their passages (`keep_missed`: for review)."""
    plan = grounding.plan

    def name(node: str) -> str:
        return kg.label(grounding.anchors[node]) if plan.is_anchor(node) else node

    pattern = get_type(plan.type).pattern
    triples = []
    for index, (s, o) in enumerate(plan.edges):
        flags = pattern.edges[s, o]
        triples.append(Triple(name(s), grounding.relations[index], name(o), flags["negated"], flags["union"]))
    digest = hashlib.sha1(json.dumps([t.to_dict() for t in triples], sort_keys=True).encode()).hexdigest()[:12]
    item_id = f"kg-{plan.type}-{digest}"
    verbalizer = Verbalizer(kg, grounding, random.Random(f"{seed}:{item_id}"))
    answers = tuple(sorted({kg.label(a) for a in grounding.answers}))
    question = verbalizer.question()
    if banned_words(question):
        raise Reject("banned_word")
    if answers_in_question(question, answers):
        raise Reject("answer_in_question")
    if reason := senseless(kg, grounding, verbalizer):
        raise Reject(reason)
    if checker and (reason := checker.reject_reason(plan, grounding.anchors, grounding.relations, grounding.sets)):
        raise Reject(reason)
    found = missed.find(grounding, verbalizer.noun(plan.target)[0], question) if missed else {}
    if found and not keep_missed:
        raise Reject("possible_missed_answer")
    classes = noun_facts(kg, grounding, verbalizer)
    evidence = tuple(sorted(set(grounding.evidence) | _passages_for(kg, classes, grounding.evidence)))
    if len(evidence) > 3:
        raise Reject("evidence_over_3_passages")
    violating = tuple(p for p in grounding.violating if p not in evidence)
    if grounding.violating and not violating:
        raise Reject("no_violating_passage")
    grade = 2 if len(evidence) == 1 else 1
    item = Item(
        id=item_id, type=plan.type, n_passages=len(evidence), question=question,
        indicator=get_type(plan.type).indicator, grounded_indicator=fill_indicator(plan.type, triples),
        triples=tuple(triples), target=plan.target, logical_form=verbalizer.logical_form(), answers=answers,
        evidence=tuple(GradedPassage(p, grade) for p in evidence), violating=violating,
        source_passages=tuple(sorted(set(evidence) | set(violating))),
        generator=GeneratorInfo("kg", seed), check=Check(True, ()),
        facts=witness_facts(kg, grounding, classes, evidence),
        partial=tuple(sorted(partial_passages(kg, plan, grounding.relations, grounding.sets)
                             - set(evidence) - set(violating))),
        branches=tuple(tuple(sorted(b)) for b in branch_passages(kg, plan, grounding.anchors, grounding.relations)),
        possible_missed=tuple(sorted({p for ps in found.values() for p in ps})),
    )
    if texts is not None and check_witnesses(item, texts):
        raise Reject("witness_not_in_text")
    if not forms_type(triples, plan.target, plan.type):  # last: no grounding of the sampler should fail it
        raise Reject("type_check_failed")
    return item


def forms_type(triples: list[Triple], target: str, type_name: str) -> bool:
    """Do the triples form the type, in ComLQ's edge directions too? They are built in the pattern's edge
    order, so a renaming of the pattern (the isomorphism both searches would find) is checked first, and
    the searches run only when it is not one."""
    if renames_pattern(triples, target, type_name):
        return True
    return not check_triples(triples, target, type_name) and matches(query_graph(triples, target), type_name,
                                                                     directed=True)


def noun_facts(kg: KnowledgeGraph, grounding: Grounding, verbalizer: Verbalizer) -> list[tuple[str, str, str]]:
    """The class facts behind the nouns no triple states ("the priests born in Kyiv"), for the answers and
    the witnesses of every other set: the question asserts them, so the item shows and checks them."""
    plan, sets = grounding.plan, grounding.sets
    members: dict[str, set[str]] = {plan.target: set(grounding.answers)}
    for edge, s, _, o in witness_triples(kg, plan, grounding.relations, sets, sorted(grounding.answers)):
        for node, entity in zip(plan.edges[edge], (s, o)):
            if not plan.is_anchor(node):
                members.setdefault(node, set()).add(entity)
    facts = []
    for node, entities in sorted(members.items()):
        if (cls := verbalizer.noun_class(node)) is not None:
            facts += [(m, r, cls) for m in sorted(entities) for r in MEMBERS if (m, r, cls) in kg.passages]
    return facts


def _passages_for(kg: KnowledgeGraph, facts: list[tuple[str, str, str]], evidence: Sequence[str]) -> set[str]:
    """A passage stating each fact, one of `evidence` where one does."""
    chosen = set()
    for fact in facts:
        passages = kg.passages[fact]
        chosen.add(next((p for p in passages if p in evidence), min(passages)))
    return chosen


def witness_facts(kg: KnowledgeGraph, grounding: Grounding, classes: Sequence[tuple[str, str, str]] = (),
                  evidence: Sequence[str] = ()) -> tuple[WitnessFact, ...]:
    """Every fact of the answers' witnesses with each sentence that states it, and the class facts of their
    nouns (`noun_facts`) as the `evidence` passages state them (Reject when a fact has no sentence).

    A graph without any evidence (a triples file without `evidence`) gives items without facts.
    """
    if not kg.evidence or not any(kg.evidence.values()):
        return ()
    plan = grounding.plan
    facts = []
    witnessed = witness_triples(kg, plan, grounding.relations, grounding.sets, sorted(grounding.answers))
    for s, relation, o in [(s, r, o) for _, s, r, o in witnessed] + list(classes):
        statements = kg.evidence[(s, relation, o)]
        if (s, relation, o) in classes:
            statements = tuple(e for e in statements if e.passage in evidence)
        if not statements:
            raise Reject("no_witness_sentence")
        facts.extend(WitnessFact(kg.label(s), relation, kg.label(o), e.passage, e.sentence, e.subject_mention,
                                 e.object_mention) for e in statements)
    # (the mentions too: "naval aviator, test pilot" states one pilot fact twice in one sentence)
    return tuple(sorted(set(facts), key=lambda f: (f.passage_id, f.subject, f.relation, f.object, f.sentence,
                                                   f.subject_mention, f.object_mention)))


def fill_indicator(type_name: str, triples: list[Triple]) -> str:
    """The type's indicator with the triples' anchors and relations filled in.

    Triples are in the pattern's order and edge directions, so this is the text
    `querytypes.grounded_indicator` finds by isomorphism (the tests check they agree), at a
    fraction of the cost.
    """
    qtype = get_type(type_name)
    names: dict[str, str] = {}
    for (s, o, data), triple in zip(sorted(qtype.pattern.edges(data=True), key=lambda e: e[2]["index"]), triples):
        names.update({s: triple.subject, o: triple.object, data["relation"]: triple.relation})
    return _PLACEHOLDER.sub(lambda m: names[m.group(0)], qtype.indicator)


def _corpus_check_stats(per_type: dict[str, dict], on: bool) -> dict:
    """Items dropped because the corpus text may contradict their answers, and their share of the
    items that reached the check."""
    if not on:
        return {"on": False}
    dropped = {r: sum(s["rejections"].get(r, 0) for s in per_type.values()) for r in CORPUS_REASONS}
    checked = sum(s["generated"] for s in per_type.values()) + sum(dropped.values())
    return {"on": True, "checked": checked, "dropped": dropped,
            "dropped_share": round(sum(dropped.values()) / checked, 3) if checked else None}


def _rejections(name: str, summary: dict) -> list[dict]:
    """One rejected.jsonl record per type and reason (counts), plus one for a shortfall."""
    records = [{"generator": "kg", "type": name, "reason": reason,
                "detail": f"{count} of {summary['attempts']} sampled groundings: {_REASONS.get(reason, reason)}",
                "attempts": count}
               for reason, count in summary["rejections"].items()]
    if "shortfall" in summary:
        records.append({"generator": "kg", "type": name, "reason": "shortfall", "detail": summary["shortfall"],
                        "attempts": summary["attempts"]})
    return records
