"""The reranker's quality: ComLQ dev with the corpus shuffled and ids renamed (nDCG@10 overall,
without and with NOT, and per negation type), the training-example ablation, the bi-encoder
fine-tune, and paired accuracy on negated twins built from the shipped sample.

    .venv/bin/python benchmarks/bench_rerank_quality.py [--export runs/default/export]
        [--models work/rerank-models] [--beir ../shared/data/comlq] [--seed 1] [--skip-dense]

Models are trained on EXPORT's train split (its validation split chooses w) into MODELS/<variant>
unless they are there already:
    positives    positives + BM25-retrieved negatives only
    +violating   + the items' violating passages
    +partial     + passages meeting only some conjuncts (when the export labels them)
    +twins       + negated twins (the default model)
    dense        the fine-tuned bi-encoder (`comlq train dense`)
Nothing is tuned on ComLQ: it is only measured. The twin pairs come from EXPORT's test split,
minus every passage the training groups used; a pair counts only if both questions rank their
own passage above the other (NevIR's paired accuracy).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from pipeline.config import Config, TrainConfig
from retrieval.beir import load_beir, load_corpus
from retrieval.evaluate import run_evaluation
from retrieval.rerank import CrossEncoderScorer
from retrieval.train import train_dense, train_reranker
from retrieval.train_data import export_folder, passage_twin, positives, question_twin, read_rows

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_comlq import COLUMNS, table_rows  # noqa: E402 - the same table as the ComLQ benchmark
from shuffled import shuffled_copy  # noqa: E402

ROOT = Path(__file__).resolve().parent
VARIANTS = {"positives": (), "+violating": ("violating",), "+partial": ("violating", "partial"),
            "+twins": ("violating", "partial", "twins")}


def twin_pairs(export, used: set[str]) -> list[dict[str, str]]:
    """(q1, p1, q2, p2) from the test split: p2 is p1 with the fact's clause negated, q2 asks for it."""
    texts = dict(zip(*(lambda c: (c.ids, c.texts))(load_corpus(export.beir.corpus))))
    pairs, seen = [], set()
    for row in read_rows(export, "test"):
        for pid in positives(row):
            if pid in used or pid not in texts or (row["question"], pid) in seen:
                continue
            found = passage_twin(row, texts[pid])
            asked = question_twin(row["question"], found[0]) if found else None
            if asked:
                seen.add((row["question"], pid))
                pairs.append({"id": pid, "q1": row["question"], "p1": texts[pid], "q2": asked, "p2": found[1]})
    return pairs


def paired_accuracy(score, pairs: list[dict[str, str]]) -> float:
    """Share of pairs where q1 ranks p1 above p2 and q2 ranks p2 above p1 (a tie fails)."""
    flat = [(p[q], p[d]) for p in pairs for q, d in (("q1", "p1"), ("q1", "p2"), ("q2", "p2"), ("q2", "p1"))]
    s = np.asarray(score(flat)).reshape(-1, 4)
    return float(np.mean((s[:, 0] > s[:, 1]) & (s[:, 2] > s[:, 3])))


