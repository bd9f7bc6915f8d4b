"""What the outputs say must be true: the dataset card's table of generation attempts that
produced no query sums the records' `attempts` (one kg record stands for thousands of attempts).
"""

from __future__ import annotations

import json
from pathlib import Path


def test_card_sums_rejected_attempts(probe, review_run: Path, tmp_path: Path) -> None:
    rejected = [{"generator": "kg", "reason": "dead_end", "attempts": 9000},
                {"generator": "kg", "reason": "dead_end", "attempts": 475},
                {"generator": "llm", "reason": "bad_reply", "attempts": None}]
    (review_run / "rejected.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rejected))
    probe.cli("export", review_run, "--out", tmp_path / "export", "--distractors", "0", what="card attempts").ok()
    card = (tmp_path / "export" / "README.md").read_text()
    assert "| dead_end | 9475 |" in card and "| bad_reply | 1 |" in card, card[-1500:]
