"""Generation stage: passages -> items.jsonl, rejected.jsonl, stats.json (and a generator's own files).

The generator is looked up by name in the registry (`pipeline.generator`): `kg` (offline, from a
knowledge graph built from the passages) and `llm` (subgraph-indicator prompts through an
OpenAI-compatible endpoint) are built in. It returns a GenerationResult; the stage records its
shortfalls (`pipeline.generator.note_shortfalls`) and the generator writes it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.config import Config
from pipeline.errors import ComlqError
from pipeline.generator import GenerationResult, describe_shortfalls, empty_types, get_generator, note_shortfalls
from pipeline.passages import load_passages
from pipeline.querytypes import TYPE_NAMES
from pipeline.schemas import check_output_folder


def check_types(types: tuple[str, ...]) -> tuple[str, ...]:
    unknown = [t for t in types if t not in TYPE_NAMES]
    if unknown:
        raise ComlqError(f"unknown query type(s) {', '.join(unknown)} (known: {' '.join(TYPE_NAMES)})")
    return types


def generate(config: Config, passages_path: str | Path, out_dir: str | Path,
             types: tuple[str, ...] = TYPE_NAMES) -> GenerationResult:
    """Run the configured generator (config.generate.generator) and write its files into `out_dir`."""
    generator = get_generator(config.generate.generator)
    check_types(types)
    out_dir = check_output_folder(out_dir)  # before any work
    result = generator.generate(load_passages(passages_path), config, types, out_dir)
    note_shortfalls(result, types, config.generate.per_type, generator.name)
    generator.write(result, out_dir)
    return result


def check_shortfalls(stats: dict[str, Any], where: str | Path, allow_short: bool = False) -> None:
    """Refuse a generation that left a type with no usable item at all, unless `allow_short`."""
    empty = empty_types(stats)
    if empty and not allow_short:
        raise ComlqError(f"{where}: no usable item of type {', '.join(empty)} (short: {describe_shortfalls(stats)}); "
                         "see the shortfall records in rejected.jsonl, give more passages, or pass --allow-short")
