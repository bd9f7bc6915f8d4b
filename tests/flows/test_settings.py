"""Prefect's environment for `comlq run`, and merging chunk stats (plain functions)."""

from __future__ import annotations

from pathlib import Path

from pipeline.orchestration.settings import prefect_environment


def test_without_a_server_everything_lives_in_the_run_folder(tmp_path: Path) -> None:
    env = prefect_environment(tmp_path / "run", {})
    assert env["PREFECT_HOME"] == str(tmp_path / "run" / ".prefect")
    assert env["PREFECT_RESULTS_LOCAL_STORAGE_PATH"] == str(tmp_path / "run" / "cache" / "prefect")
    assert env["DO_NOT_TRACK"] == "1" and env["PREFECT_SERVER_ANALYTICS_ENABLED"] == "false"
    assert int(env["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"]) >= 90
    assert env["PREFECT_LOGGING_LEVEL"] == env["PREFECT_SERVER_LOGGING_LEVEL"] == "CRITICAL"
    assert "PREFECT_LOGGING_LEVEL" not in prefect_environment(tmp_path, {}, verbose=True)


def test_with_a_server_the_run_reports_there_and_set_values_win(tmp_path: Path) -> None:
    env = prefect_environment(tmp_path, {"PREFECT_API_URL": "http://127.0.0.1:4200/api", "DO_NOT_TRACK": "0"})
    assert "PREFECT_HOME" not in env and "PREFECT_RESULTS_LOCAL_STORAGE_PATH" not in env
    assert "DO_NOT_TRACK" not in env  # the user's own value stays
    assert env["PREFECT_SERVER_ANALYTICS_ENABLED"] == "false"
