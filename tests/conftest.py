"""Session-wide test settings: no cache outside the test session's own folder, and the code of
this checkout in every subprocess."""

import os
from pathlib import Path

import pytest

# Subprocesses (`python -m pipeline.cli`, a Prefect worker and its flow runs) run in other folders,
# where the venv's editable install would import another checkout's code (a git worktree's tests
# would test the main checkout): this checkout comes first on their path too.
ROOT = str(Path(__file__).resolve().parents[1])
os.environ["PYTHONPATH"] = os.pathsep.join([ROOT, *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                                     if p and p != ROOT)])


@pytest.fixture(scope="session", autouse=True)
def _private_caches(tmp_path_factory):
    # The embedding/LLM caches default to ~/.cache/comlq; tests must neither read a warm cache
    # a developer left behind nor leave one for the next run.
    os.environ["COMLQ_CACHE"] = str(tmp_path_factory.mktemp("comlq-cache"))
    os.environ["COMLQ_HOME"] = str(tmp_path_factory.mktemp("comlq-home"))  # the review-run registry
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    yield


@pytest.fixture(autouse=True)
def _private_home(tmp_path, monkeypatch):
    # each test its own list of runs waiting for review, so one test's runs never reach another's collect
    monkeypatch.setenv("COMLQ_HOME", str(tmp_path / "comlq-home"))
