"""A new generator is one module plus one registration line: a toy generator, registered here,
runs through `comlq generate` and through the generate flow like the built-in ones."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main
from pipeline.config import Config
from pipeline import generator
from pipeline.generator import BaseGenerator, GenerationResult, get_generator, register_generator
from pipeline.records import Check, GeneratorInfo, GradedPassage, Item, Passage, Triple
from pipeline.runfolder import RunFolder


class ToyGenerator(BaseGenerator):
    """One 1p item per passage: "What is TITLE described as?" (enough to exercise the plumbing)."""

    name = "toy"
    types_per_chunk = 1
    shared_stats = frozenset({"generator"})

    def generate(self, passages: dict[str, Passage], config: Config, types: tuple[str, ...],
                 out_dir: Path) -> GenerationResult:
        items = [Item(id=f"toy-{pid}", type="1p", n_passages=1, question=f"What is {p.title} described as?",
                      indicator="<?x, R, ?y>", grounded_indicator=f"<{p.title}, described_as, ?y>",
                      triples=(Triple(p.title, "described_as", "?y"),), target="?y",
                      logical_form=f'"{p.title}"', answers=(p.title,), evidence=(GradedPassage(pid, 2),),
                      violating=(), source_passages=(pid,), generator=GeneratorInfo("toy", config.generate.seed),
                      check=Check(True))
                 for pid, p in list(passages.items())[:config.generate.per_type] if "1p" in types]
        return GenerationResult(items, [], {"generator": "toy", "items": len(items), "types": list(types)})


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(generator, "_REGISTERED", {})  # gone again after the test
    register_generator("toy", ToyGenerator)  # the registration line
    yield


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_toy_generator_runs_through_the_cli(toy: None, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["generate", "--generator", "toy", "--types", "1p", "--per-type", "3", "--out", str(tmp_path)]) == 0
    run = RunFolder(tmp_path)
    items = lines(run.items)
    assert [i["generator"]["name"] for i in items] == ["toy"] * 3
    assert json.loads(run.stats.read_text())["generator"] == "toy"
    assert "wrote 3 items" in capsys.readouterr().out


def test_the_toy_generator_runs_through_the_flow_in_chunks(toy: None, harness: Path, tmp_path: Path) -> None:
    from pipeline.orchestration.flows import generate_flow, select_passages_flow

    run_dir = str(tmp_path / "run")
    select_passages_flow(run_dir, "sample", 20)
    counts = generate_flow(run_dir, generator="toy", per_type=2, types=["1p", "2p"])
    run = RunFolder(run_dir)
    assert counts["items"] == 2 == len(lines(run.items))
    stats = json.loads(run.stats.read_text())
    # two chunks (types_per_chunk = 1), merged by the generator's own rule
    assert stats == {"generator": "toy", "items": 2, "types": ["1p", "2p"]}
    assert run.chunk(("1p",)).items.is_file() and run.chunk(("2p",)).items.is_file()


def test_an_unknown_generator_is_one_line() -> None:
    from pipeline.errors import ComlqError

    with pytest.raises(ComlqError, match="unknown generator 'nope'; expected one of kg, llm"):  # no toy here
        get_generator("nope")


def test_chunk_stats_merge_by_the_generators_rule() -> None:
    from pipeline.llm.generator import LLMGenerator

    parts = [{"items": 3, "by_type": {"1p": {"items": 3}}, "price_prompt_per_1m": 0.15, "fallbacks": ["a"],
              "model": "m", "items_per_second": 10.0},
             {"items": 2, "by_type": {"2in": {"items": 2}}, "price_prompt_per_1m": 0.15, "fallbacks": ["b"],
              "model": "m", "items_per_second": 20.0}]
    assert LLMGenerator().merge_stats(parts) == {
        "items": 5, "by_type": {"1p": {"items": 3}, "2in": {"items": 2}}, "price_prompt_per_1m": 0.15,
        "fallbacks": ["a", "b"], "model": "m", "items_per_second": [10.0, 20.0]}
