"""The pinned ComLQ numbers (benchmarks/expected/comlq_dev.json) are shuffled-corpus numbers,
and bench_comlq.py's check rejects file-order pins and values outside the tolerance."""

import json
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
from bench_comlq import EXPECTED, SEED, compare  # noqa: E402


def test_pinned_numbers_are_from_the_shuffled_corpus():
    pinned = json.loads(EXPECTED.read_text())
    assert pinned["shuffle_corpus"] == SEED
    assert {"bm25", "dense", "itlr", "logical"} <= set(pinned["nDCG@10"])


def test_compare_flags_file_order_pins_and_drift():
    rows = {"bm25": {"all": 0.706}}
    assert compare(rows, {"shuffle_corpus": SEED, "tolerance": 0.002, "nDCG@10": {"bm25": {"all": 0.7055}}}) == []
    drift = compare(rows, {"shuffle_corpus": SEED, "tolerance": 0.002, "nDCG@10": {"bm25": {"all": 0.70}}})
    assert drift == ["bm25 all: 0.706 (expected 0.7 +- 0.002)"]
    file_order = compare(rows, {"tolerance": 0.002, "nDCG@10": {"bm25": {"all": 0.706}}})
    assert file_order == [f"pinned with shuffle_corpus=None, measured with {SEED}"]
