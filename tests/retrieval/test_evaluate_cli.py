import json

import pytest

from pipeline.cli import main
from pipeline.schemas import read_json
from retrieval.base import read_trec
from retrieval.metrics import mean, per_query


@pytest.fixture(scope="module")
def report(tmp_path_factory, beir_path):
    out = tmp_path_factory.mktemp("report")
    cache = tmp_path_factory.mktemp("cache")
    code = main(["evaluate", "--beir", str(beir_path), "--split", "test", "--quiet", "--cache", str(cache),
                 "--retrievers", "bm25,dense,itlr,itlr-bm25,rrf(bm25,dense),rewrite", "--out", str(out)])
    assert code == 0
    return out


def test_metrics_json_is_schema_valid_and_complete(report):
    metrics = read_json(report / "metrics.json", "metrics")
    assert list(metrics["retrievers"]) == ["bm25", "dense", "itlr", "itlr-bm25", "rrf(bm25,dense)"]
    assert "no LLM endpoint configured" in metrics["skipped"]["rewrite"]
    assert metrics["dataset"]["queries"] == 10
    itlr = metrics["retrievers"]["itlr"]
    assert set(itlr["overall"]) >= {"nDCG@10", "nDCG'@10", "Judged@10", "MAP@100", "Recall@100", "MRR@10", "LSNC@10",
                                    "LSNC@100", "LSAC@10", "LSAC@100", "LSOC@10", "LSOC@100"}
    assert "Judged@10" not in itlr["significance"] and metrics["dataset"]["qrels_variant"] is None
    assert "LSOC@10" in itlr["by_type"]["up"] and "LSOC@10" not in itlr["by_type"]["2i"]  # q04 is the union
    assert "LSAC@10" in itlr["by_type"]["2i"] and "LSAC@10" not in itlr["by_type"]["1p"]
    assert metrics["dataset"]["partial_labels"] and metrics["dataset"]["branch_labels"]
    assert set(itlr["by_type"]) == {"1p", "2i", "2in", "3in", "up"}
    assert set(itlr["by_negations"]) == {"0", "1", "2"}
    assert itlr["significance"]["nDCG@10"]["n"] == 10
    assert "significance" not in metrics["retrievers"]["bm25"]
    assert itlr["config"]["parse"] == {"source": "gold", "counts": {"gold": 10}}


def test_trec_runs_reproduce_the_metrics(report, data):
    metrics = read_json(report / "metrics.json")
    for name, file in [("bm25", "bm25"), ("rrf(bm25,dense)", "rrf_bm25_dense")]:
        run = read_trec(report / "runs" / f"{file}.trec")
        assert all(len(scores) == 30 for scores in run.values())  # depth 100 > 30 passages
        recomputed = mean(per_query(run, data.qrels, data.queries, data.violations, data.partial, data.branches))
        for measure in ("nDCG@10", "LSNC@10", "LSAC@10", "LSOC@100"):
            assert recomputed[measure] == pytest.approx(metrics["retrievers"][name]["overall"][measure])
    per_query_file = json.loads((report / "per_query.json").read_text())
    assert set(per_query_file["itlr"]) == {q.id for q in data.queries}


def test_itlr_beats_plain_dense_on_the_negated_fixture_queries(report):
    by_neg = read_json(report / "metrics.json")["retrievers"]
    assert by_neg["itlr"]["by_negations"]["1"]["nDCG@10"] > by_neg["dense"]["by_negations"]["1"]["nDCG@10"]


