"""The offline generator: ComLQ query items from a knowledge graph built from the passages.

    graph.py      the KG (networkx MultiDiGraph, facts with their passages; user triples reader)
    extract.py    the built-in, precise Wikipedia extractor
    query.py      query types as plans; exact answers by projection, intersection, union, difference
    sample.py     answer-first grounded sampling with BetaE's filters
    verbalize.py  questions and ITLR logical forms from prompts/kg/*.yaml
    generator.py  the `kg` generator: builds the graph, samples every type, keeps the counts
"""
