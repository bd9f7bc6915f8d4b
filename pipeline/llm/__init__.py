"""The LLM generator: ComLQ's subgraph-indicator prompts through any OpenAI-compatible endpoint.

Modules: prompts (render prompts/llm/), grouping (passages sharing an entity), client (openai
SDK + cache + rate limit), ledger (calls, tokens, cost), parse (JSON extraction and schema
validation), build (answer -> checked Item), generator (planning and concurrency; the `llm`
generator).
"""
