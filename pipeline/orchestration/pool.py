"""Pooled judging: the passages several retrievers rank high for each item, for the annotators.

The generator's evidence is all the qrels know; TREC pools the top results of several systems
for its assessors to find the relevant passages no single system (here: the generator) found.
This wires the evaluation stage's retrievers (retrieval/) into the review push (annotation/),
which is why it lives in orchestration: review comes before evaluation in the line and does not
import it; it gets the pool as plain data (annotation.push.Pool).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from annotation.push import Pool
from pipeline.config import Config
from pipeline.errors import ComlqError
from pipeline.progress import Progress
from pipeline.records import Passage

log = logging.getLogger(__name__)


def pooled_candidates(items: Sequence[dict[str, Any]], passages: dict[str, Passage], config: Config) -> Pool:
    """Per item, the passages its generator flagged as possible missed answers (`possible_missed`, the
    kg completeness check kept for review), then each retriever's top `review.pool_k` passages for the
    question that are neither evidence nor violating, merged rank by rank (best of each retriever first),
    no repeats."""
    from retrieval.base import Corpus, Query, ranked
    from retrieval.registry import Factory

    flagged = {i["id"]: [p for p in i.get("possible_missed", ()) if p in passages] for i in items}
    k, specs = config.review.pool_k, tuple(config.review.pool_retrievers)
    if k <= 0 or not specs or not items:
        return Pool({iid: ps for iid, ps in flagged.items() if ps})
    if len(specs) < 2:
        raise ComlqError(f"review.pool_retrievers: pooling needs two or more retrievers, got {list(specs)}")
    corpus = Corpus(tuple(passages), tuple(f"{p.title} {p.text}" if p.title else p.text for p in passages.values()))
    excluded = {i["id"]: {e["passage_id"] for e in i["evidence"]} | set(i["violating"]) for i in items}
    depth = k + max(len(x) for x in excluded.values())  # k left after the exclusions
    queries = [Query(i["id"], i["question"], i["type"], i["n_passages"], i["logical_form"]) for i in items]
    factory = Factory(config.evaluate, config.llm)  # the encoder shows its bar, with the time left, as in `comlq run`
    rankings: list[dict[str, list[str]]] = []
    with Progress("pooled judging", total=len(specs), unit="retriever", estimate=False) as bar:
        for spec in specs:
            bar.set_postfix_str(f"{spec}: indexing {len(corpus)} passages")
            retriever = factory.build(spec)
            retriever.index(corpus)
            bar.set_postfix_str(f"{spec}: ranking {len(queries)} questions")
            run = retriever.retrieve(queries, depth)
            rankings.append({qid: [pid for pid, _ in ranked(scores) if pid not in excluded[qid]][:k]
                             for qid, scores in run.items()})
            bar.update()
            log.info("pooled judging: %s ranked %d questions over %d passages", retriever.name, len(queries),
                     len(corpus))
    candidates = {}
    for item in items:
        lists = [ranking.get(item["id"], []) for ranking in rankings]
        merged = [pid for rank in range(k) for ids in lists if rank < len(ids) for pid in [ids[rank]]]
        candidates[item["id"]] = list(dict.fromkeys(flagged[item["id"]] + merged))
    return Pool(candidates, specs)
