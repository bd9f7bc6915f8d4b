"""Against the real server: push, three annotators annotating as themselves, restart, pull,
status, annotator accounts, and the project's blind-voting settings."""

from __future__ import annotations

import re

import pytest
from label_studio_sdk import LabelStudio

from annotation import server
from annotation.client import connect, export_tasks, find_project
from annotation.pull import pull
from annotation.push import Pool, push
from annotation.results import structure_region
from annotation.status import review_status
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
    first = push(run, config, pool=Pool(case["pool"], ("bm25", "dense")))
    ls.annotate(config, case["votes"])
    return run, config, case, first


def test_push_creates_each_task_once_with_blind_voting_settings(annotated):
    run, config, _, first = annotated
    assert (first.created, first.existing, first.skipped_failed_checks, first.pooled) == (5, 0, 1, 3)
    again = push(run, config, predictions=True)
    assert (again.project_id, again.created, again.existing) == (first.project_id, 0, 5)
    client = connect(config)
    tasks = export_tasks(client, again.project_id)
    assert sorted(t["data"]["item_id"] for t in tasks) == ["r-1p-1", "r-2i-2", "r-2in-1", "r-2u-2", "r-3p-3"]
    project = client.projects.get(id=again.project_id)
    assert (project.maximum_annotations, project.overlap_cohort_percentage, project.sampling) == \
        (3, 100, "Sequential sampling")
    assert not project.show_annotation_history and not project.show_skip_button and not project.enable_empty_annotation
    assert project.show_instruction and "Reviewing ComLQ queries" in project.expert_instruction
    assert project.model_version == "comlq-layout"
    log = list(read_jsonl(run / "review" / "push_log.jsonl", None))
    assert {r["item_id"]: r["task_id"] for r in log} == {t["data"]["item_id"]: t["id"] for t in tasks}


def test_pull_matches_the_hand_computed_votes_and_agreement(annotated, assert_matches_case):
    run, config, case, _ = annotated
    result = pull(run, config)
    assert result.counts == {"accepted": 2, "rejected": 2, "pending": 1}
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


def test_cli_push_pools_candidates_and_pull_prints_one_line(ls, tmp_path, monkeypatch, capsys, make_run):
    run = make_run(tmp_path / "run")
    assert _cli(monkeypatch, tmp_path, ls, "review", "push", str(run), "--predictions", "--pool-k", "1") == 0
    out = capsys.readouterr().out
    assert "5 tasks created, 0 already there, 1 items with a failed automatic check not sent, " in out
    client = connect(ls.project("cli"))
    tasks = export_tasks(client, find_project(client, "cli").id)
    pooled = [sum(p["group"] == "candidate" for p in t["data"]["passages"]) for t in tasks]
    assert all(1 <= n <= 2 for n in pooled)  # the top passage of bm25 and of dense, the same one or two
    assert f"{sum(pooled)} pooled candidate passages" in out
    # one prediction per task: the passage regions, and the automatic check as a pre-filled structure answer
    predictions = client.predictions.list(project=find_project(client, "cli").id)
    assert len(predictions) == 5 and {p.model_version for p in predictions} == {"comlq-layout"}
    assert all(p.result[-1] == structure_region(True) for p in predictions)  # the pushed items all passed
    assert _cli(monkeypatch, tmp_path, ls, "review", "pull", str(run)) == 0
    assert "(5 pending)" in capsys.readouterr().out


def test_a_token_other_than_the_first_starts_is_a_clear_error(ls, monkeypatch):
    # Label Studio keeps the token the data dir was first started with; a new one is rejected
    monkeypatch.setenv(ls.config.token_env, "not-the-first-start-token")
    data_dir = server.Server.from_config(ls.config).data_dir
    expected = (rf"Label Studio at {re.escape(ls.config.url)} rejected the API token: it must be the token the server "
                rf"in {re.escape(str(data_dir))} was first started with "
                rf"\(check \${ls.config.token_env} / review.token_env\)$")
    with pytest.raises(ComlqError, match=expected):
        server.start(ls.config, log=lambda _: None)
    with pytest.raises(ComlqError, match=expected):
        connect(ls.config)
    assert server.status(ls.config)["healthy"]  # the running server is left alone


