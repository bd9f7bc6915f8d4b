"""The offline line, stage after stage, as plain Python (the Prefect flows wire the same calls)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pipeline.config import Config
from pipeline.passages import select_passages


@dataclass
class RunResult:
    out: Path
    written: dict[str, Path] = field(default_factory=dict)  # what -> path
    counts: dict[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        lines = [f"run folder: {self.out}"]
        for what, path in self.written.items():
            count = f" ({self.counts[what]})" if what in self.counts else ""
            lines.append(f"  {what}{count}: {path}")
        return "\n".join(lines)


def run_offline(config: Config, out: str | Path) -> RunResult:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    result = RunResult(out)
    passages = out / "passages.jsonl"
    result.counts["passages"] = select_passages(config.passages.source, passages, config.passages.limit)
    result.written["passages"] = passages
    return result
