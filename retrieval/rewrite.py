"""A BRIGHT-style baseline: an LLM first writes its reasoning about the question
(prompts/retrieval/rewrite.md); the question plus that text is then the dense query."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from retrieval.base import Corpus, Query, Run
from retrieval.dense import DenseRetriever
from retrieval.llm import Chat, render

PROMPT = "retrieval/rewrite.md"


class RewriteRetriever:
    def __init__(self, dense: DenseRetriever, chat: Chat, name: str = "rewrite"):
        self.dense = dense
        self.chat = chat
        self.name = name
        self.rewrites: dict[str, str] = {}  # query id -> the LLM's text (for inspection; not in the report)

    def describe(self) -> dict[str, object]:
        return {"model": self.dense.model, "prompt": f"prompts/{PROMPT}", **self.chat.describe()}

    def index(self, corpus: Corpus) -> None:
        self.dense.index(corpus)

    def retrieve(self, queries: Sequence[Query], k: int) -> Run:
        answers = self.chat.complete_all([render(PROMPT, q.text) for q in queries], desc="LLM rewrite")
        self.rewrites.update({q.id: a for q, a in zip(queries, answers)})
        return self.dense.retrieve([replace(q, text=f"{q.text}\n{a}") for q, a in zip(queries, answers)], k)
