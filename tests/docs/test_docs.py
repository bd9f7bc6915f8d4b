"""The README and docs/ stay true: the generated configuration page, links, and the run-folder tables."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from pipeline.config import Config
from pipeline.docs import configuration_markdown, description, field_comments
from pipeline.runfolder import STAGES, Folder, RunFolder

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")  # [text](target)
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
CODE = re.compile(FENCE.pattern + r"|`[^`\n]*`", re.DOTALL | re.MULTILINE)  # code holds no links


def test_configuration_page_is_what_the_generator_prints():
    committed = (DOCS / "configuration.md").read_text(encoding="utf-8")
    assert committed == configuration_markdown(), \
        "docs/configuration.md is stale: run `python -m pipeline.docs > docs/configuration.md`"


def test_configuration_page_documents_every_setting():
    sections = dict(part.split("]\n", 1) for part in configuration_markdown().split("\n## [")[1:])
    assert list(sections) == [section.name for section in dataclasses.fields(Config)]
    for section in dataclasses.fields(Config):
        cls = type(getattr(Config(), section.name))
        doc, comments = field_comments(cls)
        assert doc and doc in sections[section.name], f"[{section.name}]: give {cls.__name__} a docstring"
        rows = {line.split(" | ")[0]: line for line in sections[section.name].splitlines() if line.startswith("| `")}
        assert len(rows) == len(dataclasses.fields(cls))
        for f in dataclasses.fields(cls):
            assert comments[f.name], f"[{section.name}] {f.name}: give it a trailing comment in pipeline/config.py"
            assert rows[f"| `{f.name}`"].endswith(f" | {description(comments[f.name])} |")


def test_field_comments_reads_trailing_comments_only():
    @dataclasses.dataclass
    class Example:
        """A section."""

        # a comment on its own line is not a description
        plain: int = 1
        described: str = "a # inside a string"  # the description
        multi: tuple[int, ...] = (
            1, 2)  # on the line the field ends

    doc, comments = field_comments(Example)
    assert doc == "A section."
    assert comments == {"plain": "", "described": "the description", "multi": "on the line the field ends"}


def _links(page: Path) -> list[str]:
    return LINK.findall(CODE.sub("", page.read_text(encoding="utf-8")))


def _anchors(page: Path) -> set[str]:
    """GitHub's heading ids: lower case, punctuation (backticks too) dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.+)$", FENCE.sub("", page.read_text(encoding="utf-8")), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_point_to_existing_files(page):
    for target in _links(page):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.exists(), f"{page.name}: link to missing {target}"
        if anchor and file.suffix == ".md":
            assert anchor in _anchors(file), f"{page.name}: no heading #{anchor} in {file.name}"


def test_link_check_finds_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# The `logical` title\n\n[ok](page.md#the-logical-title) [gone](missing.md) "
                    "`[not a link](nowhere.md)`\n\n```bash\n# a comment, not a heading\n```\n")
    assert _links(page) == ["page.md#the-logical-title", "missing.md"]
    assert _anchors(page) == {"the-logical-title"}


def _table(page: Path, header: str) -> list[list[str]]:
    """The rows of the markdown table whose header row starts with `header`, as stripped cells."""
    lines = page.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _code(cell: str) -> str:
    return cell.strip("`")


ARGUMENTS = {"split": "SPLIT", "stage": "STAGE", "name": "NAME", "types": ["TYPES"]}  # as the table writes them


def _resolve(expression: str) -> Path:
    """`.export.parquet(split)` -> RunFolder("RUN").export.parquet("SPLIT"), as a path."""
    value = RunFolder("RUN")
    for part in expression.lstrip(".").split("."):
        name, _, argument = part.partition("(")
        value = getattr(value, name)
        if argument:
            value = value(ARGUMENTS[argument.rstrip(")")])
    return value.root if isinstance(value, Folder) else value


def _contract_paths() -> dict[str, str]:
    """architecture.md's RunFolder table, each row checked against RunFolder: expression -> relative path."""
    paths = {}
    for expression, path, _ in _table(DOCS / "architecture.md", "| `RunFolder` |"):
        expression, path = _code(expression), _code(path)
        resolved = _resolve(expression).relative_to("RUN").as_posix() + ("/" if path.endswith("/") else "")
        assert resolved == path, f"docs/architecture.md: {expression} is {resolved}, not {path}"
        paths[expression] = path
    return paths


def test_architecture_run_folder_table_is_the_contract():
    paths = _contract_paths()
    properties = {name for name, value in vars(RunFolder).items() if isinstance(value, property)}
    listed = {expression.lstrip(".").split(".")[0].split("(")[0] for expression in paths}
    assert properties - listed == set(), "add a row to docs/architecture.md for each new RunFolder path"


def test_architecture_stage_table_is_STAGES():
    rows = _table(DOCS / "architecture.md", "| stage | reads | writes |")
    documented = {_code(stage): ({_code(r) for r in reads.split(", ") if r},
                                 {_code(w) for w in writes.split(", ") if w})
                  for stage, reads, writes in rows}
    assert documented == {name: (set(s.reads), set(s.writes)) for name, s in STAGES.items()}


def test_readme_run_folder_table_covers_the_contract():
    entries = {_code(path) for path, _ in _table(ROOT / "README.md", "| path | what |")}
    top_level = {re.match(r"[^/]+/?", path).group(0) for path in _contract_paths().values()}
    assert entries == top_level


def _recipe(makefile: str, target: str) -> list[str]:
    """A Makefile target's commands, as a user types them (.venv/bin/ dropped, $(OUT) filled in)."""
    out = re.search(r"^OUT \?= (\S+)$", makefile, re.MULTILINE).group(1)
    body = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE).group(1)
    return [line.strip().replace("$(BIN)/", "").replace("$(OUT)", out) for line in body.splitlines()]


def test_readme_is_short_and_says_what_the_two_commands_run():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    assert "make run" in readme and "make test" in readme
    for target in ("run", "test"):
        for command in _recipe(makefile, target):
            assert command in readme, f"README.md: `make {target}` runs `{command}`; say so"
