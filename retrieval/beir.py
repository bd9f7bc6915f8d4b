"""Read a BEIR folder: corpus.jsonl, queries.jsonl, qrels/{split}.tsv and, when present,
violations/{split}.tsv (the project's export: header "query-id<TAB>corpus-id<TAB>violates").

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

from pipeline.errors import ComlqError
from pipeline.logical_form import Node, Not, Term, parse
from pipeline.runfolder import BeirFolder
from pipeline.schemas import iter_jsonl
from retrieval.base import Corpus, Qrels, Query, Violations

_TYPE = re.compile(r"^(?P<base>.+?)_(?P<n>[123])$")


@dataclass
class BeirData:
    path: Path
    split: str
    corpus: Corpus
    queries: list[Query]  # the queries judged in this split, in file order
    qrels: Qrels
    violations: Violations | None  # None when the folder has no violation labels for the split

    def describe(self) -> dict[str, Any]:
        return {"beir": str(self.path), "split": self.split, "queries": len(self.queries),
                "passages": len(self.corpus), "violation_labels": self.violations is not None}


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


def _tsv(path: Path, columns: int) -> Iterator[tuple[str, list[str]]]:
    """Rows of a TSV file after its header, each with exactly `columns` fields."""
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(reader, None)  # header
        for row in reader:
            if not row or not "".join(row).strip():
                continue
            where = f"{path}:{reader.line_num}"
            if len(row) != columns:
                raise ComlqError(f"{where}: expected {columns} tab-separated columns, got {len(row)}")
            yield where, row


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
    ids: list[str] = []
    texts: list[str] = []
    for _, pid, record in _jsonl(path, "passage"):
        title = (record.get("title") or "").strip()
        text = (record.get("text") or "").strip()
        ids.append(pid)
        # BEIR's convention for encoders: title, then text (ComLQ's texts already start with it)
        texts.append(f"{title} {text}" if title and not text.startswith(title) else text)
    return Corpus(tuple(ids), tuple(texts))


def load_queries(path: Path, judged: set[str]) -> list[Query]:
    """The queries whose ids are in `judged`, in file order."""
    return [_query(where, record) for where, qid, record in _jsonl(path, "query") if qid in judged]


def load_qrels(path: Path) -> Qrels:
    qrels: Qrels = {}
    for where, (qid, pid, score) in _tsv(path, 3):
        qrels.setdefault(qid, {})[pid] = _int(score, where, "score")
    return qrels


def load_violations(path: Path) -> Violations:
    violations: Violations = {}
    for where, (qid, pid, violates) in _tsv(path, 3):
        violations.setdefault(qid, set())
        if _int(violates, where, "violates"):
            violations[qid].add(pid)
    return violations


def available_splits(path: str | os.PathLike[str]) -> list[str]:
    return BeirFolder(path).splits()


def load_beir(path: str | os.PathLike[str], split: str) -> BeirData:
    folder = BeirFolder(path)
    if not folder.root.is_dir():
        raise ComlqError(f"{folder.root}: not a BEIR folder (no such directory)")
    qrels_path = folder.qrels(split)
    if not qrels_path.is_file():
        splits = ", ".join(folder.splits()) or "none"
        raise ComlqError(f"{qrels_path}: no qrels for split '{split}' (available: {splits})")
    qrels = load_qrels(qrels_path)
    if not qrels:
        raise ComlqError(f"{qrels_path}: no judged queries in split '{split}'")
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
    violations_path = folder.violations(split)
    violations = load_violations(violations_path) if violations_path.is_file() else None
    return BeirData(folder.root, split, corpus, queries, qrels, violations)