def bm25_pair_scorer(export, pairs: list[dict[str, str]]):
    """BM25 scores of (question, passage) pairs over the export's corpus plus the twins."""
    from retrieval.base import Corpus
    from retrieval.bm25 import BM25Retriever

    corpus = load_corpus(export.beir.corpus)
    extra = {p["p2"] for p in pairs} - set(corpus.texts)
    texts = list(corpus.texts) + sorted(extra)
    bm25 = BM25Retriever()
    bm25.index(Corpus(tuple(f"d{i}" for i in range(len(texts))), tuple(texts)))
    row = {text: i for i, text in enumerate(texts)}
    return lambda flat: [float(bm25.term_scores([q], np.array([row[d]]))[0, 0]) for q, d in flat]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export", default="runs/default/export")
    parser.add_argument("--models", default="work/rerank-models")
    parser.add_argument("--beir", default=str(ROOT.parent.parent / "shared" / "data" / "comlq"))
    parser.add_argument("--split", default="dev")
    parser.add_argument("--seed", type=int, default=1, help="corpus shuffle seed")
    parser.add_argument("--k", type=int, default=30, help="passages reranked per query")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="which ablation variants")
    parser.add_argument("--skip-dense", action="store_true")
    parser.add_argument("--out", default=None, help="folder for reports and the twin pairs (default: temporary)")
    args = parser.parse_args()

    export = export_folder(args.export)
    models = Path(args.models)
    train = TrainConfig()
    trained = {}
    for name in args.variants.split(","):
        path = models / name.lstrip("+")
        if not (path / "comlq.json").is_file():
            started = time.perf_counter()
            train_reranker(export.root, path, replace(train, kinds=VARIANTS[name]))
            print(f"trained {name} in {time.perf_counter() - started:.0f} s", flush=True)
        trained[name] = path
    if not args.skip_dense and not (models / "dense" / "comlq.json").is_file():
        train_dense(export.root, models / "dense", train)

    out = Path(args.out or tempfile.mkdtemp(prefix="bench-rerank-"))
    beir = shuffled_copy(args.beir, out / "shuffled", args.seed)
    types = {q.id: q.type for q in load_beir(beir, args.split).queries}
    config = Config().with_overrides({"evaluate.split": args.split})
    specs = {"bm25": "bm25", **{name: f"rerank(first=bm25,k={args.k},model={path})" for name, path in trained.items()}}
    per_query, timing = {}, {}
    for name, spec in specs.items():
        started = time.perf_counter()
        run_evaluation(beir, out / "report" / name.lstrip("+"), config, retrievers=[spec], progress=False)
        timing[name] = time.perf_counter() - started
        per_query[name] = json.loads((out / "report" / name.lstrip("+") / "per_query.json").read_text())[spec]
    if not args.skip_dense:
        for name, model in (("dense", None), ("dense fine-tuned", str(models / "dense"))):
            cfg = config.with_overrides({"evaluate.model": model})
            run_evaluation(beir, out / "report" / name.replace(" ", "-"), cfg, retrievers=["dense"], progress=False)
            report = out / "report" / name.replace(" ", "-")
            per_query[name] = json.loads((report / "per_query.json").read_text())["dense"]

    rows = table_rows(per_query, types)
    print(f"\nnDCG@10 on ComLQ {args.split}, corpus shuffled (seed {args.seed}), ids renamed; "
          f"{len(types)} queries; rerank k={args.k}")
    width = max(map(len, rows)) + 2
    shown = [c for c in COLUMNS if not c.startswith("half")]
    print("retriever".ljust(width) + "".join(c.rjust(8) for c in shown))
    for name, row in rows.items():
        print(name.ljust(width) + "".join(f"{row.get(c, float('nan')):8.3f}" for c in shown))
    print("\nseconds per evaluation: " + ", ".join(f"{n} {s:.0f}" for n, s in timing.items()))

    used = {e["id"].removesuffix("~not") for path in trained.values()
            for line in (path / "train.jsonl").read_text().splitlines() for e in json.loads(line)["examples"]}
    pairs = twin_pairs(export, used)
    (out / "twin_pairs.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pairs))
    print(f"\nnegated-twin pairs from {export.root}'s test split, disjoint from the training groups: {len(pairs)} "
          f"(written to {out / 'twin_pairs.jsonl'}); paired accuracy (a coin flip scores 0.25):")
    print(f"  bm25: {paired_accuracy(bm25_pair_scorer(export, pairs), pairs):.3f}")
    for name, path in trained.items():
        print(f"  {name}: {paired_accuracy(CrossEncoderScorer(path, None, progress=False).score, pairs):.3f}")
    best = max((n for n in rows if n != "bm25"), key=lambda n: rows[n]["all"])
    base, ours = rows["bm25"], rows[best]
    negation = [c for c in COLUMNS if c in ("2in", "3in", "inp", "pin", "pni")]
    print(f"\ndone-when ({best} against bm25): all {ours['all'] - base['all']:+.3f} (goal +0.05), "
          f"NOT {ours['NOT'] - base['NOT']:+.3f} (goal +0.05), "
          + ", ".join(f"{c} {ours[c] - base[c]:+.3f}" for c in negation) + " (goal > 0 each)")


if __name__ == "__main__":
    main()
