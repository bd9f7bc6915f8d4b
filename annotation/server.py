"""The Label Studio server: installed in its own virtual environment, started and stopped by pid file.

Label Studio 1.23 pins `openai<2` and an old python-json-logger that current prefect cannot use, so
the server lives in `.venv-ls/` (or $COMLQ_LS_VENV) and the project talks to it over HTTP with
label-studio-sdk. The server runs on 127.0.0.1, fully offline (no Sentry, analytics or version
check), with its database in `config.review.data_dir`.
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError
from pipeline.progress import Progress
from pipeline.services.process import ManagedProcess

_log = logging.getLogger(__name__).info  # where start/stop/install say what they do (the CLI shows it)

LS_REQUIREMENT = "label-studio==1.23.2"
VENV_ENV = "COMLQ_LS_VENV"
DEFAULT_VENV = ".venv-ls"
PASSWORD_ENV = "LABEL_STUDIO_PASSWORD"
DB_NAME = "label_studio.sqlite3"
TEMPLATE_DB = "comlq-template.sqlite3"

# Plain names Label Studio also reads as settings (get_env tries LABEL_STUDIO_X, HEARTEX_X, then X):
# a login shell's USERNAME or a stray PORT must not leak into the server.
_UNSET = ("USERNAME", "PASSWORD", "USER_TOKEN", "HOST", "PORT", "DEBUG")

# Everything that would phone home is off; sign-up only through the invite link.
_OFFLINE = {
    "SENTRY_DSN": "",
    "FRONTEND_SENTRY_DSN": "",
    "COLLECT_ANALYTICS": "false",
    "LATEST_VERSION_CHECK": "false",
    "CONVERTER_DOWNLOAD_RESOURCES": "false",
    "LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK": "true",
    "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "true",
}

# Two feature flags (both off in Label Studio's feature_flags.json) that its exports look up through
# the LaunchDarkly client for every task and every annotation. Pinned to the same value in the
# environment, the lookup is skipped: about 1 s of server CPU per 5,000-task export.
_PINNED_FLAGS = {
    "fflag_feat_fit_568_finite_state_management": "false",
    "fflag_feat_fit_710_fsm_state_fields": "false",
}


def venv_path() -> Path:
    return Path(os.environ.get(VENV_ENV) or DEFAULT_VENV).absolute()


def ensure_installed(venv: Path | None = None, log: Callable[[str], None] = _log) -> Path:
    """The `label-studio` executable, installing the server into its own venv the first time."""
    venv = venv or venv_path()
    exe = venv / "bin" / "label-studio"
    marker = venv / ".comlq-installed"
    user_built = exe.exists() and os.environ.get(VENV_ENV)  # a venv the user built and pointed us at
    if not user_built and not (marker.is_file() and marker.read_text().strip() == LS_REQUIREMENT and exe.exists()):
        log(f"installing {LS_REQUIREMENT} into {venv} (once; takes a few minutes)")
        _run([sys.executable, "-m", "venv", str(venv)], "creating the venv")
        _run([str(venv / "bin" / "pip"), "install", "--quiet", "--upgrade", "pip"], "upgrading pip")
        _pip_install(venv, LS_REQUIREMENT)
        marker.write_text(LS_REQUIREMENT + "\n")
    if not (venv / TEMPLATE_DB).is_file():
        _build_template(exe, venv / TEMPLATE_DB, log)
    return exe


def _run(command: list[str], what: str, env: dict[str, str] | None = None) -> None:
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ComlqError(f"Label Studio setup failed while {what}: {tail[0]}")


def _pip_install(venv: Path, requirement: str) -> None:
    """pip install `requirement` into `venv`, one progress step per package pip collects (Label
    Studio brings about 150; the whole install takes a few minutes)."""
    command = [str(venv / "bin" / "pip"), "install", "--progress-bar", "off", requirement]
    with Progress(f"installing {requirement}", unit="package", estimate=False) as bar:
        try:
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        except OSError as error:  # no pip in the venv, or it cannot run
            raise ComlqError(f"Label Studio setup failed while installing {requirement}: {error}") from None
        tail: list[str] = []
        assert process.stdout is not None
        for line in process.stdout:
            tail = [*tail[-19:], line.rstrip()]
            if line.startswith("Collecting "):
                bar.update()
                bar.set_postfix_str(line.split()[1])
            elif line.startswith("Installing collected packages"):
                bar.set_postfix_str(f"installing {bar.n} packages")
        if process.wait() != 0:
            last = next((t for t in reversed(tail) if t.strip()), f"exit code {process.returncode}")
            raise ComlqError(f"Label Studio setup failed while running pip install {requirement}: {last.strip()}")


def _build_template(exe: Path, target: Path, log: Callable[[str], None]) -> None:
    """An empty, fully migrated database: a fresh data dir starts from a copy in seconds
    instead of running Label Studio's migrations for a minute or two."""
    log("preparing an empty Label Studio database (once)")
    with tempfile.TemporaryDirectory() as scratch:
        env = _offline_env() | {"LABEL_STUDIO_BASE_DATA_DIR": scratch}
        # `version` migrates the database, then exits
        _run([str(exe), "version", "--data-dir", scratch], "migrating the template database", env)
        shutil.copyfile(Path(scratch) / DB_NAME, target.with_suffix(".tmp"))
        os.replace(target.with_suffix(".tmp"), target)


