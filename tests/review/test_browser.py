"""An annotator in headless Chromium: log in, open the labeling stream, answer, submit; the pull sees it."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from annotation.pull import pull
from annotation.push import push
from pipeline.schemas import read_jsonl

pytestmark = [pytest.mark.labelstudio, pytest.mark.browser]

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "review"
EMAIL = "browser@example.org"


def _answer(page, grade_single: int, grade_multi: int) -> dict:
    """Answer every question on the open task; returns the vote as reviewed.jsonl will show it."""
    page.get_by_text("Structure: is the question").wait_for(timeout=60_000)
    question = page.locator(".comlq-box").first.inner_text().splitlines()[1]
    boxes = page.locator(".comlq-box", has=page.locator(".lsf-choices"))
    passages = [boxes.nth(i) for i in range(boxes.count()) if boxes.nth(i).inner_text().startswith("[")]
    grade = grade_single if len(passages) == 1 else grade_multi
    for i in range(boxes.count()):
        box = boxes.nth(i)
        text = box.inner_text()
        value = "yes" if text.startswith("Structure") else "no" if text.startswith("Evidence") else str(grade)
        box.locator("label", has=page.locator(f'input[name="{value}"]')).click()
    spread = None if len(passages) == 1 else False
    return {"question": question, "structure_ok": True, "evidence_spread": spread, "grade": grade}


def test_an_annotator_submits_in_chromium_and_the_pull_sees_it(ls, tmp_path, make_run):
    if not CHROMIUM.exists():
        pytest.fail("Debian chromium is missing (make test-deps installs it)")
    from playwright.sync_api import sync_playwright

    config = ls.project("browser")
    run = make_run(tmp_path / "run")
    project_id = push(run, config).project_id
    ls.annotator(EMAIL)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    answered = []
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as profile:
        browser = pw.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), args=ARGS, headless=True, viewport={"width": 1400, "height": 1600})
        try:
            page = browser.new_page()
            page.goto(f"{config.url}/user/login/")
            page.fill("input[name=email]", EMAIL)
            page.fill("input[name=password]", ls.passwords[EMAIL])
            page.screenshot(path=ARTIFACTS / "01-login.png")
            page.click("button[type=submit]")
            page.wait_for_url(lambda url: "/user/login" not in url)
            page.goto(f"{config.url}/projects/{project_id}/data?labeling=1")
            # two tasks from the stream: the first is single-passage, the next one shows the evidence question
            for n, grades in enumerate(((2, 1), (2, 1)), start=1):
                answered.append(_answer(page, *grades))
                page.screenshot(path=ARTIFACTS / f"0{n + 1}-task-{n}-answered.png", full_page=True)
                with page.expect_response(lambda r: r.request.method == "POST" and "/annotations" in r.url) as sent:
                    page.get_by_test_id("bottombar-submit-button").click()
                assert sent.value.status == 201
        finally:
            browser.close()

    result = pull(run, config)
    by_question = {r["item"]["question"]: r for r in read_jsonl(result.reviewed, "reviewed_item")}
    assert any(a["evidence_spread"] is not None for a in answered), "the stream never showed a multi-passage task"
    for answer in answered:
        record = by_question[answer["question"]]
        (vote,) = record["review"]["votes"]
        assert vote["annotator"] == EMAIL
        assert (vote["structure_ok"], vote["evidence_spread"]) == (answer["structure_ok"], answer["evidence_spread"])
        assert vote["relevance"] == {pid: answer["grade"] for pid in record["item"]["source_passages"]}
        assert record["review"]["status"] == "pending"  # one vote of three
