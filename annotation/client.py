"""The project's side of Label Studio: an SDK client, the review project, exports, one-line errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from label_studio_sdk import LabelStudio
from label_studio_sdk.core.api_error import ApiError

from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError
from pipeline.resources import package_data

from annotation.server import api_token

TIMEOUT = 300.0  # seconds; a 5,000-task import or export is one request


def labeling_config() -> str:
    return package_data("annotation", "labeling_config.xml").read_text(encoding="utf-8")


@contextmanager
def service_errors(url: str) -> Iterator[None]:
    """Turn transport and API failures into one-line ComlqErrors."""
    try:
        yield
    except httpx.TransportError:
        raise ComlqError(f"Label Studio is not reachable at {url} (start it with `comlq review server start`)") from None
    except httpx.HTTPStatusError as exc:
        raise ComlqError(f"Label Studio at {url} answered {exc.response.status_code} to {exc.request.url.path}") from None
    except ApiError as exc:
        if exc.status_code == 401:
            raise ComlqError(f"Label Studio at {url} rejected the API token (check review.token_env)") from None
        body = exc.body if isinstance(exc.body, str) else json.dumps(exc.body)
        raise ComlqError(f"Label Studio at {url} answered {exc.status_code}: {body[:300]}") from None


def connect(config: ReviewConfig) -> LabelStudio:
    client = LabelStudio(base_url=config.url.rstrip("/"), api_key=api_token(config), timeout=TIMEOUT)
    with service_errors(config.url):
        # fail here, before any work, when the server is down (no SDK retries) or the token wrong
        httpx.get(f"{config.url.rstrip('/')}/health", timeout=10.0).raise_for_status()
        client.users.whoami()
    return client


def find_project(client: LabelStudio, title: str) -> Any | None:
    matches = [p for p in client.projects.list(title=title) if p.title == title]
    return min(matches, key=lambda p: p.id) if matches else None


def ensure_project(client: LabelStudio, config: ReviewConfig) -> Any:
    """The review project, created once (found by title afterwards)."""
    project = find_project(client, config.project_title)
    if project is None:
        project = client.projects.create(
            title=config.project_title, label_config=labeling_config(),
            maximum_annotations=config.annotators_per_item, overlap_cohort_percentage=100,
            show_skip_button=False, show_collab_predictions=True,
            description="ComLQ query review: structure, evidence spread and passage relevance.",
        )
    return project


def export_tasks(client: LabelStudio, project_id: int) -> list[dict[str, Any]]:
    """Every task of the project with its annotations (Label Studio's JSON export)."""
    raw = b"".join(client.projects.exports.download_sync(project_id, export_type="JSON", download_all_tasks=True))
    return json.loads(raw)


def user_emails(client: LabelStudio) -> dict[int, str]:
    return {user.id: user.email or str(user.id) for user in client.users.list()}
