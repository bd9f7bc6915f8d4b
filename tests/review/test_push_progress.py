"""A push that speaks: pooled judging shows its progress on a terminal as `comlq run` does, and the
dense pool's encoding of the passages shows its bar before the first batch is encoded (so a first
push with an empty embedding cache says what it does at once, not minutes later), then its rate
and the time left after each model batch of 64 passages. No server needed; the model is replaced
by a recorder of what the terminal showed when each batch was encoded."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from pipeline.config import Config
from pipeline.passages import SAMPLE_PATH, iter_passages, load_passages
from pipeline.schemas import read_jsonl


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def redraw_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """tqdm redraws at most every 0.1 s of real time; the test wants every update drawn."""
    from tqdm import tqdm

    class Eager(tqdm):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, mininterval=0, **kwargs)

    monkeypatch.setattr("pipeline.progress.tqdm", Eager)


def test_pooling_and_the_encoding_show_progress_before_the_first_batch_is_encoded(tmp_path, make_run, monkeypatch):
    from pipeline.orchestration.pool import pooled_candidates

    run = make_run(tmp_path / "run")
    items = [i for i in read_jsonl(run / "items.jsonl", "item") if i["check"]["ok"]]
    passages = load_passages(run / "passages.jsonl") | {p.id: p for p in iter_passages(str(SAMPLE_PATH), 300)}
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    shown: list[str] = []  # the terminal as it was when each batch was sent to the model

    def encode(self, texts):
        shown.append(terminal.getvalue())
        vectors = np.random.default_rng(len(shown)).normal(size=(len(texts), 8)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    monkeypatch.setattr("retrieval.encoders.SentenceTransformerEncoder.encode", encode)
    config = Config()
    config.evaluate.cache_dir = str(tmp_path / "empty-cache")  # nothing encoded before
    pooled_candidates(items, passages, config)

    first = shown[0]  # before any passage was encoded
    assert "pooled judging:  50%" in first and "1/2 retriever" in first and "dense: indexing 312 passages" in first
    assert re.search(r"encoding passages \(sentence-transformers/all-MiniLM-L6-v2, \w+\):\s+0%.*0/312", first)
    later = shown[1]  # after the first model batch (64 texts): how fast, and how long is left
    assert re.search(r"encoding passages .*64/312 \[[0-9:]+<[0-9:]+, +[0-9.]+\w? ?text/s\]", later)
    assert "pooled judging: 100%" in terminal.getvalue()
