"""Judging generated items by reading them: draw a seeded sample per type, then tabulate verdicts.

    python -m pipeline.kg.judge sample RUN/items.jsonl --passages FILE --per-type 4 --seed 101 --out SHEET
    python -m pipeline.kg.judge table SHEET            # the table of docs/generators.md

Each line of the sheet holds an item (question, logical form, answers, triples, witness facts), the
text of its evidence and violating passages, and five verdicts with a note, filled in by the person
who read it against the passage text alone:

- `fluent`: the question is fluent English a person would ask;
- `faithful_form`: the logical form says what the question says (same conditions, NOT on the same one);
- `correct_answers`: the answers are exactly what the passages (and the corpus, as far as the
  reader can tell) make true of the question: none wrong, none missing;
- `evidence_states_facts`: the evidence passages' text states every fact the answers rest on;
- `negation_removes_member`: negation types only (null for the others): a violating passage shows
  an entity that meets every positive condition, the worded class included, and is removed by the NOT.
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict
from pathlib import Path

from pipeline.errors import ComlqError
from pipeline.passages import load_passages
from pipeline.querytypes import NEGATION_TYPES, TYPE_NAMES
from pipeline.schemas import read_jsonl, write_jsonl

POINTS = ("fluent", "faithful_form", "correct_answers", "evidence_states_facts", "negation_removes_member")


def sample(items_path: str | Path, passages_path: str | Path, per_type: int, seed: int) -> list[dict]:
    passages = load_passages(passages_path)
    by_type: dict[str, list[dict]] = defaultdict(list)
    for item in read_jsonl(Path(items_path), "item"):
        by_type[item["type"]].append(item)
    rng = random.Random(seed)
    rows = []
    for type_name in TYPE_NAMES:
        for item in rng.sample(by_type[type_name], min(per_type, len(by_type[type_name]))):
            def text(pid: str) -> dict:
                return {"id": pid, "title": passages[pid].title, "text": passages[pid].text}

            rows.append({
                "id": item["id"], "type": item["type"], "question": item["question"],
                "logical_form": item["logical_form"], "answers": item["answers"], "triples": item["triples"],
                "facts": [{k: f[k] for k in ("subject", "relation", "object", "passage_id", "sentence")}
                          for f in item["facts"]],
                "evidence": [text(e["passage_id"]) for e in item["evidence"]],
                "violating": [text(pid) for pid in item["violating"]],
                "verdicts": {p: None for p in POINTS if p != "negation_removes_member" or type_name in NEGATION_TYPES},
                "note": None,
            })
    return rows


def table(rows: list[dict]) -> dict[str, tuple[int, int]]:
    """point -> (holds, judged)."""
    counts = {p: [0, 0] for p in POINTS}
    for row in rows:
        for point, verdict in row["verdicts"].items():
            counts[point][0] += verdict is True
            counts[point][1] += 1
    return {p: (held, judged) for p, (held, judged) in counts.items()}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m pipeline.kg.judge")
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sample")
    s.add_argument("items")
    s.add_argument("--passages", required=True)
    s.add_argument("--per-type", type=int, default=4)
    s.add_argument("--seed", type=int, default=101)
    s.add_argument("--out", required=True)
    t = sub.add_parser("table")
    t.add_argument("file")
    args = parser.parse_args()
    if args.command == "sample":
        try:
            write_jsonl(args.out, sample(args.items, args.passages, args.per_type, args.seed), None)
        except ComlqError as exc:  # a missing or bad file: one line, no traceback
            parser.error(str(exc))
    else:
        for point, (held, judged) in table(list(read_jsonl(Path(args.file), None))).items():
            if judged:  # a sheet without negation types judges no negation
                print(f"| {point} | {held}/{judged} | {held / judged:.0%} |")


if __name__ == "__main__":
    main()
