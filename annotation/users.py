"""Annotator accounts that can log into the web UI.

The SDK's `users.create` ignores passwords, so an annotator signs up through the organization's
invite link, exactly as a person would in the browser (the server refuses sign-ups without it).
`login` opens a session like the login page does; `user_token` then reads the annotator's own API
token, so scripts and tests can annotate as that person. `accounts` lists them; `reset_password`
sets a new password through Label Studio's own command on the server's database.
"""

from __future__ import annotations

import re
import secrets
import subprocess
from dataclasses import dataclass

import httpx

from annotation.client import service_errors
from annotation.server import DB_NAME, VENV_ENV, Server, api_token, server_env, venv_path
from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError


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


@dataclass(frozen=True)
class Account:
    id: int
    email: str
    joined: str | None
    last_activity: str | None


def accounts(config: ReviewConfig) -> list[Account]:
    """Every account on the server (the admin included), oldest first."""
    url = config.url.rstrip("/")
    with service_errors(url, config), httpx.Client(base_url=url, timeout=60.0) as session:
        response = session.get("/api/users/", headers={"Authorization": f"Token {api_token(config)}"})
        response.raise_for_status()
    return sorted((Account(u["id"], u.get("email") or str(u["id"]), u.get("date_joined"), u.get("last_activity"))
                   for u in response.json()), key=lambda a: a.id)


def reset_password(config: ReviewConfig, email: str, password: str | None = None) -> str:
    """Set a new password for `email` (generated when not given) and return it. Label Studio has no
    API for this: its own `reset_password` command changes the database of the server this
    machine runs (review.data_dir), so it works only there."""
    if not any(a.email.lower() == email.lower() for a in accounts(config)):
        raise ComlqError(f"no account {email} on {config.url} (`comlq review annotators list` shows them)")
    local = Server.from_config(config)
    if not (local.data_dir / DB_NAME).is_file():
        raise ComlqError(f"reset-password changes the server's database, and {local.data_dir / DB_NAME} is not here: "
                         "run it on the machine that runs the server, with its review.data_dir")
    password = password or secrets.token_urlsafe(12)
    exe = venv_path() / "bin" / "label-studio"
    if not exe.is_file():
        raise ComlqError(f"reset-password runs the server's own `label-studio` command, and {exe} is not there: "
                         f"run it where `comlq review server start` ran (the repository root), or set ${VENV_ENV}")
    # no terminal (a new session): the command's password prompt reads stdin, so the password is not in ps
    done = subprocess.run([str(exe), "reset_password", "--username", email, "--data-dir", str(local.data_dir)],
                          input=password + "\n", capture_output=True, text=True, env=server_env(config, local),
                          start_new_session=True, timeout=600)
    output = (done.stdout + done.stderr).strip()
    if done.returncode != 0 or "successfully" not in output:
        last = output.splitlines()[-1] if output else f"exit code {done.returncode}"
        raise ComlqError(f"Label Studio could not reset the password of {email}: {last}")
    return password
