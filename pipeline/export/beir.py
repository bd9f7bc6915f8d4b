"""The BEIR folder of an export.

    corpus.jsonl                  {"_id", "title", "text"}: every evidence, judged, violating, partial
                                  and source passage, plus N distractors drawn (seeded) from the pool
    queries.jsonl                 {"_id", "text", "type", "n_passages", "logical_form", "negations", "split"}
    qrels/{split}.tsv             query-id, corpus-id, score (1 or 2; unlisted: not relevant), BEIR header row
    violations/{split}.tsv        query-id, corpus-id, violates (1): the LSNC@K labels
    partial/{split}.tsv           query-id, corpus-id, partial (1): passages of entities that meet some
                                  but not all of an intersection's conditions (AND consistency)
    branches/{split}.tsv          query-id, corpus-id, branch (1, 2): for union queries, the evidence
                                  passages each branch of the union needs (OR consistency); a
                                  passage two branches need has a row for each

Everything is sorted by id, so the same rows and seed give byte-identical files.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pipeline.export.split import SPLITS
from pipeline.records import Passage
from pipeline.runfolder import BeirFolder
from pipeline.schemas import AtomicWriter, write_jsonl


def corpus_ids(needed: set[str], pool: Iterable[str], distractors: int, seed: int) -> list[str]:
    """The needed passages plus `distractors` others drawn from `pool` (all of them if fewer), sorted."""
    others = sorted(set(pool) - needed)
    drawn = random.Random(f"{seed}:distractors").sample(others, min(distractors, len(others)))
    return sorted(needed | set(drawn))


def _write_tsv(path: Path, header: tuple[str, ...], rows: Iterable[tuple[Any, ...]]) -> None:
    # Ids cannot hold tabs, line breaks or quotes (schemas/beir_corpus.schema.json), so no quoting.
    with AtomicWriter(path) as handle:
        for row in [header, *rows]:
            handle.write("\t".join(str(v) for v in row) + "\n")


def write_beir(folder: BeirFolder, rows_by_split: Mapping[str, list[dict[str, Any]]], corpus: list[Passage]) -> None:
    write_jsonl(folder.corpus, ({"_id": p.id, "title": p.title, "text": p.text}
                                          for p in sorted(corpus, key=lambda p: p.id)), "beir_corpus")
    queries = sorted(((split, row) for split, rows in rows_by_split.items() for row in rows),
                     key=lambda pair: pair[1]["id"])
    write_jsonl(folder.queries,
                ({"_id": row["id"], "text": row["question"], "type": row["type"], "n_passages": row["n_passages"],
                  "logical_form": row["logical_form"], "negations": row["negations"], "split": split}
                 for split, row in queries), "beir_query")
    for split in SPLITS:
        rows = sorted(rows_by_split.get(split, []), key=lambda r: r["id"])
        _write_tsv(folder.qrels(split), folder.QRELS_HEADER,
                   ((r["id"], g["passage_id"], g["grade"]) for r in rows for g in r["qrels"]))
        _write_tsv(folder.violations(split), folder.VIOLATIONS_HEADER,
                   ((r["id"], p, 1) for r in rows for p in sorted(r["violating"])))
        _write_tsv(folder.partial(split), folder.PARTIAL_HEADER,
                   ((r["id"], p, 1) for r in rows for p in sorted(r["partial"])))
        _write_tsv(folder.branches(split), folder.BRANCHES_HEADER,
                   ((r["id"], p, n) for r in rows for n, branch in enumerate(r["branches"], 1) for p in sorted(branch)))