@dataclass(frozen=True)
class Server:
    """Where one Label Studio server listens and keeps its files."""

    url: str
    data_dir: Path

    @classmethod
    def from_config(cls, config: ReviewConfig) -> Server:
        return cls(config.url.rstrip("/"), Path(config.data_dir).absolute())

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or "127.0.0.1"

    @property
    def port(self) -> int:
        return urlsplit(self.url).port or 8080

    @property
    def process(self) -> ManagedProcess:
        return ManagedProcess(self.data_dir / "server.pid", self.data_dir / "server.log")

    @property
    def log_file(self) -> Path:
        return self.process.log_file

    def pid(self) -> int | None:
        """The pid of our running server, or None."""
        return self.process.pid()

    def healthy(self, timeout: float = 2.0) -> bool:
        try:
            return httpx.get(f"{self.url}/health", timeout=timeout).status_code == 200
        except httpx.HTTPError:
            return False

    def port_in_use(self) -> bool:
        with socket.socket() as sock:
            sock.settimeout(1.0)
            return sock.connect_ex((self.host, self.port)) == 0


def admin_password(server: Server) -> str:
    """$LABEL_STUDIO_PASSWORD, else a password generated once and kept (0600) in the data dir."""
    if os.environ.get(PASSWORD_ENV):
        return os.environ[PASSWORD_ENV]
    path = server.data_dir / "admin-password"
    if not path.is_file():
        server.data_dir.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(16) + "\n")
    return path.read_text().strip()


def admin_login(config: ReviewConfig) -> str:
    """Where the admin's e-mail and password are, for the operator (never the password itself)."""
    server = Server.from_config(config)
    where = (f"${PASSWORD_ENV}" if os.environ.get(PASSWORD_ENV)
             else f"the file {server.data_dir / 'admin-password'} (generated at the first start)")
    return f"admin: log in at {server.url}/user/login/ as {config.admin_email}, password in {where}"


def api_token(config: ReviewConfig) -> str:
    token = os.environ.get(config.token_env, "")
    if len(token) < 6:
        raise ComlqError(f"set ${config.token_env} to the Label Studio API token: the one its data dir was first "
                         f"started with, or for a new server 6-40 characters, e.g. "
                         f"`export {config.token_env}=$(openssl rand -hex 20)`")
    return token


def token_rejected(config: ReviewConfig) -> ComlqError:
    """Label Studio creates the admin and its token at the first start of a data dir only."""
    server = Server.from_config(config)
    return ComlqError(f"Label Studio at {server.url} rejected the API token: it must be the token the server in "
                      f"{server.data_dir} was first started with (check ${config.token_env} / review.token_env)")


def _check_token(config: ReviewConfig, server: Server) -> None:
    response = httpx.get(f"{server.url}/api/current-user/whoami", timeout=30.0,
                         headers={"Authorization": f"Token {api_token(config)}"})
    if response.status_code == 401:
        raise token_rejected(config)


