"""Training examples for the reranker and the bi-encoder, from what the generator knows about
each item of an export's split (never from ComLQ or NevIR).

A group is one question with one positive passage (listed first) and its negatives:

    positive    an evidence passage (qrels grade > 0)
    retrieved   a passage of the first stage's (BM25's) top k that is not judged for the item:
                the generic negative, present in every variant
    violating   meets the positive conditions and breaks the NOT (the item's `violating`)
    partial     meets only some conjuncts (the item's `partial`, when the export has it)
    twin        the positive with the clause that states the item's fact negated by rule
                (retrieval/negation.py), e.g. "Multan is not a city in the Punjab province"

With twins, two groups of two are added: the question with the positive above its twin, and the
twin question ("places that are not located in Punjab ...") with the twin passage above the
original, so the model must read the negation on both sides (only that pair: any other passage may
meet the twin question). Among seven negatives in one group a twin taught almost nothing (held-out
twins ranked below their original 49% of the time after two epochs); as pairs of their own, 96%.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pipeline.config import TrainConfig, choices_of
from pipeline.errors import ComlqError
from pipeline.kg.verbalize import plural
from pipeline.runfolder import ExportFolder, RunFolder
from retrieval.base import Corpus, Query
from retrieval.negation import find_mention, twin

# the optional kinds (violating, partial, twins); positives and retrieved negatives are always there
KINDS = choices_of(TrainConfig, "kinds")
# Relations a passage does not state in a clause of its own (a title named anywhere, a topic
# label): negating the clause in front of such a mention would flip an unrelated statement.
NO_CLAUSE = frozenset({"mentions", "mentioned_in", "topic", "topic_of"})
PER_KIND = 2  # at most this many negatives of one labelled kind per group


@dataclass(frozen=True)
class Example:
    id: str  # a corpus passage id; a twin's is the original's id + "~not"
    text: str
    label: int  # 1: relevant to the group's question
    kind: str  # positive | retrieved | violating | partial | twin


@dataclass
class Group:
    query_id: str
    question: str
    examples: list[Example] = field(default_factory=list)  # the positive first

    def to_dict(self) -> dict[str, Any]:
        return {"query_id": self.query_id, "question": self.question, "examples": [asdict(e) for e in self.examples]}


def export_folder(path: str | Path) -> ExportFolder:
    """An export folder, or a run folder holding one (RUN/export)."""
    path = Path(path)
    for folder in (ExportFolder(path), RunFolder(path).export):
        if folder.beir.corpus.is_file() and folder.data.is_dir():
            return folder
    raise ComlqError(f"{path}: not an export folder (expected beir/corpus.jsonl and data/*.parquet, "
                     "as `comlq export` writes them)")


def read_rows(export: ExportFolder, split: str) -> list[dict[str, Any]]:
    """The exported items of one split (the Parquet rows: question, qrels, violating, triples, ...)."""
    import pyarrow.parquet as pq

    path = export.parquet(split)
    if not path.is_file():
        raise ComlqError(f"{path}: the export has no {split} split")
    return pq.read_table(path).to_pylist()


def positives(row: dict[str, Any]) -> list[str]:
    return [g["passage_id"] for g in row.get("qrels") or row["evidence"] if g["grade"] > 0]


def mentions(row: dict[str, Any]) -> list[str]:
    """The named ends of the item's facts ("Punjab", "city"): where a twin negates a clause."""
    names = [end for t in row.get("triples") or [] if t["relation"] not in NO_CLAUSE
             for end in (t["subject"], t["object"]) if not end.startswith("?")]
    return list(dict.fromkeys(names))


def question_twin(question: str, mention: str) -> str | None:
    """The question with the condition naming `mention` (or its plural: "cities") negated."""
    for form in (mention, plural(mention)):
        if find_mention(question, form) is not None:
            return twin(question, form)
    return None


def passage_twin(row: dict[str, Any], text: str) -> tuple[str, str] | None:
    """(mention, twin text) for the first fact of the item that the passage states, if any."""
    for mention in mentions(row):
        negated = twin(text, mention)
        if negated is not None:
            return mention, negated
    return None


def build_groups(rows: Sequence[dict[str, Any]], corpus: Corpus, retrieved: dict[str, list[str]],
                 kinds: Iterable[str] = KINDS, negatives: int = TrainConfig.negatives,
                 seed: int = 13) -> list[Group]:
    """One group per (item, positive passage), plus the twin pairs; deterministic for a seed.

    retrieved: item id -> the first stage's ranking of passage ids (best first).
    """
    kinds = set(kinds)
    unknown = kinds - set(KINDS)
    if unknown:
        raise ComlqError(f"unknown training example kind(s) {', '.join(sorted(unknown))} (known: {', '.join(KINDS)})")
    texts = dict(zip(corpus.ids, corpus.texts))
    rng = random.Random(seed)
    groups: list[Group] = []
    for row in rows:
        relevant = set(positives(row))
        labelled = {kind: [p for p in row.get(kind) or [] if p in texts and p not in relevant]
                    for kind in ("violating", "partial")}
        pool = [p for p in retrieved.get(row["id"], []) if p not in relevant and p in texts
                and not any(p in ids for ids in labelled.values())]
        for pid in positives(row):
            if pid not in texts:
                continue
            group = Group(row["id"], row["question"], [Example(pid, texts[pid], 1, "positive")])
            for kind, ids in labelled.items():
                if kind in kinds:
                    group.examples += [Example(p, texts[p], 0, kind) for p in rng.sample(ids, min(PER_KIND, len(ids)))]
            found = passage_twin(row, texts[pid]) if "twins" in kinds else None
            if found:
                mention, negated = found
                group.examples.append(Example(f"{pid}~not", negated, 0, "twin"))
                groups.append(Group(f"{row['id']}~pair", row["question"], [group.examples[0], group.examples[-1]]))
                asked = question_twin(row["question"], mention)
                if asked:
                    groups.append(Group(f"{row['id']}~not", asked, [Example(f"{pid}~not", negated, 1, "positive"),
                                                                    Example(pid, texts[pid], 0, "twin")]))
            fill = rng.sample(pool[:2 * negatives], min(len(pool), 2 * negatives))  # from the top, shuffled
            room = max(0, negatives + 1 - len(group.examples))
            group.examples += [Example(p, texts[p], 0, "retrieved") for p in fill[:room]]
            groups.append(group)
    return groups


def retrieve_for(rows: Sequence[dict[str, Any]], corpus: Corpus, k: int) -> dict[str, list[str]]:
    """BM25's top k for each row's question (the first stage the reranker will read)."""
    from retrieval.base import ranked
    from retrieval.bm25 import BM25Retriever

    bm25 = BM25Retriever()
    bm25.index(corpus)
    run = bm25.retrieve([Query(row["id"], row["question"]) for row in rows], k)
    return {qid: [pid for pid, _ in ranked(scores)] for qid, scores in run.items()}


def counts(groups: Iterable[Group]) -> dict[str, int]:
    """Examples per kind (and groups), for the model card."""
    tally: dict[str, int] = {"groups": 0}
    for group in groups:
        tally["groups"] += 1
        for example in group.examples:
            tally[example.kind] = tally.get(example.kind, 0) + 1
    return tally


def pairs(groups: Iterable[Group]) -> Iterator[tuple[str, str, int]]:
    for group in groups:
        for example in group.examples:
            yield group.question, example.text, example.label
