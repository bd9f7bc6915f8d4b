"""Fixtures of the review tests.

`ls` is a real Label Studio server, started once per session on 127.0.0.1:18080 with a temporary
data dir (installed into .venv-ls first when missing) and stopped at the end; only tests that ask
for it start it, so `-m "not labelstudio"` runs without a server. `prefect_harness` is Prefect's
test API for the review flows against that server. `case`, `make_run` and
`assert_matches_case` give the fixture run folder and the hand-computed case (as fixtures, so
they work under any pytest import mode).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from label_studio_sdk import LabelStudio

from annotation import server
from annotation.client import connect, export_tasks, find_project
from annotation.results import regions
from annotation.tasks import asks_spread
from annotation.users import add_annotator, user_token
from pipeline.config import ReviewConfig
from pipeline.orchestration.settings import EPHEMERAL_STARTUP_TIMEOUT_SECONDS, configure
from pipeline.records import ReviewVote

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
PORT = int(os.environ.get("COMLQ_TEST_LS_PORT", "18080"))  # parallel checkouts set their own
TOKEN_ENV = "COMLQ_TEST_LS_TOKEN"  # not the user's own LABEL_STUDIO_USER_TOKEN


@dataclass
class LabelStudioHarness:
    config: ReviewConfig
    passwords: dict[str, str] = field(default_factory=dict)  # annotator e-mail -> password
    tokens: dict[str, str] = field(default_factory=dict)  # annotator e-mail -> own API token

    def project(self, title: str) -> ReviewConfig:
        """The server's config with a project of its own, so tests do not see each other's tasks."""
        return replace(self.config, project_title=title)

    def annotator(self, email: str) -> str:
        """An annotator account (created once) and its own API token."""
        if email not in self.tokens:
            self.passwords[email] = add_annotator(self.config, email)
            self.tokens[email] = user_token(self.config.url, email, self.passwords[email])
        return self.tokens[email]

    def annotate(self, config: ReviewConfig, votes: dict[str, list[dict[str, Any]]]) -> None:
        """Each annotator submits their votes (item id -> records like review_case.json's `votes`)
        through the API with their own token, as the browser would."""
        admin = connect(config)
        tasks = {t["data"]["item_id"]: t for t in export_tasks(admin, find_project(admin, config.project_title).id)}
        for item_id, item_votes in votes.items():
            task = tasks[item_id]
            for vote in item_votes:
                as_annotator = LabelStudio(base_url=config.url, api_key=self.annotator(vote["annotator"]))
                as_annotator.annotations.create(id=task["id"], result=regions(
                    task["data"], ReviewVote.from_dict({"item_id": item_id, **vote})))

    def restart(self) -> None:
        server.stop(self.config, log=lambda _: None)
        server.start(self.config, log=lambda _: None)


@pytest.fixture(scope="session")
def ls(tmp_path_factory) -> Iterator[LabelStudioHarness]:
    os.environ.setdefault(server.VENV_ENV, str(ROOT / ".venv-ls"))
    os.environ[TOKEN_ENV] = secrets.token_hex(20)
    config = ReviewConfig(url=f"http://127.0.0.1:{PORT}", token_env=TOKEN_ENV,
                          data_dir=str(tmp_path_factory.mktemp("label-studio")), project_title="tests")
    server.start(config, log=lambda _: None)
    try:
        yield LabelStudioHarness(config)
    finally:
        server.stop(config, log=lambda _: None)


@pytest.fixture(scope="session")
def prefect_harness(tmp_path_factory) -> Iterator[Path]:
    """Prefect's test API (like tests/flows/conftest.py's `harness`); yields the folder holding
    its home and result storage, set before Prefect is imported (it reads its settings then)."""
    folder = tmp_path_factory.mktemp("prefect")
    configure(folder)
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=EPHEMERAL_STARTUP_TIMEOUT_SECONDS):
        yield folder


# ---------------------------------------------------------------- the fixture run and the hand-computed case


def _load_case() -> dict[str, Any]:
    return json.loads((FIXTURES / "review_case.json").read_text(encoding="utf-8"))


def _make_run(path: Path) -> Path:
    """A run folder holding the fixture items (one with a failed check) and their passages."""
    path.mkdir(parents=True, exist_ok=True)
    for name in ("items.jsonl", "passages.jsonl"):
        shutil.copy(FIXTURES / name, path / name)
    return path


def _assert_matches_case(reviewed: list[dict[str, Any]], agreement: dict[str, Any], case: dict[str, Any]) -> None:
    """reviewed.jsonl records and agreement.json against the hand-computed expectations."""
    by_id = {r["item"]["id"]: r["review"] for r in reviewed}
    assert set(by_id) == set(case["expected_review"])
    for item_id, expected in case["expected_review"].items():
        review = by_id[item_id]
        assert {k: review[k] for k in expected} == expected, item_id
        votes = {v["annotator"]: v for v in review["votes"]}
        wanted = {v["annotator"]: v for v in case["votes"][item_id]}
        assert set(votes) == set(wanted), item_id
        for who, vote in wanted.items():
            assert {k: votes[who][k] for k in vote} == vote, (item_id, who)

    expected = case["expected_agreement"]
    assert agreement["items"] == expected["items"]
    for scope, got in (("overall", agreement["overall"]), *((t, agreement["by_type"][t]) for t in expected["by_type"])):
        want = expected["overall"] if scope == "overall" else expected["by_type"][scope]
        for question, stats in want.items():
            for key, value in stats.items():
                actual = got[question][key]
                assert actual == (value if value is None else pytest.approx(value, abs=1e-6)), (scope, question, key)
    assert set(agreement["by_type"]) == set(expected["by_type"])
    def unit(d: list[Any]) -> tuple[str, str, str]:
        return d[0], d[1], d[2] or ""

    assert sorted(map(unit, ([d["item_id"], d["question"], d["passage_id"]] for d in agreement["disagreements"]))) == \
        sorted(map(unit, expected["disagreements"]))
    assert agreement["pool"] == expected["pool"]


def _votes(items: list[dict[str, Any]], annotators: tuple[str, ...], rejected: str | None = None,
           dissenter: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Every evidence passage relevant (the rest left ungraded), the evidence spread, the answers
    right; the answers of `rejected` wrong for every annotator but `dissenter`."""
    return {item["id"]: [{"annotator": who, "structure_ok": True,
                          "evidence_spread": True if asks_spread(item) else None,
                          "answers_correct": not (item["id"] == rejected and who != dissenter),
                          "answers_complete": True, "trivial": False,
                          "relevance": {e["passage_id"]: 2 for e in item["evidence"]}} for who in annotators]
            for item in items}


