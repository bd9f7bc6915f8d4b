"""Against the real server: push, three annotators annotating as themselves, restart, pull."""

from __future__ import annotations

import re

import pytest
from label_studio_sdk import LabelStudio

from annotation import server
from annotation.client import connect, export_tasks, find_project
from annotation.pull import pull
from annotation.push import push
from annotation.results import structure_region
from pipeline.cli import main
from pipeline.errors import ComlqError
from pipeline.schemas import read_json, read_jsonl

pytestmark = pytest.mark.labelstudio


def _cli(monkeypatch, tmp_path, ls, *argv: str) -> int:
    config = tmp_path / "review.toml"
    config.write_text(f'[review]\nurl = "{ls.config.url}"\ntoken_env = "{ls.config.token_env}"\n'
                      f'data_dir = "{ls.config.data_dir}"\nproject_title = "cli"\n')
    return main([*argv, "--config", str(config)])


@pytest.fixture(scope="module")
def annotated(ls, tmp_path_factory, make_run, case):
    """A run folder pushed once and annotated by the three annotators of the hand-computed case."""
    run = make_run(tmp_path_factory.mktemp("run"))
    config = ls.project("round trip")
    first = push(run, config)
    ls.annotate(config, case["votes"])
    return run, config, case, first


def test_push_creates_each_task_once(annotated):
    run, config, _, first = annotated
    assert (first.created, first.existing, first.skipped_failed_checks) == (4, 0, 1)
    again = push(run, config, predictions=True)
    assert (again.project_id, again.created, again.existing) == (first.project_id, 0, 4)
    client = connect(config)
    tasks = export_tasks(client, again.project_id)
    assert sorted(t["data"]["item_id"] for t in tasks) == ["r-1p-1", "r-2in-2", "r-2u-2", "r-3p-3"]
    project = client.projects.get(id=again.project_id)
    assert project.maximum_annotations == 3
    log = list(read_jsonl(run / "review" / "push_log.jsonl", None))
    assert {r["item_id"]: r["task_id"] for r in log} == {t["data"]["item_id"]: t["id"] for t in tasks}


def test_pull_matches_the_hand_computed_votes_and_agreement(annotated, assert_matches_case):
    run, config, case, _ = annotated
    result = pull(run, config)
    assert result.counts == {"accepted": 2, "rejected": 1, "pending": 1}
    reviewed = list(read_jsonl(result.reviewed, "reviewed_item"))
    assert_matches_case(reviewed, read_json(result.agreement, "agreement"), case)
    # each vote is mapped to the annotator who submitted it, with its Label Studio ids
    assert all(v["task_id"] and v["annotation_id"] for r in reviewed for v in r["review"]["votes"])


def test_a_restart_between_push_and_pull_loses_nothing_and_a_stopped_server_is_a_clear_error(
        annotated, ls, monkeypatch, tmp_path, capsys):
    run, config, case, _ = annotated
    before = pull(run, config)
    rows_before = (run / "review" / "reviewed.jsonl").read_text()
    server.stop(ls.config, log=lambda _: None)
    try:
        code = _cli(monkeypatch, tmp_path, ls, "review", "pull", str(run))
        err = capsys.readouterr().err.strip()
        assert code == 2
        assert err == f"comlq: error: Label Studio is not reachable at {ls.config.url} " \
                      "(start it with `comlq review server start`)"
    finally:
        server.start(ls.config, log=lambda _: None)
    after = pull(run, config)
    assert after.counts == before.counts
    assert (run / "review" / "reviewed.jsonl").read_text() == rows_before


def test_add_annotator_makes_an_account_that_can_log_in(ls, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("ANNOTATOR_PASSWORD", "correct-horse-battery-9")
    assert _cli(monkeypatch, tmp_path, ls, "review", "add-annotator", "new@example.org",
                "--password-env", "ANNOTATOR_PASSWORD") == 0
    out = capsys.readouterr().out
    assert f"log in at {ls.config.url}/user/login/ with e-mail new@example.org" in out
    from annotation.users import user_token

    token = user_token(ls.config.url, "new@example.org", "correct-horse-battery-9")
    assert LabelStudio(base_url=ls.config.url, api_key=token).users.whoami().email == "new@example.org"
    assert _cli(monkeypatch, tmp_path, ls, "review", "add-annotator", "new@example.org") == 2
    assert "new@example.org already has an account" in capsys.readouterr().err


def test_cli_push_and_pull_print_one_line_summaries(ls, tmp_path, monkeypatch, capsys, make_run):
    run = make_run(tmp_path / "run")
    assert _cli(monkeypatch, tmp_path, ls, "review", "push", str(run), "--predictions") == 0
    assert "4 tasks created, 0 already there, 1 items with a failed automatic check not sent" in capsys.readouterr().out
    # the automatic check rides along as a pre-filled structure answer
    client = connect(ls.project("cli"))
    predictions = client.predictions.list(project=find_project(client, "cli").id)
    assert len(predictions) == 4
    assert {p.model_version for p in predictions} == {"automatic-check"}
    assert all(p.result == [structure_region(True)] for p in predictions)  # the pushed items all passed
    assert _cli(monkeypatch, tmp_path, ls, "review", "pull", str(run)) == 0
    assert "(4 pending)" in capsys.readouterr().out


def test_a_token_other_than_the_first_starts_is_a_clear_error(ls, monkeypatch):
    # Label Studio keeps the token the data dir was first started with; a new one is rejected
    monkeypatch.setenv(ls.config.token_env, "not-the-first-start-token")
    data_dir = server.Server.from_config(ls.config).data_dir
    expected = (rf"Label Studio at {re.escape(ls.config.url)} rejected the API token: it must be the token the server "
                rf"in {re.escape(str(data_dir))} was first started with \(check \${ls.config.token_env} / review.token_env\)$")
    with pytest.raises(ComlqError, match=expected):
        server.start(ls.config, log=lambda _: None)
    with pytest.raises(ComlqError, match=expected):
        connect(ls.config)
    assert server.status(ls.config)["healthy"]  # the running server is left alone
