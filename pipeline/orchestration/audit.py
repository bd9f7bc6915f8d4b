"""`comlq review push|collect --beir FOLDER --split S`: audit an existing BEIR benchmark's qrels by
pooled judging in Label Studio.

This wires the evaluation stage (retrieval/: the BEIR reader, the shuffled corpus, the
retrievers) into the review stage (annotation/audit.py's plain functions, annotation/audit_round.py's
Label Studio round), which is why it lives in orchestration, like pool.py.

push:    check the folder and the split, reach the server, draw the sample (annotation.audit.stratified_sample),
         pool every retriever's top k on the corpus shuffled (retrieval/shuffle.py: no id or
         position can steer the pool), push one task per query, write audit/SPLIT/push.json
collect: read the votes of the audit's project, decide (annotation.audit.audit) and write
         qrels/SPLIT.audited.tsv, audit/SPLIT/audit.json and audit.md

Both write into the BEIR folder, or into `out` when given (required when the folder is read-only):
`out` then becomes a BEIR folder of its own, whose corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv
and logic labels are symbolic links to the audited folder's (copies where links are impossible),
so `comlq evaluate --beir OUT --qrels-variant audited` reads it like the original.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annotation.audit import audit, pool, stratified_sample, write_audit
from annotation.audit_round import AuditQuery, audit_task, collect_votes, display_order, push_audit
from pipeline.config import Config
from pipeline.errors import ComlqError
from pipeline.runfolder import BeirFolder
from pipeline.schemas import iter_jsonl, read_json, write_json

if TYPE_CHECKING:
    from retrieval.beir import BeirData

log = logging.getLogger(__name__)


def _writable(path: Path) -> bool:
    """A folder we may write to: its permission bits allow it (root passes os.access on anything)."""
    mode = path.stat().st_mode
    return bool(mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)) and os.access(path, os.W_OK)


def audit_folder(beir: str | Path, out: str | Path | None) -> BeirFolder:
    """Where the audit's files go: `out`, else the BEIR folder itself when it may be written to."""
    source = BeirFolder(beir)
    if out is not None and Path(out).absolute() != source.root.absolute():
        return BeirFolder(out)
    if not all(_writable(p) for p in (source.root, source.qrels_dir) if p.exists()):
        raise ComlqError(f"{source.root}: read-only; give --out FOLDER for the audit's files (it links to this "
                         "folder's corpus, queries and qrels, so `comlq evaluate --beir FOLDER` reads it)")
    return source


def link_source(source: BeirFolder, target: BeirFolder, split: str) -> None:
    """Make `target` a BEIR folder over `source`'s data: a link to each of its files for the split
    (a copy where the file system has no links). A file already there must be the same file."""
    if target.root.absolute() == source.root.absolute():
        return
    for original, there in zip(source.linked(split), target.linked(split)):
        if not original.is_file():
            continue
        if there.exists() or there.is_symlink():
            if not (there.exists() and os.path.samefile(there, original)):
                raise ComlqError(f"{there}: already there and not {original} (give another --out folder)")
            continue
        there.parent.mkdir(parents=True, exist_ok=True)
        try:
            there.symlink_to(original.resolve())
        except OSError:
            shutil.copyfile(original, there)


def pooled_rankings(data: BeirData, query_ids: Sequence[str], specs: Sequence[str], k: int, seed: int, config: Config,
                    progress: bool) -> dict[str, dict[str, list[str]]]:
    """retriever -> query id -> its top k passage ids, retrieved on the corpus shuffled with `seed`
    (opaque ids, random order) and named back; a retriever that cannot run is a one-line error."""
    from retrieval.base import ranked
    from retrieval.registry import Factory
    from retrieval.shuffle import shuffle_corpus

    shuffled, names = shuffle_corpus(data, seed)
    original = {opaque: pid for pid, opaque in names.items()}
    wanted = set(query_ids)
    queries = [q for q in shuffled.queries if q.id in wanted]
    factory = Factory(replace(config.evaluate, depth=k), config.llm, progress=progress)
    rankings = {}
    for spec in specs:
        try:
            retriever = factory.build(spec)
            retriever.index(shuffled.corpus)
            run = retriever.retrieve(queries, k)
        except ComlqError as exc:
            raise ComlqError(f"pool retriever '{spec}' failed: {exc}") from None
        rankings[spec] = {qid: [original[pid] for pid, _ in ranked(scores)[:k]] for qid, scores in run.items()}
        log.info("audit pool: %s ranked %d questions over %d passages", spec, len(queries), len(shuffled.corpus))
    return rankings