def _review_toml(path: Path, review: ReviewConfig, title: str, extra: str = "") -> Path:
    """A configuration file for a small reviewed run on the test server: its own project, every
    accepted item in the test split, BM25 only; `extra` adds [review] lines."""
    path.write_text(f"""[review]
url = "{review.url}"
token_env = "{review.token_env}"
data_dir = "{review.data_dir}"
project_title = "{title}"
{extra}
[export]
ratios = [0.0, 0.0, 1.0]
distractors = 0

[evaluate]
retrievers = ["bm25"]
""", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def review_toml():
    return _review_toml


@pytest.fixture(scope="session")
def votes():
    return _votes


@pytest.fixture(scope="session")
def case() -> dict[str, Any]:
    return _load_case()


@pytest.fixture(scope="session")
def make_run():
    return _make_run


@pytest.fixture(scope="session")
def assert_matches_case():
    return _assert_matches_case


# ---------------------------------------------------------------- the audit fixture and its hand-computed case

AUDIT_BEIR = FIXTURES / "audit_beir"
TABLE_FIELDS = {  # audit_case.json's table columns -> a figure of audit.json
    "queries": lambda f: f["queries"], "judged": lambda f: f["judged"],
    "missed (labelled 0)": lambda f: f["by_label"]["labelled_nonrelevant"]["relevant"],
    "missed (unlabelled)": lambda f: f["by_label"]["unlabelled"]["relevant"],
    "gold judged": lambda f: f["by_label"]["gold"]["judged"], "gold demoted": lambda f: f["gold_judged_nonrelevant"],
    "invented": lambda f: f["invented"], "invented share": lambda f: f["invented_share"] or 0.0,
    "disputed": lambda f: f["disputed"], "no relevant left": lambda f: f["queries_without_relevant"]}


def _assert_matches_audit_case(report: dict[str, Any], qrels_rows: list[tuple[str, str, int]],
                               case: dict[str, Any]) -> None:
    """audit.json's figures, agreement and disputed list and the audited qrels against the case."""
    assert sorted(qrels_rows) == sorted(map(tuple, case["audited_qrels"]))
    table = case["table"]
    for kind, expected in table.items():
        if kind == "columns":
            continue
        figures = report["overall"] if kind == "all" else report["by_type"][kind]
        got = [TABLE_FIELDS[column](figures) for column in table["columns"]]
        assert got == pytest.approx(expected), (kind, dict(zip(table["columns"], got)))
    assert set(report["by_type"]) == set(table) - {"columns", "all"}
    for statistic, values in case["agreement"].items():
        got = report["agreement"]["overall"][statistic]
        assert got == {k: pytest.approx(v, abs=1e-6) for k, v in values.items()}, statistic
    disputed = {(d["query_id"], d["passage_id"], d["majority"], d["audited"]) for d in report["disputed"]}
    assert disputed == {tuple(row) for row in case["disputed"]}


@pytest.fixture(scope="session")
def audit_case() -> dict[str, Any]:
    return json.loads((FIXTURES / "audit_case.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def assert_matches_audit_case():
    return _assert_matches_audit_case
