"""The LLM generator's shortfalls are said out loud: a type with no usable item makes `comlq
generate` exit non-zero (unless --allow-short), and stats.json and rejected.jsonl name it."""

from __future__ import annotations

from pathlib import Path

from pipeline.cli import main
from pipeline.schemas import read_json, read_jsonl
from tests.support.scripted_openai import Script

# 1p answers well; 3p never sends valid JSON; ip answers with the wrong graph (kept, check failed)
RULES = (("Query type: 1p,", ("good",)), ("Query type: 3p,", ("broken",)), ("Query type: ip,", ("wrong_type",)))


def test_types_without_a_usable_item_fail_the_cli_unless_allowed(server, tmp_path: Path, passages_path: Path,
                                                                   capsys) -> None:
    server.script = Script(rules=RULES)
    config = tmp_path / "llm.toml"
    config.write_text(f'[generate]\ngenerator = "llm"\nper_type = 1\n\n[llm]\nbase_url = "{server.url}"\n'
                      'model = "scripted-model"\nfix_attempts = 0\nprompts_per_item = 1.0\n', encoding="utf-8")
    argv = ["generate", "--config", str(config), "--types", "1p,3p,ip", "--passages", str(passages_path),
            "--out", str(tmp_path / "run")]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert "short types (usable of requested): 3p 0 of 1, ip 0 of 1" in out
    assert err.startswith("comlq: error: ") and err.count("\n") == 1
    assert "no usable item of type 3p, ip" in err and "--allow-short" in err

    stats = read_json(tmp_path / "run" / "stats.json")
    assert stats["short_types"] == ["3p", "ip"]
    assert stats["shortfalls"]["ip"] == {"requested": 1, "usable": 0, "failed_check": 1}
    shortfalls = {r["type"]: r["detail"] for r in read_jsonl(tmp_path / "run" / "rejected.jsonl", "rejected")
                  if r["reason"] == "shortfall"}
    assert shortfalls == {"3p": "0 of 1 usable items", "ip": "0 of 1 usable items (1 more failed the structure check)"}
    assert [i["type"] for i in read_jsonl(tmp_path / "run" / "items.jsonl", "item")] == ["1p", "ip"]  # all kept

    assert main([*argv, "--allow-short"]) == 0  # answers come from the call cache this time
    assert "3p 0 of 1, ip 0 of 1" in capsys.readouterr().out
