"""What talks to services, shared by every stage: background processes started by pid file
(process), the OpenAI-compatible client (openai_client) and its ledger (ledger)."""
