"""The Hugging Face side of an export: explicit Features, save_to_disk, Parquet, push_to_hub."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from datasets import (
    Dataset,
    DatasetDict,
    Features,
    List,
    Value,
    disable_progress_bars,
    enable_progress_bars,
    is_progress_bar_enabled,
)

from pipeline.errors import ComlqError
from pipeline.export.split import SPLITS
from pipeline.runfolder import ExportFolder

TOKEN_ENV = "HF_TOKEN"

_STRING = Value("string")
_GRADED = List({"passage_id": _STRING, "grade": Value("int8")})

# Mirrors schemas/export_item.schema.json; `review` is null for items that were not reviewed.
FEATURES = Features({
    "id": _STRING, "type": _STRING, "variant": _STRING, "n_passages": Value("int8"),
    "question": _STRING, "indicator": _STRING, "grounded_indicator": _STRING, "target": _STRING,
    "logical_form": _STRING, "answers": List(_STRING), "evidence": _GRADED, "qrels": _GRADED,
    "violating": List(_STRING),
    "triples": List({"subject": _STRING, "relation": _STRING, "object": _STRING,
                     "negated": Value("bool"), "union": Value("bool")}),
    "source_passages": List(_STRING), "negations": Value("int8"),
    "facts": List({"subject": _STRING, "relation": _STRING, "object": _STRING, "passage_id": _STRING,
                   "sentence": _STRING, "subject_mention": _STRING, "object_mention": _STRING}),
    "partial": List(_STRING), "branches": List(List(_STRING)),
    "generator": {"name": _STRING, "seed": Value("int64"), "model": _STRING, "prompt_file": _STRING,
                  "prompt_hash": _STRING},
    "review": {"status": _STRING, "structure_ok": Value("bool"), "evidence_spread": Value("bool"),
               "flags": List(_STRING), "reason": _STRING, "agreement": Value("float64"),
               "votes": List({"annotator": _STRING, "structure_ok": Value("bool"),
                              "evidence_spread": Value("bool"), "relevance": _GRADED})},
    "provenance": {"selection": _STRING, "licence": _STRING, "passage_sources": List(_STRING),
                   "source_titles": List(_STRING), "source_urls": List(_STRING)},
})


def dataset_dict(rows_by_split: Mapping[str, list[dict[str, Any]]]) -> DatasetDict:
    """Every split is present, empty ones too, with the same Features."""
    return DatasetDict({
        split: Dataset.from_dict({name: [row[name] for row in rows_by_split.get(split, [])] for name in FEATURES},
                                 features=FEATURES, split=split)
        for split in SPLITS
    })


def write_hf(datasets: DatasetDict, out: ExportFolder) -> None:
    bars = is_progress_bar_enabled()
    disable_progress_bars()  # a few hundred rows: the bars are noise in the run's output
    try:
        datasets.save_to_disk(str(out.dataset))
        # The Hub's layout (data/<split>-NNNNN-of-NNNNN.parquet), which the card's YAML header
        # names: `load_dataset(EXPORT)` works on the folder as it will on the Hub.
        out.data.mkdir(parents=True, exist_ok=True)
        for split, dataset in datasets.items():
            dataset.to_parquet(str(out.parquet(split)))
    finally:
        if bars:
            enable_progress_bars()


def push_to_hub(export_dir: str | Path, repo: str) -> None:
    """Upload the splits and the dataset card to the Hub; the token comes from $HF_TOKEN only."""
    token = os.environ.get(TOKEN_ENV)
    if not token:
        raise ComlqError(f"--push-to-hub {repo}: set {TOKEN_ENV} to a Hugging Face write token")
    from datasets import load_from_disk
    from huggingface_hub import HfApi

    export = ExportFolder(export_dir)
    load_from_disk(str(export.dataset)).push_to_hub(repo, token=token)
    # The card's YAML header names the same data files push_to_hub writes (data/<split>-*.parquet).
    HfApi(token=token).upload_file(path_or_fileobj=str(export.card), path_in_repo="README.md",
                                   repo_id=repo, repo_type="dataset")
