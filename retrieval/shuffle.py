"""`comlq evaluate --shuffle-corpus SEED`: the corpus permuted and every passage id renamed to an
opaque one, so that no retriever can profit from where a passage sits or what its id says.

ComLQ's corpus keeps each query's gold passages in one consecutive block of ids, followed by
unrelated distractors; a method that reads line order or id ranges looks good there for the
wrong reason (issue 15). Shuffling keeps every text, every explicit field (title, doc_id) and
every label; only order and names change, consistently in qrels and the logic labels.
"""

from __future__ import annotations

import dataclasses
import random

from retrieval.base import Corpus, Violations
from retrieval.beir import BeirData


def opaque_ids(ids: tuple[str, ...], seed: int) -> dict[str, str]:
    """original id -> a random 12-hex-digit id (seeded, distinct, unrelated to the original)."""
    rng = random.Random(f"shuffle-ids:{seed}")
    names: dict[str, str] = {}
    used: set[str] = set()
    for pid in ids:
        name = f"{rng.getrandbits(48):012x}"
        while name in used:
            name = f"{rng.getrandbits(48):012x}"
        used.add(name)
        names[pid] = name
    return names


def shuffle_corpus(data: BeirData, seed: int) -> tuple[BeirData, dict[str, str]]:
    """The same data with the corpus in a seeded random order and opaque passage ids; also the
    renaming (original id -> opaque id), so runs can be mapped back."""
    corpus = data.corpus
    order = list(range(len(corpus)))
    random.Random(f"shuffle-order:{seed}").shuffle(order)
    names = opaque_ids(corpus.ids, seed)
    shuffled = Corpus(tuple(names[corpus.ids[i]] for i in order), tuple(corpus.texts[i] for i in order),
                      tuple(corpus.documents[i] for i in order) if corpus.documents else ())

    def sets(labels: Violations | None) -> Violations | None:
        return None if labels is None else {qid: {names[pid] for pid in pids} for qid, pids in labels.items()}

    branches = None if data.branches is None else {
        qid: {branch: {names[pid] for pid in pids} for branch, pids in by_branch.items()}
        for qid, by_branch in data.branches.items()}
    qrels = {qid: {names[pid]: grade for pid, grade in judged.items()} for qid, judged in data.qrels.items()}
    return dataclasses.replace(data, corpus=shuffled, qrels=qrels, violations=sets(data.violations),
                               partial=sets(data.partial), branches=branches, shuffle_seed=seed), names
