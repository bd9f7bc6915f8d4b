"""annotation/ls_launch.py, the `label-studio` launcher whose export snapshot is encoded task by task
by the C JSON encoder and whose export and import pause the garbage collector: installed once Django
is set up, writing the same bytes as Label Studio's own export_to_file on a project with votes and a
comment, and leaving the collector on. Its pages carry keys.js (test_browser.py shows what it does)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from annotation import server
from annotation.push import push
from pipeline.schemas import read_jsonl

pytestmark = pytest.mark.labelstudio

LAUNCHER = Path(server.__file__).with_name("ls_launch.py")

# Run by the Label Studio venv's Python on the test server's data dir: Label Studio's own
# export_to_file and the launcher's, each on a snapshot of the same project.
COMPARE = """
import gc, importlib.util, json, os, sys
import label_studio
sys.path.insert(0, os.path.dirname(label_studio.__file__))
os.environ["DJANGO_SETTINGS_MODULE"] = "core.settings.label_studio"
spec = importlib.util.spec_from_file_location("ls_launch", sys.argv[1])
launch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(launch)
import django
real_setup, seen = django.setup, {}
def setup(*args, **kwargs):  # Label Studio's own method, as set up before the launcher's patch
    real_setup(*args, **kwargs)
    from data_export.mixins import ExportMixin
    from data_import.api import ImportAPI
    seen.update(own=ExportMixin.export_to_file, sync_import=ImportAPI.sync_import)
django.setup = launch.setup_then_patch(setup)
django.setup()
from data_export.mixins import ExportMixin
from data_import.api import ImportAPI
own = seen["own"]
from data_export.models import Export
from projects.models import Project
options = {"drafts": {"only_id": True}, "predictions": {"only_id": True},
           "annotations__completed_by": {"only_id": True}, "include_annotation_history": False}
project = Project.objects.get(title=sys.argv[2])
out = {"patched": [ExportMixin.export_to_file is launch.export_to_file, ImportAPI.sync_import is launch.sync_import,
                   launch.ORIGINAL["sync_import"] is seen["sync_import"]], "version": label_studio.__version__}
for name, export_to_file in (("own", own), ("launcher", launch.export_to_file)):
    snapshot = Export.objects.create(project=project, title=name, created_by=project.created_by)
    export_to_file(snapshot, serialization_options=options)
    snapshot.refresh_from_db()
    out[name] = {"status": snapshot.status, "md5": snapshot.md5, "text": snapshot.file.read().decode(),
                 "gc": gc.isenabled()}
    snapshot.delete()
print(json.dumps(out))
"""


def test_the_launchers_snapshot_is_byte_identical_to_label_studios_own(ls, tmp_path, make_run, votes):
    config = ls.project("launcher")
    run = make_run(tmp_path / "run")
    push(run, config)
    items = [i for i in read_jsonl(run / "items.jsonl", "item") if i["check"]["ok"]]
    annotated = votes(items, ("launch-a@example.org", "launch-b@example.org"), rejected=items[0]["id"])
    annotated[items[1]["id"]][0]["comment"] = "Zoë's note: «non-ASCII» kept"
    ls.annotate(config, annotated)

    env = server.server_env(config, server.Server.from_config(config))
    done = subprocess.run([str(server.venv_path() / "bin" / "python"), "-c", COMPARE, str(LAUNCHER), "launcher"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["version"] == "1.23.2" and all(result["patched"])  # installed by django.setup
    own, launcher = result["own"], result["launcher"]
    assert own["status"] == launcher["status"] == "completed"
    assert launcher["text"] == own["text"] and launcher["md5"] == own["md5"]
    assert launcher["gc"]  # resumed after the export
    tasks = json.loads(launcher["text"])
    assert sorted(t["data"]["item_id"] for t in tasks) == sorted(i["id"] for i in items)
    assert sum(len(t["annotations"]) for t in tasks) == 2 * len(items)
    assert "Zoë's note: «non-ASCII» kept" in launcher["text"]  # ensure_ascii=False, as Label Studio writes


def test_every_page_carries_the_keys_script_with_the_pages_csp_nonce(ls):
    import httpx

    page = httpx.get(f"{ls.config.url}/user/login/", timeout=30)
    script = LAUNCHER.with_name("keys.js").read_text(encoding="utf-8")
    nonce = re.search(r"'nonce-([^']+)'", page.headers["Content-Security-Policy-Report-Only"]).group(1)
    assert f'<script nonce="{nonce}">{script}</script></head>' in page.text
    assert int(page.headers["Content-Length"]) == len(page.content)
