"""Speed of the kg generator on the shipped sample: graph building, then items per second.

    .venv/bin/python benchmarks/bench_kg.py [--per-type 50] [--repeat 3] [--seed 13] [--passages FILE]

Graph building (extraction + networkx graph + indexes) and the corpus check's index are timed
separately from sampling; sampling includes wording, the item checks (witness sentences in the
text, answers checked against the corpus) and the type check.
Rates are given per wall-clock second and per CPU second of this process: on a shared machine
the second is the steadier number. Goal: at least 500 items per second. Run 1 is the one that
counts: the corpus check's caches are cold in it, as in `comlq generate`.

Measured 2026-12-02 (see docs/results.md): the sample, load average 0.5-1.1, run 1 3.4-5.0 s
(112-164 items/s; 49-50 before the speed-up of branch kgspeed2), best run 202-290 items/s;
ComLQ (--passages ../shared/data/comlq/corpus.jsonl --per-type 30), load 5.7-7.2, run 1 108-125
items per CPU second (11-12 before). Below the goal.
Measured again 2026-12-02 after branch kgspeed3, old and new code back to back: the sample, load
1.9-2.3, run 1 2.1-2.4 s (256-289 items/s wall and per CPU second; 271-280 before), best run
493-515 items/s (444-473 before); ComLQ, load 0.1-0.5, run 1 212-230 items/s (188-197 before), best
run 701-753 (490-535). Run 1 still below the goal: the corpus check's cold reading costs about 1.1 s.
Measured 2026-12-03, reading-16 against commit 17adb7d (reading-14) back to back, load 1.3-1.5: run 1
101-103 items/s (117 before), best run 143-152 (184): a slower machine that day; reading-16 costs ~12%.
Measured 2026-12-04 with the bounds check, load 1.2: the sample (671 items) run 1 47 items/s, best 180;
ComLQ (411 items) run 1 123, best 509; with the target's bounds lazy, the sample's run 1 59 items/s.
Below the goal: the bounds of every subtree are the cost.
"""

from __future__ import annotations

import argparse
import time

from pipeline.config import GenerateConfig
from pipeline.kg.complete import CorpusCheck
from pipeline.kg.generator import build_kg, generate_type, long_lived
from pipeline.passages import SAMPLE_PATH, load_passages
from pipeline.querytypes import TYPE_NAMES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-type", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--passages", default=str(SAMPLE_PATH), help="any passage source (default: the sample)")
    args = parser.parse_args()

    passages = load_passages(args.passages)
    wall, cpu = time.perf_counter(), time.process_time()
    kg = build_kg(passages)
    print(f"graph: {len(passages)} passages -> {kg.graph.number_of_nodes()} nodes, {kg.graph.number_of_edges()} edges "
          f"in {time.perf_counter() - wall:.2f} s wall, {time.process_time() - cpu:.2f} s CPU")

    wall, cpu = time.perf_counter(), time.process_time()
    checker = CorpusCheck(kg, passages)
    texts = {pid: p.text for pid, p in passages.items()}
    print(f"corpus check index: {time.perf_counter() - wall:.2f} s wall, {time.process_time() - cpu:.2f} s CPU")

    config = GenerateConfig(per_type=args.per_type, seed=args.seed)
    best_wall = best_cpu = first_cpu = 0.0
    with long_lived():  # as `comlq generate` samples
        for run in range(1, args.repeat + 1):
            wall, cpu = time.perf_counter(), time.process_time()
            count = sum(len(generate_type(kg, name, config, texts, checker)[0]) for name in TYPE_NAMES)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            best_wall, best_cpu, first_cpu = max(best_wall, count / wall), max(best_cpu, count / cpu), first_cpu or cpu
            print(f"run {run}: {count} items in {wall:.2f} s wall ({count / wall:.0f} items/s), "
                  f"{cpu:.2f} s CPU ({count / cpu:.0f} items per CPU second)")
    print(f"best: {best_wall:.0f} items/s wall, {best_cpu:.0f} items per CPU second (goal 500)")
    if args.repeat > 1:  # what the corpus check's caches, cold in run 1, cost
        print(f"run 1 took {first_cpu * best_cpu / count:.1f}x the CPU time of the best run")


if __name__ == "__main__":
    main()
