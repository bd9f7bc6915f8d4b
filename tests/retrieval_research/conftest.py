"""A tiny corpus and a hashed bag-of-words encoder (a real Encoder: texts sharing words are
similar), so the logical retriever is tested without loading a model."""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pytest

from retrieval.base import Corpus
from retrieval.encoders import CachedEncoder

DIM = 256


class HashedWords:
    name = "hashed-words"

    def encode(self, texts):
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % DIM] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)


@pytest.fixture()
def encoder() -> CachedEncoder:
    return CachedEncoder(HashedWords(), cache_dir=None)


@pytest.fixture()
def corpus() -> Corpus:
    # in corpus order; "louvre" continues the article of "paris", the others stand alone
    return Corpus.from_mapping({
        "paris": "Paris is the capital of France and its largest city.",
        "louvre": "The Louvre museum in the city holds the Mona Lisa.",
        "berlin": "Berlin is the capital of Germany.",
        "rivers": "Rivers of Europe include the Danube and the Rhine.",
        "madrid": "Madrid is the capital of Spain.",
    })
