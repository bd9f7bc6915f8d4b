"""Answers held against the corpus (pipeline/completeness.py): the same check for any generator's items."""

from __future__ import annotations

from dataclasses import replace

from pipeline.completeness import bm25_search, held_against_corpus, possible_missed, target_anchors
from pipeline.llm.generator import generate_llm
from pipeline.records import Check, GeneratorInfo, GradedPassage, Item, Passage, Triple

CORPUS = {
    "a": Passage("a", "Barry Lyndon", "Barry Lyndon is a 1975 period drama film directed by Stanley Kubrick."),
    "b": Passage("b", "The Shining (film)", "The Shining is a 1980 horror film directed by Stanley Kubrick."),
    "c": Passage("c", "Steven Spielberg", "Steven Spielberg directed Jaws; he admired Stanley Kubrick."),
    "d": Passage("d", "Jaws (film)", "Jaws is a 1975 thriller film directed by Steven Spielberg."),
}


def item(answers: tuple[str, ...], evidence: tuple[str, ...]) -> Item:
    return Item(id="x", type="1p", n_passages=len(evidence), question="Which films did Stanley Kubrick direct?",
                indicator="<?x, R, ?y>", grounded_indicator="<Stanley Kubrick, directed, ?y>",
                triples=(Triple("Stanley Kubrick", "directed", "?y", False, False),), target="?y",
                logical_form='"films directed by Stanley Kubrick"', answers=answers,
                evidence=tuple(GradedPassage(p, 1) for p in evidence), violating=(), source_passages=evidence,
                generator=GeneratorInfo("llm"), check=Check(True, ()))


def test_a_passage_naming_the_anchor_may_state_a_missed_answer():
    search = bm25_search(CORPUS)
    incomplete = item(("Barry Lyndon",), ("a",))
    assert target_anchors(incomplete) == ["Stanley Kubrick"]
    # The Shining names Kubrick and is no answer; Spielberg's passage names him too (a reviewer decides);
    # Jaws names no Kubrick
    assert set(possible_missed(incomplete, CORPUS, search)) == {"b", "c"}
    complete = item(("Barry Lyndon", "The Shining"), ("a", "b"))  # "The Shining (film)" is about an answer
    assert possible_missed(complete, CORPUS, search) == ["c"]
    marked = held_against_corpus(incomplete, CORPUS, search, keep=False)
    assert not marked.check.ok and "possible missed answers" in marked.check.reasons[-1]
    kept = held_against_corpus(incomplete, CORPUS, search, keep=True)
    assert kept.check.ok and set(kept.possible_missed) == {"b", "c"}
    chain = replace(incomplete, triples=(Triple("Stanley Kubrick", "directed", "?x", False, False),
                                         Triple("?x", "starred", "?y", False, False)))
    assert possible_missed(chain, CORPUS, search) == []  # no named anchor reaches the target


def test_llm_items_are_held_against_the_corpus(server, make_config, tmp_path, passages):
    """The scripted answers name their passages' titles as anchors; the fixture corpus names them elsewhere
    too, so with the check on some good answers are marked, each with the passages that may hold more."""
    config = make_config()
    config.generate.per_type = 2
    off = generate_llm(passages, config, ("1p", "2i"), tmp_path / "off")
    config.generate.completeness = "drop"
    held = generate_llm(passages, config, ("1p", "2i"), tmp_path / "held")
    assert all(i.check.ok and not i.possible_missed for i in off.items)
    marked = [i for i in held.items if i.possible_missed]
    assert marked and all(not i.check.ok and "possible missed answers" in i.check.reasons[-1] for i in marked)
    search = bm25_search(passages)
    assert all(list(i.possible_missed) == possible_missed(i, passages, search) for i in marked)
