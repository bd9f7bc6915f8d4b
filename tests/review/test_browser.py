"""A whole review round in headless Chromium: `comlq review push` (pooling with BM25 and dense),
three annotators who read the instructions and answer every question of every task with the
keyboard alone, typing at full speed, then `comlq review collect` writes the export. Screenshots
of each kind of task the labeling interface distinguishes (`kind`) go to test-artifacts/review/.
A ten-passage task graded at full speed by three annotators: every stored grade, answer and
comment is the key pressed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from annotation.client import connect, export_tasks, find_project, user_emails
from annotation.push import Pool, push
from annotation.results import read_vote
from pipeline.schemas import read_jsonl, write_jsonl

pytestmark = [pytest.mark.labelstudio, pytest.mark.browser]

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "review"
ANNOTATORS = ("browser-a@example.org", "browser-b@example.org", "browser-c@example.org")
COMMENT = "Ivan Turgenev is missing: a Russian novelist who did not write War and Peace."
KEYS = {  # question -> keys for yes, no, unsure (labeling_config.xml)
    "structure": "qwe", "spread": "asd", "correct": "zxc", "complete": "iop", "trivial": "jkl"}
FIELDS = {  # plan's question -> the vote's field (pipeline.records.ReviewVote)
    "structure": "structure_ok", "spread": "evidence_spread", "correct": "answers_correct",
    "complete": "answers_complete", "trivial": "trivial"}
HEADINGS = {"evidence": "Evidence for the answers", "excluded": "Excluded by NOT", "candidate": "Other candidates"}
# what the task shows differently (annotation/tasks.py, labeling_config.xml); every task also has pooled candidates
KINDS = {
    "single-passage": "one evidence passage: no evidence-spread question",
    "multi-passage": "a chain over 2-3 evidence passages: the evidence-spread question",
    "negation": "the 'Excluded by NOT' group, with what the NOT removes",
    "union": "evidence from either branch of an OR",
    "no-facts": "an LLM item: no generator facts, so no highlighted sentences",
}


def kind(data: dict[str, Any]) -> str:
    if any(p["group"] == "excluded" for p in data["passages"]):
        return "negation"
    if data["query_type"].split(":")[0] in ("2u", "up"):
        return "union"
    if data["facts"] == "(not recorded)":
        return "no-facts"
    return "multi-passage" if data["spread"] else "single-passage"


def plan(data: dict[str, Any], annotator: int) -> dict[str, Any]:
    """What annotator 0, 1 or 2 answers on a task: the LLM item's answer (Bach, born in Bonn) is
    wrong; the 2in item misses Turgenev, whom pooling found; a few unsure answers."""
    item = data["item_id"]
    answers = {"structure": "yes", "spread": "yes", "correct": "yes", "complete": "yes", "trivial": "no"}
    if item == "r-2i-2" and annotator < 2:
        answers["correct"] = "no"
    if item == "r-2in-1":
        answers["complete"] = "no"
    if item == "r-3p-3" and annotator == 2:
        answers["structure"] = "unsure"
    grades = {}
    for passage in data["passages"]:
        if passage["group"] == "evidence":
            alone = item in ("r-1p-1", "r-2in-1", "r-2i-2")
            grades[passage["id"]] = 0 if passage["id"] == "p7" and item == "r-2i-2" else 2 if alone else 1
        else:
            grades[passage["id"]] = 2 if passage["id"] == "p10" else 0
    comment = COMMENT if item == "r-2in-1" and annotator == 0 else None
    return {"answers": answers, "grades": grades, "comment": comment}


def _cli(config: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}  # a fresh shell's
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *argv, "--config", str(config)], env=env,
                          capture_output=True, text=True, timeout=900)


def _answer(page, data: dict[str, Any], answer: dict[str, Any]) -> int:
    """Answer the open task with the keyboard alone, at full speed: no key waits for the one before
    to show (annotation/keys.js makes that safe). Each grade follows its Alt+. at once, each answer
    key is pressed twice (a second press keeps the answer), and the comment box is left with
    Ctrl+Enter, which submits. Returns the Tab presses that reached the comment box."""
    from playwright.sync_api import expect

    expect(page.locator(".comlq-head span[data-label]")).to_have_count(len(data["passages"]))  # regions loaded
    for passage in data["passages"]:
        page.keyboard.press("Alt+Period")
        page.keyboard.press(str(answer["grades"][passage["id"]]))
    for question, value in answer["answers"].items():
        if question != "spread" or data["spread"]:
            key = KEYS[question]["yes no unsure".split().index(value)]
            page.keyboard.press(key)
            page.keyboard.press(key)
    tabs = 0
    if answer["comment"]:
        while page.evaluate("document.activeElement && document.activeElement.name") != "comment":
            page.keyboard.press("Tab")
            tabs += 1
            assert tabs < 200, "the comment box is not reachable with Tab"
        page.keyboard.type(answer["comment"])
    return tabs


def _submit(page) -> None:
    """Ctrl+Enter, from wherever the focus is (the comment box too); the annotation is stored."""
    with page.expect_response(lambda r: r.request.method == "POST" and "/annotations" in r.url) as sent:
        page.keyboard.press("Control+Enter")
    assert sent.value.status == 201, sent.value.text()


def _check_groups(page, data: dict[str, Any]) -> list[str]:
    """The passage groups as the task shows them: each heading counts its passages, every passage
    is shown once, and the evidence-spread question is there only for multi-passage items."""
    groups = page.locator(".comlq-group h4").all_inner_texts()
    assert groups[0].startswith("Evidence for the answers")
    shown = {g: sum(p["group"] == g for p in data["passages"]) for g in HEADINGS}
    assert groups == [f"{HEADINGS[g]} ({n})" for g, n in shown.items() if n]
    for group, count in shown.items():
        assert page.locator(f".comlq-{group} .comlq-passage").count() == count, group
    assert page.locator(".comlq-passage").count() == len(data["passages"])
    # the question's own heading (the hidden instructions name it too, in the key table)
    spread = page.get_by_text("2. Evidence spread: does each evidence passage give part of the facts")
    assert spread.count() == (1 if data["spread"] else 0)
    return groups


def _assert_votes_as_keyed(tasks: dict[str, dict[str, Any]], reviewed: dict[str, dict[str, Any]]) -> None:
    """Every collected vote as the keys gave it: each question's answer, each passage's grade (none
    left at "?"), the comment."""
    for data in tasks.values():
        for n, email in enumerate(ANNOTATORS):
            wanted = plan(data, n)
            (vote,) = [v for v in reviewed[data["item_id"]]["votes"] if v["annotator"] == email]
            assert vote["relevance"] == wanted["grades"] and not vote.get("ungraded"), (data["item_id"], email)
            for question, value in wanted["answers"].items():
                name = FIELDS[question]
                if question == "spread" and not data["spread"]:
                    value = None  # not asked
                assert vote[name] == {"yes": True, "no": False, "unsure": None, None: None}[value], (email, name)
                assert (name in vote.get("unsure", [])) == (value == "unsure"), (email, name)
            assert vote.get("comment") == wanted["comment"], (data["item_id"], email)


def _label_all_tasks(browser, url: str, project_id: int, email: str, password: str):
    """A browser of the annotator's own, logged in, in the project's labeling stream (Label All
    Tasks); returns its context and page, the instructions panel open."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{url}/user/login/")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(lambda at: "/user/login" not in at)
    page.goto(f"{url}/projects/{project_id}/data?labeling=1")
    page.get_by_text("Reviewing ComLQ queries").wait_for(timeout=60_000)
    return context, page


