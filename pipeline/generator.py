"""What every generator is: the `Generator` protocol, its result, and the registry of generators.

A generator turns passages into items of some query types. It is one package plus one
registration line: `register_generator("name", factory)` (or a `comlq.generators` entry point
of an installed distribution). The stage (`pipeline.generate`), the CLI and the flows find it
here by name and ask it what they need to know:

- `prepare_batch`: passages per preparation task (0: none); `prepare` fills the generator's own
  caches from a batch of passages (the kg generator's extraction), so the flows can spread that
  work over a task runner (threads or a Dask cluster) before generating;
- `types_per_chunk`: how many query types one flow task generates (None: all in one task);
- `network`: whether its chunks call a service, so the flows retry them on a service failure;
- `shared_stats`: the stats keys every chunk shares (settings, the graph), kept once when the
  chunks' stats are merged (`merge_stats`); everything else is summed or joined;
- `write`: the files it writes into the run folder (items, rejected, stats, and its own).

Every generator's shortfalls are recorded the same way, by the stage (`note_shortfalls`): a type
with fewer usable items (passing the structure check) than `per_type` is listed in
`stats["short_types"]` and `stats["shortfalls"]`, and has a `shortfall` record in rejected.jsonl
(the generator's own, when it wrote one with more detail).
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pipeline.errors import ComlqError
from pipeline.records import Item, Passage
from pipeline.runfolder import RunFolder
from pipeline.schemas import write_json, write_jsonl

if TYPE_CHECKING:
    from pipeline.config import Config


@dataclass
class GenerationResult:
    items: list[Item] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)  # schemas/rejected
    stats: dict[str, Any] = field(default_factory=dict)


class Generator(Protocol):
    name: str
    prepare_batch: int
    types_per_chunk: int | None
    network: bool
    shared_stats: frozenset[str]

    def generate(self, passages: dict[str, Passage], config: Config, types: tuple[str, ...],
                 out_dir: Path) -> GenerationResult:
        """Items of `types` from `passages`; `out_dir` is the run folder (or a chunk's folder)."""
        ...

    def prepare(self, passages: Sequence[Passage], config: Config) -> None:
        """Work on a batch of passages that `generate` will find done (cached); optional."""
        ...

    def merge_stats(self, parts: Sequence[dict[str, Any]]) -> dict[str, Any]: ...

    def write(self, result: GenerationResult, out_dir: Path) -> None: ...


class BaseGenerator:
    """Defaults for the protocol's declarations; subclasses set `name` and implement `generate`."""

    name = ""
    prepare_batch = 0
    types_per_chunk: int | None = None
    network = False
    shared_stats: frozenset[str] = frozenset({"generator", "seed", "per_type"})

    def generate(self, passages: dict[str, Passage], config: Config, types: tuple[str, ...],
                 out_dir: Path) -> GenerationResult:
        raise NotImplementedError

    def prepare(self, passages: Sequence[Passage], config: Config) -> None:
        return None

    def merge_stats(self, parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return merge_stats(parts, self.shared_stats)

    def write(self, result: GenerationResult, out_dir: Path) -> None:
        run = RunFolder(out_dir)
        run.root.mkdir(parents=True, exist_ok=True)
        write_jsonl(run.items, (item.to_dict() for item in result.items), "item")
        write_jsonl(run.rejected, result.rejected, "rejected")
        write_json(run.stats, result.stats)


SHORTFALL = "shortfall"  # the rejected record's reason for a type short of per_type


def note_shortfalls(result: GenerationResult, types: Sequence[str], per_type: int,
                    generator: str) -> GenerationResult:
    """Record every type of `types` with fewer usable items than `per_type` (see the module's doc)."""
    usable = Counter(item.type for item in result.items if item.check.ok)
    made = Counter(item.type for item in result.items)
    shortfalls = {t: {"requested": per_type, "usable": usable[t], "failed_check": made[t] - usable[t]}
                  for t in types if usable[t] < per_type}
    recorded = {r.get("type") for r in result.rejected if r["reason"] == SHORTFALL}
    for name, short in shortfalls.items():
        if name not in recorded:
            failed = f" ({short['failed_check']} more failed the structure check)" if short["failed_check"] else ""
            result.rejected.append({"generator": generator, "type": name, "reason": SHORTFALL, "attempts": None,
                                    "detail": f"{short['usable']} of {per_type} usable items{failed}"})
    result.stats["short_types"] = list(shortfalls)
    result.stats["shortfalls"] = shortfalls
    return result


def empty_types(stats: dict[str, Any]) -> list[str]:
    """The types of a generation's stats.json with no usable item at all."""
    return [name for name, short in stats.get("shortfalls", {}).items() if short["usable"] == 0]


def describe_shortfalls(stats: dict[str, Any]) -> str:
    """'2in 3 of 50, pni 0 of 50' (empty when no type is short)."""
    return ", ".join(f"{name} {short['usable']} of {short['requested']}"
                     for name, short in stats.get("shortfalls", {}).items())


def merge_stats(parts: Sequence[dict[str, Any]], shared: frozenset[str]) -> dict[str, Any]:
    """Chunks' stats as one: `shared` keys kept from the first chunk, counts summed, dicts merged
    key by key, lists joined; rates and prices (`..._per_...`) kept when the chunks agree, else
    listed per chunk."""
    if len(parts) == 1:
        return parts[0]
    merged: dict[str, Any] = {}
    for key in dict.fromkeys(k for part in parts for k in part):
        values = [part[key] for part in parts if key in part]
        if key in shared:
            merged[key] = values[0]
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values) and "per_" not in key:
            merged[key] = sum(values)
        elif all(isinstance(v, dict) for v in values):
            merged[key] = merge_stats(values, shared)
        elif all(isinstance(v, list) for v in values):
            merged[key] = [x for v in values for x in v]
        else:
            merged[key] = values[0] if all(v == values[0] for v in values) else values
    return merged


# name -> "module:attribute" of a zero-argument factory; imported on first use, so naming a
# generator costs nothing until it runs.
_BUILTIN = {
    "kg": "pipeline.kg.generator:KGGenerator",
    "llm": "pipeline.llm.generator:LLMGenerator",
}
_REGISTERED: dict[str, Callable[[], Generator]] = {}


def register_generator(name: str, factory: Callable[[], Generator]) -> None:
    """Make `name` usable as `--generator name` and `[generate] generator = "name"`."""
    _REGISTERED[name] = factory


def generator_names() -> tuple[str, ...]:
    plugins = {ep.name for ep in entry_points(group="comlq.generators")}
    return tuple(dict.fromkeys([*_BUILTIN, *_REGISTERED, *sorted(plugins)]))


def get_generator(name: str) -> Generator:
    if name in _REGISTERED:
        return _REGISTERED[name]()
    if name in _BUILTIN:
        module, _, attribute = _BUILTIN[name].partition(":")
        return getattr(importlib.import_module(module), attribute)()
    for ep in entry_points(group="comlq.generators", name=name):
        return ep.load()()
    raise ComlqError(f"unknown generator {name!r}; expected one of {', '.join(generator_names())}")
