"""A real Label Studio server for the review tests: started once per session on 127.0.0.1:18080
with a temporary data dir (installed into .venv-ls first when missing), stopped at the end.

Only tests that ask for `ls` start it, so `-m "not labelstudio"` runs without a server.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from annotation import server
from annotation.users import add_annotator, user_token
from pipeline.config import ReviewConfig

ROOT = Path(__file__).resolve().parents[2]
PORT = 18080
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
