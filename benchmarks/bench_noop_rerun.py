"""A second `comlq run` with nothing left to do, against the first run (issue 31: 27 s, 20 of them
to start the temporary Prefect API only to skip every stage; the goal is under 5 s).

    .venv/bin/python benchmarks/bench_noop_rerun.py [--out DIR] [--reruns 3] [--full]

The first run is the small line (60 sample passages, 2 items per type, BM25 only, short types
allowed) on a fresh folder, or with --full the line `make run` runs (`comlq run --out DIR`: minutes).
Then the same command again --reruns times. Prints each wall time, the median rerun, the ratio
rerun / first run and the load average (the machine is shared: compare ratios, not times).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SMALL = '[generate]\nallow_short = true\n\n[evaluate]\nretrievers = ["bm25"]\n'
GOAL_SECONDS = 5.0


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="run folder (default: a fresh temporary one, removed after)")
    parser.add_argument("--reruns", type=int, default=3)
    parser.add_argument("--full", action="store_true", help="the line of `make run` instead of the small one")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-noop-"))
    out = Path(args.out) if args.out else work / "run"
    argv = [sys.executable, "-m", "pipeline.cli", "run", "--out", str(out)]
    if not args.full:
        (work / "small.toml").write_text(SMALL)
        argv += ["--config", str(work / "small.toml"), "--limit", "60", "--per-type", "2"]
    try:
        first = timed(argv)
        print(f"first run: {first:.1f} s (load {os.getloadavg()[0]:.1f})")
        reruns = []
        for n in range(1, args.reruns + 1):
            reruns.append(timed(argv))
            print(f"rerun {n}, nothing to do: {reruns[-1]:.2f} s (load {os.getloadavg()[0]:.1f})")
        median = statistics.median(reruns)
        print(f"median rerun {median:.2f} s = {median / first:.3f} of the first run "
              f"({'under' if median < GOAL_SECONDS else 'OVER'} the goal of {GOAL_SECONDS:.0f} s)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
