"""Auditing a benchmark's qrels by pooled judging: plain functions over plain records.

A judgement is one reader's verdict on one (query, passage) pair: a grade on the review's scale
(2 = the passage alone shows an answer meeting every condition, 1 = part of it, 0 = nothing), read
against the question as written, and a flag for "it answers as written, but the entity looks
invented or the statement false" (a benchmark written by an LLM has such passages). Judgements come
from Label Studio (annotation/audit_round.py) or from a sheet read outside it (`read_judgements`);
everything below works on either:

    stratified_sample(types, n, seed, weights)  which queries to audit: n drawn within query types
    pool(rankings, k)                           what to judge: every retriever's top k, merged rank by rank
    decide(judgements)                          one Decision per passage: the majority verdict
    audited_qrels(original, decisions)          the original qrels with the decided grades over them
    audit(original, judgements, types)          all of it plus the figures (audit.json): an Audit
    write_audit(folder, split, result)          qrels/SPLIT.audited.tsv, audit/SPLIT/audit.json and audit.md

Verdicts are "0", "1", "2" and "invented". A passage's verdict is the one more than half of its
judgements give; without such a majority (a 2-2 or 0/1/2 split, or two readers who differ) its grade
is the lower median of the grades, an invented verdict counting 0, and it is listed as disputed.
An "invented" majority becomes grade 0 in the audited qrels (judged, not relevant: a reader who
trusts the passage is misled) and is counted apart in the figures. Passages nobody judged keep their
original label, or stay unlabelled.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.agreement import Units
from annotation.vote import majority, majority_grade
from pipeline.errors import ComlqError
from pipeline.runfolder import BeirFolder
from pipeline.schemas import AtomicWriter, read_jsonl, write_json

Qrels = dict[str, dict[str, int]]  # query id -> passage id -> grade (as retrieval.base.Qrels)

INVENTED = "invented"
VERDICTS = ("0", "1", "2", INVENTED)
INVENTED_GRADE = 0  # what an "invented" majority becomes in the audited qrels
LABELS = ("gold", "labelled_nonrelevant", "unlabelled")  # a passage's original label: >= 1, 0, none
UNTYPED = "untyped"
QRELS_HEADER = "query-id\tcorpus-id\tscore\n"


@dataclass(frozen=True)
class Judgement:
    """One reader's judgement of one passage for one query."""

    query_id: str
    passage_id: str
    grade: int  # 0, 1, 2: what the passage shows, read as written
    invented: bool = False  # answers as written, but the entity looks invented / the statement false
    annotator: str = ""
    note: str | None = None

    def __post_init__(self) -> None:
        if self.grade not in (0, 1, 2):
            raise ComlqError(f"query {self.query_id}, passage {self.passage_id}: grade {self.grade!r} is not 0, 1 or 2")

    @property
    def verdict(self) -> str:
        return INVENTED if self.invented else str(self.grade)

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> Judgement:
        """From a sheet's record: query_id, passage_id, grade, invented, reader (or annotator), note."""
        return cls(str(record["query_id"]), str(record["passage_id"]), int(record["grade"]),
                   bool(record.get("invented", False)), str(record.get("reader", record.get("annotator", ""))),
                   record.get("note") or None)


def read_judgements(path: str | Path) -> list[Judgement]:
    """A sheet of judgements made outside Label Studio: JSONL, one record a line with query_id,
    passage_id, grade (0/1/2), invented (optional, false), reader, note (optional); a bad line is a
    one-line error naming the file, the line and the field."""
    return [Judgement.from_dict(record) for record in read_jsonl(path, "audit_judgement")]


# ---------------------------------------------------------------------------- what to judge


