"""Fixtures of the kg generator tests: a small hand-made film graph (tests/kg/fixtures/films.*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config import GenerateConfig
from pipeline.kg.graph import KnowledgeGraph, read_triples
from pipeline.passages import load_passages
from pipeline.records import Passage

FIXTURES = Path(__file__).parent / "fixtures"
PASSAGES = FIXTURES / "films.passages.jsonl"
TRIPLES = FIXTURES / "films.triples.jsonl"


@pytest.fixture(scope="session")
def passages() -> dict[str, Passage]:
    return load_passages(PASSAGES)


@pytest.fixture(scope="session")
def films(passages) -> KnowledgeGraph:
    return read_triples(TRIPLES, passages)


@pytest.fixture(scope="session")
def config():
    """GenerateConfig for the film graph; keyword arguments override."""
    def make(**overrides) -> GenerateConfig:
        return GenerateConfig(**({"per_type": 3, "seed": 1, "triples": str(TRIPLES)} | overrides))
    return make
