"""The package installed from a wheel works outside a clone: `comlq serve start --help`, a whole
`comlq run`, and a Prefect worker running a deployment of the packaged flows.yaml.

The wheel goes into a fresh venv whose only other path is the project venv's site-packages
(a .pth line; that venv's editable install of the clone is not activated from there), and every
command runs from a folder outside the clone, so `import pipeline` can only find the wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipeline.querytypes import TYPE_NAMES
from pipeline.runfolder import RunFolder

ROOT = Path(__file__).resolve().parents[2]
# The smallest size at which every query type keeps an item in each of the three splits (at 3 or 4
# per type, 600 passages leave some types out of the validation split).
PER_TYPE, LIMIT = 5, 600
# the deployment test evaluates with BM25 only; 600 passages give no 3i item (a shortfall, not a failure here)
FAST = '[generate]\nallow_short = true\n\n[evaluate]\nretrievers = ["bm25"]\n'


@dataclass(frozen=True)
class Installed:
    venv: Path
    work: Path  # an empty folder outside the clone: every command runs here
    env: dict[str, str]

    def run(self, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(args), cwd=self.work, env=self.env, capture_output=True, text=True, timeout=timeout)

    def comlq(self, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
        return self.run(str(self.venv / "bin" / "comlq"), *args, timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    scratch = tmp_path_factory.mktemp("wheel")
    # pip builds in the source folder (build/, comlq.egg-info): build from a copy of the clone's files
    source = scratch / "source"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True, text=True).stdout.split("\0")
    for name in filter(None, listed):
        if (ROOT / name).exists():  # not deleted in the working tree
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name, follow_symlinks=False)
    # no PYTHONPATH: a clone on it would pass for an installed comlq and pip would skip the wheel
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(scratch / "dist"), str(source)], check=True, capture_output=True, env=clean)
    wheel = next((scratch / "dist").glob("comlq-*.whl"))
    venv = scratch / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    site = Path(subprocess.run([str(venv / "bin" / "python"), "-c",
                                "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-deps", "-q",
                    str(wheel)], check=True, capture_output=True, env=clean)
    # the dependencies only, added after the install (pip would take the editable comlq there for this one)
    (site / "comlq-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = scratch / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "PYTHON")) and k != "DO_NOT_TRACK"}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    done = Installed(venv, work, env)
    where = done.run(str(venv / "bin" / "python"), "-c", "import pipeline, retrieval, annotation, prompts; "
                     "print(pipeline.__file__, retrieval.__file__, annotation.__file__, prompts.__file__)")
    assert where.returncode == 0, where.stderr
    assert all(path.startswith(str(site)) for path in where.stdout.split()), where.stdout  # the wheel, not the clone
    return done


def items_per_split_and_type(run: RunFolder) -> Counter[tuple[str, str]]:
    rows = [json.loads(line) for line in run.export.beir.queries.read_text().splitlines()]
    return Counter((row["split"], row["type"]) for row in rows)


def test_the_installed_wheel_finds_its_own_flows_yaml(installed: Installed) -> None:
    """`comlq serve` deploys the flows.yaml the wheel carries (a file, not a link into a clone)."""
    found = installed.run(str(installed.venv / "bin" / "python"), "-c",
                          "from pipeline.orchestration.serve import Service; print(Service().flows_file)")
    assert found.returncode == 0, found.stderr
    flows = Path(found.stdout.strip())
    assert not flows.is_symlink() and not flows.resolve().is_relative_to(ROOT), flows
    assert flows.read_text(encoding="utf-8") == (ROOT / "flows.yaml").read_text(encoding="utf-8")


def test_the_wheel_ships_no_test_support(installed: Installed) -> None:
    """The scripted OpenAI server is a test double (tests/support), not part of the package."""
    found = installed.run(str(installed.venv / "bin" / "python"), "-c", "import tests.support.scripted_openai")
    assert found.returncode != 0 and "ModuleNotFoundError" in found.stderr, found.stderr


@pytest.mark.slow
def test_the_installed_wheel_runs_the_line_outside_the_clone(installed: Installed) -> None:
    helped = installed.comlq("serve", "start", "--help")
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("usage: comlq serve")

    ran = installed.comlq("run", "--out", "run", "--per-type", str(PER_TYPE), "--limit", str(LIMIT), "--allow-short")
    assert ran.returncode == 0, ran.stderr
    run = RunFolder(installed.work / "run")
    assert len(run.items.read_text().splitlines()) > 0
    assert run.export.card.is_file() and run.export.beir.corpus.is_file()
    assert run.report.metrics.is_file() and run.report.markdown.is_file()
    assert json.loads(run.report.metrics.read_text())  # the report has numbers
    counts = items_per_split_and_type(run)
    tested = {kind for split, kind in counts if split == "test"}
    untested = [kind for kind in TYPE_NAMES if kind in {k for _, k in counts} - tested]
    assert tested  # a type the small line leaves out of the test split is named on the card
    assert ("**Not in the test split:** " + ", ".join(untested) in run.export.card.read_text()) == bool(untested)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
def test_the_installed_wheel_serves_the_packaged_deployments(installed: Installed) -> None:
    port = str(free_port())
    (installed.work / "fast.toml").write_text(FAST)
    # no Label Studio in this test: the runs are scheduled without review
    started = installed.comlq("serve", "start", "--port", port, "--home", "serve", "--no-review")
    try:
        assert started.returncode == 0, started.stderr
        api = {**installed.env, "PREFECT_API_URL": f"http://127.0.0.1:{port}/api",
               "PREFECT_HOME": str(installed.work / "client"), "COLUMNS": "200"}
        ran = subprocess.run(
            [str(installed.venv / "bin" / "python"), "-m", "prefect", "deployment", "run",
             "build-benchmark/generate-nightly", "-p", "run_dir=runs/deployed", "-p", f"limit={LIMIT}",
             "-p", f"per_type={PER_TYPE}", "-p", "review=false", "-p", 'config="fast.toml"',
             "--watch", "--watch-timeout", "900"],
            cwd=installed.work, env=api, capture_output=True, text=True, timeout=1000)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert "Completed" in ran.stdout
    finally:
        stopped = installed.comlq("serve", "stop", "--port", port, "--home", "serve", timeout=120)
    assert stopped.returncode == 0, stopped.stderr
    # relative run folders and configuration files are the serving folder's
    assert RunFolder(installed.work / "runs" / "deployed").report.metrics.is_file()
