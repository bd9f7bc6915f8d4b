"""A run's parameters and its configuration, checked before any work and before Prefect starts.

Prefect-free on purpose: `comlq run` calls `check_run` first, so a bad configuration file, an
unknown generator, query type or retriever, a missing passage source or an output folder that
cannot be written fails in a second or two, not after the temporary API has started (20-60 s)
or after the passages stage. The flows apply the same `run_config` to their parameters.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline.config import Config, load_config
from pipeline.errors import ComlqError

# A flow's parameters that override a configuration value (deployments pass plain names).
PARAMETERS = {"source": "passages.source", "limit": "passages.limit", "generator": "generate.generator",
              "per_type": "generate.per_type", "seed": "generate.seed"}


def run_config(config: str | None = None, **parameters: Any) -> Config:
    """The configuration file (or defaults) with the flow's parameters (PARAMETERS) applied on top."""
    unknown = sorted(set(parameters) - set(PARAMETERS))
    if unknown:
        raise ComlqError(f"unknown run parameter {unknown[0]!r}")
    return load_config(config).with_overrides({PARAMETERS[k]: v for k, v in parameters.items()}, "flow parameter")


def expand_run_dir(run_dir: str) -> str:
    """`{date}` in a run folder name becomes today's UTC date (one folder per nightly run)."""
    return run_dir.format(date=datetime.now(UTC).strftime("%Y-%m-%d"))


def check_run(run_dir: str | Path, config: str | None = None, types: list[str] | None = None,
              **parameters: Any) -> Config:
    """Everything a run can check before it starts: returns the run's configuration."""
    from pipeline.generate import check_types
    from pipeline.generator import get_generator
    from pipeline.passages import check_source
    from pipeline.schemas import check_output_folder
    from retrieval.registry import check_settings

    cfg = run_config(config, **parameters)
    get_generator(cfg.generate.generator)
    if types:
        check_types(tuple(types))
    check_source(cfg.passages.source)
    check_settings(cfg.evaluate)  # an unknown retriever or ITLR operator set fails here
    check_output_folder(run_dir)
    return cfg
