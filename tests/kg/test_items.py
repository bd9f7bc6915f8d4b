"""What every kg item carries besides its question: witness facts with their sentences, the
passages that meet only part of a conjunction, the passages each union branch needs; and the
item checks that reject an item (answer in the question, banned words, witness not in the text).

The film graph (tests/kg/fixtures/films.*) states every fact in one sentence of its passage.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from pipeline.config import GenerateConfig
from pipeline.itemchecks import answers_in_question, banned_words, check_witnesses
from pipeline.kg.complete import CorpusCheck
from pipeline.kg.facts import Fact
from pipeline.kg.generator import builtin_inverses, generate_kg, make_item
from pipeline.kg.graph import build_graph, read_triples
from pipeline.kg.query import branch_passages, evaluate, partial_passages, plan_for
from pipeline.kg.sample import Grounding, Reject
from pipeline.kg.verbalize import Verbalizer
from pipeline.logical_form import Term, parse
from pipeline.querytypes import TYPE_NAMES
from pipeline.records import Passage, WitnessFact

from .conftest import TRIPLES


@pytest.fixture(scope="module")
def result(passages, config):
    return generate_kg(passages, config(per_type=3, seed=7), TYPE_NAMES)


def ground(kg, type_name: str, anchors: dict[str, str], relations: list[str]) -> Grounding:
    plan = plan_for(type_name)
    rels = dict(enumerate(relations))
    sets = evaluate(kg, plan, anchors, rels)
    return Grounding(plan, anchors, rels, sets, frozenset(sets[plan.target]), (), ())


def positive_edges(type_name: str) -> list[int]:
    """The triples of a type that are not negated nor below a negation (pni's chain is)."""
    plan = plan_for(type_name)
    found, stack = [], [plan.target]
    while stack:
        node = stack.pop()
        for step in plan.steps[node]:
            if not step.negated:
                found.append(step.edge)
                stack.append(step.child)
    return sorted(found)


def texts(passages) -> dict[str, str]:
    return {pid: p.text for pid, p in passages.items()}


def test_every_item_carries_the_sentences_of_its_witness_facts(result, passages):
    for item in result.items:
        assert item.facts, item.id
        assert check_witnesses(item, texts(passages)) == [], item.id
        # every triple outside a negated branch is witnessed by a fact of its relation and direction
        for index in positive_edges(item.type):
            assert any(f.relation == item.triples[index].relation for f in item.facts), (item.id, index)
        assert {f.passage_id for f in item.facts} == {e.passage_id for e in item.evidence}


def test_witness_facts_of_a_two_hop_question(films, passages):
    # the nationality of the director of Ran: Ran created_by Kurosawa, Kurosawa nationality Japanese
    grounding = replace(ground(films, "2p", {"?x": "Ran"}, ["created_by", "nationality"]),
                        evidence=("f-akira-kurosawa", "f-ran"))
    item = make_item(films, grounding, 1, texts(passages))
    assert item.answers == ("Japanese",)
    # the bridge is called "the director who created Ran": its noun is a class fact the item shows too
    assert [(f.subject, f.relation, f.object, f.passage_id, f.sentence) for f in item.facts] == [
        ("Akira Kurosawa", "nationality", "Japanese", "f-akira-kurosawa",
         "Akira Kurosawa was a Japanese director, born in the 20th century."),
        ("Akira Kurosawa", "occupation", "director", "f-akira-kurosawa",
         "Akira Kurosawa was a Japanese director, born in the 20th century."),
        ("Ran", "created_by", "Akira Kurosawa", "f-ran", "Ran is a 1980 film by Akira Kurosawa."),
    ]
    assert "the director who created Ran" in item.question


def test_check_witnesses_names_each_problem(result, passages):
    item = result.items[0]
    fact = item.facts[0]
    corpus = texts(passages)
    bad = {
        "is not in the corpus": replace(fact, passage_id="nowhere"),
        "its sentence is not in the text": replace(fact, sentence=fact.sentence + " Indeed."),
        "does not contain its subject mention": replace(fact, subject_mention="Someone Else"),
        "does not contain its object mention": replace(fact, object_mention="Elsewhere"),
    }
    for message, wrong in bad.items():
        reasons = check_witnesses(replace(item, facts=(wrong,)), corpus)
        assert len(reasons) == 1 and message in reasons[0], reasons
    other = next(pid for pid in corpus if pid not in {e.passage_id for e in item.evidence})
    moved = WitnessFact(fact.subject, fact.relation, fact.object, other, corpus[other][:10], corpus[other][:3],
                        corpus[other][3:6])
    assert "is not an evidence passage" in check_witnesses(replace(item, facts=(moved,)), corpus)[0]


def test_an_item_whose_sentence_is_not_in_the_shipped_text_is_rejected(films, passages):
    grounding = replace(ground(films, "1p", {"?x": "Ran"}, ["published_in_decade"]), evidence=("f-ran",))
    edited = texts(passages) | {"f-ran": "Ran is a film by Akira Kurosawa."}  # the year is gone
    with pytest.raises(Reject, match="witness_not_in_text"):
        make_item(films, grounding, 1, edited)
    assert make_item(films, grounding, 1, texts(passages)).facts[0].object_mention == "1980"


def test_a_fact_without_a_sentence_in_a_graph_with_sentences_rejects_the_item(tmp_path, passages):
    lines = TRIPLES.read_text().splitlines()
    bare = json.loads(lines[1])  # Lolita created_by Stanley Kubrick, now without its sentence
    del bare["evidence"]
    path = tmp_path / "triples.jsonl"
    path.write_text("\n".join([lines[0], json.dumps(bare), *lines[2:]]) + "\n")
    kg = read_triples(path, passages)
    with pytest.raises(Reject, match="no_witness_sentence"):
        make_item(kg, replace(ground(kg, "1p", {"?x": "Lolita"}, ["created_by"]), evidence=("f-lolita",)), 1)
    grounding = ground(kg, "1p", {"?x": "Lolita"}, ["published_in_decade"])
    assert make_item(kg, replace(grounding, evidence=("f-lolita",)), 1).facts


def test_a_graph_without_sentences_gives_items_without_facts(tmp_path, passages):
    path = tmp_path / "triples.jsonl"
    path.write_text("".join(json.dumps({k: v for k, v in json.loads(line).items() if k != "evidence"}) + "\n"
                            for line in TRIPLES.read_text().splitlines()))
    result = generate_kg(passages, GenerateConfig(per_type=2, seed=1, triples=str(path)), ("1p", "2in"))
    assert len(result.items) == 4 and all(not i.facts for i in result.items)


def test_partial_passages_meet_some_but_not_all_conditions(films):
    # Kubrick's works from the 1960s: Lolita, Spartacus, Strangelove Notes. Partial: his other work
    # (Barry Lyndon, 1970s) and the other 1960s works.
    grounding = ground(films, "2i", {"?y": "Stanley Kubrick", "?z": "1960s"}, ["created_by", "published_in_decade"])
    assert grounding.answers == {"Lolita", "Spartacus", "Strangelove Notes"}
    assert partial_passages(films, grounding.plan, grounding.relations, grounding.sets) == {
        "f-barry-lyndon", "f-psycho", "f-pale-fire", "f-a-clockwork-orange", "f-lolita-screenplay", "f-psycho-notes"}
    # a chain's passages count: films by 20th-century-born directors from the 1950s is Rashomon;
    # Kubrick's and Kurosawa's other works meet only the chain, Vertigo and Pnin only the decade
    grounding = ground(films, "pi", {"?x1": "20th century", "?y2": "1950s"},
                       ["birth_century_of", "creator_of", "publication_decade_of"])
    assert grounding.answers == {"Rashomon"}
    assert partial_passages(films, grounding.plan, grounding.relations, grounding.sets) == {
        "f-lolita", "f-spartacus", "f-barry-lyndon", "f-strangelove-notes", "f-ran", "f-stanley-kubrick",
        "f-akira-kurosawa", "f-vertigo", "f-pnin"}
    # no intersection, no partial passages
    grounding = ground(films, "2p", {"?x": "Ran"}, ["created_by", "nationality"])
    assert partial_passages(films, grounding.plan, grounding.relations, grounding.sets) == set()


def test_branches_are_the_passages_of_each_side_of_a_union(films):
    grounding = ground(films, "2u", {"?x1": "Stanley Kubrick", "?x2": "1950s"}, ["creator_of", "publication_decade_of"])
    assert branch_passages(films, grounding.plan, grounding.anchors, grounding.relations) == (
        {"f-lolita", "f-spartacus", "f-barry-lyndon", "f-strangelove-notes"}, {"f-vertigo", "f-rashomon", "f-pnin"})
    # up: the decades of Hitchcock's or Kurosawa's works; each branch needs its own works' passages
    grounding = ground(films, "up", {"?y": "Alfred Hitchcock", "?z": "Akira Kurosawa"},
                       ["creator_of", "creator_of", "published_in_decade"])
    assert branch_passages(films, grounding.plan, grounding.anchors, grounding.relations) == (
        {"f-psycho", "f-vertigo", "f-psycho-notes"}, {"f-rashomon", "f-ran"})


def test_generated_items_label_partial_and_branch_passages(result):
    for item in result.items:
        evidence = {e.passage_id for e in item.evidence}
        assert not set(item.partial) & (evidence | set(item.violating))
        if item.type in ("2u", "up"):
            assert len(item.branches) == 2 and all(item.branches)
            assert set().union(*item.branches) == evidence
        else:
            assert item.branches == ()
    assert any(item.partial for item in result.items if item.type in ("2i", "3i", "pi", "ip", "3in"))
    assert not any(item.partial for item in result.items if item.type in ("1p", "2p", "3p", "2u", "up"))


def test_answers_in_the_question_and_banned_words_are_found():
    assert answers_in_question("Which films did Stanley Kubrick make?", ["Kubrick", "Ran"]) == [
        "the question names the answer 'Kubrick'"]
    assert answers_in_question("Which films are from Brandenburg?", ["Ran"]) == []  # whole words only
    assert len(banned_words("Name the class of the poem by the Roman people.")) == 1
    for question in ("Which subjects are in the article on X?", "What is in the Arts category?",
                     "Which Subjects are Greek?"):
        assert banned_words(question), question
    assert banned_words("Which classical subjectivists were Greek?") == []


def test_questions_with_banned_words_are_rejected_and_counted(tmp_path, passages):
    # a relation of a triples file without a template is worded "the category of X"
    path = tmp_path / "triples.jsonl"
    lines = [json.dumps({"subject": s, "relation": "category", "object": o, "passages": [p],
                         "evidence": [{"passage": p, "sentence": sentence, "subject_mention": s, "object_mention": o}]})
             for s, o, p, sentence in [("Lolita", "film", "f-lolita", "Lolita is a 1960 film by Stanley Kubrick."),
                                       ("Ran", "film", "f-ran", "Ran is a 1980 film by Akira Kurosawa.")]]
    path.write_text("\n".join(lines) + "\n")
    result = generate_kg(passages, GenerateConfig(per_type=1, seed=1, triples=str(path)), ("1p",))
    assert result.items == [] and result.stats["types"]["1p"]["rejections"]["banned_word"] > 0
    assert any(r["reason"] == "banned_word" for r in result.rejected)


def test_no_generated_question_names_an_answer_or_says_a_banned_word(result):
    for item in result.items:
        assert answers_in_question(item.question, item.answers) == [], item.question
        assert banned_words(item.question) == [], item.question


# --- negations remove members of the worded class --------------------------------------------

@pytest.fixture(scope="module")
def generals():
    """Pericles and Brasidas were generals, Herodotus a historian; all three died in the 5th
    century BC; Brasidas and Herodotus are Greek in this graph, Pericles is not."""
    people = {"pericles": "Pericles", "brasidas": "Brasidas", "herodotus": "Herodotus"}
    facts = [Fact(p, "died_in_century", "c5", (p,)) for p in people]
    facts += [Fact("pericles", "occupation", "general", ("pericles",)),
              Fact("brasidas", "occupation", "general", ("brasidas",)),
              Fact("herodotus", "occupation", "historian", ("herodotus",)),
              Fact("brasidas", "nationality", "greek", ("brasidas",)),
              Fact("herodotus", "nationality", "greek", ("herodotus",))]
    labels = people | {"c5": "5th century BC", "general": "general", "historian": "historian", "greek": "Greek"}
    return build_graph(facts, labels, builtin_inverses())


def test_the_noun_of_a_negated_set_holds_for_what_the_negation_removes(generals):
    grounding = ground(generals, "2in", {"?y": "c5", "?z": "greek"}, ["death_century_of", "nationality"])
    assert grounding.answers == {"pericles"}  # a general, but Herodotus is removed, who is not one
    found = {Verbalizer(generals, grounding, random.Random(seed)).question() for seed in range(40)}
    assert all("general" not in q and "people" in q for q in found), found


def test_a_class_condition_becomes_the_noun(films):
    grounding = ground(films, "3i", {"?y": "film", "?z": "Stanley Kubrick", "?w": "1960s"},
                       ["instance_of", "created_by", "published_in_decade"])
    found = {Verbalizer(films, grounding, random.Random(seed)).question() for seed in range(40)}
    assert "Which films were created by Stanley Kubrick and are from the 1960s?" in found
    assert all("films that are films" not in q and "a film" not in q for q in found), found


def test_no_projection_inside_a_negation(films):
    # Kurosawa's works (Kubrick, also born in the 20th century, is American): the NOT is about
    # the people before the projection (p(i(e1, n(e2)))), so it stays inside the one projected
    # term; "works by ..." AND NOT "works by American directors" would remove works an American
    # also made, and "works by ..." AND NOT "American directors" subtracts people from works
    grounding = ground(films, "inp", {"?y": "20th century", "?w": "American"},
                       ["born_in_century", "nationality", "creator_of"])
    forms = {Verbalizer(films, grounding, random.Random(seed)).logical_form() for seed in range(20)}
    assert '"works by the directors that were born in the 20th century but are not American"' in forms
    for form in forms:  # the NOT is a clause of its own, not ", except those that ..." after "works by ..."
        assert "those that" not in form, form
        term = parse(form)
        assert isinstance(term, Term) and term.text.startswith("works by the directors"), form
        assert "American" in term.text and "20th century" in term.text, form


# --- answers checked against the corpus text -------------------------------------------------

def test_the_corpus_check_finds_members_the_graph_lacks(films, passages):
    checker = CorpusCheck(films, passages)
    # "Lolita is a 1960 film by Stanley Kubrick.", "Pale Fire is a 1960 novel by ...": "by" words every one
    assert checker.cues["created_by"] == {"by"}
    assert not checker.other_member("Stanley Kubrick", "creator_of")
    # a passage the extractor could not read: another film by Kubrick
    extra = Passage("f-dr-strangelove", "Dr. Strangelove", "Dr. Strangelove is a 1964 film by Stanley Kubrick.")
    checker = CorpusCheck(films, passages | {extra.id: extra})
    assert checker.other_member("Stanley Kubrick", "creator_of")
    assert not checker.other_member("Akira Kurosawa", "creator_of")
    grounding = ground(films, "1p", {"?x": "Stanley Kubrick"}, ["creator_of"])
    assert checker.reject_reason(grounding.plan, grounding.anchors, grounding.relations, grounding.sets) == \
        "corpus_other_member"
    with pytest.raises(Reject, match="corpus_other_member"):
        make_item(films, replace(grounding, evidence=("f-lolita",)), 1, None, checker)


def test_the_corpus_check_reads_values_named_in_sentences(films, passages):
    # Kubrick's occupations are {director} in the graph; a sentence naming him with another
    # occupation of the graph's range ("novelist") may add one
    assert not CorpusCheck(films, passages).other_member("Stanley Kubrick", "occupation")
    extra = Passage("f-kubrick-notes", "Kubrick Notes", "Stanley Kubrick was a American novelist as well.")
    checker = CorpusCheck(films, passages | {extra.id: extra})
    # its label, how evidence names it, and its years
    assert checker.names["1960s"] == {("1960s",)} | {(str(y),) for y in range(1960, 1970)}
    assert checker.other_member("Stanley Kubrick", "occupation")
    assert not checker.other_member("Alfred Hitchcock", "occupation")


def test_the_corpus_check_reads_negations_in_the_answers_own_text(films, passages):
    # Barry Lyndon is Kubrick's work not from the 1960s; a sentence of its own saying it is from
    # the 1960s (which the graph missed) drops the item
    grounding = ground(films, "2in", {"?y": "Stanley Kubrick", "?z": "1960s"}, ["creator_of", "published_in_decade"])
    assert grounding.answers == {"Barry Lyndon"}
    assert CorpusCheck(films, passages).reject_reason(grounding.plan, grounding.anchors, grounding.relations,
                                                      grounding.sets) is None
    edited = replace(passages["f-barry-lyndon"], text=passages["f-barry-lyndon"].text + " It is a film of the 1960s.")
    checker = CorpusCheck(films, passages | {edited.id: edited})
    assert checker.reject_reason(grounding.plan, grounding.anchors, grounding.relations, grounding.sets) == \
        "corpus_meets_negation"


def test_an_intersection_is_checked_as_a_whole(films, passages):
    # a film by Kubrick the graph lacks is a missed answer of "Kubrick's 1960s works" only if the
    # text may also place it in the 1960s; the per-condition check dropped the item either way
    grounding = ground(films, "2i", {"?y": "Stanley Kubrick", "?z": "1960s"}, ["created_by", "published_in_decade"])
    undated = Passage("f-dr-strangelove", "Dr. Strangelove", "Dr. Strangelove is a film by Stanley Kubrick.")
    checker = CorpusCheck(films, passages | {undated.id: undated})
    assert checker.other_member("Stanley Kubrick", "creator_of")
    assert checker.reject_reason(grounding.plan, grounding.anchors, grounding.relations, grounding.sets) is None
    dated = Passage("f-dr-strangelove", "Dr. Strangelove",
                    "Dr. Strangelove is a 1960s film by Stanley Kubrick. It is a 1960s film.")
    checker = CorpusCheck(films, passages | {dated.id: dated})
    assert checker.reject_reason(grounding.plan, grounding.anchors, grounding.relations, grounding.sets) == \
        "corpus_other_member"