def _allocate(sizes: Mapping[str, int], n: int, weights: Mapping[str, float], seed: int) -> dict[str, int]:
    """n shared among the strata in proportion to their weights, none above its size (what a full
    stratum cannot take goes to the others); remainders by largest fraction, ties at random."""
    tie = {name: random.Random(f"audit-allocate:{seed}:{name}").random() for name in sizes}
    given = dict.fromkeys(sizes, 0)
    open_ = [s for s in sorted(sizes) if sizes[s] > 0 and weights.get(s, 1.0) > 0]
    left = n
    while left > 0 and open_:
        total = sum(weights.get(s, 1.0) for s in open_)
        exact = {s: left * weights.get(s, 1.0) / total for s in open_}
        step = {s: min(math.floor(exact[s]), sizes[s] - given[s]) for s in open_}
        if not any(step.values()):  # every share below one: one each to the largest
            step = dict.fromkeys(sorted(open_, key=lambda s: (-exact[s], tie[s]))[:left], 1)
        for s, count in step.items():
            given[s] += count
        left -= sum(step.values())
        open_ = [s for s in open_ if given[s] < sizes[s]]
    return given


def stratified_sample(types: Mapping[str, str | None], n: int | None, seed: int,
                      weights: Mapping[str, float] | None = None) -> list[str]:
    """`n` query ids drawn at random within query types (`types`: query id -> type; None counts as
    the type "untyped"), the types sharing n equally, or in proportion to `weights` (type -> weight,
    default 1; e.g. 2 for the negation types), none getting more queries than it has. Returned in
    the order of `types`; every query when n is None or not smaller than their number. Seeded: the
    same arguments draw the same queries, whatever order `types` lists them in."""
    if n is not None and n < 0:
        raise ComlqError(f"a sample of {n} queries: give a number of 0 or more")
    if n is None or n >= len(types):
        return list(types)
    strata: dict[str, list[str]] = {}
    for qid, kind in types.items():
        strata.setdefault(kind or UNTYPED, []).append(qid)
    unknown = sorted(set(weights or {}) - set(strata))
    if unknown:
        raise ComlqError(f"weights name query types the split does not have: {', '.join(unknown)} "
                         f"(it has {', '.join(sorted(strata))})")
    shares = _allocate({kind: len(ids) for kind, ids in strata.items()}, n, weights or {}, seed)
    chosen: set[str] = set()
    for kind, ids in strata.items():
        chosen.update(random.Random(f"audit-sample:{seed}:{kind}").sample(sorted(ids), shares[kind]))
    return [qid for qid in types if qid in chosen]


def pool(rankings: Mapping[str, Mapping[str, Sequence[str]]], k: int) -> dict[str, dict[str, dict[str, int]]]:
    """TREC pooling: `rankings` is retriever -> query id -> passage ids, best first; the pool is
    query id -> passage id -> {retriever: rank (1 = best)} for every passage in some retriever's
    top k, in the order of a merge rank by rank (each retriever's first, then each one's second...)."""
    if len(rankings) < 2:
        raise ComlqError(f"pooling needs two or more retrievers, got {list(rankings)}")
    pooled: dict[str, dict[str, dict[str, int]]] = {}
    queries = list(dict.fromkeys(qid for ranking in rankings.values() for qid in ranking))
    for qid in queries:
        found = pooled.setdefault(qid, {})
        for rank in range(k):
            for name, ranking in rankings.items():
                ids = ranking.get(qid, ())
                if rank < len(ids):
                    found.setdefault(ids[rank], {})[name] = rank + 1
    return pooled


# ---------------------------------------------------------------------------- deciding


@dataclass
class Decision:
    """What the judgements of one passage for one query decided."""

    query_id: str
    passage_id: str
    grade: int  # its grade in the audited qrels
    majority: str | None  # the verdict more than half the judgements give; None: disputed without one
    votes: dict[str, str] = field(default_factory=dict)  # annotator -> verdict
    notes: dict[str, str] = field(default_factory=dict)  # annotator -> note, where one was given

    @property
    def invented(self) -> bool:
        return self.majority == INVENTED

    @property
    def disputed(self) -> bool:
        return len(set(self.votes.values())) > 1


