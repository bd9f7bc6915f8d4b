"""JSON Schema validation and JSONL I/O for every record that crosses a stage.

The schemas in `schemas/` are the single definition of each record. Reading validates each
line and reports file, line and field; writing validates too and goes through a temporary
file that is renamed into place, so a killed run leaves no half-written output.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from pipeline.errors import ComlqError, RecordError, quote
from pipeline.resources import resources, schema_file

SCHEMA_NAMES = ("passage", "item", "rejected", "review_vote", "reviewed_item", "metrics", "llm_output", "llm_ledger",
                "export_item", "beir_query", "beir_corpus", "agreement", "triple", "audit_judgement", "audit")


@cache
def _all_schemas() -> tuple[dict[str, Any], ...]:
    return tuple(json.loads(entry.read_text(encoding="utf-8")) for entry in resources.files("schemas").iterdir()
                 if entry.name.endswith(".schema.json"))


@cache
def _registry() -> Registry:
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in _all_schemas())
    return registry.crawl()  # resolve $refs once, not on every validation


@cache
def load_schema(name: str) -> dict[str, Any]:
    entry = schema_file(f"{name}.schema.json")
    if not entry.is_file():
        raise ComlqError(f"unknown schema '{name}' (no schemas/{name}.schema.json)")
    return json.loads(entry.read_text(encoding="utf-8"))


@cache
def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(load_schema(name), registry=_registry())


@cache
def _fast_validator(name: str) -> Any:
    # jsonschema-rs checks a valid record ~100x faster than the pure-Python validator, which
    # then only runs on an invalid record, to name its first failing field.
    registry = jsonschema_rs.Registry([(s["$id"], s) for s in _all_schemas()])
    return jsonschema_rs.validator_for(load_schema(name), registry=registry)


def validate(record: Any, schema: str, where: str = "<record>") -> None:
    """Raise RecordError naming `where` and the first failing field."""
    if _fast_validator(schema).is_valid(record):
        return
    errors = sorted(validator(schema).iter_errors(record), key=lambda e: (len(e.path), list(map(str, e.path))))
    if not errors:
        return
    error = errors[0]
    field = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "required" and isinstance(error.validator_value, list):
        missing = [k for k in error.validator_value if isinstance(error.instance, dict) and k not in error.instance]
        if missing:
            field = ".".join([field, missing[0]]) if field else missing[0]
            raise RecordError(where, field, "is missing")
    # jsonschema's message starts with the bad value's repr: quote it short
    raise RecordError(where, field, error.message.replace(repr(error.instance), quote(error.instance), 1))


def iter_jsonl(path: str | os.PathLike[str]) -> Iterator[tuple[str, Any]]:
    """(where, record) for each non-empty line of a JSONL (or .jsonl.gz) file; where = 'file:line'."""
    path = Path(path)
    if not path.is_file():
        raise ComlqError(f"{path}: no such file")
    with (gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")) as handle:
        lineno = 0
        while True:
            try:
                raw = handle.readline()
            except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
                raise ComlqError(f"{path}:{lineno + 1}: not a readable gzip file ({exc})") from None
            if not raw:
                return
            lineno += 1
            where = f"{path}:{lineno}"
            try:
                line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")  # a BOM may open the file
            except UnicodeDecodeError as exc:
                raise RecordError(where, "", f"not UTF-8 (byte {quote(raw[exc.start:exc.start + 1])} "
                                             f"at column {exc.start + 1})") from None
            if not line.strip():
                continue
            try:
                yield where, json.loads(line)
            except json.JSONDecodeError as exc:
                raise RecordError(where, "", f"bad JSON: {exc.msg} (column {exc.colno})") from None


def read_jsonl(path: str | os.PathLike[str], schema: str | None) -> Iterator[dict[str, Any]]:
    """Yield the records of a JSONL (or .jsonl.gz) file, validated against `schema`."""
    for where, record in iter_jsonl(path):
        if schema is not None:
            validate(record, schema, where)
        yield record


@contextmanager
def disk_errors(path: str | os.PathLike[str]) -> Iterator[None]:
    """An OSError while writing `path` (a full disk, a read-only folder, a file in the way) as one line."""
    try:
        yield
    except OSError as exc:
        raise ComlqError(f"{path}: cannot write: {exc.strerror or exc}") from None


def check_output_folder(path: str | os.PathLike[str]) -> Path:
    """Fail now, before any work, unless `path` is or can become a folder we may write into."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ComlqError(f"{path}: exists and is not a folder")
    existing = next(p for p in (path, *path.absolute().parents) if p.exists())
    if not existing.is_dir():
        raise ComlqError(f"{path}: cannot be created, {existing} is a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ComlqError(f"{path}: cannot write in {existing} (permission denied or read-only)")
    return path


def check_output_file(path: str | os.PathLike[str]) -> Path:
    """Fail now, before any work, unless `path` can be written as a file (replacing a file there)."""
    path = Path(path)
    if path.is_dir():
        raise ComlqError(f"{path}: is a folder, not a file")
    check_output_folder(path.parent)
    return path


class AtomicWriter:
    """Write a file through a temporary sibling that is flushed to disk and renamed into place on
    success, so neither a killed run, a full disk nor a crash of the machine leaves a half-written
    file. Write errors (OSError) become a one-line ComlqError naming the file."""

    def __init__(self, path: str | os.PathLike[str], binary: bool = False):
        self.path = Path(path)
        self.binary = binary
        self._tmp: str | None = None

    def __enter__(self):
        check_output_file(self.path)
        with disk_errors(self.path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, self._tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
            os.close(fd)
        try:
            with disk_errors(self.path):
                self._open()
        except BaseException:
            self._discard()
            raise
        return self._handle

    def _open(self) -> None:
        os.chmod(self._tmp, 0o644)  # mkstemp makes 0600 files; outputs are meant to be shared
        if self.binary:
            self._raw = self._handle = open(self._tmp, "wb")
        elif self.path.suffix == ".gz":
            # mtime=0 and no file name in the header: the same records give the same bytes
            self._raw = open(self._tmp, "wb")
            gz = gzip.GzipFile(filename="", fileobj=self._raw, mode="wb", mtime=0)
            self._handle = io.TextIOWrapper(gz, encoding="utf-8")
        else:
            self._raw = self._handle = open(self._tmp, "w", encoding="utf-8")

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                with disk_errors(self.path):
                    self._close()
                    os.fsync(self._raw.fileno())
                    self._raw.close()
                    os.replace(self._tmp, self.path)
                return False
        except BaseException:
            self._discard()
            raise
        self._discard()
        if isinstance(exc, OSError):  # a write in the block failed (a full disk)
            raise ComlqError(f"{self.path}: cannot write: {exc.strerror or exc}") from None
        return False

    def _close(self) -> None:
        if self._handle is not self._raw:
            self._handle.close()  # ends the gzip stream; the file itself stays open
        self._raw.flush()

    def _discard(self) -> None:
        """Close and remove the temporary file (its buffered bytes may fail to flush: no matter)."""
        for handle in (getattr(self, "_handle", None), getattr(self, "_raw", None)):
            with suppress(OSError, ValueError, AttributeError):
                handle.close()
        with suppress(FileNotFoundError):
            os.unlink(self._tmp)


_PARTIAL = re.compile(r"\.(.+)\.[a-z0-9_]{8}")  # AtomicWriter's temporary sibling: mkstemp(prefix=".NAME.")


def discard_partials(root: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporary files that a killed writer left under `root` (only a run that holds the
    folder's lock may call this: no writer of its own is open); returns what was removed."""
    removed, root = [], Path(root)
    for path in root.rglob(".*"):
        hidden = any(part.startswith(".") for part in path.relative_to(root).parts[:-1])  # .prefect's own
        if path.is_file() and not hidden and _PARTIAL.fullmatch(path.name):
            with suppress(FileNotFoundError):
                path.unlink()
                removed.append(path)
    return removed


def write_jsonl(path: str | os.PathLike[str], records: Iterable[dict[str, Any]], schema: str | None) -> int:
    """Validate and write records atomically; returns the number written."""
    count = 0
    with AtomicWriter(path) as handle:
        for record in records:
            if schema is not None:
                validate(record, schema, f"{path} (record {count + 1})")
            handle.write(json.dumps(record, ensure_ascii=False, sort_keys=False) + "\n")
            count += 1
    return count


def write_json(path: str | os.PathLike[str], data: Any, schema: str | None = None) -> None:
    if schema is not None:
        validate(data, schema, str(path))
    with AtomicWriter(path) as handle:
        json.dump(data, handle, ensure_ascii=False, indent=2, sort_keys=False)
        handle.write("\n")


def read_json(path: str | os.PathLike[str], schema: str | None = None) -> Any:
    path = Path(path)
    if not path.is_file():
        raise ComlqError(f"{path}: no such file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}:{exc.lineno}", "", f"bad JSON: {exc.msg}") from None
    if schema is not None:
        validate(data, schema, str(path))
    return data
