"""The dataset card (EXPORT/README.md), rendered from the template prompts/export/card.md."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

import jinja2

from pipeline.export.inputs import RunInput
from pipeline.export.split import SPLITS
from pipeline.querytypes import TYPE_NAMES
from pipeline.records import Passage
from pipeline.resources import read_prompt

TEMPLATE = "export/card.md"

# Licence ids as the Hub's card metadata spells them -> display name and link.
LICENCES = {
    "cc-by-sa-4.0": ("CC BY-SA 4.0", "https://creativecommons.org/licenses/by-sa/4.0/"),
    "cc-by-4.0": ("CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/"),
    "cc0-1.0": ("CC0 1.0", "https://creativecommons.org/publicdomain/zero/1.0/"),
}


@dataclass
class CardFacts:
    """What the card states beyond the rows themselves."""

    title: str
    licence: str
    ratios: tuple[float, float, float]
    seed: int
    groups: int
    largest_group: int
    corpus: list[Passage]
    pool_size: int
    distractors: int
    untested: list[str] = field(default_factory=list)  # types whose passage-sharing groups cannot reach the test split


def _scalars(data: Any, prefix: str = "", depth: int = 2) -> Iterator[tuple[str, Any]]:
    """(dotted key, number/string/bool) pairs of nested dicts down to `depth` levels; lists are skipped."""
    if isinstance(data, Mapping):
        if depth > 0:
            for key, value in data.items():
                yield from _scalars(value, f"{prefix}{key}.", depth - 1)
    elif isinstance(data, (int, float, str, bool)) or data is None:
        yield prefix[:-1], data


# stats.json keys that differ between two runs of the same seed (time, the LLM call ledger with
# its cache hits): left out, so the same seed gives a byte-identical card.
RUN_DEPENDENT = re.compile(r"(^|\.)(timing|llm)(\.|$)|seconds|per_second")


# What a stats.json figure means (the card lists no bare number); keys not here are self-explaining.
STAT_NOTES = {
    "per_type": "queries requested per type",
    "max_answers": "most answers a query may have",
    "graph.source": "where the knowledge graph's facts come from",
    "graph.nodes": "entities and classes in the knowledge graph",
    "graph.edges": "its edges; each fact is stored twice, as a relation and its inverse",
    "items": "queries generated, before review and splitting",
    "prompts": "LLM prompts sent",
    "items_check_ok": "generated queries that passed the automatic structure check",
    "rejected": "prompts that gave no query",
    "passage_groups": "passage groups of this size planned for prompts",
    "variants": "generated queries of this variant (type_evidence passages)",
    "rejection_reasons": "prompts that gave no query for this reason",
    "check_reasons": "generated queries failing the structure check for this reason",
}


def _note(key: str) -> str:
    """A figure's meaning: its own note, else its section's (passage_groups.2 -> passage_groups)."""
    return STAT_NOTES.get(key) or STAT_NOTES.get(key.split(".")[0], "")


def _stats(stats: Mapping[str, Any]) -> list[tuple[str, Any, str]]:
    return [(key, value, _note(key)) for key, value in _scalars(stats) if not RUN_DEPENDENT.search(key)]


def _shortfalls(run: RunInput) -> list[dict[str, Any]]:
    """Types short of per_type: stats.json's counts, with the shortfall record's detail."""
    counts = run.stats.get("shortfalls", {})
    names = [t for t in TYPE_NAMES if t in counts or t in run.shortfalls]
    return [{"type": t, "usable": counts.get(t, {}).get("usable"), "requested": counts.get(t, {}).get("requested"),
             "detail": run.shortfalls.get(t, "")} for t in names]


def _number(value: Any) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _review(run: RunInput, rows: list[dict[str, Any]]) -> dict[str, Any]:
    reviews = [r["review"] for r in rows if r["review"] is not None]
    agreements = [r["agreement"] for r in reviews if r["agreement"] is not None]
    by_type = (run.agreement or {}).get("by_type", {})
    pool = (run.agreement or {}).get("pool") or {"overall": {}, "by_type": {}}
    listed = (run.agreement or {}).get("disagreements", [])
    edits = (run.agreement or {}).get("edits", [])
    return {
        "reviewed": run.reviewed,
        "annotators": len({v["annotator"] for r in reviews for v in r["votes"]}),
        "votes_per_item": round(fmean(len(r["votes"]) for r in reviews), 2) if reviews else 0,
        "mean_agreement": fmean(agreements) if agreements else None,
        "agreement": run.agreement,
        "agreement_by_type": [(t, by_type[t]) for t in TYPE_NAMES if t in by_type],
        "questions": list((run.agreement or {}).get("overall", {})),
        "pool": pool["overall"],
        "pool_by_type": [(t, pool["by_type"][t]) for t in TYPE_NAMES if pool["by_type"].get(t, {}).get("judged")],
        # agreement.json lists comments beside the judgements: counted apart
        "split_judgements": sum(d["question"] != "comment" for d in listed),
        "comments": sum(d["question"] == "comment" for d in listed),
        "edits": {"count": len(edits), "kept": sum(e["kept"] for e in edits),
                  "items": sorted({e["item_id"] for e in edits})},
    }


def _generators(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    counts = Counter(tuple(r["generator"].items()) for r in rows)
    return [dict(key) | {"count": n} for key, n in sorted(counts.items(), key=lambda kv: str(kv[0]))]


def render_card(facts: CardFacts, run: RunInput, rows_by_split: Mapping[str, list[dict[str, Any]]]) -> str:
    rows = [row for split in SPLITS for row in rows_by_split.get(split, [])]
    per_type = {split: Counter(r["type"] for r in rows_by_split.get(split, [])) for split in SPLITS}
    present = [t for t in TYPE_NAMES if any(per_type[s][t] for s in SPLITS)]
    sources = Counter(p.source or "unknown" for p in facts.corpus)
    name, url = LICENCES.get(facts.licence, (facts.licence, None))
    context = {
        "title": facts.title,
        "licence": {"id": facts.licence, "name": name, "url": url},
        "ratios": ", ".join(f"{r:g}" for r in facts.ratios),
        "shares": ", ".join(f"{len(rows_by_split.get(s, [])) / max(len(rows), 1):.0%} ({s})" for s in SPLITS),
        "seed": facts.seed,
        "groups": {"count": facts.groups, "largest": facts.largest_group},
        "total": len(rows),
        "splits": [{"name": s, "count": len(rows_by_split.get(s, []))} for s in SPLITS],
        "empty": [{"name": s, "asked": ratio > 0} for s, ratio in zip(SPLITS, facts.ratios)
                  if not rows_by_split.get(s)],
        "types": [{"name": t, "counts": {s: per_type[s][t] for s in SPLITS},
                   "total": sum(per_type[s][t] for s in SPLITS)} for t in present],
        "corpus": {"size": len(facts.corpus), "pool": facts.pool_size, "distractors": facts.distractors,
                   "sources": [{"name": n, "count": c} for n, c in sorted(sources.items())],
                   "wikipedia": any(url for r in rows for url in r["provenance"]["source_urls"])},
        "generators": _generators(rows),
        "stats": _stats(run.stats),
        "review": _review(run, rows),
        "dropped": [(stage, reason, n) for (stage, reason), n in sorted(run.dropped.items())],
        "dropped_items": run.dropped_items,
        "failures": [(reason, f.records, f.attempts) for reason, f in run.failures.items()],
        "shortfalls": _shortfalls(run),
        "untested": facts.untested,
    }
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                                     keep_trailing_newline=True, autoescape=False)
    environment.filters["number"] = _number
    return environment.from_string(read_prompt(TEMPLATE)).render(context)
