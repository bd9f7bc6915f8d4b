"""A copy of a BEIR folder with the corpus lines permuted and every passage id renamed to an
opaque random string (qrels and violation labels mapped), so no corpus-position or id signal
survives (ComLQ keeps each query's gold passages in one consecutive block of ids).

    .venv/bin/python benchmarks/shuffled.py BEIR OUT [--seed 1] [--queries N]

--queries N keeps a seeded random sample of N queries in each qrels split (for readers too slow
to score every query on 2 cores).

Used by the reranker benchmarks until `comlq evaluate --shuffle-corpus SEED` is on main.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from pipeline.runfolder import BeirFolder


def shuffled_copy(beir: str | Path, out: str | Path, seed: int = 1) -> Path:
    source, target = BeirFolder(beir), BeirFolder(out)
    rng = random.Random(seed)
    lines = [line for line in source.corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    rng.shuffle(lines)
    renamed: dict[str, str] = {}
    records = []
    for line in lines:
        record = json.loads(line)
        renamed[str(record["_id"])] = record["_id"] = f"p{rng.getrandbits(64):016x}"
        records.append(json.dumps(record, ensure_ascii=False))
    target.root.mkdir(parents=True, exist_ok=True)
    target.corpus.write_text("\n".join(records) + "\n", encoding="utf-8")
    target.queries.write_text(source.queries.read_text(encoding="utf-8"), encoding="utf-8")
    labelled = [(source.qrels(s), target.qrels(s)) for s in source.splits()]
    labelled += [(source.violations(s), target.violations(s)) for s in source.splits()
                 if source.violations(s).is_file()]
    for src, dst in labelled:
        header, *rows = src.read_text(encoding="utf-8").splitlines()
        dst.parent.mkdir(parents=True, exist_ok=True)
        mapped = []
        for row in rows:
            if row.strip():
                qid, pid, value = row.split("\t")
                mapped.append(f"{qid}\t{renamed[pid]}\t{value}")
        dst.write_text("\n".join([header, *mapped]) + "\n", encoding="utf-8")
    return target.root


def sample_queries(beir: str | Path, count: int, seed: int = 1) -> None:
    """Cut each qrels split of `beir` (in place) to a seeded random sample of `count` queries."""
    folder = BeirFolder(beir)
    for split in folder.splits():
        header, *rows = folder.qrels(split).read_text(encoding="utf-8").splitlines()
        ids = sorted({row.split("\t")[0] for row in rows if row.strip()})
        keep = set(random.Random(seed).sample(ids, min(count, len(ids))))
        kept = [row for row in rows if row.strip() and row.split("\t")[0] in keep]
        folder.qrels(split).write_text("\n".join([header, *kept]) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("beir")
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--queries", type=int, default=None, help="keep a random sample of this many queries")
    args = parser.parse_args()
    out = shuffled_copy(args.beir, args.out, args.seed)
    if args.queries:
        sample_queries(out, args.queries, args.seed)
    print(out)


if __name__ == "__main__":
    main()
