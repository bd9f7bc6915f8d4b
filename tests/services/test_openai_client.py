"""Client pieces that need no server: the rate limiter's spacing, the cache's keys, the ledger's endpoint."""

from __future__ import annotations

from pipeline.services import openai_client as client_module
from pipeline.services.ledger import Ledger
from pipeline.services.openai_client import RateLimiter, ResponseCache


def test_rate_limiter_spaces_request_starts(monkeypatch):
    now = [100.0]
    slept = []
    monkeypatch.setattr(client_module.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(client_module.time, "sleep", lambda s: slept.append(round(s, 6)))
    limiter = RateLimiter(per_second=4)
    for _ in range(3):
        limiter.wait()
    assert slept == [0.25, 0.5]  # three starts at once: the 2nd waits 1/4 s, the 3rd 2/4 s
    now[0] += 10
    limiter.wait()
    assert slept == [0.25, 0.5]  # after a pause nothing waits
    RateLimiter(None).wait()  # no limit: never sleeps
    assert len(slept) == 2


def test_cache_key_covers_every_request_field_and_ignores_order(tmp_path):
    request = {"endpoint": "http://x/v1", "model": "m", "messages": [{"role": "user", "content": "hi"}],
               "temperature": 0.7}
    key = ResponseCache.key(request)
    assert key == ResponseCache.key(dict(reversed(list(request.items()))))
    for field, other in [("endpoint", "http://y/v1"), ("model", "n"), ("temperature", 0.0),
                         ("messages", [{"role": "user", "content": "hi!"}])]:
        assert ResponseCache.key({**request, field: other}) != key
    cache = ResponseCache(tmp_path)
    assert cache.get(key) is None
    cache.put(key, {"text": "t", "prompt_tokens": 1, "completion_tokens": 2})
    assert cache.get(key)["text"] == "t" and cache.path(key).parent.name == key[:2]
    assert [p.name for p in cache.path(key).parent.iterdir()] == [f"{key}.json"]  # no temporary left over


def test_the_ledger_never_records_credentials_in_the_endpoint():
    assert Ledger("https://me:sk-secret@proxy.example:8443/v1?api-key=k", "m").endpoint == "https://proxy.example:8443/v1"
    assert Ledger("http://127.0.0.1:8000/v1", "m").endpoint == "http://127.0.0.1:8000/v1"
