"""One exported row per item (schemas/export_item): the record behind the DatasetDict, the
Parquet files and the BEIR folder."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

from pipeline.export.inputs import Candidate, pairwise_agreement
from pipeline.records import Passage

# Passage sources whose titles are Wikipedia article titles, and the wiki's language.
_WIKIPEDIA_LANGUAGE = {"wiki-vital": "en"}


def _graded(grades: dict[str, int]) -> list[dict[str, Any]]:
    return [{"passage_id": p, "grade": g} for p, g in sorted(grades.items())]


def wikipedia_url(passage: Passage) -> str | None:
    source = passage.source or ""
    language = _WIKIPEDIA_LANGUAGE.get(source)
    if source.startswith("hf:wikimedia/wikipedia:"):  # config names end in the language: 20231101.en
        language = source.rsplit(".", 1)[-1]
    if not language or not passage.title:
        return None
    return f"https://{language}.wikipedia.org/wiki/{quote(passage.title.replace(' ', '_'))}"


def annotator_pseudonyms(candidates: Iterable[Candidate]) -> dict[str, str]:
    """Annotator e-mail -> "annotator-N", numbered by sorted e-mail over the whole export: an
    exported row never names a person (e-mails stay in the run's review/reviewed.jsonl), and the
    same input always gets the same names."""
    emails = sorted({v["annotator"] for c in candidates if c.review is not None for v in c.review["votes"]})
    return {email: f"annotator-{n}" for n, email in enumerate(emails, 1)}


def _review(review: dict[str, Any] | None, pseudonyms: Mapping[str, str]) -> dict[str, Any] | None:
    if review is None:
        return None
    return {
        "status": review["status"], "structure_ok": review["structure_ok"],
        "evidence_spread": review["evidence_spread"], "flags": list(review["flags"]),
        "reason": review.get("reason"), "agreement": pairwise_agreement(review["votes"]),
        "votes": [{"annotator": pseudonyms[v["annotator"]], "structure_ok": v["structure_ok"],
                   "evidence_spread": v["evidence_spread"], "relevance": _graded(v["relevance"])}
                  for v in review["votes"]],
    }


def export_row(candidate: Candidate, passages: dict[str, Passage], licence: str,
               pseudonyms: Mapping[str, str]) -> dict[str, Any]:
    """The row of one item; `pseudonyms` (from annotator_pseudonyms) replace the annotators' e-mails."""
    item = candidate.item
    item_dict = item.to_dict()
    sources = [passages[p] for p in item.source_passages]
    gen = item.generator
    return {
        "id": item.id, "type": item.type, "variant": item.variant, "n_passages": item.n_passages,
        "question": item.question, "indicator": item.indicator, "grounded_indicator": item.grounded_indicator,
        "target": item.target, "logical_form": item.logical_form, "answers": list(item.answers),
        "evidence": item_dict["evidence"], "qrels": _graded(candidate.qrels), "violating": list(item.violating),
        "triples": item_dict["triples"], "source_passages": list(item.source_passages), "negations": item.negations,
        "facts": item_dict["facts"], "partial": item_dict["partial"], "branches": item_dict["branches"],
        "generator": {"name": gen.name, "seed": gen.seed, "model": gen.model, "prompt_file": gen.prompt_file,
                      "prompt_hash": gen.prompt_hash},
        "review": _review(candidate.review, pseudonyms),
        "provenance": {
            "selection": "review:accepted" if candidate.review is not None else "check:ok",
            "licence": licence,
            "passage_sources": [p.source or "" for p in sources],
            "source_titles": [p.title for p in sources],
            "source_urls": [wikipedia_url(p) for p in sources],
        },
    }