def _offline_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in _UNSET} | _OFFLINE


def server_env(config: ReviewConfig, server: Server) -> dict[str, str]:
    env = _offline_env() | _PINNED_FLAGS
    env.update({
        "LABEL_STUDIO_BASE_DATA_DIR": str(server.data_dir),  # --data-dir alone loses to an inherited value
        "LABEL_STUDIO_USERNAME": config.admin_email,
        "LABEL_STUDIO_PASSWORD": admin_password(server),
        "LABEL_STUDIO_USER_TOKEN": api_token(config),
    })
    return env


def start(config: ReviewConfig, timeout: float = 300.0, log: Callable[[str], None] = _log) -> int:
    """Start the server (installing it when missing), wait for /health and check the API token;
    returns its pid. A server already started from this data dir is waited for, never started twice."""
    server = Server.from_config(config)
    pid = server.pid()
    if pid is not None:
        # ours, maybe still booting: wait for it; a second server would orphan it and share its database
        if _wait_healthy(server, timeout, running=lambda: server.pid() is not None):
            _check_token(config, server)
            log(f"Label Studio already running at {server.url} (pid {pid})")
            return pid
        if server.pid() is not None:
            raise ComlqError(f"Label Studio (pid {pid}) is running but not healthy; see {server.log_file}")
    if server.port_in_use():
        # Label Studio would silently move to the next free port; refuse instead
        raise ComlqError(f"port {server.port} is in use by another process (set review.url to a free port)")
    env = server_env(config, server)
    venv = venv_path()
    exe = ensure_installed(venv, log=log)
    server.data_dir.mkdir(parents=True, exist_ok=True)
    if not (server.data_dir / DB_NAME).exists():
        shutil.copyfile(venv / TEMPLATE_DB, server.data_dir / DB_NAME)
    # ls_launch.py runs `label-studio` with a faster export snapshot
    launcher = Path(__file__).with_name("ls_launch.py")
    command = [str(exe.with_name("python")), str(launcher), "start", "--no-browser", "--data-dir", str(server.data_dir),
               "--internal-host", server.host, "--port", str(server.port), "--enable-legacy-api-token"]
    process = server.process.spawn(command, env=env)
    log(f"starting Label Studio at {server.url} (pid {process.pid}; its log: {server.log_file})")
    if _wait_healthy(server, timeout, running=lambda: process.poll() is None, progress=True):
        _check_token(config, server)  # the server keeps running: the token is what needs fixing
        log(f"Label Studio running at {server.url} (pid {process.pid}, data in {server.data_dir})")
        return process.pid
    server.process.stop()  # also clears the pid file of a server that exited
    if process.returncode is not None:
        raise ComlqError(f"Label Studio exited with code {process.returncode} while starting; see {server.log_file}")
    raise ComlqError(f"Label Studio did not answer {server.url}/health within {timeout:.0f} s; see {server.log_file}")


def _wait_healthy(server: Server, timeout: float, running: Callable[[], bool], progress: bool = False) -> bool:
    """Poll /health until it answers (True), or until the server process ends or `timeout` passes
    (False); with `progress`, the seconds waited as a progress step."""
    started = time.monotonic()
    deadline = started + timeout
    with Progress(f"waiting for {server.url}/health", unit="second", estimate=False, enabled=progress) as bar:
        while running():
            if server.healthy():
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.5)
            bar.update(int(time.monotonic() - started) - bar.n)
    return False


def stop(config: ReviewConfig, log: Callable[[str], None] = _log) -> bool:
    """Stop the server started from this data dir; False when none was running."""
    server = Server.from_config(config)
    stopped = server.process.stop()
    if stopped is None:
        log(f"Label Studio is not running (no live pid in {server.process.pid_file})")
        return False
    log(f"Label Studio {'killed' if stopped.killed else 'stopped'} (pid {stopped.pid})")
    return True


def status(config: ReviewConfig) -> dict[str, object]:
    server = Server.from_config(config)
    pid = server.pid()
    return {"url": server.url, "pid": pid, "running": pid is not None, "healthy": server.healthy(),
            "data_dir": str(server.data_dir), "venv": str(venv_path())}
