"""Where ITLR's logical forms come from: "gold" (the query's own logical form), "rules" (the
offline cue-word parser) or "llm" (prompts/retrieval/itlr_parse.md through a chat endpoint).

gold falls back to rules for a query without a logical form (ComLQ ships none); llm falls back
to rules when the model's answer does not parse. Each parser counts where its forms came from.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from pipeline.errors import ComlqError
from pipeline.logical_form import parse
from retrieval.base import Query
from retrieval.llm import Chat, render
from retrieval.parse_rules import to_logical_form

PROMPT = "retrieval/itlr_parse.md"
_FENCE = re.compile(r"^```\w*\s*|\s*```$")


class RulesParser:
    source = "rules"

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def __call__(self, queries: Sequence[Query]) -> list[str]:
        self.counts["rules"] += len(queries)
        return [to_logical_form(q.text) for q in queries]


class GoldParser(RulesParser):
    source = "gold"

    def __call__(self, queries: Sequence[Query]) -> list[str]:
        forms = []
        for query in queries:
            self.counts["gold" if query.logical_form else "rules"] += 1
            forms.append(query.logical_form or to_logical_form(query.text))
        return forms


class LLMParser(RulesParser):
    source = "llm"

    def __init__(self, chat: Chat) -> None:
        super().__init__()
        self.chat = chat

    def __call__(self, queries: Sequence[Query]) -> list[str]:
        answers = self.chat.complete_all([render(PROMPT, q.text) for q in queries], desc="LLM parse")
        forms = []
        for query, answer in zip(queries, answers):
            form = _FENCE.sub("", answer.strip()).removeprefix("Query:").strip()
            try:
                parse(form)
                self.counts["llm"] += 1
            except ComlqError:
                self.counts["rules (LLM answer did not parse)"] += 1
                form = to_logical_form(query.text)
            forms.append(form)
        return forms
