"""Retrieval and evaluation: BM25, dense, ITLR, LLM rewrite and fusion retrievers; trec_eval-exact metrics."""
