"""What BM25 ranks above ComLQ's gold passages on its negation questions: draw the sample a reader judges.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/comlq_distractors.py [--beir ../shared/data/comlq] [--seed 20261204]

Draws 40 negation questions (2in, 3in, inp, pin, pni) of ComLQ dev at random and writes, for each, the
question, its reference answer and gold passages, and the first two LLM-written passages in BM25's top 10
(ComLQ's README: ids 17975-21250 are its LLM-written hard negatives; an id range is used here only to
describe the benchmark, never by a retriever). A reader then judges each distractor against the question
as written: does it state an entity meeting every positive condition, does it meet or break the NOT,
would a reader who trusts it take it as an answer (benchmarks/judged/comlq_negation_distractors.jsonl,
docs/results.md). The sheet keeps ids, verdicts and short notes only: ComLQ's text stays out of the repo.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from retrieval.base import ranked
from retrieval.beir import load_beir
from retrieval.bm25 import BM25Retriever

NEGATION = ("2in", "3in", "inp", "pin", "pni")
LLM_WRITTEN = range(17975, 21251)  # ComLQ's README


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "comlq"))
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--out", default="comlq_distractors.jsonl")
    args = parser.parse_args()

    data = load_beir(args.beir, "dev")
    raw = {json.loads(line)["_id"]: json.loads(line) for line in open(Path(args.beir) / "queries.jsonl")}
    texts = dict(zip(data.corpus.ids, data.corpus.texts))
    bm25 = BM25Retriever()
    bm25.index(data.corpus)
    negated = [q for q in data.queries if raw[q.id]["type"].split("_")[0] in NEGATION]
    sample = random.Random(args.seed).sample(negated, args.questions)
    run = bm25.retrieve(sample, 10)
    share = []
    with open(args.out, "w", encoding="utf-8") as out:
        for q in sample:
            top = [pid for pid, _ in ranked(run[q.id])[:10]]
            llm = [pid for pid in top if int(pid) in LLM_WRITTEN]
            share.append(len(llm) / len(top))
            out.write(json.dumps({
                "query_id": q.id, "type": raw[q.id]["type"], "question": q.text, "answer": raw[q.id].get("answer"),
                "gold": [texts[p] for p in data.qrels[q.id]],
                "gold_ranks": sorted(top.index(p) + 1 if p in top else 99 for p in data.qrels[q.id]),
                "distractors": [{"passage_id": p, "bm25_rank": top.index(p) + 1, "text": texts[p]} for p in llm[:2]],
            }, ensure_ascii=False) + "\n")
    print(f"{len(sample)} negation questions; LLM-written passages are {sum(share) / len(share):.0%} of BM25's "
          f"top 10; wrote {args.out}")


if __name__ == "__main__":
    main()
