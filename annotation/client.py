"""The project's side of Label Studio: an SDK client, the review project, exports, one-line errors."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import orjson
from label_studio_sdk import LabelStudio
from label_studio_sdk.core.api_error import ApiError

from annotation.server import api_token, token_rejected
from annotation.tasks import LAYOUT_VERSION
from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError, ServiceUnavailable
from pipeline.progress import Progress
from pipeline.resources import package_data

TIMEOUT = 300.0  # seconds; a 5,000-task import or export is one request


def labeling_config() -> str:
    return package_data("annotation", "labeling_config.xml").read_text(encoding="utf-8")


def _failure(status: int | None) -> type[ComlqError]:
    """ServiceUnavailable (retried by the flows) for the server's own failures, ComlqError for the rest."""
    return ServiceUnavailable if status is not None and (status >= 500 or status in (408, 429)) else ComlqError


def instructions() -> str:
    return package_data("annotation", "instructions.html").read_text(encoding="utf-8")


def project_settings(config: ReviewConfig) -> dict[str, Any]:
    """The review project's settings, applied at every push (so an older project gets them too).

    Blind voting as far as Label Studio Community goes: no annotation history and no other
    annotator's work in the labeling stream, the same task order for everyone (sequential
    sampling), no skipping, no empty submission. Predictions stay on because the layout
    prediction (the passage regions to grade, annotation/tasks.py) must load into each new
    annotation; model_version picks that prediction.
    """
    return {
        "label_config": labeling_config(), "expert_instruction": instructions(), "show_instruction": True,
        "maximum_annotations": config.annotators_per_item, "overlap_cohort_percentage": 100,
        "sampling": "Sequential sampling", "show_skip_button": False, "enable_empty_annotation": False,
        "show_annotation_history": False, "show_collab_predictions": True,
        "reveal_preannotations_interactively": False, "show_ground_truth_first": False,
        "model_version": LAYOUT_VERSION,
        "description": "ComLQ query review: structure, evidence spread, answers, passage grades.",
    }


@contextmanager
def service_errors(url: str, config: ReviewConfig | None = None) -> Iterator[None]:
    """Turn transport and API failures into one-line errors: ServiceUnavailable when the server is
    down or failing, ComlqError otherwise (a 401 explains the admin token when `config`, whose
    token the request used, is given)."""
    try:
        yield
    except httpx.TransportError:
        raise ServiceUnavailable(f"Label Studio is not reachable at {url} "
                                 "(start it with `comlq review server start`)") from None
    except httpx.HTTPStatusError as exc:
        status = exc.response.status_code
        if status == 401 and config is not None:
            raise token_rejected(config) from None
        raise _failure(status)(f"Label Studio at {url} answered {status} to {exc.request.url.path}") from None
    except ApiError as exc:
        if exc.status_code == 401:
            raise (token_rejected(config) if config is not None else
                   ComlqError(f"Label Studio at {url} rejected the API token")) from None
        body = exc.body if isinstance(exc.body, str) else json.dumps(exc.body)
        raise _failure(exc.status_code)(f"Label Studio at {url} answered {exc.status_code}: {body[:300]}") from None


def connect(config: ReviewConfig, token: str | None = None) -> LabelStudio:
    """A client of the server at review.url with `token` (default: $review.token_env), checked:
    an unreachable server or a rejected token is a one-line error here, before any work."""
    client = LabelStudio(base_url=config.url.rstrip("/"), api_key=token or api_token(config), timeout=TIMEOUT)
    with service_errors(config.url, config):
        # fail here, before any work, when the server is down (no SDK retries) or the token wrong
        httpx.get(f"{config.url.rstrip('/')}/health", timeout=10.0).raise_for_status()
        client.users.whoami()
    return client


def settings_changed(project: Any, config: ReviewConfig) -> list[str]:
    """The project settings that are no longer the push's (project_settings): changed on the
    project's Settings page or through the API since. Label Studio strips the labeling
    configuration's trailing newline, so text is compared stripped."""
    def same(now: Any, wanted: Any) -> bool:
        return now.strip() == wanted.strip() if isinstance(now, str) and isinstance(wanted, str) else now == wanted

    return [name for name, wanted in project_settings(config).items() if not same(getattr(project, name, None), wanted)]


def find_project(client: LabelStudio, title: str) -> Any | None:
    matches = [p for p in client.projects.list(title=title) if p.title == title]
    return min(matches, key=lambda p: p.id) if matches else None


def ensure_project(client: LabelStudio, config: ReviewConfig) -> Any:
    """The review project, created once (found by title afterwards), with the current settings."""
    project = find_project(client, config.project_title)
    settings = project_settings(config)
    if project is None:
        return client.projects.create(title=config.project_title, **settings)
    client.projects.update(project.id, **settings)
    return project


def export_tasks(client: LabelStudio, project_id: int, timeout: float = TIMEOUT) -> list[dict[str, Any]]:
    """Every task of the project with its annotations: an export snapshot (about twice as fast as
    the synchronous export endpoint for thousands of tasks), downloaded as JSON and then deleted."""
    snapshot = client.projects.exports.create(project_id, title="comlq pull", serialization_options={
        "drafts": {"only_id": True}, "predictions": {"only_id": True},
        "annotations__completed_by": {"only_id": True}, "include_annotation_history": False})
    deadline = time.monotonic() + timeout
    with Progress(f"review pull: export of project {project_id}", unit="status check") as bar:
        while snapshot.status not in ("completed", "failed"):
            if time.monotonic() > deadline:
                raise ServiceUnavailable(f"Label Studio export {snapshot.id} of project {project_id} "
                                         f"not ready after {timeout:.0f} s")
            time.sleep(0.2)
            snapshot = client.projects.exports.get(project_id, snapshot.id)
            bar.update()
        bar.set_postfix_str("downloading")
        try:
            if snapshot.status == "failed":
                raise ServiceUnavailable(f"Label Studio export of project {project_id} failed (see the server log)")
            # orjson: a fifth faster than json on the 60 MB of 5,000 tasks
            return orjson.loads(b"".join(client.projects.exports.download(project_id, snapshot.id, export_type="JSON")))
        finally:
            client.projects.exports.delete(project_id, snapshot.id)


def task_ids_by_item(config: ReviewConfig, project_id: int, page_size: int = 1000) -> dict[str, int]:
    """item id -> task id of the tasks already in the project (data only, no annotations: fast)."""
    found: dict[str, int] = {}
    headers = {"Authorization": f"Token {api_token(config)}"}
    with httpx.Client(base_url=config.url.rstrip("/"), headers=headers, timeout=TIMEOUT) as http:
        for page in itertools.count(1):
            response = http.get("/api/tasks", params={"project": project_id, "page": page, "page_size": page_size,
                                                      "include": "id,data"})
            if response.status_code == 404:  # past the last page
                break
            response.raise_for_status()
            tasks = response.json()["tasks"]
            found.update((t["data"].get("item_id"), t["id"]) for t in tasks)
            if len(tasks) < page_size:
                break
    return found


def user_emails(client: LabelStudio) -> dict[int, str]:
    return {user.id: user.email or str(user.id) for user in client.users.list()}
