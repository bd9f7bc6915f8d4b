"""The LLM generator end to end: the real openai SDK over HTTP against the scripted server."""

from __future__ import annotations

import json

import pytest

from pipeline.errors import ComlqError
from pipeline.generate import generate
from pipeline.generator import SHORTFALL
from pipeline.llm.generator import generate_llm
from pipeline.schemas import read_json, read_jsonl
from tests.support.scripted_openai import Script

# One behaviour per query type, so that concurrency cannot mix them up.
MATRIX = {
    "1p": ("good",),
    "2p": ("broken", "good"),  # fixed by the follow-up
    "3p": ("broken",),  # never fixed
    "2i": ("wrong_structure",),
    "3i": ("429", "good"),  # the SDK retries
    "pi": ("500",),  # retries exhausted
    "ip": ("wrong_type",),  # valid JSON, wrong graph: kept, marked
    "2in": ("no_negation",),
    "2u": ("text",),  # JSON inside prose
    "up": ("empty", "good"),
    "3in": ("good",),
}


def _rules(matrix: dict[str, tuple[str, ...]]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((f"Query type: {t},", replies) for t, replies in matrix.items())


def _requests_for(server, type_name: str) -> list[dict]:
    return [b for b in server.bodies() if f"Query type: {type_name}," in b["messages"][1]["content"]]


def test_good_accepted_bad_retried_then_rejected_with_reasons(server, make_config, tmp_path, passages_path):
    server.script = Script(rules=_rules(MATRIX))
    config = make_config(fix_attempts=2, max_retries=2)
    config.generate.generator = "llm"
    generate(config, passages_path, tmp_path, tuple(MATRIX))

    items = {i["type"]: i for i in read_jsonl(tmp_path / "items.jsonl", "item")}
    records = list(read_jsonl(tmp_path / "rejected.jsonl", "rejected"))
    rejected = {r["type"]: r for r in records if r["reason"] != SHORTFALL}
    assert set(items) | set(rejected) == set(MATRIX)  # nothing lost
    assert set(items) & set(rejected) == set()
    # kept but failing the check is not usable: said out loud as a shortfall
    assert {r["type"] for r in records if r["reason"] == SHORTFALL} == set(rejected) | {"ip", "2in"}

    for ok_type in ("1p", "2p", "3i", "2u", "up", "3in"):
        assert items[ok_type]["check"] == {"ok": True, "reasons": []}, ok_type
        assert items[ok_type]["generator"]["name"] == "llm"
        assert items[ok_type]["generator"]["model"] == "scripted-model"
        assert items[ok_type]["generator"]["prompt_file"] == f"prompts/llm/{ok_type}.md#1"
        assert len(items[ok_type]["generator"]["prompt_hash"]) == 64

    # broken then good: two requests, the second carries the JSON error back to the model
    followup = _requests_for(server, "2p")[1]["messages"]
    assert [m["role"] for m in followup] == ["system", "user", "assistant", "user"]
    assert "not valid JSON" in followup[-1]["content"]

    # never fixed: 1 + fix_attempts requests, then rejected with the raw reply
    assert rejected["3p"]["reason"] == "invalid_json"
    assert rejected["3p"]["attempts"] == 3
    assert len(_requests_for(server, "3p")) == 3
    assert rejected["3p"]["raw"].startswith('{"query"')  # the truncated reply, kept as it came
    assert rejected["2i"]["reason"] == "schema_invalid"
    assert "is missing" in rejected["2i"]["detail"]

    # HTTP errors: 429 once then fine; 500 every time -> 1 + max_retries requests, then rejected
    assert len(_requests_for(server, "3i")) == 2
    assert rejected["pi"]["reason"] == "server_error"
    assert len(_requests_for(server, "pi")) == 3

    assert items["ip"]["check"]["ok"] is False
    assert any("expected ip" in r for r in items["ip"]["check"]["reasons"])
    assert items["2in"]["check"]["ok"] is False
    assert any("negation cue" in r for r in items["2in"]["check"]["reasons"])

    stats = read_json(tmp_path / "stats.json")
    assert stats["items"] == len(items) and stats["rejected"] == len(rejected)
    assert stats["rejection_reasons"] == {"invalid_json": 1, "schema_invalid": 1, "server_error": 1}
    ledger = read_json(tmp_path / "ledger.json", "llm_ledger")
    assert ledger["calls"] == server.stats()["answered"]
    assert ledger["failures"] == {"server_error": 1}
    assert ledger["http_statuses"] == server.stats()["statuses"]  # 429 and 500 retries counted too
    assert ledger["http_statuses"]["429"] == 1 and ledger["http_statuses"]["500"] == 3


def test_multi_passage_evidence_must_use_more_than_one_passage(server, make_config, tmp_path, passages):
    server.script = Script(rules=_rules({"2i": ("one_passage",), "3i": ("good",)}))
    result = generate_llm(passages, make_config(passage_counts=(2,)), ("2i", "3i"), tmp_path)
    by_type = {i.type: i for i in result.items}
    assert by_type["3i"].check.ok and {e.grade for e in by_type["3i"].evidence} == {1}
    assert len(by_type["3i"].evidence) == 2 == by_type["3i"].n_passages
    marked = by_type["2i"]
    assert not marked.check.ok and "more than one" in marked.check.reasons[0]
    assert [e.grade for e in marked.evidence] == [2]  # one passage holds all the cited evidence


def test_top_up_replaces_failed_prompts_within_budget(server, make_config, tmp_path, passages):
    server.script = Script(rules=_rules({"ip": ("wrong_type",), "2p": ("broken",)}))
    config = make_config(fix_attempts=0, prompts_per_item=2.0, passage_counts=(1,))
    config.generate.per_type = 2
    result = generate_llm(passages, config, ("1p", "2p", "ip"), tmp_path)
    assert result.stats["types"]["1p"] == {"prompts": 2, "items": 2, "check_ok": 2, "rejected": 0}
    assert result.stats["types"]["2p"] == {"prompts": 4, "items": 0, "check_ok": 0, "rejected": 4}
    assert result.stats["types"]["ip"] == {"prompts": 4, "items": 4, "check_ok": 0, "rejected": 0}
    assert len({i.id for i in result.items}) == len(result.items)
    used = [tuple(r["source_passages"]) for r in result.rejected]
    assert len(set(used)) == len(used)  # each top-up prompt gets a new passage


def test_slow_answer_times_out_and_only_that_prompt_is_lost(server, make_config, tmp_path, passages):
    server.script = Script(rules=_rules({"1p": ("slow",)}), slow_seconds=3.0)
    result = generate_llm(passages, make_config(timeout=1.0, max_retries=0), ("1p", "2p"), tmp_path)
    assert [i.type for i in result.items] == ["2p"]
    assert [(r["type"], r["reason"]) for r in result.rejected] == [("1p", "timeout")]


def test_falls_back_when_the_endpoint_refuses_json_schema(server, make_config, tmp_path, passages):
    server.script = Script(refuse_formats=("json_schema",))
    result = generate_llm(passages, make_config(concurrency=1), ("1p", "2i"), tmp_path)
    assert len(result.items) == 2 and all(i.check.ok for i in result.items)
    assert result.stats["llm"]["format_fallbacks"] == ["json_schema -> json_object"]
    formats = [b.get("response_format", {}).get("type") for b in server.bodies()]
    assert formats == ["json_schema", "json_object", "json_object"]


def test_text_mode_sends_no_response_format(server, make_config, tmp_path, passages):
    result = generate_llm(passages, make_config(response_format="text"), ("2u",), tmp_path)
    assert result.items[0].check.ok
    assert all("response_format" not in b for b in server.bodies())


def test_cache_prevents_repeated_calls(server, make_config, tmp_path, passages):
    config = make_config(price_prompt_per_1m=1.0, price_completion_per_1m=4.0)
    config.generate.per_type = 3
    types = ("1p", "pin", "up")
    first = generate_llm(passages, config, types, tmp_path)
    calls = server.stats()["requests"]
    assert calls == 9
    ledger = first.stats["llm"]
    assert ledger["calls"] == 9 and ledger["cache_hits"] == 0
    cached = [json.loads(p.read_text()) for p in (tmp_path / "cache" / "llm").rglob("*.json")]
    assert len(cached) == 9
    assert ledger["prompt_tokens"] == sum(c["prompt_tokens"] for c in cached) > 0
    assert ledger["cost_usd"] == round((ledger["prompt_tokens"] * 1.0 + ledger["completion_tokens"] * 4.0) / 1e6, 6)

    second = generate_llm(passages, config, types, tmp_path)
    assert server.stats()["requests"] == calls  # not one more request
    assert second.stats["llm"]["calls"] == 0 and second.stats["llm"]["cache_hits"] == 9
    assert second.stats["llm"]["cost_usd"] == 0 and second.stats["llm"]["saved_by_cache_usd"] == ledger["cost_usd"]
    assert [i.to_dict() for i in second.items] == [i.to_dict() for i in first.items]

    config.llm.temperature = 0.1  # a different request: the cache must not answer it
    generate_llm(passages, config, ("1p",), tmp_path)
    assert server.stats()["requests"] == calls + 3


def test_unreachable_endpoint_is_one_clear_error(make_config, tmp_path, passages):
    config = make_config(max_retries=0)
    config.llm.base_url = "http://127.0.0.1:9/v1"  # discard port: nothing listens
    with pytest.raises(ComlqError, match="cannot reach the LLM endpoint http://127.0.0.1:9/v1"):
        generate_llm(passages, config, ("1p",), tmp_path)


def test_missing_key_for_openai_is_one_clear_error(make_config, tmp_path, passages, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    config = make_config()
    config.llm.base_url = None
    with pytest.raises(ComlqError, match="set OPENAI_API_KEY"):
        generate_llm(passages, config, ("1p",), tmp_path)


def test_missing_passage_groups_are_reported_not_guessed(server, make_config, tmp_path):
    from pipeline.records import Passage

    lonely = {"a": Passage("a", "Alpha", "Nothing in common."), "b": Passage("b", "Beta", "Nothing at all.")}
    result = generate_llm(lonely, make_config(passage_counts=(1, 2)), ("1p", "2i"), tmp_path)
    assert [(i.type, i.n_passages) for i in result.items] == [("1p", 1), ("2i", 1)]
    assert [(r["type"], r["n_passages"], r["reason"]) for r in result.rejected] == [
        ("1p", 2, "no_passage_group"), ("2i", 2, "no_passage_group")]


@pytest.mark.parametrize(("setting", "value", "message"), [
    ("concurrency", 0, "llm.concurrency"), ("passage_counts", (4,), "llm.passage_counts"),
    ("response_format", "xml", "llm.response_format")])
def test_bad_settings_are_one_clear_error(make_config, tmp_path, passages, setting, value, message):
    with pytest.raises(ComlqError, match=message):
        generate_llm(passages, make_config(**{setting: value}), ("1p",), tmp_path)


def test_other_bad_requests_reject_the_prompt_without_dropping_json_mode(server, make_config, tmp_path, passages,
                                                                          monkeypatch):
    from tests.support.scripted_openai import _error

    real_respond = server.respond

    def respond(body):  # a context-length style 400 for 2i prompts only
        if "Query type: 2i," in body["messages"][1]["content"]:
            return 400, _error("maximum context length exceeded", "invalid_request_error"), {}
        return real_respond(body)

    monkeypatch.setattr(server, "respond", respond)
    result = generate_llm(passages, make_config(concurrency=1), ("2i", "1p"), tmp_path)
    assert [(r["type"], r["reason"]) for r in result.rejected] == [("2i", "bad_request")]
    assert "maximum context length" in result.rejected[0]["detail"]
    assert result.stats["llm"]["format_fallbacks"] == []
    assert server.bodies()[-1]["response_format"]["type"] == "json_schema"


def test_failed_checks_go_back_to_the_model(server, make_config, tmp_path, passages):
    server.script = Script(rules=_rules({"ip": ("wrong_type", "good"), "2p": ("wrong_type",)}))
    result = generate_llm(passages, make_config(fix_attempts=1, passage_counts=(1,)), ("ip", "2p"), tmp_path)
    by_type = {i.type: i for i in result.items}
    assert by_type["ip"].check.ok  # corrected by the follow-up
    followup = _requests_for(server, "ip")[1]["messages"]
    assert "triples form" in followup[-1]["content"] and "expected ip" in followup[-1]["content"]
    assert not by_type["2p"].check.ok and len(_requests_for(server, "2p")) == 2  # still wrong: kept, marked


def test_excluded_entities_give_violating_passages(server, make_config, tmp_path, passages):
    config = make_config(passage_counts=(1, 2))
    config.generate.per_type = 4
    result = generate_llm(passages, config, ("2in", "pni"), tmp_path)
    assert len(result.items) == 8 and all(i.check.ok for i in result.items)
    titled = 0
    for item in result.items:
        evidence = {e.passage_id for e in item.evidence}
        assert not set(item.violating) & evidence and set(item.violating) <= set(item.source_passages)
        titled += bool(item.violating)
    assert titled  # an excluded entity that has a passage of its own outside the evidence
