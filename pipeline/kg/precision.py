"""Hand-checking the built-in extractor: draw facts at random, judge them against the passage text, tabulate.

    python -m pipeline.kg.precision sample --source sample --source CORPUS --facts 100 --seed 1 --out FILE
    python -m pipeline.kg.precision table FILE   # docs/generators.md table, with 95% Wilson intervals

Each sampled line holds the fact (labels), the passage id, the passage's text and the sentence
that states the fact with its two mentions, and a `verdict` ("correct" or "wrong") with a `note`,
filled in by the person who checked it against the passage text alone (not the description,
not the graph). Facts are drawn uniformly from the union of the sources' facts (weak `mentions`
links excluded), so the figure is the precision of what the graph holds.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
from collections import defaultdict
from pathlib import Path

from scipy.stats import binomtest

from pipeline.errors import ComlqError
from pipeline.kg.extract import extract
from pipeline.passages import iter_passages
from pipeline.schemas import read_jsonl, write_jsonl

WEAK = {"mentions"}


def sample(sources: list[str], facts: int, seed: int, keep_descriptions: bool = False) -> list[dict]:
    """`facts` facts drawn at random from the graphs of `sources` (descriptions dropped unless kept)."""
    pool = []
    for source in sources:
        passages = {p.id: p if keep_descriptions else dataclasses.replace(p, description=None)
                    for p in iter_passages(source)}
        extraction = extract(passages)
        for fact in extraction.facts:
            if fact.relation not in WEAK:
                pool.append((source, passages, extraction.labels, fact))
    rows = []
    for source, passages, labels, fact in random.Random(seed).sample(pool, min(facts, len(pool))):
        evidence = fact.evidence[0]
        rows.append({"source": source, "subject": labels[fact.subject], "relation": fact.relation,
                     "object": labels[fact.object], "passage": evidence.passage,
                     "sentence": evidence.sentence, "subject_mention": evidence.subject_mention,
                     "object_mention": evidence.object_mention, "text": passages[evidence.passage].text,
                     "verdict": None, "note": None})
    return rows


def table(rows: list[dict]) -> dict[str, tuple[int, int]]:
    """relation -> (correct, judged); 'all' for the total."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        for key in (row["relation"], "all"):
            counts[key][0] += row["verdict"] == "correct"
            counts[key][1] += 1
    return {k: (c, n) for k, (c, n) in sorted(counts.items(), key=lambda kv: (kv[0] == "all", kv[0]))}


def wilson(correct: int, judged: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion: honest at small n and near 0 or 1, unlike the normal one."""
    ci = binomtest(correct, judged).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def table_rows(rows: list[dict]) -> list[str]:
    """The markdown rows of the docs table: relation, correct/judged, precision, 95% Wilson interval."""
    lines = []
    for relation, (correct, judged) in table(rows).items():
        low, high = wilson(correct, judged)
        lines.append(f"| `{relation}` | {correct}/{judged} | {correct / judged:.0%} | {low:.0%}–{high:.0%} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m pipeline.kg.precision")
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sample")
    s.add_argument("--source", action="append", default=None, help="passage source (repeatable; default: sample)")
    s.add_argument("--facts", type=int, default=100)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--out", required=True)
    t = sub.add_parser("table")
    t.add_argument("file")
    args = parser.parse_args()
    if args.command == "sample":
        try:
            write_jsonl(args.out, sample(args.source or ["sample"], args.facts, args.seed), None)
        except ComlqError as exc:  # a missing or bad source: one line, no traceback
            parser.error(str(exc))
    else:
        print("\n".join(table_rows(list(read_jsonl(Path(args.file), None)))))


if __name__ == "__main__":
    main()
