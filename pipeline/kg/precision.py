"""Hand-checking the built-in extractor: draw a stratified sample of facts, then tabulate verdicts.

    python -m pipeline.kg.precision sample --per-relation 5 --seed 1 --out FILE   # to judge by hand
    python -m pipeline.kg.precision table FILE                                    # docs/generators.md table

Each sampled line holds the fact, its passage's title, description and text, and a `verdict`
("correct" or "wrong") with a `note`, filled in by the person who checked it.
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict
from pathlib import Path

from pipeline.kg.extract import extract
from pipeline.passages import SAMPLE_PATH, load_passages
from pipeline.schemas import read_jsonl, write_jsonl


def sample(per_relation: int, seed: int) -> list[dict]:
    passages = load_passages(SAMPLE_PATH)
    extraction = extract(passages)
    by_relation: dict[str, list] = defaultdict(list)
    for fact in extraction.facts:
        by_relation[fact.relation].append(fact)
    rng = random.Random(seed)
    rows = []
    for relation in sorted(by_relation):
        for fact in rng.sample(by_relation[relation], min(per_relation, len(by_relation[relation]))):
            passage = passages[fact.passages[0]]
            rows.append({"subject": extraction.labels[fact.subject], "relation": relation,
                         "object": extraction.labels[fact.object], "passage": passage.id, "title": passage.title,
                         "description": passage.description, "text": passage.text, "verdict": None, "note": None})
    return rows


def table(rows: list[dict]) -> dict[str, tuple[int, int]]:
    """relation -> (correct, judged); 'all' for the total."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        for key in (row["relation"], "all"):
            counts[key][0] += row["verdict"] == "correct"
            counts[key][1] += 1
    return {k: (c, n) for k, (c, n) in sorted(counts.items(), key=lambda kv: (kv[0] == "all", kv[0]))}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m pipeline.kg.precision")
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sample")
    s.add_argument("--per-relation", type=int, default=5)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--out", required=True)
    t = sub.add_parser("table")
    t.add_argument("file")
    args = parser.parse_args()
    if args.command == "sample":
        write_jsonl(args.out, sample(args.per_relation, args.seed), None)
    else:
        for relation, (correct, judged) in table(list(read_jsonl(Path(args.file), None))).items():
            print(f"| `{relation}` | {correct}/{judged} | {correct / judged:.0%} |")


if __name__ == "__main__":
    main()
