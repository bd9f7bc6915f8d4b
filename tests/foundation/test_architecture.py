"""The floor plan, checked on the source: no import circle, no import of a later stage, and no
run-folder path spelled outside the contract module (pipeline/runfolder.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("pipeline", "annotation", "retrieval")

# The line's stages in order; a module may import its own stage, earlier ones and the foundation.
STAGE_OF = {
    "pipeline.passages": 0,
    "pipeline.generate": 1, "pipeline.completeness": 1, "pipeline.kg": 1, "pipeline.llm": 1,
    "annotation": 2,
    "pipeline.export": 3,
    "retrieval": 4,
}
WIRING = ("pipeline.orchestration", "pipeline.cli", "pipeline.run")  # may import every stage
# File names of the run folder and its export/report/BEIR folders (pipeline/runfolder.py owns them).
RUN_PATHS = {"passages.jsonl", "items.jsonl", "rejected.jsonl", "stats.json", "ledger.json", "push_log.jsonl",
             "reviewed.jsonl", "agreement.json", "metrics.json", "per_query.json", "report.md", "corpus.jsonl",
             "queries.jsonl", ".comlq", ".prefect", "chunks", "qrels", "violations", "review", "export", "report"}


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports(path: Path, name: str, known: set[str]) -> set[str]:
    """Project modules imported anywhere in the file (lazy imports inside functions count)."""
    found = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                kept = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(kept + ([base] if base else []))
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    found = modules()
    g = nx.DiGraph()
    for name, path in found.items():
        g.add_node(name)
        for target in imports(path, name, set(found)):
            # `from pipeline import x` names the package; a package's own __init__ is not an edge back
            if not name.startswith(target + "."):
                g.add_edge(name, target)
    return g


def stage(module: str) -> int | None:
    best = max((prefix for prefix in STAGE_OF if module == prefix or module.startswith(prefix + ".")),
               key=len, default=None)
    return STAGE_OF[best] if best else None


def test_no_import_circle(graph: nx.DiGraph) -> None:
    cycles = list(nx.simple_cycles(graph))
    assert cycles == [], f"import circles: {cycles[:5]}"


def test_no_module_imports_a_later_stage(graph: nx.DiGraph) -> None:
    wrong = [(a, b) for a, b in graph.edges
             if not a.startswith(WIRING) and stage(a) is not None and stage(b) is not None and stage(b) > stage(a)]
    foundation_up = [(a, b) for a, b in graph.edges
                     if stage(a) is None and not a.startswith(WIRING) and stage(b) is not None]
    assert wrong == [], f"imports of a later stage: {wrong}"
    assert foundation_up == [], f"foundation modules importing a stage: {foundation_up}"


def test_the_checks_see_a_circle_and_a_later_stage() -> None:
    """The graph checks above are not vacuous: a known bad graph fails them."""
    g = nx.DiGraph([("pipeline.kg.generator", "pipeline.generate"), ("pipeline.generate", "pipeline.kg.generator")])
    assert list(nx.simple_cycles(g))
    assert stage("retrieval.evaluate") > stage("pipeline.kg.generator")


def test_no_run_path_spelled_outside_the_contract() -> None:
    offenders = []
    for name, path in modules().items():
        if name == "pipeline.runfolder":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):  # path / "items.jsonl"
                for side in (node.left, node.right):
                    if isinstance(side, ast.Constant) and side.value in RUN_PATHS:
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {side.value!r}")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in RUN_PATHS - {
                    "review", "export", "report", "chunks", "qrels", "violations"}:  # also stage names
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert offenders == []


# Evaluation shares services (pipeline.services: the OpenAI client and its ledger) with the
# generators but must not depend on a generator: it evaluates any benchmark, however built.
RETRIEVAL_MUST_NOT_IMPORT = ("pipeline.llm", "pipeline.kg")


def forbidden_imports(graph: nx.DiGraph, source: str, forbidden: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(a, b) for a, b in graph.edges
            if (a == source or a.startswith(source + ".")) and any(b == f or b.startswith(f + ".") for f in forbidden)]


# Training data, unlike evaluation, comes from what the generator knows (its class nouns' plurals).
TRAINING = ("retrieval.train_data",)


def test_retrieval_imports_no_generator(graph: nx.DiGraph) -> None:
    found = forbidden_imports(graph, "retrieval", RETRIEVAL_MUST_NOT_IMPORT)
    assert [(a, b) for a, b in found if a not in TRAINING] == []


def test_the_generator_check_sees_a_generator_import() -> None:
    g = nx.DiGraph([("retrieval.llm", "pipeline.llm.client"), ("retrieval.rewrite", "pipeline.services.ledger")])
    assert forbidden_imports(g, "retrieval", RETRIEVAL_MUST_NOT_IMPORT) == [("retrieval.llm", "pipeline.llm.client")]
