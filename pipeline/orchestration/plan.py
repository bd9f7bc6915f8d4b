"""What each stage's done-marker is keyed on, and whether a run has anything left to do.

Prefect-free on purpose: the flows (pipeline/orchestration/flows/) skip a stage whose `Step`
is done, and `comlq run` asks `finished_line` before Prefect starts, so a rerun with nothing
left to do ends in a second or two instead of starting the temporary API only to skip.

A step is done when its marker's key matches the stage's settings and the contents of what it
reads (`STAGES`, plus the step's own `inputs`), and what it writes exists.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from pipeline.config import Config, EvaluateConfig, GenerateConfig
from pipeline.orchestration import markers
from pipeline.runfolder import STAGES, RunFolder

PROMPTS = Path(str(resources.files("prompts")))  # the generators' templates (part of the generate key)
LINE = ("passages", "generate", "export", "train", "evaluate")  # the stages of `comlq run` without review
NOT_TRAINED = {"model": "not trained (no rerank retriever with model=auto)"}  # the train stage's counts then
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Step:
    """One stage as its done-marker sees it: the settings and the extra input files its key covers."""

    stage: str
    settings: tuple[Any, ...]
    inputs: tuple[str | Path, ...] = ()

    def key(self, run: RunFolder) -> str:
        return markers.stage_key(run, self.stage, *self.settings, inputs=self.inputs)

    def done(self, run: RunFolder, key: str | None = None) -> dict[str, Any] | None:
        """The stage's marker if it finished with this key (default: `self.key(run)`) and its outputs exist."""
        marker = markers.done(run.root, self.stage, key or self.key(run))
        if marker is None or not all(path.exists() for path in run.paths(STAGES[self.stage].writes)):
            return None
        return marker


def say_skipped(run: RunFolder, stage: str) -> None:
    log.info("%s: already done, skipped (its inputs and settings match %s)", stage, run.marker(stage))


def say_not_trained() -> None:
    log.info("train: skipped, nothing to train (no rerank retriever with model=auto uses a model of this run)")


def passages_step(source: str, limit: int | None) -> Step:
    return Step("passages", (source, limit), (source,))  # a local file's content counts too


def chunked(items: Sequence[Any], size: int) -> list[tuple[Any, ...]]:
    return [tuple(items[i:i + size]) for i in range(0, len(items), max(size, 1))]


@dataclass(frozen=True)
class Generation:
    """The generate stage of a run: its settings, the query types wanted and their chunks."""

    generate: GenerateConfig  # allow_short off: it is checked after generation, not part of the key
    types: tuple[str, ...]
    chunks: list[tuple[str, ...]]
    step: Step


def generation(cfg: Config, types: Sequence[str] | None = None, types_per_chunk: int | None = None) -> Generation:
    """types_per_chunk: default the generator's own (all types in one chunk, or `llm`'s one)."""
    from pipeline.generate import check_types
    from pipeline.generator import get_generator
    from pipeline.querytypes import TYPE_NAMES

    generate = replace(cfg.generate, allow_short=False)
    wanted = check_types(tuple(types or TYPE_NAMES))
    chunks = chunked(wanted, types_per_chunk or get_generator(generate.generator).types_per_chunk or len(wanted))
    # the triples file's and the prompt templates' contents count, not only their names
    step = Step("generate", (generate, cfg.llm, wanted, len(chunks)),
                (*([generate.triples] if generate.triples else []), PROMPTS))
    return Generation(generate, wanted, chunks, step)


def export_step(cfg: Config) -> Step:
    return Step("export", (cfg.export,))


def uses_run_reranker(evaluate: EvaluateConfig) -> bool:
    """Whether the evaluation needs the run's own reranker (a `rerank` spec without model=, model auto)."""
    return evaluate.reranker_model == "auto" and any(
        spec.startswith("rerank") and "model=" not in spec for spec in evaluate.retrievers)


def train_step(cfg: Config) -> Step:
    return Step("train", (cfg.train,))


def evaluation(cfg: Config, run: RunFolder) -> tuple[EvaluateConfig, Step]:
    """The evaluate stage's settings (with the run's own reranker when it uses one) and its step."""
    settings, model = cfg.evaluate, run.models.reranker
    if uses_run_reranker(settings) and model.info.is_file():  # the run's own model, not the newest anywhere
        settings = replace(settings, reranker_model=str(model.root))
    # llm: parse=llm and rewrite; the model's comlq.json changes whenever it is trained again
    return settings, Step("evaluate", (settings, cfg.llm), (model.info,))


def finished_line(run_dir: str | Path, cfg: Config, types: Sequence[str] | None = None,
                  types_per_chunk: int | None = None) -> dict[str, dict[str, Any]] | None:
    """Each stage's counts (passages to evaluate, no review) if every one is done, else None."""
    run = RunFolder(run_dir)
    steps = [passages_step(cfg.passages.source, cfg.passages.limit), generation(cfg, types, types_per_chunk).step,
             export_step(cfg), *([train_step(cfg)] if uses_run_reranker(cfg.evaluate) else []), evaluation(cfg, run)[1]]
    counts: dict[str, dict[str, Any]] = {}
    for step in steps:  # in the line's order: a later key reads what an earlier stage wrote
        marker = step.done(run)
        if marker is None:
            return None
        counts[step.stage] = marker["counts"]
    return {stage: counts.get(stage, NOT_TRAINED) for stage in LINE}
