"""The scripted server started by hand (`python -m tests.support.scripted_openai`) speaks the
OpenAI chat-completions protocol to the real SDK and says its answers are scripted."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import openai

from pipeline.llm.parse import parse_answer
from pipeline.llm.prompts import render

ROOT = Path(__file__).resolve().parents[2]  # `-m tests.support...` runs from the repository root


def test_started_by_hand_it_answers_the_sdk(passages):
    proc = subprocess.Popen([sys.executable, "-m", "tests.support.scripted_openai", "--port", "0",
                             "--rule", "Query type: 3p,=broken"], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        banner = proc.stdout.readline()
        assert "scripted answers, not model output" in banner
        url = banner.split(" at ")[1].split(" ")[0]
        client = openai.OpenAI(base_url=url, api_key="any", max_retries=0)
        prompt = render("pin", list(passages.values())[:2])
        reply = client.chat.completions.create(
            model="whatever", messages=[{"role": "system", "content": prompt.system},
                                        {"role": "user", "content": prompt.user}],
            response_format={"type": "json_object"})
        answer, error = parse_answer(reply.choices[0].message.content, 2)
        assert error is None and answer["negative"] and reply.usage.prompt_tokens > 0
        broken = client.chat.completions.create(
            model="whatever", messages=[{"role": "user", "content": render("3p", list(passages.values())[:1]).user}])
        assert parse_answer(broken.choices[0].message.content, 1)[1].reason == "invalid_json"
        with urllib.request.urlopen(url + "/_stats") as response:
            stats = json.load(response)
        assert stats["requests"] == 2 and stats["replies"] == {"good": 1, "broken": 1}
    finally:
        proc.terminate()
        proc.wait(timeout=10)
