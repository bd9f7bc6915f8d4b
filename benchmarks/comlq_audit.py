"""Audit a BEIR benchmark's qrels by pooled judging (ComLQ dev first): draw the sample readers judge.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/comlq_audit.py draw [--beir ../shared/data/comlq] \
        [--seed 20261205] [--per-type 4] [--per-negation-type 8] [--k 10] --out packets.jsonl
    PYTHONPATH=$PWD .venv/bin/python benchmarks/comlq_audit.py apply SHEET... --out AUDITED_BEIR
    PYTHONPATH=$PWD .venv/bin/python benchmarks/comlq_audit.py draw --beir RUN/export/beir --split test \
        --items RUN/items.jsonl --per-type 2 --per-negation-type 2 --out packets.jsonl   # a run's own export

Draws a stratified sample of ComLQ dev: `--per-type` queries of each positive type and
`--per-negation-type` of each negation type (2in 3in inp pin pni), twice as many by default. For
each it pools the top `--k` of BM25 and dense (all-MiniLM-L6-v2) over the corpus shuffled and
renamed (seed 1), so no corpus position or id range can steer the pool, and writes one packet per
query: the question, ComLQ's reference answer, and every pooled or gold passage with its text,
its ComLQ label (None: unlabelled) and the ranks each retriever gave it. The packets hold ComLQ's
text and stay out of the repository; readers write a sheet of ids, grades and notes only.

`apply` lays the readers' judgements over ComLQ's qrels with `annotation.audit` (the functions
`comlq review collect --beir` uses): OUT becomes a BEIR folder over ComLQ's files with
`qrels/dev.audited.tsv` and `audit/dev/audit.json`, for `comlq evaluate --beir OUT --qrels-variant
audited`; the merged sheet (ids, grades, flags, notes) is kept as benchmarks/judged/comlq_audit.jsonl.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from pathlib import Path

from annotation.audit import pool
from pipeline.config import load_config
from pipeline.orchestration.audit import pooled_rankings
from retrieval.beir import BeirData, load_beir

NEGATION = ("2in", "3in", "inp", "pin", "pni")
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "comlq"


def stratified(data: BeirData, per_type: int, per_negation_type: int, seed: int) -> list[str]:
    """Query ids, `per_type` of each positive type and `per_negation_type` of each negation type."""
    by_type: dict[str, list[str]] = defaultdict(list)
    for query in data.queries:
        by_type[query.type or "?"].append(query.id)
    rng = random.Random(seed)
    chosen: list[str] = []
    for qtype in sorted(by_type):
        want = per_negation_type if qtype in NEGATION else per_type
        chosen += rng.sample(by_type[qtype], min(want, len(by_type[qtype])))
    return chosen


def draw(args: argparse.Namespace) -> None:
    data = load_beir(args.beir, args.split)
    raw = {}
    with open(Path(args.beir) / "queries.jsonl", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            raw[str(record["_id"])] = record
    texts = dict(zip(data.corpus.ids, data.corpus.texts))
    if args.items:  # a run's own export: its queries carry no answers, its items do
        for line in open(args.items, encoding="utf-8"):
            item = json.loads(line)
            raw.setdefault(item["id"], {})["answer"] = item["answers"]
    chosen = stratified(data, args.per_type, args.per_negation_type, args.seed)
    # the pooling `comlq review push --beir` does: each retriever's top k over the corpus shuffled and renamed
    rankings = pooled_rankings(data, chosen, args.retrievers.split(","), args.k, 1, load_config(None), False)
    pooled = defaultdict(dict, pool(rankings, args.k))  # a query no retriever answered pools nothing
    by_id = {q.id: q for q in data.queries}
    with open(args.out, "w", encoding="utf-8") as out:
        for qid in chosen:
            gold = data.qrels.get(qid, {})
            best = {p: min(pooled[qid].get(p, {"-": 99}).values()) for p in set(pooled[qid]) | set(gold)}
            ids = sorted(best, key=lambda p: (best[p], p))
            out.write(json.dumps({
                "query_id": qid, "type": raw[qid].get("type"), "question": by_id[qid].text,
                "answer": raw[qid].get("answer", raw[qid].get("answers")),
                "passages": [{"passage_id": p, "comlq_grade": gold.get(p), "ranks": dict(pooled[qid].get(p, {})),
                              "text": texts[p]} for p in ids],
            }, ensure_ascii=False) + "\n")
    unlabelled = sum(1 for q in chosen for p in pooled[q] if p not in data.qrels.get(q, {}))
    print(f"{len(chosen)} queries; {sum(len(pooled[q]) for q in chosen)} pooled passages, {unlabelled} without a "
          f"label; wrote {args.out}")


def apply(args: argparse.Namespace) -> None:
    """Reader sheets -> the audited qrels of the sampled queries, audit.json and the kept fixture."""
    from annotation.audit import Judgement, audit, write_audit
    from pipeline.orchestration.audit import link_source
    from pipeline.runfolder import BeirFolder

    data = load_beir(args.beir, args.split)
    records = [json.loads(line) for sheet in args.sheets for line in open(sheet, encoding="utf-8") if line.strip()]
    # the audit's "invented" label is a passage that answers as written about an invented entity
    judgements = [Judgement.from_dict(r | {"invented": bool(r.get("invented")) and r["grade"] > 0}) for r in records]
    queries = list(dict.fromkeys(str(r["query_id"]) for r in records))
    types = {q.id: q.type for q in data.queries}
    about = {"beir": args.beir, "pool": "top 10 of bm25 and dense, corpus shuffled (seed 1)",
             "judged_by": f"readers of the passage text ({Path(args.fixture).name})"}
    result = audit(data.qrels, judgements, types, queries=queries, passages=set(data.corpus.ids), raters=2,
                   about=about)
    link_source(BeirFolder(args.beir), BeirFolder(args.out), args.split)
    for path in write_audit(args.out, args.split, result):
        print(f"wrote {path}")
    keep = ("query_id", "type", "passage_id", "comlq_grade", "grade", "invented", "negation", "reference", "reader",
            "note")
    Path(args.fixture).parent.mkdir(parents=True, exist_ok=True)
    with open(args.fixture, "w", encoding="utf-8") as out:
        for r in sorted(records, key=lambda r: (str(r["query_id"]).zfill(12), r["passage_id"], r["reader"])):
            out.write(json.dumps({k: r.get(k) for k in keep}, ensure_ascii=False) + "\n")
    overall = result.report["overall"]
    print(f"{len(queries)} queries, {overall['judged']} passages decided: {overall['missed_relevant']} relevant "
          f"passages without a label, {overall['gold_judged_nonrelevant']} gold passages not relevant; "
          f"kept {args.fixture}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    d = sub.add_parser("draw", help="the stratified sample and its pooled passages, as reading packets")
    d.add_argument("--beir", default=str(SHARED))
    d.add_argument("--split", default="dev")
    d.add_argument("--seed", type=int, default=20261205)
    d.add_argument("--per-type", type=int, default=4)
    d.add_argument("--per-negation-type", type=int, default=8)
    d.add_argument("--k", type=int, default=10)
    d.add_argument("--retrievers", default="bm25,dense")
    d.add_argument("--items", help="the run's items.jsonl, for the answers of an export's queries")
    d.add_argument("--out", required=True)
    a = sub.add_parser("apply", help="reader sheets -> audited qrels, audit.json, and the sheet kept in the repo")
    a.add_argument("sheets", nargs="+")
    a.add_argument("--beir", default=str(SHARED))
    a.add_argument("--split", default="dev")
    a.add_argument("--out", required=True, help="a BEIR folder over --beir with the audited qrels")
    a.add_argument("--fixture", default=str(Path(__file__).parent / "judged" / "comlq_audit.jsonl"))
    args = parser.parse_args()
    {"draw": draw, "apply": apply}[args.verb](args)


if __name__ == "__main__":
    main()
