"""Encoding precision (bf16 fast path, cache keys per precision) and resuming a killed encoding."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from pipeline.errors import ComlqError
from retrieval import encoders
from retrieval.encoders import CachedEncoder, SentenceTransformerEncoder, resolve_precision
from tests.support.slow_encoder import NAME

ROOT = Path(__file__).resolve().parents[2]


def test_auto_precision_is_bf16_only_where_the_cpu_has_it(monkeypatch):
    monkeypatch.setattr(encoders, "native_bf16", lambda: True)
    assert resolve_precision("auto") == "bf16"
    assert resolve_precision("auto", device="cuda") == "fp32"
    monkeypatch.setattr(encoders, "native_bf16", lambda: False)
    assert resolve_precision("auto") == "fp32"
    assert resolve_precision("bf16") == "bf16"
    with pytest.raises(ComlqError, match="precision must be one of auto, fp32, bf16, int8, got 'fp16'"):
        resolve_precision("fp16")


class Counting:
    def __init__(self, inner):
        self.inner, self.texts = inner, 0
        self.name, self.precision, self.cache_key = inner.name, inner.precision, inner.cache_key

    def encode(self, texts):
        self.texts += len(texts)
        return self.inner.encode(texts)


def test_fp32_and_bf16_vectors_never_mix_in_the_cache(data, tmp_path):
    fp32 = Counting(SentenceTransformerEncoder(precision="fp32"))
    bf16 = Counting(SentenceTransformerEncoder(precision="bf16"))
    assert fp32.cache_key == encoders.DEFAULT_MODEL  # fp32 keeps the key caches were written under
    assert bf16.cache_key == f"{encoders.DEFAULT_MODEL}.bf16"
    texts = data.corpus.texts[:12]
    exact = CachedEncoder(fp32, tmp_path).encode(texts, progress=False)
    fast = CachedEncoder(bf16, tmp_path).encode(texts, progress=False)
    assert bf16.texts == 12  # the fp32 vectors in the same folder are not served as bf16
    assert CachedEncoder(fp32, tmp_path).cache.dir != CachedEncoder(bf16, tmp_path).cache.dir
    cosine = (exact * fast).sum(axis=1)
    assert cosine.min() > 0.995 and not np.array_equal(exact, fast)  # close, but really computed in bf16
    CachedEncoder(bf16, tmp_path).encode(texts, progress=False)
    assert bf16.texts == 12 and fp32.texts == 12  # each precision reads its own cache back


def test_kill_9_during_encoding_loses_at_most_one_shard(tmp_path):
    progress = tmp_path / "encoded.txt"
    child = subprocess.Popen([sys.executable, str(ROOT / "tests" / "support" / "slow_encoder.py"),
                              str(tmp_path / "cache"), str(progress), "400", "4", "0.05", "16"], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    shards = tmp_path / "cache" / NAME
    deadline = time.monotonic() + 60
    while len(list(shards.glob("shard-*.keys.json"))) < 3 and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.02)
    time.sleep(0.1)  # into the middle of the next shard
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    saved = len(list(shards.glob("shard-*.keys.json")))
    encoded_before = sum(int(n) for n in progress.read_text().split())
    assert saved >= 3 and encoded_before < 400  # killed during encoding, after some shards

    class Counting:
        name = NAME
        texts = 0

        def encode(self, texts):
            self.texts += len(texts)
            return np.ones((len(texts), 4), dtype=np.float32) / 2

    rerun = Counting()
    CachedEncoder(rerun, tmp_path / "cache", batch_size=4, shard_rows=16).encode(
        [f"text {i}" for i in range(400)], progress=False)
    assert rerun.texts == 400 - 16 * saved  # every saved shard is used
    assert encoded_before - 16 * saved <= 16  # what the kill lost: at most one shard
