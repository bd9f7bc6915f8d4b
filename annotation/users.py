"""Annotator accounts that can log into the web UI.

The SDK's `users.create` ignores passwords, so an annotator signs up through the organization's
invite link, exactly as a person would in the browser (the server refuses sign-ups without it).
`login` opens a session like the login page does; `user_token` then reads the annotator's own API
token, so scripts and tests can annotate as that person.
"""

from __future__ import annotations

import re
import secrets

import httpx

from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError

from annotation.client import service_errors
from annotation.server import api_token


def _form_post(session: httpx.Client, path: str, data: dict[str, str]) -> httpx.Response:
    """GET a Django form page for its CSRF cookie, then POST the form as the browser would."""
    session.get(path).raise_for_status()
    data = data | {"csrfmiddlewaretoken": session.cookies.get("csrftoken", "")}
    return session.post(path, data=data, headers={"Referer": f"{session.base_url}{path}"})


def _form_error(html: str) -> str:
    # Django renders field errors in <ul class="errorlist"><li>...</li></ul>
    found = re.findall(r'class="errorlist[^"]*"[^>]*>\s*<li>(.*?)</li>', html, flags=re.S)
    return "; ".join(dict.fromkeys(m.strip() for m in found)) or "the server refused the form"


def login(url: str, email: str, password: str) -> httpx.Client:
    """A logged-in web session for `email`."""
    session = httpx.Client(base_url=url.rstrip("/"), timeout=60.0)
    with service_errors(url):
        response = _form_post(session, "/user/login/", {"email": email, "password": password})
    if response.status_code != 302:
        session.close()
        raise ComlqError(f"cannot log into {url} as {email}: {_form_error(response.text)}")
    return session


def user_token(url: str, email: str, password: str) -> str:
    """The annotator's own API token (the legacy token shown on the account page)."""
    session = login(url, email, password)
    try:
        with service_errors(url):
            response = session.get("/api/current-user/token")
            response.raise_for_status()
            return response.json()["token"]
    finally:
        session.close()


def add_annotator(config: ReviewConfig, email: str, password: str | None = None) -> str:
    """Create an account through the invite link; returns the password (generated when not given)."""
    url = config.url.rstrip("/")
    password = password or secrets.token_urlsafe(12)
    admin = {"Authorization": f"Token {api_token(config)}"}
    with service_errors(url, config), httpx.Client(base_url=url, timeout=60.0) as session:
        users = session.get("/api/users/", headers=admin)
        users.raise_for_status()
        if any((u.get("email") or "").lower() == email.lower() for u in users.json()):
            raise ComlqError(f"{email} already has an account on {url}")
        invite = session.get("/api/invite", headers=admin)
        invite.raise_for_status()
        response = _form_post(session, invite.json()["invite_url"], {"email": email, "password": password})
        if response.status_code != 302:
            raise ComlqError(f"sign-up of {email} refused: {_form_error(response.text)}")
    return password