def decide(judgements: Iterable[Judgement]) -> list[Decision]:
    """One Decision per judged (query, passage), in the order first judged. An annotator who judged
    the same passage for the same query twice is an error (which one counts would be a guess)."""
    grouped: dict[tuple[str, str], list[Judgement]] = {}
    for j in judgements:
        group = grouped.setdefault((j.query_id, j.passage_id), [])
        if any(other.annotator == j.annotator for other in group):
            raise ComlqError(f"query {j.query_id}, passage {j.passage_id}: judged twice by "
                             f"'{j.annotator or '(no reader named)'}'")
        group.append(j)
    decisions = []
    for (qid, pid), group in grouped.items():
        verdict = majority([j.verdict for j in group])
        if verdict is not None:
            grade = INVENTED_GRADE if verdict == INVENTED else int(verdict)
        else:
            grade = majority_grade([INVENTED_GRADE if j.invented else j.grade for j in group])[0]
        decisions.append(Decision(qid, pid, grade, verdict, {j.annotator: j.verdict for j in group},
                                  {j.annotator: j.note for j in group if j.note}))
    return decisions


def audited_qrels(original: Mapping[str, Mapping[str, int]], decisions: Iterable[Decision]) -> Qrels:
    """The original qrels with every decided grade over them (grade 0 rows included: judged, not
    relevant); passages the audit did not judge keep their label. Queries keep their order; new
    passages follow a query's original ones."""
    qrels = {qid: dict(judged) for qid, judged in original.items()}
    for d in decisions:
        if d.query_id not in qrels:
            raise ComlqError(f"judgement of query '{d.query_id}', which has no qrels in the split audited")
        qrels[d.query_id][d.passage_id] = d.grade
    return qrels


# ---------------------------------------------------------------------------- figures


def label_of(original: Mapping[str, Mapping[str, int]], query_id: str, passage_id: str) -> str:
    grade = original.get(query_id, {}).get(passage_id)
    return "unlabelled" if grade is None else "gold" if grade > 0 else "labelled_nonrelevant"


def _figures(decisions: Sequence[Decision], original: Mapping[str, Mapping[str, int]], qrels: Qrels,
             queries: Sequence[str]) -> dict[str, Any]:
    by_label = {label: Counter({"judged": 0, "relevant": 0, "non_relevant": 0, "invented": 0}) for label in LABELS}
    for d in decisions:
        counts = by_label[label_of(original, d.query_id, d.passage_id)]
        counts["judged"] += 1
        counts[INVENTED if d.invented else "relevant" if d.grade > 0 else "non_relevant"] += 1
    answering = sum(c["relevant"] + c["invented"] for c in by_label.values())
    invented = sum(c["invented"] for c in by_label.values())
    gold = by_label["gold"]
    return {
        "queries": len(queries),
        "judged": len(decisions),
        "by_label": {label: dict(counts) for label, counts in by_label.items()},
        "missed_relevant": by_label["labelled_nonrelevant"]["relevant"] + by_label["unlabelled"]["relevant"],
        "gold_judged_nonrelevant": gold["non_relevant"] + gold["invented"],
        "invented": invented,
        "invented_share": round(invented / answering, 6) if answering else None,
        "disputed": sum(d.disputed for d in decisions),
        "queries_without_relevant": sum(not any(g > 0 for g in qrels.get(q, {}).values()) for q in queries),
    }


