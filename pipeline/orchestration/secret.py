"""The Label Studio token in a Prefect Secret block, for scheduled runs.

A worker started by `comlq serve start` need not carry $LABEL_STUDIO_USER_TOKEN (review.token_env):
the push-review and collect-review flows read the token from the Secret block `review.secret_block`
when the variable is unset. `comlq review token save` puts it there, once, on the Prefect server
the worker talks to. The token never appears in an argument, a log line or an error message.
"""

from __future__ import annotations

import getpass
import os
import sys
import urllib.request
from collections.abc import Callable

import httpx

from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError


def use_secret_token(review: ReviewConfig) -> None:
    """Without $token_env, take the Label Studio token from the Prefect Secret block that
    `comlq review token save` saved (a scheduled run's worker need not carry it in its environment)."""
    if os.environ.get(review.token_env):
        return
    from prefect.blocks.system import Secret

    try:
        os.environ[review.token_env] = Secret.load(review.secret_block).get()
    except ValueError:  # no such block: the push/pull's own error says what to set
        pass


def token_from_operator(review: ReviewConfig, prompt: Callable[[str], str] = getpass.getpass) -> str:
    """$token_env, else typed at a hidden prompt (a terminal only: never an argument)."""
    token = os.environ.get(review.token_env, "")
    if not token and sys.stdin.isatty():
        token = prompt(f"Label Studio API token (${review.token_env} is unset; input hidden): ").strip()
    if not token:
        raise ComlqError(f"no token: set ${review.token_env} to the Label Studio API token, or run this in a "
                         "terminal to type it at a hidden prompt")
    return token


def prefect_api(given: str | None) -> str:
    """The Prefect server to save on: --api-url or $PREFECT_API_URL, which must answer."""
    url = (given or os.environ.get("PREFECT_API_URL") or "").rstrip("/")
    if not url:
        raise ComlqError("no Prefect server: set PREFECT_API_URL to the one `comlq serve start` started "
                         "(it printed `export PREFECT_API_URL=...`) or give --api-url")
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=10) as response:
            response.read()
    except (OSError, ValueError):  # ValueError: a malformed URL ("http://[::1:4200/api")
        raise ComlqError(f"the Prefect server at {url} does not answer (start it with `comlq serve start`)") from None
    return url


def save_token(review: ReviewConfig, token: str, api_url: str) -> None:
    """Save `token` as the Secret block `review.secret_block` on the Prefect server at `api_url`."""
    from prefect.blocks.system import Secret
    from prefect.settings import PREFECT_API_URL, temporary_settings

    try:
        with temporary_settings({PREFECT_API_URL: api_url}):
            Secret(value=token).save(review.secret_block, overwrite=True)
    except (httpx.HTTPError, ValueError) as exc:  # a bad block name (pydantic, or 422), a server gone meanwhile
        detail = exc.response.status_code if isinstance(exc, httpx.HTTPStatusError) else type(exc).__name__
        raise ComlqError(f"the Prefect server at {api_url} did not save Secret block {review.secret_block!r} "
                         f"({detail}); check review.secret_block (lowercase letters, digits, dashes)") from None