def test_report_and_plots(report):
    text = (report / "report.md").read_text()
    assert ("| retriever | nDCG@10 | nDCG'@10 | Judged@10 | MAP@100 | Recall@100 | MRR@10 | LSNC@10 | LSNC@100 "
            "| LSAC@10 | LSAC@100 | LSOC@10 | LSOC@100 |") in text
    assert "- **nDCG'@10**: condensed nDCG@10 (Sakai)" in text and "- **Judged@10**: share of the top 10" in text
    assert "## LSAC@10 by query type" in text and "## LSOC@10 by query type" in text
    assert "## nDCG@10 by query type" in text and "## Paired tests against bm25" in text
    assert "Skipped **rewrite**" in text
    for name in ("ndcg_by_type.png", "ndcg_by_negations.png"):
        data = (report / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_cli_errors_are_one_line(beir_path, tmp_path, capsys):
    assert main(["evaluate", "--beir", str(beir_path), "--split", "dev", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0
    assert main(["evaluate", "--beir", str(beir_path), "--retrievers", "bm25,nope", "--out", str(tmp_path)]) == 2
    assert "unknown retriever 'nope'" in capsys.readouterr().err


def test_configuration_drives_the_evaluation(beir_path, tmp_path):
    from pipeline.config import Config, EvaluateConfig
    from retrieval.evaluate import run_evaluation

    config = Config(evaluate=EvaluateConfig(retrievers=("bm25", "itlr-bm25(k=0)"), depth=5, split="train"))
    metrics = run_evaluation(beir_path, tmp_path, config, progress=False)
    assert metrics["dataset"]["split"] == "train" and metrics["dataset"]["queries"] == 1
    assert all(len(scores) == 5 for scores in read_trec(tmp_path / "runs" / "bm25.trec").values())
    assert metrics["retrievers"]["itlr-bm25(k=0)"]["config"]["candidates_k"] is None


class Failing:
    """A retriever whose service fails mid-run (e.g. an LLM endpoint in `rewrite`)."""

    name = "failing"

    def index(self, corpus):
        pass

    def retrieve(self, queries, k):
        from pipeline.errors import ComlqError

        raise ComlqError("endpoint http://stub: 503 Service Unavailable")


def test_a_retriever_failing_while_running_is_skipped(beir_path, tmp_path, monkeypatch, capsys):
    from retrieval import registry

    monkeypatch.setitem(registry.BUILDERS, "failing", lambda factory, args, kwargs: Failing())
    assert main(["evaluate", "--beir", str(beir_path), "--split", "test", "--quiet", "--cache", str(tmp_path / "c"),
                 "--retrievers", "failing,bm25", "--out", str(tmp_path / "out")]) == 0
    metrics = read_json(tmp_path / "out" / "metrics.json", "metrics")
    assert list(metrics["retrievers"]) == ["bm25"]
    assert metrics["skipped"] == {"failing": "failed while running: endpoint http://stub: 503 Service Unavailable"}
    assert "Skipped **failing**" in (tmp_path / "out" / "report.md").read_text()
    assert "skipping failing: endpoint http://stub: 503" in capsys.readouterr().err


def test_audited_qrels_variant_compares_original_and_audited_on_the_audited_queries(beir_path, tmp_path):
    """An audit (annotation/audit.py, as a script would feed it reader judgements) of two test queries,
    then `evaluate --qrels-variant audited` on a copy of the fixture: the report compares the two qrels
    on exactly those queries, and both figures agree with per_query on the same runs."""
    import shutil

    from annotation.audit import Judgement, audit, write_audit
    from retrieval.beir import load_beir

    folder = tmp_path / "beir"
    shutil.copytree(beir_path, folder)
    data = load_beir(folder, "test")
    first, second = data.queries[0].id, data.queries[1].id
    gold = next(iter(data.qrels[first]))
    other = next(pid for pid in data.corpus.ids if pid not in data.qrels[first])
    judgements = [Judgement(first, gold, 0, False, "r1"), Judgement(first, other, 2, False, "r1"),
                  Judgement(second, next(iter(data.qrels[second])), 2, False, "r1")]
    write_audit(folder, "test", audit(data.qrels, judgements, {q.id: q.type for q in data.queries}))
    out = tmp_path / "report"
    assert main(["evaluate", "--beir", str(folder), "--split", "test", "--qrels-variant", "audited", "--quiet",
                 "--retrievers", "bm25", "--out", str(out)]) == 0
    metrics = read_json(out / "metrics.json", "metrics")
    assert metrics["dataset"]["qrels_variant"] == "audited" and metrics["audit"]["queries"] == 2
    run = read_trec(out / "runs" / "bm25.trec")
    audited = load_beir(folder, "test", "audited")
    assert audited.qrels[first][gold] == 0 and audited.qrels[first][other] == 2
    compared = metrics["audit"]["retrievers"]["bm25"]
    for variant, qrels in (("original", data.qrels), ("audited", audited.qrels)):
        values = per_query(run, {q: qrels[q] for q in (first, second)}, data.queries)
        assert compared[variant]["mean"]["nDCG@10"] == pytest.approx(mean(values)["nDCG@10"])
        assert compared[variant]["mean"]["queries"] == 2
    overall = mean(per_query(run, audited.qrels, data.queries))
    assert metrics["retrievers"]["bm25"]["overall"]["nDCG'@10"] == pytest.approx(overall["nDCG'@10"])
    text = (out / "report.md").read_text()
    assert "## Original and audited qrels" in text and "only the 2 queries the audit judged" in text
    assert main(["evaluate", "--beir", str(beir_path), "--split", "test", "--qrels-variant", "audited",
                 "--retrievers", "bm25", "--out", str(tmp_path / "none")]) == 2  # no audited qrels there
