"""Fixtures of the kg generator tests: a small hand-made film graph (tests/kg/fixtures/films.*), and
the done-when run on the shipped sample (a few seconds; for the tests marked slow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config import GenerateConfig
from pipeline.generator import GenerationResult
from pipeline.kg.generator import generate_kg
from pipeline.kg.graph import KnowledgeGraph, read_triples
from pipeline.passages import SAMPLE_PATH, load_passages
from pipeline.querytypes import TYPE_NAMES
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
    """GenerateConfig for the film graph (no cap on a name's share: 17 passages hold few names);
    keyword arguments override."""
    def make(**overrides) -> GenerateConfig:
        return GenerateConfig(**({"per_type": 3, "seed": 1, "triples": str(TRIPLES), "max_entity_share": 1.0}
                                 | overrides))
    return make


@pytest.fixture(scope="session")
def sample_result() -> GenerationResult:
    return generate_kg(load_passages(SAMPLE_PATH), GenerateConfig(per_type=50, seed=13), TYPE_NAMES)
