"""Dense encoding precision side by side: passages/s and nDCG@10 on ComLQ dev of fp32 torch, bf16
(torch CPU autocast) and int8 (torch dynamic quantization), measured in one run.

    .venv/bin/python benchmarks/bench_dense.py [--beir ../shared/data/comlq] [--sample 256] [--rounds 3]
                                               [--precisions fp32,bf16,int8] [--cache DIR]

Speed: `--sample` passages drawn (seeded) from the corpus, encoded without cache by each
precision in interleaved rounds (the machine is shared: interleaving spreads the load over all),
model loading excluded; the median passages/s per precision and its ratio to fp32.
Quality: `comlq evaluate --retrievers dense --shuffle-corpus 1 --precision P` on the whole
split, through the embedding cache (`--cache`, default the usual one: the first run of a
precision encodes the corpus); nDCG@10, its difference to fp32 and the mean overlap of each
query's top 10 with fp32's. `uptime` is printed before and after: other jobs share the 2 cores.
Goal (issue 15): the fast path >= 2x fp32's passages/s with nDCG@10 within 0.005 of fp32.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from pipeline.config import Config
from pipeline.runfolder import BeirFolder, ReportFolder
from retrieval.base import read_trec
from retrieval.beir import load_corpus
from retrieval.encoders import SentenceTransformerEncoder, native_bf16
from retrieval.evaluate import run_evaluation

ROOT = Path(__file__).resolve().parent
GOAL_SPEEDUP, GOAL_NDCG = 2.0, 0.005


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def speed(texts: list[str], precisions: list[str], rounds: int) -> dict[str, float]:
    """Median passages/s of each precision over interleaved rounds."""
    encoders = {p: SentenceTransformerEncoder(precision=p) for p in precisions}
    for encoder in encoders.values():
        encoder.encode(texts[:8])  # load (and quantize) the model outside the clock
    seconds: dict[str, list[float]] = {p: [] for p in precisions}
    for _ in range(rounds):
        for precision, encoder in encoders.items():
            started = time.perf_counter()
            encoder.encode(texts)
            seconds[precision].append(time.perf_counter() - started)
    return {p: len(texts) / statistics.median(s) for p, s in seconds.items()}


def quality(beir: str, split: str, precision: str, cache: str | None, out: Path) -> tuple[float, dict]:
    config = Config()
    config.evaluate.precision = precision
    config.evaluate.shuffle_corpus = 1
    if cache:
        config.evaluate.cache_dir = cache
    metrics = run_evaluation(beir, out, config, split, ["dense"], progress=True)
    run = read_trec(ReportFolder(out).trec("dense"))
    return metrics["retrievers"]["dense"]["overall"]["nDCG@10"], run


def overlap(run: dict, reference: dict, k: int = 10) -> float:
    def top(scores: dict) -> set[str]:
        return {pid for pid, _ in sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:k]}
    return statistics.mean(len(top(run[q]) & top(reference[q])) / k for q in reference)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", default=str(ROOT.parent.parent / "shared" / "data" / "comlq"))
    parser.add_argument("--split", default="dev")
    parser.add_argument("--sample", type=int, default=256, help="passages per speed round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--precisions", default="fp32,bf16,int8")
    parser.add_argument("--cache", default=None, help="embedding cache folder (default: the usual one)")
    parser.add_argument("--skip-quality", action="store_true")
    args = parser.parse_args()
    precisions = args.precisions.split(",")
    assert precisions[0] == "fp32", "fp32 is the reference and comes first"

    print(f"native bf16 on this CPU: {native_bf16()}")
    print(f"before: {uptime()}")
    corpus = load_corpus(BeirFolder(args.beir).corpus)
    texts = random.Random(7).sample(list(corpus.texts), args.sample)
    rates = speed(texts, precisions, args.rounds)
    print(f"after speed: {uptime()}")
    print(f"\nencoding {args.sample} ComLQ passages (median of {args.rounds} interleaved rounds, batch 64, 2 cores):")
    for p in precisions:
        print(f"  {p:5} {rates[p]:7.1f} passages/s   ratio to fp32 {rates[p] / rates['fp32']:.2f}")
    if args.skip_quality:
        return
    with tempfile.TemporaryDirectory() as tmp:
        results = {p: quality(args.beir, args.split, p, args.cache, Path(tmp) / p) for p in precisions}
    print(f"after quality: {uptime()}")
    base, base_run = results["fp32"]
    print(f"\ndense nDCG@10 on ComLQ {args.split}, corpus shuffled (seed 1):")
    for p in precisions:
        ndcg, run = results[p]
        ok = rates[p] / rates["fp32"] >= GOAL_SPEEDUP and abs(ndcg - base) <= GOAL_NDCG
        goal = "" if p == "fp32" else f"   goal {'PASS' if ok else 'FAIL'}"
        print(f"  {p:5} nDCG@10 {ndcg:.4f}   diff {ndcg - base:+.4f}   top-10 overlap with fp32 "
              f"{overlap(run, base_run):.3f}   speed x{rates[p] / rates['fp32']:.2f}{goal}")


if __name__ == "__main__":
    main()
