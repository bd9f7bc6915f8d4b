"""Flow tests run against prefect_test_harness: a temporary API server and database for the
session, a per-session result-storage folder, and a startup timeout raised for slow machines."""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pipeline.orchestration.settings import EPHEMERAL_STARTUP_TIMEOUT_SECONDS, QUIET

SMALL = Path(__file__).parent / "fixtures" / "small.toml"

# Before prefect is imported: quiet, untracked, and never touching ~/.prefect.
for _name, _value in {**QUIET, "PREFECT_HOME": tempfile.mkdtemp(prefix="comlq-prefect-home-")}.items():
    os.environ.setdefault(_name, _value)
os.environ.pop("PREFECT_API_URL", None)


@pytest.fixture(scope="session")
def small_config() -> Path:
    """A small line: 300 passages, 2 items per type, BM25 only."""
    return SMALL


@pytest.fixture(scope="session")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The test API for the session; yields the result-storage folder (the cross-run cache)."""
    from prefect.settings import PREFECT_RESULTS_LOCAL_STORAGE_PATH, temporary_settings
    from prefect.testing.utilities import prefect_test_harness

    storage = tmp_path_factory.mktemp("prefect-results")
    with temporary_settings({PREFECT_RESULTS_LOCAL_STORAGE_PATH: storage}):
        with prefect_test_harness(server_startup_timeout=EPHEMERAL_STARTUP_TIMEOUT_SECONDS):
            yield storage


STAGE_FUNCTIONS = {
    "select_passages": "pipeline.passages",
    "generate": "pipeline.generate",
    "export": "pipeline.export.stage",
    "run_evaluation": "retrieval.evaluate",
}


def count_calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Wrap every stage function so the test sees how often each one really ran."""
    import importlib

    calls: Counter[str] = Counter()
    for name, module_name in STAGE_FUNCTIONS.items():
        module = importlib.import_module(module_name)
        real = getattr(module, name)

        def counted(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)
    return calls


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    return count_calls(monkeypatch)


@dataclass
class Line:
    run_dir: Path
    state: Any  # the parent flow run's final state
    calls: Counter[str]  # stage function -> calls during that run


@pytest.fixture(scope="session")
def build_benchmark(harness: Path) -> Callable[..., Any]:
    """build_benchmark on a run folder with the small configuration; returns the final state."""
    from pipeline.orchestration.flows import build_benchmark as flow

    def build(run_dir: Path, **options: Any) -> Any:
        return flow(run_dir=str(run_dir), config=str(SMALL), return_state=True, **options)

    return build


@pytest.fixture(scope="session")
def line(build_benchmark: Callable[..., Any], tmp_path_factory: pytest.TempPathFactory) -> Line:
    """One run of the whole offline line, shared by the tests that look at it."""
    run_dir = tmp_path_factory.mktemp("line") / "run"
    with pytest.MonkeyPatch.context() as monkeypatch:
        calls = count_calls(monkeypatch)
        state = build_benchmark(run_dir)
    return Line(run_dir, state, calls)
