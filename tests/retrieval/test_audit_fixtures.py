"""The two audits judged by reading (benchmarks/judged/): ComLQ dev's 76 queries and the project's own
export. Every figure docs/results.md gives is recomputed here from the kept sheets (ids, grades, notes;
no ComLQ text) with the functions `comlq review collect --beir` uses."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from annotation.audit import Audit, Judgement, audit

ROOT = Path(__file__).parents[2]
JUDGED = ROOT / "benchmarks" / "judged"
ORDER = "1p 2p 3p 2i 3i pi ip 2u up 2in 3in inp pin pni".split()


def audit_of(sheet: Path) -> tuple[list[dict], Audit]:
    rows = [json.loads(line) for line in sheet.read_text(encoding="utf-8").splitlines()]
    original: dict[str, dict[str, int]] = {}
    types: dict[str, str] = {}
    for row in rows:
        types[row["query_id"]] = re.sub(r"_\d+$", "", row["type"])  # ComLQ's 2in_1 is a 2in
        if row["comlq_grade"] is not None:
            original.setdefault(row["query_id"], {})[row["passage_id"]] = row["comlq_grade"]
    judgements = [Judgement.from_dict(row | {"invented": bool(row["invented"]) and row["grade"] > 0}) for row in rows]
    return rows, audit(original, judgements, types, raters=2)


def table_rows(result: Audit) -> list[str]:
    def row(name: str, f: dict) -> str:
        return (f"| {name} | {f['queries']} | {f['judged']} | {f['missed_relevant']} | "
                f"{f['gold_judged_nonrelevant']} | {f['invented']} |")

    by_type = result.report["by_type"]
    return [row(t, by_type[t]) for t in ORDER if t in by_type] + [row("all", result.report["overall"])]


@pytest.mark.parametrize("sheet, queries, readers", [("comlq_audit.jsonl", 76, 5), ("own_export_audit.jsonl", 28, 2)])
def test_an_audit_sheet_is_whole_with_a_note_per_judgement_and_no_passage_text(sheet, queries, readers):
    rows, result = audit_of(JUDGED / sheet)
    assert len(result.report["queries"]) == queries and len({r["reader"] for r in rows}) == readers
    assert set(result.report["by_type"]) == set(ORDER)
    for row in rows:
        assert row["grade"] in (0, 1, 2) and isinstance(row["invented"], bool)
        assert row["note"] and len(row["note"]) < 450 and "text" not in row


def test_the_comlq_audit_figures_in_the_results_are_the_sheets():
    _, result = audit_of(JUDGED / "comlq_audit.jsonl")
    results = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    for line in table_rows(result):
        assert line in results, line
    overall, agreement = result.report["overall"], result.report["agreement"]["overall"]
    assert f"invented ({overall['invented_share']:.1%} of all" in results
    assert f"{len(result.report['disputed'])} passages stay disputed" in results
    verdict, grade = agreement["verdict"], agreement["grade"]
    assert verdict["units"] == 159
    prose = " ".join(results.split())
    assert (f"Fleiss' κ {verdict['fleiss_kappa']:.3f} and Krippendorff's α {verdict['krippendorff_alpha']:.3f} "
            "on the verdict") in prose
    assert f"κ {grade['fleiss_kappa']:.3f}, α {grade['krippendorff_alpha']:.3f} on the grade" in prose


def test_the_own_export_audit_figures_in_the_results_are_the_sheets():
    rows, result = audit_of(JUDGED / "own_export_audit.jsonl")
    results = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    for line in table_rows(result):
        if not line.endswith("| 0 | 0 | 0 |") or line.startswith("| all"):  # the doc lists the types with a miss
            assert line in results, line
    missed = [r for r in rows if r["comlq_grade"] is None and r["grade"] == 2]
    assert [r["query_id"] for r in missed] == ["kg-ip-bfa7e3214da8"] and "Marconi" in missed[0]["note"]
    assert "`kg-ip-bfa7e3214da8` (grade 2)" in results
