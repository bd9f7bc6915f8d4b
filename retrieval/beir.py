"""Read a BEIR folder (paths from `pipeline.runfolder.BeirFolder`): corpus.jsonl, queries.jsonl,
qrels/{split}.tsv and, when present, the project's logic labels (each file has a header row):

    violations/{split}.tsv   query-id, corpus-id, violates (1/0)     passages that break the query's NOT
    partial/{split}.tsv      query-id, corpus-id[, partial (1/0)]    passages that satisfy only part of a conjunction
    branches/{split}.tsv     query-id, corpus-id, branch (a number)  the passages branch `branch` of a union needs

The label files are read by their header's column names, in any order (`passage-id` is taken
for `corpus-id`); a passage two branches need has a row for each.

queries.jsonl may carry the optional fields type, n_passages, logical_form and negations. ComLQ's type
values end in _1/_2/_3 (the number of evidence passages); they are split into the base type
and n_passages.
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.errors import ComlqError, quote
from pipeline.logical_form import Node, Not, Term, parse
from pipeline.runfolder import BeirFolder
from pipeline.schemas import iter_jsonl
from retrieval.base import Branches, Corpus, Qrels, Query, Violations

_TYPE = re.compile(r"^(?P<base>.+?)_(?P<n>[123])$")


@dataclass
class BeirData:
    path: Path
    split: str
    corpus: Corpus
    queries: list[Query]  # the queries judged in this split, in file order
    qrels: Qrels
    violations: Violations | None  # None when the folder has no violation labels for the split
    partial: Violations | None = None  # query -> passages satisfying only part of its conjunction; None: no labels
    branches: Branches | None = None  # query -> union branch -> the passages it needs; None: no labels
    shuffle_seed: int | None = None  # set by retrieval.shuffle: corpus permuted, passage ids opaque
    qrels_variant: str | None = None  # e.g. "audited": qrels/SPLIT.audited.tsv instead of qrels/SPLIT.tsv

    def describe(self) -> dict[str, Any]:
        shuffled = {"seed": self.shuffle_seed, "ids": "opaque"} if self.shuffle_seed is not None else None
        return {"beir": str(self.path), "split": self.split, "qrels_variant": self.qrels_variant,
                "queries": len(self.queries),
                "passages": len(self.corpus), "violation_labels": self.violations is not None,
                "partial_labels": self.partial is not None, "branch_labels": self.branches is not None,
                "shuffled": shuffled}


def _jsonl(path: Path, what: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(file:line, id, record) of each record; a missing or repeated `_id` is an error."""
    seen: set[str] = set()
    for where, record in iter_jsonl(path):
        if not isinstance(record, dict) or "_id" not in record:
            raise ComlqError(f"{where}: field '_id': is missing")
        record_id = str(record["_id"])
        if record_id in seen:
            raise ComlqError(f"{where}: duplicate {what} id '{record_id}'")
        seen.add(record_id)
        yield where, record_id, record


def _tsv(path: Path, columns: int, header: tuple[str, ...] | None = None) -> Iterator[tuple[str, list[str]]]:
    """Rows of a TSV file after its header, each with exactly `columns` fields. With `header` (the
    expected names), a first line whose last column is a number is a row, not a header: an error,
    as BEIR's readers (and this one) would drop it without a word."""
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        first = next(reader, None)
        if header and first and len(first) == len(header) and _number(first[-1]):
            raise ComlqError(f"{path}:1: no header line: the file starts with a row ({quote(chr(9).join(first))}); "
                             f"add the header line '{chr(9).join(header)}' (tab-separated), as BEIR's format has")
        for row in reader:
            if not row or not "".join(row).strip():
                continue
            where = f"{path}:{reader.line_num}"
            if len(row) != columns:
                raise ComlqError(f"{where}: expected {columns} tab-separated columns, got {len(row)}")
            yield where, row


def _number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def _int(value: str, where: str, column: str) -> int:
    try:
        return int(float(value))
    except ValueError:
        raise ComlqError(f"{where}: column '{column}': '{value}' is not a number") from None


def split_type(value: str | None) -> tuple[str | None, int | None]:
    """'2in_2' -> ('2in', 2); '2in' -> ('2in', None)."""
    if not value:
        return None, None
    match = _TYPE.match(value)
    return (match["base"], int(match["n"])) if match else (value, None)


def _nots(node: Node) -> int:
    if isinstance(node, Term):
        return 0
    if isinstance(node, Not):
        return 1 + _nots(node.child)
    return sum(_nots(child) for child in node.children)


def count_negations(query_type: str | None, logical_form: str | None) -> int | None:
    """NOT operators in the parsed logical form (not the word inside a quoted term); else, or when
    the form does not parse, the catalogue's count for the type; else unknown."""
    if logical_form:
        try:
            return _nots(parse(logical_form))
        except ComlqError:
            pass
    from pipeline.querytypes import CATALOGUE

    if query_type in CATALOGUE:
        return CATALOGUE[query_type].negations
    return None


def _query(where: str, record: dict[str, Any]) -> Query:
    text = record.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ComlqError(f"{where}: field 'text': is missing or empty")
    base, n_passages = split_type(record.get("type"))
    n_passages = n_passages or record.get("n_passages")  # ComLQ: type suffix; our exports: a field
    logical_form = record.get("logical_form") or None
    negations = record.get("negations")
    if negations is not None and not isinstance(negations, int):
        raise ComlqError(f"{where}: field 'negations': must be an integer")
    if negations is None:
        negations = count_negations(base, logical_form)
    return Query(id=str(record["_id"]), text=text, type=base, n_passages=n_passages,
                 logical_form=logical_form, negations=negations)


