"""Session-wide test settings: no cache outside the test session's own folder."""

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def _private_caches(tmp_path_factory):
    # The embedding/LLM caches default to ~/.cache/comlq; tests must neither read a warm cache
    # a developer left behind nor leave one for the next run.
    os.environ["COMLQ_CACHE"] = str(tmp_path_factory.mktemp("comlq-cache"))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    yield
