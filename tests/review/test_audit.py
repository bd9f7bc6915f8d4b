"""The audit's plain functions (annotation/audit.py) without a server: the stratified sample, the
pool, the majority and override that make the audited qrels, the figures and agreement against
values worked out by hand, the files, a sheet of judgements made outside Label Studio, and the
labeling interface derived from the review's.

The hand computation of audit_case.json (9 passages, 3 annotators each; verdict codes 0, 1, 2,
invented = 3). Per passage the verdicts and P_i = (sum n_ij^2 - 3) / 6:
  danube 222: 1 | vienna 210: 0 | matterhorn 222: 1 | monte-rosa 221: 1/3 | norway 222: 1
  sweden 000: 1 | frostland ff2: 1/3 | ottawa 222: 1 | canberra 112: 1/3          P = 6/9
Category totals over 27 ratings: 0: 4, 1: 4, 2: 17, invented: 2, so P_e = (16+16+289+4)/729 = 325/729
and Fleiss' kappa = (486 - 325) / (729 - 325) = 161/404 = 0.398515. Krippendorff's alpha (nominal):
D_o = (1/27) * sum_u (9 - sum n_uc^2) / 2 = (1/27) * (6+4+4+4)/2 = 1/3, D_e = (729 - 325)/(27*26) = 404/702,
alpha = 1 - 702/1212 = 0.420792.
The grade the qrels get (invented = 0: frostland 002): totals 0: 6, 1: 4, 2: 17, P_e = 341/729, kappa =
(486 - 341)/(729 - 341) = 145/388 = 0.373711. Ordinal alpha: delta(0,1) = ((6+4)/2)^2 = 25,
delta(1,2) = ((4+17)/2)^2 = 110.25, delta(0,2) = (27 - (6+17)/2)^2 = 240.25; D_o = (1/27) * (751 + 441 +
961 + 441)/2 (vienna, monte-rosa, frostland, canberra) = 1297/27; D_e = 2 * (6*4*25 + 6*17*240.25 +
4*17*110.25) / 702 = 65205/702; alpha = 1 - 1297*26/65205 = 0.482831.
Figures: vienna (unlabelled) 2/1/0 has no majority: the lower median, 1, relevant, disputed; monte-rosa
(labelled 0) 2-2-1: 2, a missed relevant passage; sweden (gold, 1) 0-0-0: gold demoted; frostland
(unlabelled) invented by two: grade 0, invented, 1 of the 2 passages of 2in that answer as written;
canberra (unlabelled) 1-1-2: 1. Missed: 1 labelled 0 + 2 unlabelled; invented share 1/8.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from annotation.audit import (
    INVENTED,
    Judgement,
    audit,
    decide,
    pool,
    read_judgements,
    stratified_sample,
    write_audit,
)
from annotation.audit_round import AuditQuery, audit_labeling_config, audit_task, display_order
from annotation.client import labeling_config
from pipeline.errors import ComlqError
from pipeline.runfolder import BeirFolder
from retrieval.beir import load_beir

AUDIT_BEIR = Path(__file__).parent / "fixtures" / "audit_beir"
ANNOTATORS = ("a", "b", "c")


def case_judgements(case: dict) -> list[Judgement]:
    return [Judgement(qid, pid, 2 if v == "f" else int(v), v == "f", who)
            for qid, passages in case["verdicts"].items() for pid, verdicts in passages.items()
            for who, v in zip(ANNOTATORS, verdicts)]


def test_the_hand_computed_case(audit_case, assert_matches_audit_case):
    data = load_beir(AUDIT_BEIR, "dev")
    result = audit(data.qrels, case_judgements(audit_case), {q.id: q.type for q in data.queries},
                   passages=set(data.corpus.ids))
    rows = [(q, p, g) for q, judged in result.qrels.items() for p, g in judged.items()]
    assert_matches_audit_case(result.report, rows, audit_case)
    assert result.report["queries"] == ["q1", "q2", "q3", "q4"] and result.report["annotators"] == list(ANNOTATORS)
    frostland = next(d for d in result.decisions if d.passage_id == "frostland")
    assert frostland.invented and frostland.grade == 0 and frostland.votes == {"a": INVENTED, "b": INVENTED, "c": "2"}


def test_files_are_a_beir_variant_that_evaluate_reads(tmp_path, audit_case):
    folder = BeirFolder(tmp_path / "beir")
    for name in ("corpus.jsonl", "queries.jsonl", "qrels/dev.tsv"):
        (folder.root / name).parent.mkdir(parents=True, exist_ok=True)
        (folder.root / name).write_bytes((AUDIT_BEIR / name).read_bytes())
    data = load_beir(folder.root, "dev")
    result = audit(data.qrels, case_judgements(audit_case), {q.id: q.type for q in data.queries})
    written = write_audit(folder, "dev", result)
    assert written == [folder.root / "qrels" / "dev.audited.tsv", folder.root / "audit" / "dev" / "audit.json",
                       folder.root / "audit" / "dev" / "audit.md"]
    lines = folder.qrels("dev", "audited").read_text().splitlines()
    assert lines[0] == "query-id\tcorpus-id\tscore"
    assert lines[1:3] == ["q1\tdanube\t2", "q1\tvienna\t1"]  # a query's original passages first
    assert folder.splits() == ["dev"]  # the variant is not a split of its own
    audited = load_beir(folder.root, "dev", "audited")
    assert audited.qrels["q3"] == {"norway": 2, "sweden": 0, "frostland": 0}
    assert audited.describe()["qrels_variant"] == "audited"
    report = json.loads(folder.audit("dev").result.read_text())
    assert report["split"] == "dev" and report["invented_grade"] == 0
    markdown = folder.audit("dev").markdown.read_text()
    assert "| 2in | 1 | 3 | 0 | 0 | 2 | 1 | 1 | 0.500 | 1 | 0 | " in markdown
    assert "| q1 | 1p | vienna | - | a: 2, b: 1, c: 0 | - | 1 |" in markdown  # disputed, no majority
    with pytest.raises(ComlqError, match=r"dev\.audited\.tsv: no audited qrels for split 'dev'"):
        load_beir(AUDIT_BEIR, "dev", "audited")


def test_stratified_sample_shares_n_among_types():
    types = {f"{kind}-{i}": kind for kind, size in (("1p", 10), ("2in", 10), ("3in", 2)) for i in range(size)}
    sample = stratified_sample(types, 9, seed=1)
    counts = {kind: sum(q.startswith(kind) for q in sample) for kind in ("1p", "2in", "3in")}
    # 3 each, but 3in has only 2: its third goes to 1p or 2in (a seeded tie)
    assert counts["3in"] == 2 and sorted([counts["1p"], counts["2in"]]) == [3, 4]
    weighted = stratified_sample(types, 8, seed=1, weights={"2in": 3, "3in": 0})
    assert sum(q.startswith("2in") for q in weighted) == 6 and sum(q.startswith("1p") for q in weighted) == 2
    assert stratified_sample(dict(reversed(types.items())), 9, seed=1) == list(reversed(sample))  # order-free
    assert stratified_sample(types, 9, seed=2) != sample
    assert stratified_sample(types, None, seed=1) == list(types) == stratified_sample(types, 50, seed=1)
    assert len(stratified_sample(types, 2, seed=1)) == 2  # fewer than the types: two types get one each
    with pytest.raises(ComlqError, match="weights name query types the split does not have: 9z"):
        stratified_sample(types, 3, seed=1, weights={"9z": 2})


def test_pool_merges_rank_by_rank_and_records_ranks():
    rankings = {"bm25": {"q": ["a", "b", "c"]}, "dense": {"q": ["b", "d", "a"]}}
    assert pool(rankings, 2) == {"q": {"a": {"bm25": 1}, "b": {"bm25": 2, "dense": 1}, "d": {"dense": 2}}}
    assert list(pool(rankings, 2)["q"]) == ["a", "b", "d"]
    assert list(pool(rankings, 3)["q"]) == ["a", "b", "d", "c"]
    with pytest.raises(ComlqError, match="two or more retrievers"):
        pool({"bm25": {}}, 10)


def test_decide_majority_median_and_two_readers():
    judgements = [Judgement("q", "p", 2, True, "a"), Judgement("q", "p", 2, True, "b"),
                  Judgement("q", "p", 2, False, "c"),
                  Judgement("q", "r", 2, False, "a", "states it"), Judgement("q", "r", 0, False, "b", "no")]
    invented, two = decide(judgements)
    assert (invented.grade, invented.majority, invented.invented, invented.disputed) == (0, INVENTED, True, True)
    assert (two.grade, two.majority, two.notes) == (0, None, {"a": "states it", "b": "no"})  # lower median of 2, 0
    (single,) = decide([Judgement("q", "p", 1, False, "reader-1")])
    assert (single.grade, single.majority, single.disputed) == (1, "1", False)
    with pytest.raises(ComlqError, match="query q, passage p: judged twice by 'a'"):
        decide([Judgement("q", "p", 1, False, "a"), Judgement("q", "p", 2, False, "a")])
    with pytest.raises(ComlqError, match="grade 3 is not 0, 1 or 2"):
        Judgement("q", "p", 3)


def test_audit_checks_queries_and_passages():
    with pytest.raises(ComlqError, match="judgement of query 'nope', which has no qrels"):
        audit({"q1": {"a": 1}}, [Judgement("nope", "a", 1, False, "r")], {})
    with pytest.raises(ComlqError, match="query q1: judged passage 'zz' is not in the corpus"):
        audit({"q1": {"a": 1}}, [Judgement("q1", "zz", 1, False, "r")], {}, passages={"a"})


def test_a_sheet_of_reader_judgements(tmp_path):
    sheet = tmp_path / "sheet.jsonl"
    sheet.write_text('{"query_id": "q1", "passage_id": "vienna", "grade": 2, "invented": false, "reader": "r1", '
                     '"note": "says the Danube flows through it"}\n'
                     '{"query_id": 3, "passage_id": "frostland", "grade": 2, "invented": true, "reader": "r2"}\n')
    assert read_judgements(sheet) == [Judgement("q1", "vienna", 2, False, "r1", "says the Danube flows through it"),
                                      Judgement("3", "frostland", 2, True, "r2")]
    sheet.write_text('{"query_id": "q1", "passage_id": "vienna", "grade": 5, "reader": "r1"}\n')
    with pytest.raises(ComlqError, match=r"sheet.jsonl:1: field 'grade'"):
        read_judgements(sheet)


def test_the_labeling_interface_is_the_reviews_grading_plus_invented():
    config = ET.fromstring(audit_labeling_config())
    review = ET.fromstring(labeling_config())
    grade, = config.iter("HyperTextLabels")
    labels = {label.get("value"): label.get("hotkey") for label in grade}
    assert labels == {**{label.get("value"): label.get("hotkey") for label in review.find(".//HyperTextLabels")},
                      INVENTED: "f"}
    assert ET.tostring(config.find(".//HyperText")) == ET.tostring(review.find(".//HyperText"))
    assert not [c for c in config.iter("Choices")]  # no question about a generated item
    assert {t.get("name") for t in config.iter("Text")} == {"question", "query_type", "logical_form"}


def test_a_task_shows_every_passage_once_with_a_region_on_its_heading():
    shown = display_order(["vienna", "danube", "vienna"], "q1", seed=13)
    assert sorted(shown) == ["danube", "vienna"] and display_order(shown, "q1", 13) == shown
    passages = {"danube": ("Danube", "A river."), "vienna": ("Vienna", "A <city> & capital.")}
    data = audit_task(AuditQuery("q1", "Which river?", "1p"),
                      shown, passages)
    assert [p["id"] for p in data["passages"]] == shown and data["item_id"] == "q1"
    text = ET.fromstring(f"<div>{data['html']}</div>").itertext()
    plain = "".join(text)
    for entry in data["passages"]:
        start, end = data["offsets"][entry["region"]]
        assert plain[start:end] == f"[{entry['label']}] {passages[entry['id']][0]}"
    assert "A <city> & capital." in plain
    with pytest.raises(ComlqError, match="query q1: passage 'x' is not in the corpus"):
        audit_task(AuditQuery("q1", "?"), ["x"], passages)


def test_the_pool_is_drawn_on_the_shuffled_corpus_with_progress(tmp_path, monkeypatch):
    """pooled_rankings (what push --beir pools with): passage ids named back from the shuffled
    corpus' opaque ones, encoding shown as progress, a retriever that cannot run is one line."""
    from dataclasses import replace

    import retrieval.encoders
    from pipeline.config import Config
    from pipeline.orchestration.audit import pooled_rankings

    folder = tmp_path / "beir"
    shutil.copytree(AUDIT_BEIR, folder)
    with open(folder / "corpus.jsonl", "a", encoding="utf-8") as corpus:  # 64+ texts: the encoder shows progress
        corpus.writelines(json.dumps({"_id": f"filler-{i}", "title": "", "text": f"Filler passage number {i} about "
                                      f"topic {i % 7} in a list of many."}) + "\n" for i in range(60))
    bars = []
    real = retrieval.encoders.Progress

    class Recorded(real):
        def __init__(self, desc, *args, **kwargs):
            bars.append((desc, kwargs.get("total"), kwargs.get("enabled")))
            super().__init__(desc, *args, **kwargs)

    monkeypatch.setattr(retrieval.encoders, "Progress", Recorded)
    data = load_beir(folder, "dev")
    config = Config()
    config = replace(config, evaluate=replace(config.evaluate, precision="fp32", cache_dir=str(tmp_path / "cache")))
    rankings = pooled_rankings(data, ["q1", "q3"], ("bm25", "dense"), 2, 13, config, progress=True)
    assert set(rankings) == {"bm25", "dense"} and set(rankings["bm25"]) == {"q1", "q3"}
    assert set(rankings["bm25"]["q1"]) == {"danube", "vienna"}  # original ids, not the shuffled corpus' opaque ones
    assert ("encoding passages (sentence-transformers/all-MiniLM-L6-v2, fp32)", 74, True) in bars, bars
    with pytest.raises(ComlqError, match=r"^pool retriever 'rewrite' failed: .*no LLM endpoint"):
        pooled_rankings(data, ["q1"], ("bm25", "rewrite"), 2, 13, config, progress=False)
