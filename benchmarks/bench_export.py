"""How well and how fast the export splits: synthetic items with hub passages, and optionally a
real run folder exported end to end.

    .venv/bin/python benchmarks/bench_export.py [--items 5000] [--passages 30000] [--zipf 0.7] [--seed 13]
    .venv/bin/python benchmarks/bench_export.py --run runs/default      # also export that run

Synthetic items draw 1-3 source passages with Zipf-like popularity (weight 1/rank^zipf), so
popular passages join many items into large leakage groups, as popular entities do in kg output
(`comlq generate --per-type 50` on the sample: 700 items, 192 groups, the largest 401 items;
zipf 0.7 gives 700 items, 285 groups, the largest 312). Printed: the groups,
each split's share against its ratio, the largest per-type share error, the types each split
holds, and items per second of the split (and of the whole export with --run).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections import Counter
from pathlib import Path

from pipeline.config import ExportConfig
from pipeline.export import export
from pipeline.export.split import SPLITS, SplitUnit, assign_splits, leakage_groups
from pipeline.querytypes import TYPE_NAMES

RATIOS = (0.7, 0.1, 0.2)


def synthetic_units(items: int, passages: int, zipf: float, seed: int) -> list[SplitUnit]:
    rng = random.Random(seed)
    weights = [1 / (rank + 1) ** zipf for rank in range(passages)]
    units = []
    for k in range(items):
        n = rng.choice((1, 2, 3))
        chosen = frozenset(f"p{i}" for i in rng.choices(range(passages), weights, k=n))
        units.append(SplitUnit(f"q{k}", rng.choice(TYPE_NAMES), len(chosen), chosen))
    return units


def report_split(units: list[SplitUnit], seed: int) -> None:
    groups = leakage_groups(units)
    start = time.perf_counter()
    split_of = assign_splits(units, RATIOS, seed)
    seconds = time.perf_counter() - start
    sizes = Counter(split_of.values())
    print(f"{len(units)} items, {len(groups)} leakage groups, largest {max(map(len, groups))} items")
    print(f"split: {seconds:.2f} s, {len(units) / seconds:,.0f} items/s")
    for split, ratio in zip(SPLITS, RATIOS):
        in_split = [u for u in units if split_of[u.id] == split]
        types = Counter(u.type for u in in_split)
        total = Counter(u.type for u in units)
        error = max(abs(types[t] / total[t] - ratio) for t in total)
        print(f"  {split:<10} share {sizes[split] / len(units):.3f} (ratio {ratio}), "
              f"largest per-type share error {error:.3f}, types {len(types)}/{len(total)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--passages", type=int, default=30000)
    parser.add_argument("--zipf", type=float, default=0.7, help="popularity skew of the passages (0: uniform)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--run", type=Path, default=None, help="a run folder to export end to end")
    args = parser.parse_args()
    report_split(synthetic_units(args.items, args.passages, args.zipf, args.seed), args.seed)
    if args.run:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            result = export(args.run, Path(tmp) / "export", ExportConfig(seed=args.seed))
            seconds = time.perf_counter() - start
        print(f"export of {args.run}: {result.describe()}")
        print(f"export: {seconds:.2f} s, {sum(result.splits.values()) / seconds:,.0f} items/s")


if __name__ == "__main__":
    main()
