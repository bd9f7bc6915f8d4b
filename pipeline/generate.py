"""Generation stage: passages -> items.jsonl, rejected.jsonl, stats.json.

Two generators share this entry point and the output files: `kg` (offline, from a knowledge
graph built from the passages; `pipeline.kg`) and `llm` (subgraph-indicator prompts through an
OpenAI-compatible endpoint; `pipeline.llm`). Each returns a GenerationResult; this module
validates and writes it.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.config import Config, load_config
from pipeline.errors import ComlqError
from pipeline.passages import load_passages
from pipeline.querytypes import TYPE_NAMES
from pipeline.records import Item
from pipeline.schemas import write_json, write_jsonl

GENERATORS = ("kg", "llm")


@dataclass
class GenerationResult:
    items: list[Item] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)  # schemas/rejected
    stats: dict[str, Any] = field(default_factory=dict)


def generate(config: Config, passages_path: str | Path, out_dir: str | Path,
             types: tuple[str, ...] = TYPE_NAMES) -> GenerationResult:
    """Run the configured generator (config.generate.generator) and write its three files."""
    name = config.generate.generator
    passages = load_passages(passages_path)
    out_dir = Path(out_dir)
    if name == "kg":
        from pipeline.kg import generate_kg

        result = generate_kg(passages, config.generate, types)
    elif name == "llm":
        from pipeline.llm import generate_llm

        result = generate_llm(passages, config, types, out_dir)
    else:
        raise ComlqError(f"unknown generator {name!r}; expected one of {', '.join(GENERATORS)}")
    write_generation(result, out_dir)
    return result


def write_generation(result: GenerationResult, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    write_jsonl(out_dir / "items.jsonl", (item.to_dict() for item in result.items), "item")
    write_jsonl(out_dir / "rejected.jsonl", result.rejected, "rejected")
    write_json(out_dir / "stats.json", result.stats)


def _cli(args: argparse.Namespace) -> None:
    config = load_config(args.config)
    for key in ("generator", "per_type", "seed", "triples"):
        if getattr(args, key) is not None:
            setattr(config.generate, key, getattr(args, key))
    passages = args.passages
    if passages is None:  # the offline default: the shipped sample
        from pipeline.passages import SAMPLE_PATH

        passages = SAMPLE_PATH
    types = tuple(args.types.split(",")) if args.types else TYPE_NAMES
    unknown = [t for t in types if t not in TYPE_NAMES]
    if unknown:
        raise ComlqError(f"--types: unknown query type(s) {', '.join(unknown)}")
    result = generate(config, passages, args.out, types)
    print(f"wrote {len(result.items)} items and {len(result.rejected)} rejections to {args.out}")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("generate", help="generate query items (kg: offline; llm: OpenAI-compatible endpoint)")
    p.add_argument("--generator", choices=GENERATORS, default=None, help="default: from the configuration (kg)")
    p.add_argument("--per-type", type=int, default=None, help="items to generate per query type")
    p.add_argument("--passages", default=None, help="passage JSONL (default: the shipped sample)")
    p.add_argument("--triples", default=None, help="kg: a triples JSONL to use instead of the built-in extractor")
    p.add_argument("--types", default=None, help="comma-separated subset of query types (default: all 14)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--config", default=None, help="TOML configuration file")
    p.add_argument("--out", required=True, help="output folder")
    p.set_defaults(handler=_cli)