def test_status_shows_who_is_behind_and_where_each_type_stands(annotated, ls, monkeypatch, tmp_path, capsys):
    run, config, case, _ = annotated
    status = review_status(run, config)
    a, b, c = case["annotators"]
    # five tasks; r-2u-2 has two votes (a, b): c has it left, and so would anyone else
    assert {who: status.annotators[who] for who in (a, b, c)} == {a: (5, 0), b: (5, 0), c: (4, 1)}
    assert {t: dict(n) for t, n in status.types.items()} == {
        "1p": {"accepted": 1}, "3p": {"rejected": 1}, "2i": {"rejected": 1}, "2u": {"pending": 1},
        "2in": {"accepted": 1}}
    config_file = tmp_path / "status.toml"
    config_file.write_text(f'[review]\nurl = "{config.url}"\ntoken_env = "{config.token_env}"\n'
                           f'data_dir = "{config.data_dir}"\nproject_title = "{config.project_title}"\n')
    assert main(["review", "status", str(run), "--config", str(config_file)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0] == f"{run}: 5 tasks in project 'round trip' at {config.url}, 3 votes each"
    assert re.fullmatch(rf"{re.escape(c)}\s+4\s+1", next(line for line in table if line.startswith(c)))
    assert re.fullmatch(r"all\s+2\s+2\s+1", table[-1])


def test_annotators_are_listed_and_a_password_can_be_reset(ls, monkeypatch, tmp_path, capsys):
    from annotation.users import user_token

    ls.annotator("forgetful@example.org")
    assert _cli(monkeypatch, tmp_path, ls, "review", "annotators", "list") == 0
    listed = capsys.readouterr().out
    assert "forgetful@example.org" in listed and f"{ls.config.admin_email}" in listed and "(admin)" in listed
    monkeypatch.setenv("NEW_PASSWORD", "a-new-password-42")
    assert _cli(monkeypatch, tmp_path, ls, "review", "annotators", "reset-password", "forgetful@example.org",
                "--password-env", "NEW_PASSWORD") == 0
    assert "password from $NEW_PASSWORD" in capsys.readouterr().out
    assert user_token(ls.config.url, "forgetful@example.org", "a-new-password-42")
    with pytest.raises(ComlqError, match="cannot log into"):
        user_token(ls.config.url, "forgetful@example.org", ls.passwords["forgetful@example.org"])
    assert _cli(monkeypatch, tmp_path, ls, "review", "annotators", "reset-password", "nobody@example.org") == 2
    assert capsys.readouterr().err.strip() == (f"comlq: error: no account nobody@example.org on {ls.config.url} "
                                               "(`comlq review annotators list` shows them)")


def test_server_start_names_the_admin_password_file_and_the_next_steps(ls, monkeypatch, tmp_path, capsys):
    monkeypatch.delenv(server.PASSWORD_ENV, raising=False)
    assert _cli(monkeypatch, tmp_path, ls, "review", "server", "start") == 0  # already running: waited for
    out = capsys.readouterr().out.splitlines()
    password_file = server.Server.from_config(ls.config).data_dir / "admin-password"
    assert out[-2] == (f"admin: log in at {ls.config.url}/user/login/ as {ls.config.admin_email}, password in "
                       f"the file {password_file} (generated at the first start)")
    assert password_file.read_text().strip() not in "\n".join(out)  # named, never printed
    given = f"--config {tmp_path / 'review.toml'}"
    assert out[-1] == (f"next: `comlq review annotators add EMAIL {given}` for each annotator, then `comlq review push "
                       f"RUN {given}`; for scheduled runs `comlq serve start {given}` (it keeps the token in a Prefect "
                       "Secret block)")
