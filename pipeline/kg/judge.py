"""Judging generated items by reading them: draw a seeded sample per type, then tabulate verdicts.

    python -m pipeline.kg.judge sample RUN/items.jsonl --passages FILE --per-type 4 --seed 101 --out SHEET
    python -m pipeline.kg.judge sample RUN/items.jsonl --passages FILE --per-type 2 --corpus comlq --out SHEET
    python -m pipeline.kg.judge table SHEET            # the table of docs/generators.md
    python -m pipeline.kg.judge keep SHEET --strip comlq --out FIXTURE   # the sheet without a corpus's text

Each line of the sheet holds an item (question, logical form, answers, triples, witness facts), the
text of its evidence and violating passages, and its verdicts with a note, filled in by a person who
read it against the passage text and searched the whole corpus (`--corpus` names it; a sheet may
mix corpora):

- `fluent`: the question is fluent English a person would ask;
- `faithful_form`: the logical form says what the question says (same conditions, NOT on the same one);
- `correct_answers`: every answer is right by the text (none wrong);
- `complete_answers`: no other entity the corpus states to meet the question is missing (rounds
  before issue 29 judged this inside `correct_answers`, and have no such point);
- `evidence_states_facts`: the evidence passages' text states every fact the answers rest on;
- `negation_removes_member`: negation types only (null for the others): a violating passage shows
  an entity that meets every positive condition, the worded class included, and is removed by the NOT;
- `negation_by_contrast`: negation types only: every answer passes the NOT because the text states a
  different value (another nationality, a year outside the decade), never because it is silent.
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

POINTS = ("fluent", "faithful_form", "correct_answers", "complete_answers", "evidence_states_facts",
          "negation_removes_member", "negation_by_contrast")
NEGATION_POINTS = ("negation_removes_member", "negation_by_contrast")
ALL = "every check"  # the table's row of items that pass every point judged of them


def sample(items_path: str | Path, passages_path: str | Path, per_type: int, seed: int,
           corpus: str | None = None) -> list[dict]:
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
                **({"corpus": corpus} if corpus else {}),
                "id": item["id"], "type": item["type"], "question": item["question"],
                "logical_form": item["logical_form"], "answers": item["answers"], "triples": item["triples"],
                "facts": [{k: f[k] for k in ("subject", "relation", "object", "passage_id", "sentence")}
                          for f in item["facts"]],
                "evidence": [text(e["passage_id"]) for e in item["evidence"]],
                "violating": [text(pid) for pid in item["violating"]],
                "verdicts": {p: None for p in POINTS if p not in NEGATION_POINTS or type_name in NEGATION_TYPES},
                "note": None,
            })
    return rows


def table(rows: list[dict]) -> dict[str, tuple[int, int]]:
    """point -> (holds, judged), for the points the sheet judges, and ALL: the items passing every one."""
    counts = {p: [0, 0] for p in (*POINTS, ALL)}
    for row in rows:
        for point, verdict in row["verdicts"].items():
            counts[point][0] += verdict is True
            counts[point][1] += 1
        counts[ALL][0] += all(v is True for v in row["verdicts"].values())
        counts[ALL][1] += 1
    return {p: (held, judged) for p, (held, judged) in counts.items() if judged}


def table_lines(rows: list[dict]) -> list[str]:
    """The markdown table of a sheet: each point overall and per corpus, with 95% Wilson intervals."""
    from pipeline.kg.precision import wilson

    corpora = sorted({r.get("corpus") for r in rows if r.get("corpus")})
    scopes = [("all", rows)] + [(c, [r for r in rows if r.get("corpus") == c]) for c in corpora]
    lines = ["| point | " + " | ".join(name for name, _ in scopes) + " |", "|---|" + "---:|" * len(scopes)]
    tables = [table(part) for _, part in scopes]
    for point in tables[0]:
        cells = []
        for counts in tables:
            held, judged = counts.get(point, (0, 0))
            low, high = wilson(held, judged) if judged else (0.0, 0.0)
            cells.append(f"{held}/{judged} ({low:.0%}–{high:.0%})" if judged else "–")
        lines.append(f"| `{point}` | " + " | ".join(cells) + " |")
    return lines


def keep(rows: list[dict], strip: set[str]) -> list[dict]:
    """The sheet as kept in the repo: the passages' text of the `strip` corpora left out (their
    facts' sentences stay, as the precision sheet keeps ComLQ's)."""
    def bare(passages: list[dict]) -> list[dict]:
        return [{k: v for k, v in p.items() if k != "text"} for p in passages]

    return [row | {"evidence": bare(row["evidence"]), "violating": bare(row["violating"])}
            if row.get("corpus") in strip else row for row in rows]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m pipeline.kg.judge")
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sample")
    s.add_argument("items")
    s.add_argument("--passages", required=True)
    s.add_argument("--per-type", type=int, default=4)
    s.add_argument("--seed", type=int, default=101)
    s.add_argument("--corpus", help="name of the corpus the items come from (a sheet may mix corpora)")
    s.add_argument("--out", required=True)
    t = sub.add_parser("table")
    t.add_argument("file")
    k = sub.add_parser("keep")
    k.add_argument("file")
    k.add_argument("--strip", action="append", default=[], help="a corpus whose passage text stays out")
    k.add_argument("--out", required=True)
    args = parser.parse_args()
    try:
        if args.command == "sample":
            write_jsonl(args.out, sample(args.items, args.passages, args.per_type, args.seed, args.corpus), None)
        elif args.command == "keep":
            write_jsonl(args.out, keep(list(read_jsonl(Path(args.file), None)), set(args.strip)), None)
        else:
            print("\n".join(table_lines(list(read_jsonl(Path(args.file), None)))))
    except ComlqError as exc:  # a missing or bad file: one line, no traceback
        parser.error(str(exc))


if __name__ == "__main__":
    main()
