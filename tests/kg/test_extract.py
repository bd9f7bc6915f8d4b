"""The built-in extractor on real passages (tests/kg/fixtures, see ATTRIBUTION.md): facts stated in the
text, with evidence; articles, aliases and chunks; the reading cache; the hand-judged precision sample."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.kg import cache as cache_module
from pipeline.kg.cache import ReadingCache, read_passages
from pipeline.kg.extract import _apart, century, date_value, extract
from pipeline.kg.judge import table as item_table
from pipeline.kg.judge import table_lines
from pipeline.kg.precision import table, table_rows, wilson
from pipeline.passages import load_passages
from pipeline.querytypes import TYPE_NAMES
from pipeline.records import Passage

FIXTURES = Path(__file__).parent / "fixtures"
WIKI = FIXTURES / "wiki.passages.jsonl"
COMLQ = FIXTURES / "comlq.corpus.jsonl"


@pytest.fixture(scope="module")
def cache_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("readings")


def facts_of(passages: dict[str, Passage], root: Path) -> set[tuple[str, str, str]]:
    extraction = extract(passages, ReadingCache(root), min_facts=1)
    label = extraction.labels.__getitem__
    return {(label(f.subject), f.relation, label(f.object)) for f in extraction.facts}


@pytest.fixture(scope="module")
def wiki(cache_root):
    return extract(load_passages(WIKI), ReadingCache(cache_root), min_facts=1)


@pytest.fixture(scope="module")
def comlq(cache_root):
    return extract(load_passages(COMLQ), ReadingCache(cache_root), min_facts=1)


def labelled(extraction) -> set[tuple[str, str, str]]:
    label = extraction.labels.__getitem__
    return {(label(f.subject), f.relation, label(f.object)) for f in extraction.facts}


def test_facts_of_the_sample_text(wiki):
    facts = labelled(wiki)
    assert {("Stanley Kubrick", "occupation", "filmmaker"), ("Stanley Kubrick", "nationality", "American"),
            ("Amu Darya", "flows_through", "Afghanistan"), ("Amu Darya", "located_in", "Central Asia"),
            ("Algiers", "located_in", "Algeria"), ("Algiers", "capital_of", "Algiers Province"),
            ("Seven Samurai", "instance_of", "film"), ("Vittorio De Sica", "directed", "Bicycle Thieves"),
            ("Akira Kurosawa", "directed", "Seven Samurai")} <= facts
    # a linked name is the article's node: the film's director is the Kurosawa passage's node
    directed = next(f for f in wiki.facts if f.relation == "directed" and wiki.labels[f.object] == "Seven Samurai")
    assert directed.subject == "article:Akira Kurosawa"


def test_every_fact_has_evidence_in_the_text(wiki, comlq):
    for extraction, path in ((wiki, WIKI), (comlq, COMLQ)):
        passages = load_passages(path)
        for fact in extraction.facts:
            assert fact.evidence and set(fact.passages) == {e.passage for e in fact.evidence}
            for evidence in fact.evidence:
                assert evidence.sentence in passages[evidence.passage].text
                assert evidence.subject_mention in evidence.sentence and evidence.object_mention in evidence.sentence


def test_descriptions_are_no_source_of_facts(cache_root):
    passages = load_passages(WIKI)
    without = {pid: dataclasses.replace(p, description=None) for pid, p in passages.items()}
    # the description may type an article, never add a fact the text does not state
    assert facts_of(passages, cache_root) - {f for f in facts_of(without, cache_root) if f[1] != "occupation"} <= {
        f for f in facts_of(passages, cache_root) if f[1] == "occupation"}
    assert not {f for f in facts_of(passages, cache_root) if f[1] == "topic"}


def test_comlq_titles_lifespans_and_linked_llm_passages(comlq):
    facts = labelled(comlq)
    assert {("Allen Ginsberg", "occupation", "poet"), ("Allen Ginsberg", "born_in_century", "20th century"),
            ("Allen Ginsberg", "born_in_decade", "1920s"), ("Allen Ginsberg", "died_in_century", "20th century"),
            ("Alfred Hitchcock", "nationality", "English"), ("Akira Kurosawa", "occupation", "screenwriter"),
            ("Tapti River", "located_in", "India"), ("Simon Elliott", "born_in", "Wellington"),
            ("Simon Elliott", "educated_at", "Wellington College")} <= facts
    assert ("Aaron", "occupation", "brother") not in facts  # "... and the brother of Moses" is no trade
    # an LLM-written passage names Alfred Hitchcock: its statement is about the same node
    born = next(f for f in comlq.facts
                if f.relation == "born_in_decade" and comlq.labels[f.subject] == "Alfred Hitchcock")
    assert born.subject == "article:Alfred Hitchcock" and {"10087", "19771"} <= set(born.passages)


def test_chunks_of_one_article_are_one_node(comlq, cache_root):
    # ComLQ's two copies of the Weather Network chunk: one recovered title, one node
    nodes = {n for f in comlq.facts for n in (f.subject, f.object) if comlq.labels[n] == "The Weather Network"}
    assert nodes == {"article:The Weather Network"}
    # DPR-style chunks of one article (same given title): the definition of the first chunk and a
    # statement of the second are about the same node, whatever the ids
    text = load_passages(WIKI)["wv-00188"].text
    cut = text.index(" Rising")
    chunks = {"z-1": Passage("z-1", "Amu Darya", text[cut + 1:]), "a-7": Passage("a-7", "Amu Darya", text[:cut])}
    extraction = extract(chunks, ReadingCache(cache_root), min_facts=1)
    assert {f.subject for f in extraction.facts if extraction.labels[f.subject] == "Amu Darya"} == {"article:Amu Darya"}


def test_the_second_run_reads_from_the_cache(tmp_path, monkeypatch):
    passages = load_passages(COMLQ)
    first = extract(passages, ReadingCache(tmp_path), min_facts=1)
    assert len(list(tmp_path.rglob("*.json"))) == len(passages) - 1  # 14770 and 16293 have one text

    def no_spacy():
        raise AssertionError("spaCy loaded although every reading is cached")

    monkeypatch.setattr(cache_module.nlp, "load", no_spacy)
    assert extract(passages, ReadingCache(tmp_path), min_facts=1) == first
    read_passages(list(passages.values()), ReadingCache(tmp_path))  # what a prepare task does: nothing left


def test_cache_key_follows_title_and_text():
    a = Passage("1", "Aaron", "Aaron is a prophet.")
    assert ReadingCache.key(a) == ReadingCache.key(dataclasses.replace(a, id="2", description="x"))
    assert ReadingCache.key(a) != ReadingCache.key(dataclasses.replace(a, title=""))


def test_generate_reads_a_beir_corpus(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COMLQ_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "out"
    main(["generate", "--generator", "kg", "--passages", str(COMLQ), "--per-type", "1", "--types", "1p",
          "--out", str(out)])
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert len(items) == 1 and items[0]["type"] == "1p"
    assert set(items[0]["source_passages"]) <= {json.loads(line)["_id"] for line in COMLQ.open()}
    assert "wrote 1 items" in capsys.readouterr().out


def test_generate_names_the_bad_line_of_a_beir_corpus(tmp_path, capsys):
    bad = tmp_path / "corpus.jsonl"
    bad.write_text('{"_id": "1", "text": "Aaron is a prophet."}\n{"_id": "2"}\n')
    assert main(["generate", "--passages", str(bad), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{bad}:2: field 'text'" in err


@pytest.mark.parametrize(("value", "kind", "expected"), [
    ("1926", "century", "20th century"), ("1926", "decade", "1920s"), ("470 BC", "century", "5th century BC"),
    ("470 BC", "decade", None), ("1850s", "century", "19th century"), ("19th century", "decade", None)])
def test_date_values(value, kind, expected):
    assert date_value(value, kind) == expected


@pytest.mark.parametrize("year, bc, expected", [(1900, False, "19th century"), (1901, False, "20th century"),
                                                (2001, False, "21st century"), (1111, False, "12th century"),
                                                (470, True, "5th century BC"), (12, False, "1st century")])
def test_century(year, bc, expected):
    assert century(year, bc) == expected


def test_precision_sample_is_fully_judged_and_in_the_docs():
    rows = [json.loads(line) for line in (FIXTURES / "precision_sample.jsonl").open()]
    assert len(rows) >= 100 and all(r["verdict"] in ("correct", "wrong") and r["note"] for r in rows)
    assert len({(r["subject"], r["relation"], r["object"]) for r in rows}) == len(rows)  # drawn without repeats
    for row in rows:  # judged against the text the benchmark ships
        assert row["sentence"] in row["text"] and row["subject_mention"] in row["sentence"]
        assert row["object_mention"] in row["sentence"]
    counts = table(rows)
    correct, judged = counts.pop("all")
    assert judged == len(rows) and correct >= 0.9 * judged
    docs = (Path(__file__).parents[2] / "docs" / "generators.md").read_text(encoding="utf-8")
    assert f"(`all`: {correct}/{judged})" in docs
    for line in table_rows(rows):  # per relation and total, with the Wilson interval
        assert line in docs, line
    low, high = wilson(correct, judged)
    assert f"95% Wilson interval {low:.0%}–{high:.0%}".replace("%–", "–") in docs


def test_wilson_interval_matches_the_textbook_values():
    # Wilson (1927) at 95%: 0/10 -> [0, 0.2775]; 5/10 -> [0.2366, 0.7634]
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)


def test_item_sample_is_fully_judged_and_in_the_docs():
    rows = [json.loads(line) for line in (FIXTURES / "item_judgements.jsonl").open()]
    assert len(rows) == 56 and len({r["type"] for r in rows}) == 14 and all(r["note"] for r in rows)
    assert all(v in (True, False) for r in rows for v in r["verdicts"].values())
    docs = (Path(__file__).parents[2] / "docs" / "generators.md").read_text(encoding="utf-8")
    for point, (held, judged) in item_table(rows).items():
        assert f"| `{point}` | {held}/{judged} |" in docs, point



def test_the_open_world_round_is_fully_judged_keeps_no_comlq_text_and_is_in_the_docs():
    # issue 29's blind round: half ComLQ's chunks, half a corpus the generator was never tuned on
    rows = [json.loads(line) for line in (FIXTURES / "item_judgements_open_world.jsonl").open()]
    # 4 per type, but 3in (neither corpus's run holds one: the runs say why) and inp (the unseen run holds 2)
    assert len(rows) == 50 and {r["type"] for r in rows} == set(TYPE_NAMES) - {"3in"}
    assert sum(r["type"] == "inp" for r in rows) == 2
    assert all(r["note"] for r in rows)
    assert {r["corpus"] for r in rows} == {"comlq", "unseen"}
    assert all(v in (True, False) for r in rows for v in r["verdicts"].values())
    negation = [r for r in rows if r["violating"]]
    assert negation and all("negation_by_contrast" in r["verdicts"] for r in negation)
    for row in rows:
        if row["corpus"] == "comlq":  # ComLQ's passages stay out of the repo; their ids stay
            assert all("text" not in p and p["id"] for p in row["evidence"] + row["violating"])
    docs = (Path(__file__).parents[2] / "docs" / "generators.md").read_text(encoding="utf-8")
    for line in table_lines(rows):
        assert line in docs, line
    # the earlier rounds' sheets, each a row of the docs' table of rounds
    for name, seed in (("item_judgements_open_world_r2.jsonl", 202), ("item_judgements_open_world_r3.jsonl", 303),
                       ("item_judgements_open_world_r4.jsonl", 404), ("item_judgements_open_world_r5.jsonl", 505),
                       ("item_judgements_open_world_r6.jsonl", 606), ("item_judgements_open_world_r7.jsonl", 707),
                       ("item_judgements_open_world_r8.jsonl", 808), ("item_judgements_open_world_r9.jsonl", 909),
                       ("item_judgements_open_world_r10.jsonl", 1010), ("item_judgements_open_world_r11.jsonl", 1111),
                       ("item_judgements_open_world_r12.jsonl", 1212), ("item_judgements_open_world_r13.jsonl", 1313)):
        counts = item_table([json.loads(line) for line in (FIXTURES / name).open()])
        row = next(line for line in docs.splitlines() if line.startswith(f"| {seed // 101} (seed {seed}) |"))
        points = ("fluent", "correct_answers", "complete_answers", "evidence_states_facts", "negation_by_contrast",
                  "every check")
        cells = [f"{counts[p][0]}/{counts[p][1]}" for p in points]
        assert row.endswith(" | ".join(cells) + " |"), row


def test_a_bare_given_name_is_no_person_and_recipient_no_occupation(tmp_path):
    # two Johns of two passages were one node: "John founded Microsoft" and "John founded Apple"
    passages = {
        "a": Passage(id="a", title="Microsoft", text="Microsoft is an American technology company. "
                     "John founded Microsoft in Albuquerque."),
        "b": Passage(id="b", title="Apple Inc.", text="Apple Inc. is an American technology company. "
                     "John founded Apple Inc. in 1976."),
        "c": Passage(id="c", title="Jane Smith", text="Jane Smith (1901–1980) was a recipient of the Nobel Prize "
                     "in Physics."),
        "d": Passage(id="d", title="Ja'far al-Sadiq", text="Ja'far al-Sadiq (700–765) was a descendant of the "
                     "prophet Muhammad and a jurist."),
    }
    facts = facts_of(passages, tmp_path)
    assert {("Microsoft", "instance_of", "company"), ("Jane Smith", "won", "Nobel Prize in Physics")} <= facts
    assert not {f for f in facts if "John" in (f[0], f[2])}, facts
    assert ("Jane Smith", "occupation", "recipient") not in facts
    assert ("Ja'far al-Sadiq", "occupation", "descendant") not in facts  # kinship is no occupation


def nodes_of(extraction, label: str) -> set[str]:
    return {n for f in extraction.facts for n in (f.subject, f.object) if extraction.labels[n] == label}


def test_spellings_of_one_place_are_one_node_and_two_places_stay_two(tmp_path):
    # the check reads "Southeast Europe" and "Southeastern Europe" as one name: so does the graph
    passages = {
        "a": Passage("a", "Albania", "Albania is a country in Southeast Europe."),
        "b": Passage("b", "Bulgaria", "Bulgaria is a country in Southeastern Europe."),
        "c": Passage("c", "Durban", "Durban is a city in South Africa."),
        "d": Passage("d", "Botswana", "Botswana is a country in Southern Africa."),
        "e": Passage("e", "Desamparados", "Desamparados is a district in San José."),
        "f": Passage("f", "Willow Glen", "Willow Glen is a neighborhood in San Jose."),
    }
    extraction = extract(passages, ReadingCache(tmp_path), min_facts=1)
    europe = {f.object for f in extraction.facts if f.subject in ("article:Albania", "article:Bulgaria")
              and f.relation == "located_in"}
    assert europe == {"entity:Southeast Europe"}
    # a one-word direction tells a country from a region, an accent two cities: no merge
    assert nodes_of(extraction, "South Africa") and nodes_of(extraction, "Southern Africa")
    assert nodes_of(extraction, "San José") and nodes_of(extraction, "San Jose")


def test_a_spelling_of_an_article_is_the_article(tmp_path):
    passages = {
        "a": Passage("a", "Iranian plateau", "The Iranian plateau is a plateau in Western Asia."),
        "b": Passage("b", "Isfahan", "Isfahan is a city in the Iranian Plateau."),
    }
    extraction = extract(passages, ReadingCache(tmp_path), min_facts=1)
    assert nodes_of(extraction, "Iranian Plateau") == set()  # the article's node keeps its title
    assert ("article:Isfahan", "located_in", "article:Iranian plateau") in {
        (f.subject, f.relation, f.object) for f in extraction.facts}


def test_the_full_name_opening_a_person_article_is_the_article(tmp_path):
    passages = {
        "a": Passage("a", "B. R. Ambedkar", "Bhimrao Ramji Ambedkar was an Indian jurist and economist."),
        "b": Passage("b", "John Adams", "John Adams was an American statesman and lawyer. "
                     "His son John Quincy Adams was a diplomat who was born in Braintree."),
    }
    facts = facts_of(passages, tmp_path)
    assert {("B. R. Ambedkar", "occupation", "jurist"), ("B. R. Ambedkar", "nationality", "Indian")} <= facts
    assert not {f for f in facts if f[0] == "Bhimrao Ramji Ambedkar"}
    # the son named in the father's passage, holding every word of the father's title, is not the father
    assert not {f for f in facts if f[0] == "John Adams" and f[2] in ("diplomat", "Braintree")}


@pytest.mark.parametrize(("name", "main", "kinds", "apart"), [
    ("Southeastern Europe", "Southeast Europe", {"PLACE"}, False), ("Academy Award", "Academy Awards", {"ORG"}, False),
    ("South Africa", "Southern Africa", {"PLACE"}, True), ("San Jose", "San José", {"PLACE"}, True),
    ("Punic War", "Punic Wars", {"EVENT"}, True), ("Odes", "Ode", {"WORK"}, True),
    ("republics", "Republic", {"ORG"}, True), ("mirror", "Mirror", {"WORK"}, True),
    ("Roger Williams", "Roger William", {"PERSON"}, True)])
def test_spellings_that_may_name_two_entities_stay_apart(name, main, kinds, apart):
    assert _apart(name, main, kinds, []) is apart
    assert _apart(name, main, kinds, [f"Both {name} and {main} are named here."])  # a text telling them apart


def test_a_british_spelling_of_a_class_is_the_same_class(tmp_path):
    # "draughtsman" and "draftsman" are one class: "the nationalities of the draftsmen" needs both
    passages = {
        "a": Passage("a", "Alberto Giacometti", "Alberto Giacometti was a Swiss sculptor, painter, draftsman "
                     "and printmaker."),
        "b": Passage("b", "Henri de Toulouse-Lautrec", "Henri de Toulouse-Lautrec was a French painter, printmaker "
                     "and draughtsman."),
    }
    facts = facts_of(passages, tmp_path)
    assert {("Alberto Giacometti", "occupation", "draftsman"),
            ("Henri de Toulouse-Lautrec", "occupation", "draftsman")} <= facts, facts


def test_gendered_forms_and_synonyms_of_a_class_are_one_class(tmp_path):
    passages = {p.id: p for p in (
        Passage("p1", "Ingrid Bergman", "Ingrid Bergman was a Swedish actress."),
        Passage("p2", "Toshiro Mifune", "Toshiro Mifune was a Japanese actor and producer."),
        Passage("p3", "Antoine de Saint-Exupéry", "Antoine de Saint-Exupéry was a French writer and aviator."),
        Passage("p4", "Yuri Gagarin", "Yuri Gagarin was a Soviet pilot and cosmonaut."))}
    found = facts_of(passages, tmp_path)
    assert {("Ingrid Bergman", "occupation", "actor"), ("Toshiro Mifune", "occupation", "actor"),
            ("Antoine de Saint-Exupéry", "occupation", "pilot"), ("Yuri Gagarin", "occupation", "pilot")} <= found


def test_a_place_named_with_its_class_is_the_article(tmp_path):
    passages = {p.id: p for p in (
        Passage("p1", "Henan", "Henan is a province in Central China."),
        Passage("p2", "Zhengzhou", "Zhengzhou is the capital and the largest city of Henan Province."))}
    assert ("Zhengzhou", "capital_of", "Henan") in facts_of(passages, tmp_path)


def test_a_hyphenated_demonym_gives_each_listed_nationality(tmp_path):
    passages = {"a": Passage(id="a", title="Sidney Poitier", text="Sidney Poitier was a Bahamian-American actor, "
                                                                   "film director, activist, and diplomat.")}
    facts = facts_of(passages, tmp_path)
    assert {("Sidney Poitier", "nationality", "Bahamian"), ("Sidney Poitier", "nationality", "American")} <= facts
    assert not {f for f in facts if f[2] == "Bahamian-American"}
    # NER's one NORP span over two adjectives: the listed one
    passages = {"a": Passage(id="a", title="Vallabhbhai Patel", text="Vallabhbhai Jhaverbhai Patel was a Gandhian "
                                                                      "Indian independence activist and lawyer.")}
    facts = facts_of(passages, tmp_path / "patel")
    assert ("Vallabhbhai Patel", "nationality", "Indian") in facts
    assert not {f for f in facts if f[1] == "nationality" and f[2] != "Indian"}
    passages = {"a": Passage(id="a", title="John Smith", text="John Smith was an American Roman Catholic priest.")}
    facts = facts_of(passages, tmp_path / "smith")
    assert {f[2] for f in facts if f[1] == "nationality"} == {"American"}


def test_a_demonym_makes_no_person(tmp_path):
    # the nationality a demonym gives is a person's only: a city, a band and an empire hold none
    passages = {p.id: p for p in (
        Passage("a", "Tenochtitlan", "Tenochtitlan, also known as Mexico-Tenochtitlan, was a large Mexican altepetl "
                "in what is now the historic center of Mexico City."),
        Passage("b", "ABBA", "ABBA is a Swedish pop group formed in Stockholm in 1972."),
        Passage("c", "Jorge Amado", "Jorge Amado was a Brazilian writer of the modernist school."))}
    facts = facts_of(passages, tmp_path)
    assert {f for f in facts if f[1] == "nationality"} == {("Jorge Amado", "nationality", "Brazilian")}


@pytest.mark.parametrize("module, argv", [
    ("pipeline.kg.judge", ["sample", "/nope/items.jsonl", "--passages", "sample", "--out", "x.jsonl"]),
    ("pipeline.kg.precision", ["sample", "--source", "/nope/passages.jsonl", "--out", "x.jsonl"]),
])
def test_judging_tools_name_a_missing_file_in_one_line(module, argv, monkeypatch, capsys, tmp_path):
    import importlib
    monkeypatch.chdir(tmp_path)  # --out x.jsonl is written nowhere else
    monkeypatch.setattr("sys.argv", [module, *argv])
    with pytest.raises(SystemExit) as stop:
        importlib.import_module(module).main()
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "/nope/" in err.strip().splitlines()[-1] and "no such file" in err and "Traceback" not in err


def test_one_node_per_entity_and_never_two_in_one(tmp_path):
    # ComLQ-style chunks (titles empty, repeated at the start): two princesses of one name with other lifespans
    # are two nodes; a lead's "also Ibn Sīnā" is Avicenna's name wherever it is written; a chunk that runs into
    # the next article's lead gives that article its node
    passages = {
        "e1": Passage("e1", "", "Esma Sultan Esma Sultan (14 March 1726 – 13 August 1788) was an Ottoman princess, "
                      "the daughter of Sultan Ahmed III."),
        "e2": Passage("e2", "", "Esma Sultan Esma Sultan (17 July 1778 – 4 June 1848) was an Ottoman princess, the "
                      "daughter of Sultan Abdul Hamid I."),
        "a1": Passage("a1", "", "Avicenna Avicenna (; also Ibn Sīnā or Abu Ali Sina; ; – June 1037) was a Persian "
                      "polymath."),
        "a2": Passage("a2", "", "The Book of Healing The Book of Healing is a scientific and philosophical "
                      "encyclopedia written by Ibn Sīnā."),
        "a3": Passage("a3", "", "The Canon of Medicine The Canon of Medicine is an encyclopedia of medicine written "
                      "by Avicenna."),
        "g1": Passage("g1", "", "Goat was buried in Highland Road Cemetery. His Victoria Cross is displayed in the "
                      "Regimental Museum at Derby Museum, England. William Goate William Goate (or Goat) VC (12 "
                      "January 1836 – 24 October 1901) was an English recipient of the Victoria Cross."),
        "f1": Passage("f1", "", "Frederick Grace Frederick \"Fred\" Grace (29 February 1884 – 23 July 1964) was a "
                      "lightweight boxer."),
        "m1": Passage("m1", "", "Mark Minenko Mark Minenko (born March 29, 1957) is a former politician in Manitoba, "
                      "Canada. Minenko's father was the Very Rev. Tymofiy Minenko, a Ukrainian-born priest in the "
                      "Ukrainian Orthodox Church."),
    }
    extraction = extract(passages, ReadingCache(tmp_path), min_facts=1)
    facts = labelled(extraction)
    assert {("Esma Sultan (1726–1788)", "born_in_century", "18th century"),
            ("Esma Sultan (1778–1848)", "died_in_century", "19th century")} <= facts
    assert not {f for f in facts if f[0] == "Esma Sultan"}  # neither is the other
    wrote = {f.subject for f in extraction.facts if f.relation == "wrote"}
    assert wrote == {"article:Avicenna"}, wrote  # one answer, not Avicenna and Ibn Sīnā
    assert {("William Goate", "nationality", "English"), ("William Goate", "born_in_century", "19th century"),
            ("Frederick Grace", "occupation", "boxer"), ("Mark Minenko", "occupation", "politician")} <= facts
    assert not {f for f in facts if f[0] in ("Frederick", "Mark Minenko") and f[2] in ("boxer", "priest")}
    assert not {f for f in facts if "Goate William" in f[0] + f[2]}


def test_no_nationality_for_a_god_no_occupation_for_a_domain_no_class_for_a_value(tmp_path):
    # issue 29's second blind round: "What is the nationality of Thoth?" -> Egyptian; "the occupations of
    # Archaea" -> domain; "the language that Pitirim Sorokin held" -> Russian (a nationality and a language)
    passages = {
        "a": Passage("a", "Thoth", "Thoth is an ancient Egyptian deity. He was the god of writing."),
        "b": Passage("b", "Archaea", "Archaea is a domain of single-celled organisms."),
        "c": Passage("c", "Russian language", "Russian is an East Slavic language spoken in Russia."),
        "d": Passage("d", "Pitirim Sorokin", "Pitirim Sorokin (1889–1968) was a Russian-American sociologist."),
    }
    facts = facts_of(passages, tmp_path)
    assert ("Pitirim Sorokin", "nationality", "Russian") in facts
    assert not {f for f in facts if f[0] in ("Thoth", "Archaea") and f[1] in ("nationality", "occupation")}, facts
    assert not {f for f in facts if f[0] == "Russian"}, facts


def test_a_british_and_an_american_spelling_of_a_proper_name_are_two_entities(tmp_path):
    passages = {
        "a": Passage("a", "Bob Hawke", "Bob Hawke (1929–2019) was an Australian politician. Hawke led the Labor Party "
                     "to four elections."),
        "b": Passage("b", "Clement Attlee", "Clement Attlee (1883–1967) was a British politician. Attlee led the "
                     "Labour Party from 1935."),
    }
    extraction = extract(passages, ReadingCache(tmp_path), min_facts=1)
    labels = set(extraction.labels.values())
    assert {"Labor Party", "Labour Party"} <= labels, labels



def test_forming_founds_a_group_and_no_place(tmp_path):
    # issue 29: "Which republic is located in the continent founded by Triceratops?" ("... on the island continent
    # of Laramidia, now forming western North America"; the two wiki-vital leads, CC BY-SA 4.0)
    passages = {
        "a": Passage("a", "Triceratops",
                     "Triceratops is a genus of chasmosaurine ceratopsian dinosaur that lived during the late "
                     "Maastrichtian age of the Late Cretaceous period, about 69 to 66 million years ago on the island "
                     "continent of Laramidia, now forming western North America. It was one of the last-known "
                     "non-avian dinosaurs and lived until the Cretaceous–Paleogene extinction event 66 million years "
                     "ago. The name Triceratops, which means 'three-horned face', is derived from Ancient Greek trí-, "
                     "meaning 'three', kéras, meaning 'horn', and ṓps, meaning 'face'.",
                     "Genus of Late Cretaceous dinosaur", "Biology and health sciences"),
        "b": Passage("b", "North America",
                     "North America is a continent in the Northern and Western hemispheres. It is bordered to the "
                     "north by the Arctic Ocean, to the east by the Atlantic Ocean, to the southeast by South America "
                     "and the Caribbean Sea, and to the south and west by the Pacific Ocean.",
                     "Continent", "Uncategorized"),
        "c": Passage("c", "Roy Jenkins", "Roy Jenkins was a British politician. In 1981 he formed the Social "
                     "Democratic Party with David Owen."),
        "d": Passage("d", "Lake Nasser", "Lake Nasser is a reservoir in Egypt. Lake Nasser was formed in 1970 behind "
                     "the Aswan High Dam."),
    }
    facts = facts_of(passages, tmp_path)
    assert not {f for f in facts if f[0] == "Lake Nasser" and f[1] == "founded_in_century"}, facts
    assert not {f for f in facts if f[1] == "founded" and f[2] == "North America"}, facts
    assert ("Roy Jenkins", "founded", "Social Democratic Party") in facts, facts


def test_a_text_holds_no_nationality(tmp_path):
    # issue 29's seventh round: "What are the nationalities that Zhuangzi held ...?" -> Chinese, from "The
    # Zhuangzi is an ancient Chinese text" (NER took the book's name for a person)
    passages = {
        "a": Passage("a", "Zhuangzi (book)", "The Zhuangzi is an ancient Chinese text from the late Warring States "
                     "period which contains stories and anecdotes."),
        "b": Passage("b", "Laozi", "Laozi was a semi-legendary ancient Chinese Taoist philosopher."),
    }
    facts = facts_of(passages, tmp_path)
    assert ("Laozi", "nationality", "Chinese") in facts, facts
    assert not {f for f in facts if f[0].startswith("Zhuangzi") and f[1] == "nationality"}, facts


def test_a_demonym_before_a_noun_borders_nothing(tmp_path):
    # the shipped sample's "Which places border the Angolan ...?" ("to the south by the Angolan exclave of Cabinda")
    passages = {
        "a": Passage("a", "Republic of the Congo", "The Republic of the Congo is a country in Central Africa. It is "
                     "bordered to the west by Gabon, to the northwest by Cameroon, to the south by the Angolan "
                     "exclave of Cabinda, and to the southwest by the Atlantic Ocean."),
        "b": Passage("b", "Angolan Civil War", "The Angolan Civil War was a civil war in Angola."),
    }
    facts = facts_of(passages, tmp_path)
    assert ("Atlantic Ocean", "borders", "Republic of the Congo") in facts, facts
    assert not {f for f in facts if f[1] == "borders" and "Angolan" in (f[0], f[2])}, facts


def test_a_thing_is_no_occupation_and_growing_up_somewhere_is_living_there(tmp_path):
    # the unseen corpus's "Name the occupations that either Brown had or ..." -> color: an unlisted class that
    # ends like a person's ("-or") is none when WordNet knows the word only as a thing
    passages = {
        "a": Passage("a", "Brown", "Brown is a color. It is a composite color."),
        "b": Passage("b", "Aleister Crowley", "Aleister Crowley was an English occultist and ceremonial magician. "
                     "He grew up in Leamington Spa, England."),
        "c": Passage("c", "Leamington Spa", "Leamington Spa is a spa town in Warwickshire, England."),
    }
    facts = facts_of(passages, tmp_path)
    assert ("Aleister Crowley", "occupation", "occultist") in facts, facts
    assert ("Aleister Crowley", "lived_in", "Leamington Spa") in facts, facts
    assert not {f for f in facts if f[0] == "Brown" and f[1] == "occupation"}, facts


def test_a_bare_class_keeps_the_word_before_it(tmp_path):
    # the ninth and twelfth rounds' "player" (of "santoor player", the tagger's adjective: no class) and "expert" (of
    # "communications expert")
    passages = {
        "a": Passage("a", "Shivkumar Sharma", "Shivkumar Sharma was an Indian music composer and santoor player."),
        "c": Passage("c", "Ravi Shankar", "Ravi Shankar was an Indian sitar player and composer."),
        "b": Passage("b", "Dominic Colenso", "Dominic Colenso is a speaker, communications expert and former "
                     "professional actor."),
    }
    facts = facts_of(passages, tmp_path)
    assert {("Ravi Shankar", "occupation", "sitar player"),
            ("Dominic Colenso", "occupation", "communications expert")} <= facts, facts
    assert not {f for f in facts if f[2] in ("player", "expert")}, facts