def _agreement(decisions: Sequence[Decision], raters: int | None) -> dict[str, Any]:
    """Fleiss' kappa and Krippendorff's alpha over the passages two or more annotators judged: of
    the verdict (nominal: 0, 1, 2, invented) and of the grade the qrels get (ordinal; invented = 0)."""
    verdicts, grades = Units(), Units()
    for d in decisions:
        if len(d.votes) >= 2:
            verdicts.ratings.append({a: VERDICTS.index(v) for a, v in d.votes.items()})
            grades.ratings.append({a: INVENTED_GRADE if v == INVENTED else int(v) for a, v in d.votes.items()})
    counts = Counter(len(unit) for unit in verdicts.ratings)
    raters = raters or max(counts, key=lambda n: (counts[n], n), default=2)
    return {"raters": raters, "verdict": verdicts.summary(raters, "nominal"),
            "grade": grades.summary(raters, "ordinal")}


@dataclass
class Audit:
    """An audit's outcome: the audited qrels, the decision per judged passage and the report
    (audit.json: figures overall and per query type, agreement, disputed passages)."""

    qrels: Qrels
    decisions: list[Decision]
    report: dict[str, Any]


def audit(original: Mapping[str, Mapping[str, int]], judgements: Iterable[Judgement],
          types: Mapping[str, str | None], *, queries: Sequence[str] | None = None,
          passages: Collection[str] | None = None, raters: int | None = None,
          about: Mapping[str, Any] | None = None) -> Audit:
    """Decide every judged passage, lay the decisions over `original` and count what changed.

    types: query id -> query type, for every query judged. queries: the audited queries (default:
    those judged), which the figures and the comparison in `comlq evaluate` are over. passages:
    the corpus' ids, to check the judgements against. raters: the judgements per passage Fleiss'
    kappa counts (default: the most common number, 2 or more). about: extra fields for the report
    (where the data came from, the Label Studio project, ...).
    """
    judgements = list(judgements)
    for j in judgements:
        if passages is not None and j.passage_id not in passages:
            raise ComlqError(f"query {j.query_id}: judged passage '{j.passage_id}' is not in the corpus")
    decisions = decide(judgements)
    qrels = audited_qrels(original, decisions)
    queries = list(queries if queries is not None else dict.fromkeys(d.query_id for d in decisions))
    type_of = {qid: types.get(qid) or UNTYPED for qid in queries}
    groups: dict[str, list[str]] = {}
    for qid in queries:
        groups.setdefault(type_of[qid], []).append(qid)

    def scope(qids: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any]]:
        chosen = set(qids)
        kept = [d for d in decisions if d.query_id in chosen]
        return _figures(kept, original, qrels, qids), _agreement(kept, raters)

    overall, agreement = scope(queries)
    by_type = {kind: scope(qids) for kind, qids in sorted(groups.items())}
    report = {
        **(about or {}),
        "queries": queries,
        "judgements": len(judgements),
        "annotators": sorted({j.annotator for j in judgements}),
        "invented_grade": INVENTED_GRADE,
        "overall": overall,
        "by_type": {kind: figures for kind, (figures, _) in by_type.items()},
        "agreement": {"overall": agreement, "by_type": {kind: a for kind, (_, a) in by_type.items()}},
        "disputed": [{"query_id": d.query_id, "type": type_of.get(d.query_id, UNTYPED), "passage_id": d.passage_id,
                      "label": label_of(original, d.query_id, d.passage_id),
                      "original": original.get(d.query_id, {}).get(d.passage_id), "votes": d.votes,
                      "majority": d.majority, "audited": d.grade, "notes": d.notes}
                     for d in decisions if d.disputed],
    }
    return Audit(qrels, decisions, report)


# ---------------------------------------------------------------------------- files


