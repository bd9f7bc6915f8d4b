"""The same seed gives the same bytes in another process: no choice may follow hash order (str
hashes change with PYTHONHASHSEED, so set iteration order does too)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # two generations on the shipped sample


def test_same_seed_same_bytes_across_processes(tmp_path: Path) -> None:
    outputs = []
    for hash_seed in ("7", "8"):
        out = tmp_path / f"run-{hash_seed}"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run([sys.executable, "-m", "pipeline.cli", "generate", "--generator", "kg", "--per-type", "50",
                        "--seed", "13", "--types", "3in,ip", "--allow-short", "--out", str(out)],
                       check=True, env=env, capture_output=True)
        outputs.append((out / "items.jsonl").read_bytes())
    assert outputs[0] == outputs[1]
