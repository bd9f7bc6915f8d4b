"""Items per second of the LLM generator against the scripted server at 200 ms latency.

    .venv/bin/python benchmarks/bench_llm.py [--latency 0.2] [--concurrency 1 8 32] [--seconds 3]

The server runs in its own process (python -m tests.support.scripted_openai) and returns
scripted answers, not model output, so this measures the generator's plumbing: the SDK over
HTTP, the thread pool, the cache writes, parsing and checking. Every run uses a fresh cache,
so every item costs one request. Goal: at least 100 items/s at concurrency 32. On a busy
machine the numbers are CPU-bound: 'cpu s' and 'cpu ms/item' show the generator's own CPU time.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pipeline.config import Config
from pipeline.llm.generator import generate_llm
from pipeline.passages import SAMPLE_PATH, load_passages
from pipeline.querytypes import TYPE_NAMES

ROOT = Path(__file__).resolve().parents[1]  # the scripted server is test support: run from the repository root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--seconds", type=float, default=3.0, help="ideal run length per concurrency")
    args = parser.parse_args()

    server = subprocess.Popen([sys.executable, "-m", "tests.support.scripted_openai", "--port", "0",
                               "--latency", str(args.latency)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        url = server.stdout.readline().split(" at ")[1].split(" ")[0]
        passages = load_passages(SAMPLE_PATH)
        os.environ.setdefault("OPENAI_API_KEY", "unused-by-the-scripted-server")
        print(f"scripted server {url}, latency {args.latency * 1000:.0f} ms, {len(passages)} passages, 14 types")
        print(f"{'concurrency':>11} {'items':>6} {'seconds':>8} {'items/s':>8} {'planning':>8} {'after':>8} "
              f"{'ideal/s':>8} {'efficiency':>10} {'cpu s':>6} {'cpu ms/item':>11}")
        for concurrency in args.concurrency:
            ideal = concurrency / args.latency
            per_type = max(1, math.ceil(ideal * args.seconds / len(TYPE_NAMES)))
            config = Config()
            config.llm.base_url, config.llm.concurrency = url, concurrency
            config.generate.per_type = per_type
            with tempfile.TemporaryDirectory() as out:
                start, cpu = time.perf_counter(), time.process_time()
                result = generate_llm(passages, config, TYPE_NAMES, Path(out))
                seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            items = len(result.items)
            assert result.stats["llm"]["calls"] == items and not result.rejected, result.stats
            planning = result.stats["planning_seconds"]
            after = items / (seconds - planning)  # once the passage groups are planned
            print(f"{concurrency:>11} {items:>6} {seconds:>8.2f} {items / seconds:>8.1f} {planning:>8.2f} "
                  f"{after:>8.1f} {ideal:>8.1f} {after / ideal:>10.0%} {cpu:>6.2f} {cpu / items * 1000:>11.2f}")
        print("items/s: whole run; after: items/s once passages are grouped (planning); "
              "cpu s: CPU time of the generator process, planning included (the server has its own); "
              "cpu ms/item: the same per item, the measure that depends least on the load of a shared machine")
    finally:
        server.terminate()
        server.wait(timeout=10)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"scripted server CPU over all runs: {children.ru_utime + children.ru_stime:.2f} s")


if __name__ == "__main__":
    main()