def _passages(folder: BeirFolder, ids: set[str]) -> dict[str, tuple[str, str]]:
    """passage id -> (title, text) of the passages a task shows."""
    found = {}
    for _, record in iter_jsonl(folder.corpus):
        pid = str(record.get("_id"))
        if pid in ids:
            found[pid] = (str(record.get("title") or "").strip(), str(record.get("text") or "").strip())
    return found


def audit_title(config: Config, beir: str | Path, split: str) -> str:
    return f"{config.review.project_title} audit: {BeirFolder(beir).root.absolute().name}/{split}"


def push_beir_audit(beir: str | Path, split: str, config: Config, *, out: str | Path | None = None,
                    queries: int | None = None, seed: int = 13, weights: Mapping[str, float] | None = None,
                    k: int | None = None, only_unjudged: bool = False, title: str | None = None,
                    progress: bool = True) -> dict[str, Any]:
    """Push an audit of `beir`'s split (module docstring); returns push.json's record."""
    from annotation.client import connect
    from retrieval.beir import load_beir

    data = load_beir(beir, split)  # no folder, no qrels, no such split: one line, before the server
    target = audit_folder(beir, out)
    specs = tuple(config.review.pool_retrievers)
    k = config.review.audit_pool_k if k is None else k
    if k < 1:
        raise ComlqError(f"--pool-k {k}: an audit pools each retriever's top k, k of 1 or more")
    if len(specs) < 2:
        raise ComlqError(f"pooling needs two or more retrievers, got {list(specs)} (--pool-retrievers)")
    sample = stratified_sample({q.id: q.type for q in data.queries}, queries, seed, weights)
    connect(config.review)  # a server that is down or a wrong token: one line, before the pooling's work
    rankings = pooled_rankings(data, sample, specs, k, seed, config, progress)
    pooled = pool(rankings, k)
    shown = {}
    for qid in sample:
        unjudged = [pid for pid in pooled.get(qid, {}) if pid not in data.qrels[qid]]
        ids = unjudged if only_unjudged else [*data.qrels[qid], *unjudged]
        if ids:
            shown[qid] = display_order(ids, qid, seed)
    by_id = {q.id: q for q in data.queries}
    texts = _passages(BeirFolder(beir), {pid for ids in shown.values() for pid in ids})
    tasks = [audit_task(AuditQuery(qid, by_id[qid].text, by_id[qid].type, by_id[qid].logical_form), ids, texts)
             for qid, ids in shown.items()]
    link_source(BeirFolder(beir), target, split)
    title = title or audit_title(config, beir, split)
    pushed = push_audit(config.review, title, tasks)
    record = {"beir": str(BeirFolder(beir).root.absolute()), "split": split, "project": title,
              "project_id": pushed.project_id, "url": config.review.url, "seed": seed, "pool_k": k,
              "pool_retrievers": list(specs), "only_unjudged": only_unjudged, "requested": queries,
              "weights": dict(weights or {}), "queries": list(shown), "nothing_to_judge": [q for q in sample
                                                                                          if q not in shown],
              "created": pushed.created, "existing": pushed.existing, "tasks": pushed.task_ids,
              "pool": {qid: pooled.get(qid, {}) for qid in sample}}
    target.audit(split).root.mkdir(parents=True, exist_ok=True)
    write_json(target.audit(split).push, record)
    return record


def collect_beir_audit(beir: str | Path, split: str, config: Config, *,
                       out: str | Path | None = None) -> dict[str, Any]:
    """Collect the audit pushed for `beir`'s split: write the audited qrels, audit.json and
    audit.md (module docstring); returns audit.json's record."""
    from retrieval.beir import load_beir

    data = load_beir(beir, split)
    target = audit_folder(beir, out)
    push_file = target.audit(split).push
    if not push_file.is_file():
        given = f" --out {target.root}" if target.root.absolute() != BeirFolder(beir).root.absolute() else ""
        raise ComlqError(f"{push_file}: nothing pushed for this audit yet (run `comlq review push --beir {beir} "
                         f"--split {split}{given}` first)")
    pushed = read_json(push_file)
    votes = collect_votes(config.review, pushed["project"])
    result = audit(data.qrels, votes.judgements, {q.id: q.type for q in data.queries}, queries=votes.complete,
                   passages=set(data.corpus.ids), raters=config.review.annotators_per_item,
                   about={"beir": pushed["beir"], "project": pushed["project"], "pending": votes.pending,
                          "comments": votes.comments, "pool_retrievers": pushed["pool_retrievers"],
                          "pool_k": pushed["pool_k"], "only_unjudged": pushed["only_unjudged"]})
    link_source(BeirFolder(beir), target, split)
    write_audit(target, split, result)
    return {"split": split, **result.report}