def load_corpus(path: Path) -> Corpus:
    """Passages in file order; a passage's document is its explicit `doc_id`, else its `title`."""
    ids: list[str] = []
    texts: list[str] = []
    documents: list[str] = []
    for _, pid, record in _jsonl(path, "passage"):
        title = str(record.get("title") or "").strip()
        text = str(record.get("text") or "").strip()
        ids.append(pid)
        # BEIR's convention for encoders: title, then text (ComLQ's texts already start with it)
        texts.append(f"{title} {text}" if title and not text.startswith(title) else text)
        documents.append(str(record.get("doc_id") or "").strip() or title)
    return Corpus(tuple(ids), tuple(texts), tuple(documents) if any(documents) else ())


def load_queries(path: Path, judged: set[str]) -> list[Query]:
    """The queries whose ids are in `judged`, in file order."""
    return [_query(where, record) for where, qid, record in _jsonl(path, "query") if qid in judged]


def load_qrels(path: Path) -> Qrels:
    qrels: Qrels = {}
    for where, (qid, pid, score) in _tsv(path, 3, BeirFolder.QRELS_HEADER):
        qrels.setdefault(qid, {})[pid] = _int(score, where, "score")
    return qrels


def load_violations(path: Path) -> Violations:
    violations: Violations = {}
    for where, (qid, pid, violates) in _tsv(path, 3, BeirFolder.VIOLATIONS_HEADER):
        violations.setdefault(qid, set())
        if _int(violates, where, "violates"):
            violations[qid].add(pid)
    return violations


def _named(path: Path, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> Iterator[tuple[str, dict]]:
    """Rows of a label TSV as {column: value}, columns found by the header's names."""
    with open(path, encoding="utf-8", newline="") as handle:
        header = [name.strip().lower() for name in next(csv.reader(handle, delimiter="\t"), [])]
    header = ["corpus-id" if name == "passage-id" else name for name in header]
    missing = [name for name in required if name not in header]
    if missing:
        raise ComlqError(f"{path}:1: header needs the columns {', '.join(required)} (missing: {', '.join(missing)})")
    keep = [name for name in (*required, *optional) if name in header]
    for where, row in _tsv(path, len(header)):
        yield where, {name: row[header.index(name)] for name in keep}


def load_partial(path: Path) -> Violations:
    partial: Violations = {}
    for where, row in _named(path, ("query-id", "corpus-id"), ("partial",)):
        partial.setdefault(row["query-id"], set())
        if _int(row.get("partial", "1"), where, "partial"):
            partial[row["query-id"]].add(row["corpus-id"])
    return partial


def load_branches(path: Path) -> Branches:
    branches: Branches = {}
    for where, row in _named(path, ("query-id", "corpus-id", "branch")):
        branch = str(_int(row["branch"], where, "branch"))
        branches.setdefault(row["query-id"], {}).setdefault(branch, set()).add(row["corpus-id"])
    return branches


def available_splits(path: str | os.PathLike[str]) -> list[str]:
    return BeirFolder(path).splits()


def _labels(path: Path, load, known: set[str]):
    """A label file's contents, or None when absent; every passage it names must be in the corpus."""
    if not path.is_file():
        return None
    labels = load(path)
    for qid, value in labels.items():
        pids = set().union(*value.values()) if isinstance(value, dict) else value
        missing = next(iter(sorted(pids - known)), None)
        if missing is not None:
            raise ComlqError(f"{path}: query '{qid}' names passage '{missing}', which is not in corpus.jsonl")
    return labels


def load_beir(path: str | os.PathLike[str], split: str, qrels_variant: str | None = None) -> BeirData:
    """The split's corpus, judged queries, qrels (`qrels_variant`: qrels/SPLIT.VARIANT.tsv, e.g.
    the audited ones) and logic labels."""
    folder = BeirFolder(path)
    if not folder.root.is_dir():
        raise ComlqError(f"{folder.root}: not a BEIR folder (no such directory)")
    qrels_path = folder.qrels(split, qrels_variant)
    if not folder.qrels(split).is_file():
        splits = ", ".join(folder.splits()) or "none"
        raise ComlqError(f"{folder.qrels(split)}: no qrels for split '{split}' (available: {splits})")
    if not qrels_path.is_file():
        raise ComlqError(f"{qrels_path}: no {qrels_variant} qrels for split '{split}'"
                         + (" (an audit writes them: `comlq review collect --beir`)" if qrels_variant == "audited"
                            else ""))
    qrels = load_qrels(qrels_path)
    if not qrels:
        raise ComlqError(f"{qrels_path}: no judged queries in split '{split}'")
    if not any(score > 0 for judged in qrels.values() for score in judged.values()):
        raise ComlqError(f"{qrels_path}: no judgement has a positive score (all {sum(map(len, qrels.values()))} are "
                         "<= 0), so no passage is relevant and every measure would be 0")
    corpus = load_corpus(folder.corpus)
    known = set(corpus.ids)
    for qid, judged in qrels.items():
        missing = next((pid for pid in judged if pid not in known), None)
        if missing is not None:
            raise ComlqError(f"{qrels_path}: query '{qid}' judges passage '{missing}', which is not in corpus.jsonl")
    queries = load_queries(folder.queries, set(qrels))
    missing_queries = set(qrels) - {q.id for q in queries}
    if missing_queries:
        raise ComlqError(f"{qrels_path}: {len(missing_queries)} judged queries are not in queries.jsonl "
                         f"(e.g. '{sorted(missing_queries)[0]}')")
    return BeirData(folder.root, split, corpus, queries, qrels,
                    violations=_labels(folder.violations(split), load_violations, known),
                    partial=_labels(folder.partial(split), load_partial, known),
                    branches=_labels(folder.branches(split), load_branches, known), qrels_variant=qrels_variant)
