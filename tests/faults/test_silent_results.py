"""Results that used to be wrong without a word (issue 31): each probe feeds an input that is
probably wrong, or a setting that makes no sense, and checks that the user is told (one error
line, or a warning on stderr and in the report) and that what the outputs state is what was
measured. A command that exits 0 with an untrue result counts as "silently wrong" in the tally.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BEIR = ROOT / "tests" / "retrieval" / "fixtures" / "beir"  # 30 passages, 11 queries (10 in test)


def _config(tmp: Path, text: str) -> Path:
    path = tmp / "c.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("options, names", [
    (["--epochs", "-3"], "--epochs: 'epochs' must be >= 1, not -3"),  # exit 0 and an untrained model before
    (["--config", "[train]\nepochs = 0\n"], "[train]: 'epochs' must be >= 1, not 0"),  # the same
    (["--config", "[train]\nbatch_groups = 0\n"], "'batch_groups' must be >= 1, not 0"),  # a traceback before
    (["--config", "[train]\nnegatives = -2\n"], "'negatives' must be >= 1, not -2"),
    (["--config", "[train]\nlearning_rate = -1\n"], "'learning_rate' must be > 0 and <= 1, not -1"),
], ids=["epochs-option", "epochs-zero", "batch-groups-zero", "negatives-negative", "learning-rate-negative"])
def test_train_settings_are_checked_before_any_work(options: list[str], names: str, probe, small_export: Path,
                                                     tmp_path: Path) -> None:
    what = "train " + " ".join(options).strip()
    if options[0] == "--config":
        options = ["--config", str(_config(tmp_path, options[1]))]
    model = tmp_path / "runs" / "r" / "models" / "reranker"  # where `rerank`'s model=auto would find it
    line = probe.cli("train", "reranker", small_export, "--out", model, "--max-groups", "8", "--quiet", *options,
                     what=what).error_line()
    assert names in line, line
    assert not model.exists(), "a model was saved"


def _strip_logical_forms(beir: Path, out: Path) -> Path:
    shutil.copytree(beir, out)
    queries = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    (out / "queries.jsonl").write_text("".join(json.dumps({k: v for k, v in q.items() if k != "logical_form"}) + "\n"
                                               for q in queries))
    return out


def test_report_says_where_the_logical_forms_came_from(probe, small_export: Path, tmp_path: Path) -> None:
    """A BEIR folder without logical forms, evaluated with itlr (parse=gold): every form is parsed
    by rules, and the report must say so (before: "parse=gold, the logical forms shipped with the
    queries", no warning)."""
    from retrieval.beir import load_beir

    beir = _strip_logical_forms(small_export / "beir", tmp_path / "beir")
    queries = len(load_beir(beir, "train").queries)
    outcome = probe.cli("evaluate", "--beir", beir, "--split", "train", "--retrievers", "bm25,itlr-bm25", "--quiet",
                        "--out", tmp_path / "rep", what="itlr on a folder without logical forms")
    outcome.warning_line("itlr-bm25: parse=gold", f"{queries} of {queries} queries have no logical form")
    report = (tmp_path / "rep" / "report.md").read_text()
    probe.wrong_unless("shipped with the queries" not in report
                       and f"itlr-bm25 (parse=gold): {queries} parsed by rules from the question text" in report
                       and "## Warnings" in report, report[:3000])


def test_consistency_is_not_claimed_where_nothing_could_be_inconsistent(probe, small_export: Path,
                                                                         tmp_path: Path) -> None:
    """LSAC@10 showed 1.00 for 2in, pin and pni, whose queries have no partial labels (no ranking
    could score less), and those 1.00s raised the overall figure. Now such a type shows –, and the
    overall figure is the mean over the queries of the types the measure applies to."""
    from retrieval.beir import load_beir
    from retrieval.metrics import conjunctive

    data = load_beir(small_export / "beir", "train")
    labelled = {q.type for q in data.queries if data.partial.get(q.id)}
    unlabelled = {q.type for q in data.queries if conjunctive(q)} - labelled
    assert unlabelled, "the probe needs a conjunctive type without partial labels"
    out = tmp_path / "rep"
    probe.cli("evaluate", "--beir", small_export / "beir", "--split", "train", "--retrievers", "bm25", "--quiet",
              "--out", out, what="LSAC on types without partial labels").ok()
    metrics = json.loads((out / "metrics.json").read_text())["retrievers"]["bm25"]
    values = json.loads((out / "per_query.json").read_text())["bm25"]
    scored = [values[q.id]["LSAC@10"] for q in data.queries if q.type in labelled and "LSAC@10" in values[q.id]]
    claimed = {q.type for q in data.queries if q.type in unlabelled and "LSAC@10" in values[q.id]}
    report = (out / "report.md").read_text()
    section = report[report.index("## LSAC@10 by query type"):].split("\n## ")[0]
    dashes = all(f"| {t} | {sum(q.type == t for q in data.queries)} | – |" in section for t in unlabelled)
    overall = metrics["overall"]["LSAC@10"] == pytest.approx(sum(scored) / len(scored))  # over the labelled types
    probe.wrong_unless(not claimed and dashes and overall,
                       f"LSAC@10 claimed for {sorted(claimed)} (no partial labels):\n{section}")


def test_queries_with_nothing_relevant_are_warned(probe, tmp_path: Path) -> None:
    """A judged query whose every score is 0 scores 0 on every measure: said on stderr and in the report."""
    beir = tmp_path / "beir"
    shutil.copytree(BEIR, beir)
    qrels = beir / "qrels" / "test.tsv"
    qrels.write_text("".join(line.replace("\t2\n", "\t0\n").replace("\t1\n", "\t0\n") if line.startswith("q01\t")
                             else line for line in qrels.read_text().splitlines(True)))
    outcome = probe.cli("evaluate", "--beir", beir, "--retrievers", "bm25", "--quiet", "--out", tmp_path / "rep",
                        what="a judged query with no relevant passage")
    outcome.warning_line("1 of 10 judged queries have no relevant passage", "'q01'")
    assert "## Warnings" in (tmp_path / "rep" / "report.md").read_text()


def test_passages_merged_by_title_are_said(probe, passages_300: Path, tmp_path: Path) -> None:
    """Three passages about three places called Springfield, one title: the kg generator reads them
    as one article, one entity; it now says so (stderr and stats.json), as it did not before."""
    places = ["Springfield is the capital city of the U.S. state of Illinois. It lies on the Sangamon River.",
              "Springfield is a city in Hampden County, Massachusetts. It lies on the Connecticut River.",
              "Springfield is the third-largest city in the state of Missouri. It is the county seat of Greene County."]
    passages = tmp_path / "passages.jsonl"
    passages.write_text(passages_300.read_text() + "".join(
        json.dumps({"id": f"springfield-{i}", "title": "Springfield", "text": text}) + "\n"
        for i, text in enumerate(places)))
    outcome = probe.cli("generate", "--passages", passages, "--types", "1p", "--per-type", "1", "--allow-short",
                        "--out", tmp_path / "gen", what="three passages with one title")
    outcome.warning_line("'Springfield' (3 passages)", "one article")
    stats = json.loads((tmp_path / "gen" / "stats.json").read_text())
    assert stats["graph"]["shared_titles"] == {"Springfield": 3}