def _screenshot(page, name: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 2600})  # the whole task, not only the first screen
    page.wait_for_timeout(300)
    page.screenshot(path=ARTIFACTS / name)
    page.set_viewport_size({"width": 1400, "height": 1000})


def test_three_annotators_review_with_the_keyboard_and_collect_writes_the_export(ls, tmp_path, make_run,
                                                                                 review_toml):
    if not CHROMIUM.exists():
        pytest.fail("Debian chromium is missing (make test-deps installs it)")
    from playwright.sync_api import expect, sync_playwright

    config = review_toml(tmp_path / "review.toml", ls.config, "browser round")
    run = make_run(tmp_path / "run")
    pushed = _cli(config, "review", "push", str(run))
    assert pushed.returncode == 0, pushed.stderr
    assert f"next: annotators log in at {ls.config.url}/user/login/" in pushed.stdout
    review = ls.project("browser round")
    client = connect(review)
    project_id = find_project(client, review.project_title).id
    tasks = {t["data"]["question"]: t["data"] for t in export_tasks(client, project_id)}
    pooled = {d["item_id"]: [p["id"] for p in d["passages"] if p["group"] == "candidate"] for d in tasks.values()}
    assert "p10" in pooled["r-2in-1"], pooled  # BM25 or dense ranks the other Russian novelist high
    assert all(pooled.values()), pooled  # every task shows other candidates
    assert sorted(kind(d) for d in tasks.values()) == sorted(KINDS)  # one task of each kind
    pushed_order = [r["item_id"] for r in read_jsonl(run / "review" / "push_log.jsonl", None)]
    for email in ANNOTATORS:
        ls.annotator(email)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):  # only this run's screenshots
        old.unlink()
    seconds: list[float] = []
    tab_presses = 0
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            for n, email in enumerate(ANNOTATORS):
                context, page = _label_all_tasks(browser, review.url, project_id, email, ls.passwords[email])
                # the instructions come first: rubric, keys, notation
                assert page.get_by_text("Grading a passage (one scale for every passage)").is_visible()
                if n == 0:
                    page.screenshot(path=ARTIFACTS / "01-instructions.png")
                page.keyboard.press("Escape")
                order = []
                for _ in range(len(tasks)):
                    page.locator(".comlq-passage").first.wait_for(timeout=60_000)
                    started = time.monotonic()
                    shown = page.locator(".comlq-box").first.inner_text()
                    question, data = next((q, d) for q, d in tasks.items() if q in shown)
                    order.append(data["item_id"])
                    groups = _check_groups(page, data)
                    if data["item_id"] == "r-2in-1":  # a negation task: excluded passages, pooled candidates
                        assert any(g.startswith("Excluded by NOT") for g in groups)
                        assert any(g.startswith("Other candidates") for g in groups)
                        assert page.locator(".comlq-passage", has_text="Ivan Turgenev").count() == 1
                    if "facts" in data and data["facts"] != "(not recorded)":
                        assert page.locator("mark.comlq-fact").count() >= 1  # the stating sentences
                    tab_presses += _answer(page, data, plan(data, n))
                    if n == 0:
                        _screenshot(page, f"{len(order) + 1:02d}-{kind(data)}-{data['item_id']}-answered.png")
                    _submit(page)
                    # the submitted task leaves the page before the next one is read (under load both may show)
                    expect(page.locator(".comlq-box", has_text=question)).to_have_count(0, timeout=60_000)
                    seconds.append(time.monotonic() - started)
                assert order == pushed_order  # the same order for everyone: the push's
                context.close()
        finally:
            browser.close()
    print(f"keyboard-only answering: {sum(seconds) / len(seconds):.1f} s per task on average, "
          f"{tab_presses} Tab presses for the comment")
    shots = sorted(path.name for path in ARTIFACTS.glob("*.png"))
    assert shots[0] == "01-instructions.png"
    assert sorted(name.split("-r-")[0][3:] for name in shots[1:]) == sorted(KINDS), shots  # each kind once

    collected = _cli(config, "review", "collect", str(run))
    assert collected.returncode == 0, collected.stdout + collected.stderr
    assert f"{run}: review collected" in collected.stdout
    reviewed = {r["item"]["id"]: r["review"] for r in read_jsonl(run / "review" / "reviewed.jsonl", "reviewed_item")}
    assert reviewed["r-2i-2"]["status"] == "rejected" and reviewed["r-2i-2"]["reason"] == "answers not correct"
    assert reviewed["r-2in-1"]["status"] == "accepted" and "incomplete_repaired" in reviewed["r-2in-1"]["flags"]
    assert reviewed["r-2in-1"]["comments"] == [{"annotator": ANNOTATORS[0], "comment": COMMENT}]
    _assert_votes_as_keyed(tasks, reviewed)
    votes = {v["annotator"]: v for v in reviewed["r-3p-3"]["votes"]}
    assert votes[ANNOTATORS[2]]["unsure"] == ["structure_ok"] and votes[ANNOTATORS[0]]["structure_ok"] is True
    assert {v["annotator"]: v["relevance"]["p10"] for v in reviewed["r-2in-1"]["votes"]} == dict.fromkeys(ANNOTATORS, 2)
    beir = run / "export" / "beir"
    queries = {q["_id"] for q in read_jsonl(beir / "queries.jsonl", None)}
    assert "r-2i-2" not in queries and {"r-1p-1", "r-2in-1"} <= queries
    qrels = {tuple(line.split("\t")) for line in (beir / "qrels" / "test.tsv").read_text().splitlines()[1:]}
    assert ("r-2in-1", "p10", "2") in qrels  # the pooled passage the annotators found relevant
    agreement = json.loads((run / "review" / "agreement.json").read_text())
    assert agreement["pool"]["by_type"]["2in"]["relevant"] == 1
    assert (run / "report" / "metrics.json").is_file()


