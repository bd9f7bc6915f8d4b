"""The LLM generator: ComLQ's subgraph-indicator prompts through any OpenAI-compatible endpoint.

Modules: prompts (render prompts/llm/), grouping (passages sharing an entity), parse (JSON
extraction and schema validation), build (answer -> checked Item), generator (planning and
concurrency; the `llm` generator). The client (openai SDK + cache + rate limit) and its ledger
(calls, tokens, cost) are shared with evaluation: pipeline/services/openai_client.py, ledger.py.
"""
