"""Locate the data packages `schemas/` and `prompts/` and files shipped inside packages.

They are found through importlib.resources, so the same code works from a clone (editable
install) and from an installed wheel.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable


def schema_file(name: str) -> Traversable:
    return resources.files("schemas") / name


def prompt_file(relpath: str) -> Traversable:
    """A file under prompts/, e.g. prompt_file('kg/relations.yaml')."""
    path = resources.files("prompts")
    for part in relpath.split("/"):
        path = path / part
    if not path.is_file():
        from pipeline.errors import ComlqError

        raise ComlqError(f"prompt file not found: prompts/{relpath}")
    return path


def read_prompt(relpath: str) -> str:
    return prompt_file(relpath).read_text(encoding="utf-8")


def package_data(package: str, relpath: str) -> Traversable:
    path = resources.files(package)
    for part in relpath.split("/"):
        path = path / part
    return path