def write_qrels(path: str | Path, qrels: Mapping[str, Mapping[str, int]]) -> None:
    """A BEIR qrels file (header, then query-id, corpus-id, score), written atomically."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with AtomicWriter(path) as handle:
        handle.write(QRELS_HEADER)
        handle.writelines(f"{qid}\t{pid}\t{grade}\n" for qid, judged in qrels.items() for pid, grade in judged.items())


def write_audit(folder: str | Path | BeirFolder, split: str, result: Audit) -> list[Path]:
    """qrels/SPLIT.audited.tsv beside the original qrels, and audit/SPLIT/audit.json and audit.md."""
    folder = folder if isinstance(folder, BeirFolder) else BeirFolder(folder)
    files = folder.audit(split)
    files.root.mkdir(parents=True, exist_ok=True)
    write_qrels(folder.qrels(split, "audited"), result.qrels)
    report = {"split": split, **result.report}
    write_json(files.result, report, "audit")
    with AtomicWriter(files.markdown) as handle:
        handle.write(audit_markdown(report))
    return [folder.qrels(split, "audited"), files.result, files.markdown]


def _cell(value: object) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value).replace("|", "/").replace("\n", " ")


def _row(cells: Iterable[object]) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def audit_markdown(report: Mapping[str, Any]) -> str:
    """The audit section of the report (audit.md): figures per query type, agreement, disputed passages."""
    overall = report["overall"]
    lines = [f"# Audit of the qrels: {report.get('beir', '?')} ({report.get('split', '?')})", "",
             f"{overall['queries']} queries audited, {overall['judged']} passages judged "
             f"({report['judgements']} judgements by {len(report['annotators'])} annotators). A passage's grade is the "
             "verdict more than half of its judgements give, else the lower median (listed as disputed below); "
             f"\"invented\" (answers as written, but the entity looks invented or the statement false) becomes grade "
             f"{report['invented_grade']} in `qrels/{report.get('split', 'SPLIT')}.audited.tsv` and is counted apart. "
             "Passages nobody judged keep their original label.", "",
             "## By query type", "",
             "Missed: relevant (1 or 2) by the audit but labelled 0 or unlabelled in the original qrels; gold "
             "demoted: labelled relevant, judged 0 or invented; invented share: of the passages that answer as "
             "written (relevant or invented). κ, α: Fleiss' kappa and Krippendorff's alpha of the verdicts "
             "(nominal: 0, 1, 2, invented).", "",
             _row(["type", "queries", "judged", "missed (labelled 0)", "missed (unlabelled)", "gold judged",
                   "gold demoted", "invented", "invented share", "disputed", "no relevant left", "κ", "α"]),
             "|" + "---|" * 13]
    agreement = report["agreement"]
    for kind, figures in [*report["by_type"].items(), ("all", overall)]:
        stats = (agreement["overall"] if kind == "all" else agreement["by_type"][kind])["verdict"]
        labels = figures["by_label"]
        lines.append(_row([kind, figures["queries"], figures["judged"], labels["labelled_nonrelevant"]["relevant"],
                           labels["unlabelled"]["relevant"], labels["gold"]["judged"],
                           figures["gold_judged_nonrelevant"], figures["invented"], figures["invented_share"],
                           figures["disputed"], figures["queries_without_relevant"], stats["fleiss_kappa"],
                           stats["krippendorff_alpha"]]))
    grade = agreement["overall"]["grade"]
    lines += ["", f"Agreement on the grade the qrels get (ordinal, invented = {report['invented_grade']}): "
                  f"Fleiss' κ {_cell(grade['fleiss_kappa'])}, Krippendorff's α {_cell(grade['krippendorff_alpha'])} "
                  f"over {grade['units']} passages judged by {agreement['overall']['raters']} or more.", ""]
    disputed = report["disputed"]
    lines += ["## Disputed passages: a second look", ""]
    if not disputed:
        return "\n".join(lines + ["None: every passage judged alike by all its annotators.", ""])
    lines += [_row(["query", "type", "passage", "original", "votes", "majority", "audited", "notes"]), "|" + "---|" * 8]
    for d in disputed:
        votes = ", ".join(f"{who}: {verdict}" for who, verdict in d["votes"].items())
        notes = "; ".join(f"{who}: {note}" for who, note in d["notes"].items())
        lines.append(_row([d["query_id"], d["type"], d["passage_id"], d["original"], votes, d["majority"],
                           d["audited"], notes]))
    return "\n".join(lines + [""])