# Grades in long runs: a grade equal to the passage before's is the one Label Studio 1.23.2 dropped
# when typed right after Alt+. (annotation/keys.js); each annotator a run of each grade.
SPEED = {"speed-a@example.org": "2222211110", "speed-b@example.org": "0000022222", "speed-c@example.org": "1111100000"}


def test_keys_at_full_speed_store_every_grade_answer_and_comment_of_a_ten_passage_task(ls, tmp_path, make_run):
    if not CHROMIUM.exists():
        pytest.fail("Debian chromium is missing (make test-deps installs it)")
    from playwright.sync_api import expect, sync_playwright

    run = make_run(tmp_path / "run")
    (item,) = [i for i in read_jsonl(run / "items.jsonl", "item") if i["id"] == "r-3p-3"]
    evidence = [e["passage_id"] for e in item["evidence"]]
    others = [f"p{n}" for n in range(1, 13) if f"p{n}" not in evidence][:7]  # shown as other candidates
    write_jsonl(run / "items.jsonl", [item | {"source_passages": evidence + others}], "item")
    review = ls.project("ten passages")
    push(run, review, pool=Pool({}))
    client = connect(review)
    project_id = find_project(client, review.project_title).id
    (data,) = [t["data"] for t in export_tasks(client, project_id)]
    assert len(data["passages"]) == 10 and data["spread"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            for email, grades in SPEED.items():
                ls.annotator(email)
                context, page = _label_all_tasks(browser, review.url, project_id, email, ls.passwords[email])
                page.keyboard.press("Escape")
                expect(page.locator(".comlq-head span[data-label]")).to_have_count(10)
                for grade in grades:  # no pause anywhere
                    page.keyboard.press("Alt+Period")
                    page.keyboard.press(grade)
                # change question 1 from no to yes, press every answer twice, "no" for question 4
                for key in "wqqaazzookk":
                    page.keyboard.press(key)
                page.locator("textarea[name=comment]").focus()
                page.keyboard.type(f"typed by {email}")
                _submit(page)  # Ctrl+Enter from inside the comment box
                context.close()
        finally:
            browser.close()

    emails = user_emails(client)
    (task,) = export_tasks(client, project_id)
    votes = {emails[a["completed_by"]]: read_vote(task, a, emails[a["completed_by"]]) for a in task["annotations"]}
    assert set(votes) == set(SPEED)
    for email, grades in SPEED.items():
        vote = votes[email]
        assert [vote.relevance.get(p["id"]) for p in data["passages"]] == [int(g) for g in grades], email
        assert not vote.ungraded, email
        assert (vote.structure_ok, vote.evidence_spread, vote.answers_correct, vote.answers_complete, vote.trivial,
                vote.unsure) == (True, True, True, False, False, ()), email
        assert vote.comment == f"typed by {email}", email
