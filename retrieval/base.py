"""The records every retriever shares: a query, a run, the retriever protocol, TREC run files.

Ranking order (used everywhere: TREC files, metrics, LSNC@K, top-k selection) is trec_eval's:
score descending, ties broken by document id descending (plain string comparison, as
trec_eval's strcmp on UTF-8 bytes).
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from pipeline.errors import ComlqError
from pipeline.schemas import AtomicWriter

Run = dict[str, dict[str, float]]  # query id -> passage id -> score
Qrels = dict[str, dict[str, int]]  # query id -> passage id -> relevance grade
Violations = dict[str, set[str]]  # query id -> passages that violate the query's negation (also: partial labels)
Branches = dict[str, dict[str, set[str]]]  # query id -> union branch -> the passages that branch needs


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    type: str | None = None  # base query type, e.g. "2in" (ComLQ's "2in_2" -> type "2in", n_passages 2)
    n_passages: int | None = None  # number of evidence passages, when known
    logical_form: str | None = None  # ITLR syntax, e.g. '"films by Nolan" AND NOT "Michael Caine"'
    negations: int | None = None  # number of negated conditions, when known


@dataclass(frozen=True)
class Corpus:
    """Passage ids and texts in a fixed order (row i of every score matrix is ids[i]).

    `documents` names each passage's source document when the data says so explicitly (a
    `doc_id` or `title` field; "" when unknown, () when no passage has one). The order of the
    rows and the form of the ids carry no meaning: no retriever may read them as a signal.
    """

    ids: tuple[str, ...]
    texts: tuple[str, ...]
    documents: tuple[str, ...] = ()

    @classmethod
    def from_mapping(cls, passages: Mapping[str, str], documents: Mapping[str, str] | None = None) -> Corpus:
        docs = tuple(documents.get(pid, "") for pid in passages) if documents else ()
        return cls(tuple(passages), tuple(passages.values()), docs)

    def __len__(self) -> int:
        return len(self.ids)


class Retriever(Protocol):
    """Index a corpus once, then retrieve batches of queries."""

    name: str

    def index(self, corpus: Corpus) -> None: ...

    def retrieve(self, queries: Sequence[Query], k: int) -> Run: ...


def describe(retriever: Retriever) -> dict[str, object]:
    """A retriever's settings for reports: its `describe()` if it has one, plus its class."""
    extra = getattr(retriever, "describe", None)
    return {"class": type(retriever).__name__, **(extra() if callable(extra) else {})}


class RetrieverUnavailable(ComlqError):
    """A retriever that cannot run here (e.g. no LLM endpoint configured); evaluation skips it."""


def ranked(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """(passage id, score) pairs in trec_eval order: score descending, then id descending."""
    return sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)


def top_positions(ids: Sequence[str], scores: np.ndarray, k: int, rows: np.ndarray | None = None) -> np.ndarray:
    """Positions in `scores` of its k best entries in trec_eval order (unordered); scores[i]
    belongs to ids[i], or to ids[rows[i]] when `rows` is given (scores over a subset of the corpus).

    np.partition finds the k-th score in O(n); every score above it is kept, and of the scores
    tied with it only the needed number with the largest ids (trec_eval's tie rule). Only tied
    ids are compared, never sorted: BM25's k-th score is often 0, tied with most of the corpus.
    """
    n = len(scores)
    if k <= 0:
        return np.empty(0, dtype=np.intp)
    if k >= n:
        return np.arange(n)
    # np.partition slows down ~20x on a mass of equal values: partition only scores above the minimum
    low = scores.min()
    higher = scores[scores > low]
    kth = low if len(higher) < k else np.partition(higher, len(higher) - k)[len(higher) - k]
    above = np.flatnonzero(scores > kth)
    tied = np.flatnonzero(scores == kth)
    if rows is None:  # positions are corpus rows
        keep = heapq.nlargest(k - len(above), tied.tolist(), key=ids.__getitem__)
    else:
        tied_ids = [ids[j] for j in np.asarray(rows)[tied].tolist()]
        keep = tied[heapq.nlargest(k - len(above), range(len(tied)), key=tied_ids.__getitem__)]
    return np.concatenate([above, np.asarray(keep, dtype=np.intp)])


def top_k(ids: Sequence[str], scores: np.ndarray, k: int, rows: np.ndarray | None = None) -> dict[str, float]:
    """The k best of `scores` in trec_eval order, as {id: score} (arguments as `top_positions`)."""
    best = top_positions(ids, scores, k, rows)
    where = best if rows is None else np.asarray(rows)[best]
    return dict(ranked({ids[j]: float(scores[i]) for i, j in zip(best.tolist(), where.tolist())}))


def cut(run: Run, k: int) -> Run:
    """Each query's first k passages in trec_eval order."""
    return {qid: dict(ranked(scores)[:k]) for qid, scores in run.items()}


def write_trec(run: Run, path: str | os.PathLike[str], name: str) -> Path:
    """Write a TREC run file (qid Q0 docid rank score name), atomically; scores keep full precision."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with AtomicWriter(path) as handle:
        for qid in sorted(run):
            for rank, (pid, score) in enumerate(ranked(run[qid]), start=1):
                handle.write(f"{qid} Q0 {pid} {rank} {score!r} {name}\n")
    return path


def read_trec(path: str | os.PathLike[str]) -> Run:
    run: Run = {}
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 6:
                raise ComlqError(f"{path}:{lineno}: expected 6 columns (qid Q0 docid rank score name), "
                                 f"got {len(parts)}")
            try:
                run.setdefault(parts[0], {})[parts[2]] = float(parts[4])
            except ValueError:
                raise ComlqError(f"{path}:{lineno}: score '{parts[4]}' is not a number") from None
    return run
