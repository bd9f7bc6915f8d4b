"""Answers held against the corpus: passages a search ranks high for an item's question that may state
an answer the item lacks. Shared by both generators: the `kg` generator reads such passages through its
graph (pipeline/kg/candidates.py); any item, an `llm` one too, is held against them here by its names.

An item's target conditions are the triples that reach the target from a named anchor ("Stanley
Kubrick directed ?x"). A passage among the question's top `SEARCH_K` by BM25 that is neither evidence
nor violating, names every such anchor (whole words, any case) and is not about an answer (its title,
or the one its text opens with) may state another answer: a reviewer should see it, and an offline
run should not keep the item as complete.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import replace

import numpy as np

from pipeline.itemchecks import mentions
from pipeline.passages import recover_title
from pipeline.records import Check, Item, Passage

SEARCH_K = 20  # the question's top passages a search reads
Search = Callable[[str], Iterable[str]]  # question -> the passage ids a search ranks first for it


def bm25_search(passages: dict[str, Passage], k: int = SEARCH_K) -> Search:
    """The question's top `k` passages by BM25 (bm25s, Snowball stemming and English stop words, as
    `comlq evaluate`'s bm25 ranks them): the index is built once, over every passage."""
    import bm25s
    import Stemmer

    logging.getLogger("bm25s").setLevel(logging.WARNING)  # bm25s sets its own logger to DEBUG
    ids = sorted(passages)
    stemmer = Stemmer.Stemmer("english")
    model = bm25s.BM25()
    model.index(bm25s.tokenize([passages[p].text for p in ids], stopwords="en", stemmer=stemmer,
                               show_progress=False), show_progress=False)

    def search(question: str) -> list[str]:
        tokens = bm25s.tokenize([question], stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False)
        token_ids = model.get_tokens_ids(tokens[0])
        if not token_ids:
            return []
        scores = model.get_scores_from_ids(token_ids)
        top = np.argsort(-scores, kind="stable")[:k]  # ties in id order (ids are sorted)
        return [ids[i] for i in top if scores[i] > 0]

    return search


def target_anchors(item: Item) -> list[str]:
    """The named anchors of the triples that reach the item's target (positive ones), e.g. "Stanley Kubrick"."""
    return [t.object if t.subject == item.target else t.subject for t in item.triples
            if not t.negated and item.target in (t.subject, t.object)
            and not (t.object if t.subject == item.target else t.subject).startswith("?")]


def possible_missed(item: Item, passages: dict[str, Passage], search: Search) -> list[str]:
    """The passages among the question's top ones that may state an answer the item lacks (see above);
    [] for an item whose target no named anchor reaches (a chain: what it projects is checked by the
    generator, if at all)."""
    anchors = target_anchors(item)
    if not anchors:
        return []
    seen = {e.passage_id for e in item.evidence} | set(item.violating)
    answers = {a.lower() for a in item.answers}
    found = []
    for pid in search(item.question):
        passage = passages.get(pid)
        if passage is None or pid in seen:
            continue
        about = re.sub(r"\s*\([^()]*\)$", "", passage.title or recover_title(passage.text)).lower()  # "X (film)"
        if about not in answers and all(mentions(passage.text, a) for a in anchors):
            found.append(pid)
    return found


def held_against_corpus(item: Item, passages: dict[str, Passage], search: Search, keep: bool) -> Item:
    """The item with its possible missed answers (`possible_missed`): kept for reviewers (`keep`), else
    also marked as failing the automatic check (an `llm` item is never dropped: it is not sent to review
    by default and its reasons say why)."""
    found = tuple(possible_missed(item, passages, search))
    if not found:
        return item
    if keep:
        return replace(item, possible_missed=found)
    reason = f"possible missed answers: {', '.join(found[:3])} name every anchor of the answers' conditions"
    return replace(item, check=Check(False, (*item.check.reasons, reason)), possible_missed=found)
