"""A slow fake encoder for the kill -9 tests of the embeddings cache, run as a child process:

    python tests/support/slow_encoder.py CACHE LOG TEXTS BATCH SLEEP [SHARD_ROWS]

It encodes TEXTS texts ("text 0", ...) in batches of BATCH through CachedEncoder, sleeping SLEEP
seconds per batch and appending each batch's size to LOG (how many were encoded before the kill).
"""

import sys
import time

import numpy as np

from retrieval.encoders import CachedEncoder

NAME = "slow-test-encoder"  # the cache folder; a rerun's encoder takes the same name to find it


class Slow:
    name = NAME

    def __init__(self, log: str, sleep: float) -> None:
        self.log, self.sleep = log, sleep

    def encode(self, texts):
        time.sleep(self.sleep)
        with open(self.log, "a") as log:
            log.write(f"{len(texts)}\n")
        return np.ones((len(texts), 4), dtype=np.float32) / 2


if __name__ == "__main__":
    cache, log, n, batch, sleep, *shard = sys.argv[1:]
    options = {"shard_rows": int(shard[0])} if shard else {}
    CachedEncoder(Slow(log, float(sleep)), cache, batch_size=int(batch), **options).encode(
        [f"text {i}" for i in range(int(n))], progress=False)
