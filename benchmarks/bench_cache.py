"""The embedding cache: a second evaluation with cached embeddings against the first, which encodes.

    .venv/bin/python benchmarks/bench_cache.py [--passages 2000] [--beir ../shared/data/comlq]

Builds a BEIR folder from the first N ComLQ passages (and the dev queries judged only on them)
in a temporary directory, then runs `comlq evaluate` (dense, itlr) twice with a fresh, empty
embedding cache. The encoding time is the time dense retrieval takes to index the corpus
(encoding in the first run, reading the cache in the second). Goal: second < 5% of first.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from pipeline.config import Config
from retrieval.evaluate import run_evaluation

COMLQ = Path(__file__).resolve().parents[2] / "shared" / "data" / "comlq"


def subset(beir: Path, out: Path, passages: int) -> tuple[int, int]:
    """Write the first `passages` passages and the dev queries judged only on them; (passages, queries)."""
    lines = (beir / "corpus.jsonl").read_text(encoding="utf-8").splitlines()[:passages]
    keep = {json.loads(line)["_id"] for line in lines}
    qrels: dict[str, list[str]] = {}
    rows = (beir / "qrels" / "dev.tsv").read_text(encoding="utf-8").splitlines()
    for row in rows[1:]:
        qid, pid, _ = row.split("\t")
        qrels.setdefault(qid, []).append(pid)
    judged = {qid for qid, pids in qrels.items() if set(pids) <= keep}
    (out / "qrels").mkdir(parents=True)
    (out / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    queries = [q for q in (beir / "queries.jsonl").read_text(encoding="utf-8").splitlines()
               if json.loads(q)["_id"] in judged]
    (out / "queries.jsonl").write_text("\n".join(queries) + "\n", encoding="utf-8")
    kept = [rows[0]] + [r for r in rows[1:] if r.split("\t")[0] in judged]
    (out / "qrels" / "dev.tsv").write_text("\n".join(kept) + "\n", encoding="utf-8")
    return len(lines), len(judged)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", type=Path, default=COMLQ)
    parser.add_argument("--passages", type=int, default=2000)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        beir = Path(tmp) / "beir"
        n_passages, n_queries = subset(args.beir, beir, args.passages)
        config = Config()
        config.evaluate.cache_dir = str(Path(tmp) / "cache")  # empty: the first run must encode
        runs = []
        for label in ("first", "second"):
            started = time.perf_counter()
            metrics = run_evaluation(beir, Path(tmp) / label, config, "dev", ["dense", "itlr"], progress=False)
            dense = metrics["retrievers"]["dense"]["timing"]
            texts = sum(r["timing"]["texts_encoded"] for r in metrics["retrievers"].values())
            runs.append((dense["index_s"], texts, time.perf_counter() - started))
            print(f"{label} evaluation: corpus encoding (dense index) {dense['index_s']:.2f} s, "
                  f"{texts} texts encoded, {runs[-1][2]:.1f} s in all ({n_passages} passages, {n_queries} queries)")
    ratio = runs[1][0] / runs[0][0]
    print(f"second / first encoding time: {100 * ratio:.2f}% (goal < 5%) -> {'PASS' if ratio < 0.05 else 'FAIL'}")


if __name__ == "__main__":
    main()
