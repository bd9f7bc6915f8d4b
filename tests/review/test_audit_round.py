"""An audit round of a BEIR folder's qrels against the real Label Studio server.

The browser test: `comlq review push --beir` on a read-only copy of fixtures/audit_beir (so --out
is needed), pooled by BM25 and dense (top 2 each, on the corpus shuffled); three annotators grade
every passage by keyboard alone in headless Chromium (0, 1, 2 and F for "invented"); `comlq review
collect --beir` writes OUT/qrels/dev.audited.tsv and OUT/audit/dev/audit.json, whose figures are
audit_case.json's hand-computed table (tests/review/test_audit.py shows the arithmetic); and
`comlq evaluate --beir OUT --qrels-variant audited` reads OUT as a BEIR folder and compares the
original and the audited qrels on the audited queries.

Without a browser: a push that failed halfway (the server refusing the second batch) and is run
again creates no task twice; bad input is one line on stderr, exit code 2.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from annotation.client import connect, export_tasks, find_project
from pipeline.config import load_config
from pipeline.errors import ServiceUnavailable

pytestmark = pytest.mark.labelstudio

FIXTURE = Path(__file__).parent / "fixtures" / "audit_beir"
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ANNOTATORS = ("audit-a@example.org", "audit-b@example.org", "audit-c@example.org")
COMMENT = "Frostland is not a real country."
LABEL = {"0": "0", "1": "1", "2": "2", "f": "invented"}  # key -> the label it gives


def _toml(path: Path, ls, title: str) -> Path:
    path.write_text(f'[review]\nurl = "{ls.config.url}"\ntoken_env = "{ls.config.token_env}"\n'
                    f'data_dir = "{ls.config.data_dir}"\nproject_title = "{title}"\nbatch_size = 1\n\n'
                    '[evaluate]\nprecision = "fp32"\n', encoding="utf-8")
    return path


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *argv], env=env, capture_output=True, text=True,
                          timeout=900, stdin=subprocess.DEVNULL)


def _one_line(done: subprocess.CompletedProcess[str], expected: str) -> None:
    assert "Traceback" not in done.stderr and done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("comlq: error:")]
    assert len(lines) == 1 and expected in lines[0], done.stderr


def _read_only_copy(tmp_path: Path) -> Path:
    beir = tmp_path / "benchmark"
    shutil.copytree(FIXTURE, beir)
    for folder in (beir / "qrels", beir):
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)
    return beir


def _grade_by_keyboard(page, data: dict[str, Any], keys: dict[str, str]) -> None:
    """Alt+. selects each passage heading in turn; the key grades it (waiting, as a person would, for
    the frame on the passage and for its new label before the next key: test_browser.py says why)."""
    from playwright.sync_api import expect

    heads = page.locator(".comlq-head span[data-label]")
    selected_grade = page.locator(".lsf-label.lsf-label_selected .lsf-label__text").filter(
        has_text=re.compile(r"^([012]|invented)$"))
    expect(heads).to_have_count(len(data["passages"]))
    for n, passage in enumerate(data["passages"]):
        page.keyboard.press("Alt+Period")
        expect(heads.nth(n)).to_have_class(re.compile(r"(^|\s)__active(\s|$)"))
        expect(selected_grade).to_have_count(0)
        key = keys[passage["id"]]
        page.keyboard.press(key.upper() if key == "f" else key)
        expect(heads.nth(n)).to_have_attribute("data-label", re.compile(rf"^\d+:{LABEL[key]}$"))


def _comment(page, text: str) -> None:
    for _ in range(200):
        if page.evaluate("document.activeElement && document.activeElement.name") == "comment":
            break
        page.keyboard.press("Tab")
    else:
        pytest.fail("the comment box is not reachable with Tab")
    page.keyboard.type(text)
    while page.evaluate("document.activeElement.tagName") in ("TEXTAREA", "INPUT"):
        page.keyboard.press("Tab")


@pytest.mark.browser
def test_an_audit_round_by_keyboard_writes_audited_qrels_and_the_hand_computed_figures(
        ls, tmp_path, audit_case, assert_matches_audit_case):
    if not CHROMIUM.exists():
        pytest.fail("Debian chromium is missing (make test-deps installs it)")
    from playwright.sync_api import expect, sync_playwright

    config = _toml(tmp_path / "audit.toml", ls, "browser audit")
    beir, out = _read_only_copy(tmp_path), tmp_path / "audit-out"
    push = ["review", "push", "--beir", str(beir), "--split", "dev", "--pool-k", "2", "--config", str(config)]
    _one_line(_cli(*push), f"{beir}: read-only; give --out FOLDER")
    pushed = _cli(*push, "--out", str(out))
    assert pushed.returncode == 0, pushed.stderr
    assert "4 tasks created, 0 already there; 4 queries, 9 pooled passages (top 2 of bm25, dense)" in pushed.stdout
    assert "audit pool: dense ranked 4 questions over 14 passages" in pushed.stderr  # 14: no bar (test_audit.py)
    assert (out / "corpus.jsonl").resolve() == (beir / "corpus.jsonl").resolve()  # out links to the benchmark
    record = json.loads((out / "audit" / "dev" / "push.json").read_text())
    assert record["pool"]["q3"]["frostland"] == {"bm25": 2} and record["pool"]["q1"]["vienna"]["bm25"] == 1

    review = load_config(config).review
    client = connect(review)
    project = find_project(client, record["project"])
    assert record["project"] == "browser audit audit: benchmark/dev" and project.id == record["project_id"]
    tasks = {t["data"]["question"]: t["data"] for t in export_tasks(client, project.id)}
    shown = {d["item_id"]: sorted(p["id"] for p in d["passages"]) for d in tasks.values()}
    assert shown == {qid: sorted(ids) for qid, ids in audit_case["shown"].items()}, shown
    for email in ANNOTATORS:
        ls.annotator(email)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            for n, email in enumerate(ANNOTATORS):
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                page = context.new_page()
                page.goto(f"{review.url}/user/login/")
                page.fill("input[name=email]", email)
                page.fill("input[name=password]", ls.passwords[email])
                page.click("button[type=submit]")
                page.wait_for_url(lambda url: "/user/login" not in url)
                page.goto(f"{review.url}/projects/{project.id}/data?labeling=1")
                page.get_by_text("Auditing a benchmark's relevance labels").wait_for(timeout=60_000)
                page.keyboard.press("Escape")
                for _ in range(len(tasks)):
                    page.locator(".comlq-passage").first.wait_for(timeout=60_000)
                    expect(page.get_by_text("Passages to grade")).to_have_count(1)  # one task on the page
                    box = page.locator(".comlq-box").first.inner_text()
                    question, data = next((q, d) for q, d in tasks.items() if q in box)
                    verdicts = audit_case["verdicts"][data["item_id"]]
                    _grade_by_keyboard(page, data, {pid: v[n] for pid, v in verdicts.items()})
                    if data["item_id"] == "q3" and n == 0:
                        _comment(page, COMMENT)
                        page.set_viewport_size({"width": 1400, "height": 1600})
                        page.screenshot(path=tmp_path / "audit-task.png")
                        page.set_viewport_size({"width": 1400, "height": 1000})
                    with page.expect_response(lambda r: r.request.method == "POST" and "/annotations" in r.url) as sent:
                        page.keyboard.press("Control+Enter")
                    assert sent.value.status == 201, sent.value.text()
                    # the submitted task leaves the page before the next one is read (under load both may show)
                    expect(page.locator(".comlq-box", has_text=question)).to_have_count(0, timeout=60_000)
                context.close()
        finally:
            browser.close()

    collected = _cli("review", "collect", "--beir", str(beir), "--split", "dev", "--out", str(out), "--config",
                     str(config))
    assert collected.returncode == 0, collected.stderr
    assert ("4 queries audited (0 pending), 9 passages judged, 3 relevant ones the qrels missed, 1 gold ones judged "
            "not relevant, 1 invented, 4 disputed") in collected.stdout
    assert not (beir / "qrels" / "dev.audited.tsv").exists()  # the read-only benchmark is untouched
    rows = [line.split("\t") for line in (out / "qrels" / "dev.audited.tsv").read_text().splitlines()[1:]]
    report = json.loads((out / "audit" / "dev" / "audit.json").read_text())
    assert_matches_audit_case(report, [(q, p, int(g)) for q, p, g in rows], audit_case)
    assert report["comments"] == [{"query_id": "q3", "annotator": ANNOTATORS[0], "comment": COMMENT}]
    assert report["annotators"] == sorted(ANNOTATORS) and report["pending"] == []
    assert "| q3 | 2in | frostland | - |" in (out / "audit" / "dev" / "audit.md").read_text()

    evaluated = _cli("evaluate", "--beir", str(out), "--split", "dev", "--qrels-variant", "audited", "--retrievers",
                     "bm25,dense", "--precision", "fp32", "--quiet", "--out", str(tmp_path / "report"))
    assert evaluated.returncode == 0, evaluated.stderr
    metrics = json.loads((tmp_path / "report" / "metrics.json").read_text())
    assert metrics["dataset"]["qrels_variant"] == "audited" and metrics["audit"]["queries"] == 4
    for name in ("bm25", "dense"):
        overall = metrics["retrievers"][name]["overall"]
        assert {"nDCG@10", "nDCG'@10", "Judged@10"} <= set(overall)
        # every passage a retriever ranks in its top 2 was judged: the audit judged the whole pool
        original, audited = (metrics["audit"]["retrievers"][name][v]["mean"] for v in ("original", "audited"))
        assert audited["Judged@10"] > original["Judged@10"]
    assert "## Original and audited qrels" in (tmp_path / "report" / "report.md").read_text()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_push_that_failed_halfway_creates_no_task_twice_when_run_again(ls, tmp_path, monkeypatch):
    from label_studio_sdk.projects.client import ProjectsClient

    from pipeline.orchestration.audit import push_beir_audit

    config = load_config(_toml(tmp_path / "audit.toml", ls, "audit re-push"))
    beir = tmp_path / "benchmark"
    shutil.copytree(FIXTURE, beir)
    real = ProjectsClient.import_tasks
    calls = Counter()

    def failing_second(self, *args, **kwargs):  # the server going away after the first task
        calls["import"] += 1
        if calls["import"] == 2:
            raise ServiceUnavailable("Label Studio went away")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ProjectsClient, "import_tasks", failing_second)
    with pytest.raises(ServiceUnavailable):
        push_beir_audit(beir, "dev", config, k=2, progress=False)
    assert not (beir / "audit" / "dev" / "push.json").exists()
    monkeypatch.setattr(ProjectsClient, "import_tasks", real)
    record = push_beir_audit(beir, "dev", config, k=2, progress=False)
    assert (record["created"], record["existing"]) == (3, 1)
    client = connect(config.review)
    tasks = export_tasks(client, find_project(client, record["project"]).id)
    assert sorted(t["data"]["item_id"] for t in tasks) == ["q1", "q2", "q3", "q4"]  # each query once
    again = push_beir_audit(beir, "dev", config, k=2, progress=False)
    assert (again["created"], again["existing"]) == (0, 4) and again["tasks"] == record["tasks"]


def test_bad_input_is_one_line(ls, tmp_path):
    config = _toml(tmp_path / "audit.toml", ls, "audit errors")
    beir = tmp_path / "benchmark"
    shutil.copytree(FIXTURE, beir)
    push = ["review", "push", "--config", str(config), "--pool-k", "2"]
    no_qrels = tmp_path / "no-qrels"
    no_qrels.mkdir()
    (no_qrels / "corpus.jsonl").write_bytes((FIXTURE / "corpus.jsonl").read_bytes())
    _one_line(_cli(*push, "--beir", str(no_qrels), "--split", "dev"),
              f"{no_qrels}/qrels/dev.tsv: no qrels for split 'dev' (available: none)")
    _one_line(_cli(*push, "--beir", str(beir), "--split", "test"),
              f"{beir}/qrels/test.tsv: no qrels for split 'test' (available: dev)")
    _one_line(_cli(*push, "--beir", str(beir), "--split", "dev", "--pool-retrievers", "bm25,rewrite"),
              "pool retriever 'rewrite' failed: ")
    _one_line(_cli(*push, "--beir", str(beir), "--split", "dev", "--pool-retrievers", "bm25"),
              "pooling needs two or more retrievers, got ['bm25']")
    _one_line(_cli(*push, str(beir), "--beir", str(beir)),
              "give a run folder DIR or --beir FOLDER (an audit), not both")
    _one_line(_cli("review", "collect", "--beir", str(beir), "--split", "dev", "--config", str(config)),
              f"{beir}/audit/dev/push.json: nothing pushed for this audit yet")
    down = tmp_path / "down.toml"
    url = f"http://127.0.0.1:{_free_port()}"
    down.write_text(config.read_text().replace(ls.config.url, url))
    _one_line(_cli(*push, "--beir", str(beir), "--split", "dev", "--config", str(down)),
              f"Label Studio is not reachable at {url}")
    assert not (beir / "audit").exists() and not (beir / "qrels" / "dev.audited.tsv").exists()
