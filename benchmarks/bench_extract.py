"""Speed of the kg extractor: reading a corpus with spaCy into the extraction cache, then the cached rerun.

    .venv/bin/python benchmarks/bench_extract.py [--source /work/shared/data/comlq/corpus.jsonl]
        [--processes 2] [--batch-size 64] [--limit N]

The first run reads every passage into a fresh cache (a temporary folder); the second builds the
same facts from the cache alone. Goal: the 11,251-passage ComLQ corpus read in at most 3 minutes
on 2 cores (62.5 passages/s), the rerun in seconds. The machine's load average is printed with
the numbers: on a shared machine the rates are only comparable at a low load.
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
import time

from pipeline.kg.cache import ReadingCache, read_passages
from pipeline.kg.extract import extract
from pipeline.kg.nlp import load
from pipeline.passages import load_passages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default="/work/shared/data/comlq/corpus.jsonl")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--cache", default=None, help="keep the readings in this folder (default: a temporary one)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    passages = load_passages(args.source)
    if args.limit:
        passages = dict(list(passages.items())[: args.limit])
    load()  # the model's load time is not reading time
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory() as root:
        cache = ReadingCache(args.cache or root)
        wall = time.perf_counter()
        read_passages(list(passages.values()), cache, processes=args.processes, batch_size=args.batch_size)
        wall = time.perf_counter() - wall
        print(f"read {len(passages)} passages in {wall:.1f} s: {len(passages) / wall:.1f} passages/s "
              f"(processes={args.processes}, batch_size={args.batch_size}; goal 62.5/s); "
              f"load average after: {os.getloadavg()[0]:.2f}")
        wall = time.perf_counter()
        extraction = extract(passages, cache)
        print(f"cached rerun (graph facts from the cache): {time.perf_counter() - wall:.1f} s, "
              f"{len(extraction.facts)} facts")


if __name__ == "__main__":
    main()
