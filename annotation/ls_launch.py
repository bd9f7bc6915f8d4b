"""Run the `label-studio` command with its export snapshot written by the C JSON encoder.

This file runs under the Label Studio venv's Python (`python ls_launch.py start ...`, the arguments
of `label-studio`), so it imports only Label Studio, Django and the standard library; the project
never imports it.

Label Studio 1.23.2 writes an export snapshot with `json.JSONEncoder().iterencode`, which runs the
pure-Python encoder and writes each of its fragments to the file separately (about 10 million for
5,000 review tasks with three annotations each): about a third of the snapshot's server CPU. Here
every task is encoded by one call of the C encoder; the bytes written, the md5 and the statuses are
the same. Another Label Studio version runs unchanged.

The garbage collector is paused while an export or an import runs: those build millions of small
objects that all live until the request ends, so the collections find nothing to free.

Every HTML page gets keys.js (this file's folder), which fixes three keys of the labeling interface
in every project: a grade typed right after a move, an answer key pressed twice, Ctrl+Enter in a
text box (the script says how).
"""

import gc
import json
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

PATCHED_VERSION = "1.23.2"
KEYS_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keys.js")
logger = logging.getLogger("comlq.ls_launch")

ORIGINAL: dict[str, Callable[..., Any]] = {}  # Label Studio's own sync_import, as patch() found it


class _GcPause:
    """Requests may overlap: the first one in pauses the collector, the last one out resumes it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.was_enabled = False

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self.lock:
            if self.depth == 0:
                self.was_enabled = gc.isenabled()
                gc.disable()
            self.depth += 1
        try:
            yield
        finally:
            with self.lock:
                self.depth -= 1
                if self.depth == 0 and self.was_enabled:
                    gc.enable()


gc_paused = _GcPause()


def export_to_file(self, task_filter_options=None, annotation_filter_options=None, serialization_options=None):
    """Label Studio 1.23.2's ExportMixin.export_to_file, encoding task by task."""
    from django.conf import settings
    from django.core.files import temp as tempfile

    encode = json.JSONEncoder(ensure_ascii=False).encode
    try:
        with gc_paused():
            tasks = self.get_export_data(task_filter_options=task_filter_options,
                                         annotation_filter_options=annotation_filter_options,
                                         serialization_options=serialization_options)
            with tempfile.NamedTemporaryFile(suffix=".export.json", dir=settings.FILE_UPLOAD_TEMP_DIR) as file:
                file.write(b"[")
                for n, task in enumerate(tasks):
                    file.write(((", " if n else "") + encode(task)).encode("utf-8"))
                file.write(b"]")
                file.seek(0)
                self.save_file(file, self.eval_md5(file))
        self.status = self.Status.COMPLETED
        self.save(update_fields=["status"])
    except Exception as exc:
        self.status = self.Status.FAILED
        self.save(update_fields=["status"])
        logger.exception("Export was failed: %s", exc)
    finally:
        self.finished_at = datetime.now()
        self.save(update_fields=["finished_at"])


def sync_import(self, *args, **kwargs):
    """Label Studio's ImportAPI.sync_import with the garbage collector paused."""
    with gc_paused():
        return ORIGINAL["sync_import"](self, *args, **kwargs)


class KeysMiddleware:
    """Adds keys.js to every HTML page, inline with the page's CSP nonce (Label Studio allows
    inline scripts that carry it). Innermost: the CSP middleware has made the request's nonce."""

    def __init__(self, get_response):
        self.get_response = get_response
        with open(KEYS_SCRIPT, encoding="utf-8") as handle:
            self.script = handle.read()

    def __call__(self, request):
        response = self.get_response(request)
        html = response.get("Content-Type", "").startswith("text/html") and not getattr(response, "streaming", False)
        if html and b"</head>" in response.content:
            tag = f'<script nonce="{getattr(request, "csp_nonce", "")}">{self.script}</script></head>'
            response.content = response.content.replace(b"</head>", tag.encode("utf-8"), 1)
            if response.has_header("Content-Length"):
                response["Content-Length"] = str(len(response.content))
        return response


def patch() -> None:
    from data_export.mixins import ExportMixin
    from data_import.api import ImportAPI
    from django.conf import settings

    ORIGINAL.setdefault("sync_import", ImportAPI.sync_import)
    ExportMixin.export_to_file = export_to_file
    ImportAPI.sync_import = sync_import
    keys = f"{__name__}.KeysMiddleware"  # the handler loads the middleware after django.setup
    if keys not in settings.MIDDLEWARE:
        settings.MIDDLEWARE = [*settings.MIDDLEWARE, keys]


def setup_then_patch(setup):
    """django.setup, then the patch (the export model can be imported only once Django is set up)."""
    def wrapped(*args, **kwargs):
        setup(*args, **kwargs)
        patch()
    return wrapped


if __name__ == "__main__":
    # this file's folder must not shadow Label Studio's own `tasks` and `users` modules
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    import django
    from label_studio import __version__
    from label_studio.server import main

    if __version__ == PATCHED_VERSION:
        django.setup = setup_then_patch(django.setup)
    sys.argv[0] = "label-studio"
    sys.exit(main())
