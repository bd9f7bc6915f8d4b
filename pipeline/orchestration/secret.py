"""The Label Studio token in a Prefect Secret block, for scheduled runs.

A worker started by `comlq serve start` need not carry $LABEL_STUDIO_USER_TOKEN (review.token_env):
the push-review and collect-review flows read the token from the Secret block `review.secret_block`
when the variable is unset. `comlq serve start` checks the token against Label Studio and puts it
there (`keep_token`), and `comlq review token save` does the same on its own (after a new token).
The token never appears in an argument, a log line or an error message; the Prefect server and
worker that `serve start` spawns do not get it in their environment.
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


NO_REVIEW_HINT = "to schedule the runs without review: `comlq serve start --no-review`"


def check_token(review: ReviewConfig, token: str, hint: str = NO_REVIEW_HINT) -> None:
    """`token` against the Label Studio server at review.url: an unreachable server or a rejected
    token is a one-line error ending with `hint`."""
    from annotation.client import connect

    try:
        connect(review, token)
    except ComlqError as exc:
        raise ComlqError(f"{exc}; {hint}" if hint else str(exc)) from None


def load_token(review: ReviewConfig, api_url: str) -> str | None:
    """The token the Secret block review.secret_block on the Prefect server at `api_url` holds, or None."""
    from prefect.blocks.system import Secret
    from prefect.settings import PREFECT_API_URL, temporary_settings

    try:
        with temporary_settings({PREFECT_API_URL: api_url}):
            return str(Secret.load(review.secret_block).get())
    except ValueError:  # no such block (or a name that cannot be one)
        return None
    except httpx.HTTPError as exc:
        raise ComlqError(f"the Prefect server at {api_url} did not answer for Secret block "
                         f"{review.secret_block!r} ({type(exc).__name__})") from None


def keep_token(review: ReviewConfig, api_url: str, token: str | None, checked: bool = False) -> str:
    """`comlq serve start`: the Label Studio token of the scheduled runs, checked against Label
    Studio and kept in the Secret block on the Prefect server at `api_url`. `token` (from
    $token_env; `checked`: already checked) is saved there; without it, the token the block
    already holds is checked. Returns the line to print (never the token)."""
    block = f"Prefect Secret block '{review.secret_block}'"
    if token:
        if not checked:
            check_token(review, token)
        save_token(review, token, api_url)
        return (f"Label Studio token: ${review.token_env} checked against {review.url} and saved in {block} "
                "(scheduled runs read it there, not from the worker's environment)")
    token = load_token(review, api_url)
    if token is None:
        raise ComlqError(f"no Label Studio token for the scheduled review: set ${review.token_env} to the token the "
                         f"Label Studio server at {review.url} was first started with (serve start keeps it in "
                         f"{block}); {NO_REVIEW_HINT}")
    check_token(review, token)
    return f"Label Studio token: the one in {block}, checked against {review.url}"
