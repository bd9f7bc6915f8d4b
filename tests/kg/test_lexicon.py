"""The class vocabulary (pipeline/kg/lexicon.py): classes.yaml's curated tables with WordNet's synonyms and
hyponyms (class_lexicon.json) on top, as Wikipedia words a class: each pair a reading audit found missed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from pipeline.kg.complete import CorpusCheck
from pipeline.kg.facts import Evidence, Fact
from pipeline.kg.generator import builtin_inverses
from pipeline.kg.graph import build_graph
from pipeline.kg.lexicon import (
    broader,
    class_lexicon,
    listed_classes,
    narrower,
    reads_like_person,
    spelled,
    synonyms,
    too_general,
)
from pipeline.records import Passage

# (narrower, broader): the second class contains the first, as the corpus words them
CONTAINED = [
    ("psychology professor", "psychologist"),  # field rule: WordNet's psychologist -> psychology
    ("professor of psychology", "psychologist"),
    ("physics lecturer", "physicist"),
    ("history professor", "historian"),  # classes.yaml fields
    ("television film", "film"),  # head noun
    ("tv film", "film"),
    ("architectural designer", "architect"),  # curated
    ("abbess", "nun"),  # curated: WordNet puts an abbess under "superior"
    ("talk show host", "television personality"),
    ("scholar of natural history", "naturalist"),
    ("natural historian", "naturalist"),
    ("yoga guru", "guru"),
    ("cardinal deacon", "cardinal"),
    ("cardinal deacon", "deacon"),
    ("opera composer", "composer"),  # head noun
    ("ice hockey player", "hockey player"),
    ("biochemist", "chemist"),  # WordNet and classes.yaml
    ("auteur", "filmmaker"),  # WordNet
    ("ornithologist", "zoologist"),  # WordNet, below a curated class
    ("symphonist", "composer"),
    ("docudrama", "film"),
    ("national capital", "city"),
    ("warlord", "military leader"),
    ("chemist", "scientist"),  # classes.yaml as before
]

# two names of one class
SAME = [("filmmaker", "film director"), ("broadcaster", "television personality"), ("yogi", "yoga guru"),
        ("author", "writer"), ("physician", "doctor"), ("playwright", "dramatist"), ("film", "movie"),
        ("country", "nation")]


@pytest.mark.parametrize(("narrow", "wide"), CONTAINED)
def test_a_class_contains_its_kinds_both_ways(narrow, wide):
    assert spelled(narrow) in narrower(wide)
    assert spelled(wide) in broader(narrow)


@pytest.mark.parametrize(("one", "other"), SAME)
def test_synonyms_contain_each_other(one, other):
    assert other in synonyms(one) and one in synonyms(other)
    assert other in narrower(one) and one in broader(other)


@pytest.mark.parametrize(("narrow", "wide"), CONTAINED)
def test_containment_has_one_direction(narrow, wide):
    # a psychologist need not be a professor, a composer need not write operas
    assert spelled(wide) not in narrower(narrow) or spelled(wide) in synonyms(narrow)
    assert wide not in synonyms(narrow)


def test_wordnet_senses_that_wikipedia_does_not_use_are_left_out():
    assert "manager" not in narrower("film director")  # "director" has a company's sense too
    assert "picture" not in narrower("film")  # first of all "a visual representation"
    assert "player" not in synonyms("musician")  # first of all a player of a game
    assert "photographic film" not in narrower("film")  # film's first sense as a work only
    assert "speller" not in narrower("writer")  # writer's second sense: anyone who can write
    assert "calamity" not in narrower("tragedy") | synonyms("tragedy")  # a tragedy is listed as a work
    assert "film director" in narrower("director") and "conductor" in narrower("director")
    assert "naturalist" not in narrower("philosopher")  # WordNet's first naturalist holds naturalism
    assert "club" in broader("football club") and "organization" not in broader("club")  # too general


def test_the_head_of_a_wordnet_phrase_is_not_read_in_another_sense():
    assert "state" not in broader("king")  # "head of state" is a head, and not read further
    assert "dog" not in broader("manager")  # "top dog"
    assert "head" in broader("head of state") and "body" in broader("body of water")  # a class phrase's own head


def test_fields_are_branches_of_knowledge():
    assert "feminist" not in broader("feminism professor")  # feminism is a doctrine, not a field of study
    assert "biologist" in broader("biology teacher") and "mathematician" in broader("professor of mathematics")


def test_compounds_that_are_no_kind_of_their_head():
    assert "general" not in broader("attorney general")
    assert "president" not in broader("vice president")
    assert "general" in broader("lieutenant general")


@pytest.mark.parametrize("general", ["person", "worker", "leader", "creator", "communicator", "expert", "adult",
                                     "people", "work", "organization", "region", "entity", "thing"])
def test_very_general_classes_are_no_broader_class(general):
    assert general in too_general()
    holders = [c for c in sorted(_every_class()) if general in broader(c)]
    assert holders == []
    assert not {c for c in class_lexicon() if general in class_lexicon()[c].get("broader", ())}


def test_no_class_has_a_very_general_broader_class():
    assert not {c: broader(c) & too_general() for c in _every_class() if broader(c) & too_general()}


def test_a_very_general_class_gets_no_wordnet_kinds():
    assert class_lexicon()["person"].keys() <= {"kinds"}
    assert len(narrower("person")) < 10 and "chemist" not in narrower("leader")
    # broad classes stay within bounds: no occupation is named by more than a few hundred words
    assert max(len(narrower(c)) for c in listed_classes()) < 1500


def test_every_listed_class_is_in_the_class_lexicon():
    assert {spelled(c) for c in listed_classes()} <= class_lexicon().keys()


def test_a_filmmaker_may_be_one_of_the_film_directors():
    # the corpus check reads "filmmaker" as a name of the film director class: the item is dropped
    texts = {"Agnès Varda": "Agnès Varda was a French film director.",
             "Jacques Demy": "Jacques Demy was a French filmmaker.",
             "Mechthild of Magdeburg": "Mechthild of Magdeburg was a German nun.",
             "Hildegard of Bingen": "Hildegard of Bingen was a German abbess and polymath."}
    facts = [(n, "occupation", c, n, texts[n]) for n, c in (("Agnès Varda", "film director"),
                                                            ("Mechthild of Magdeburg", "nun"))]
    built = [Fact(s, r, o, (pid,), (Evidence(pid, sentence, s, o),)) for s, r, o, pid, sentence in facts]
    labels = {n: n for f in built for n in (f.subject, f.object)}
    passages = {title: Passage(title, title, text) for title, text in texts.items()}
    checker = CorpusCheck(build_graph(built, labels, builtin_inverses()), passages)
    assert checker.others("film director", "occupation_of") == {"Jacques Demy"}
    assert checker.others("nun", "occupation_of") == {"Hildegard of Bingen"}
    assert checker.without_classes().others("film director", "occupation_of") == set()


def _every_class() -> set[str]:
    return set(class_lexicon()) | {spelled(c) for c in listed_classes()}


# the build script on a WordNet of a few made-up synsets in WordNet's own file format (wndb)
SYNSETS = [  # offset, lexicographer file, lemmas, pointers (symbol, offset), gloss; a word's senses in this order
    ("00000010", 0, ["person"], [("~", "00000020"), ("~", "00000060")], "a human being"),
    ("00000020", 1, ["scientist"], [("@", "00000010"), ("~", "00000030"), ("~", "00000040")], "knows a science"),
    ("00000030", 1, ["chemist"], [("@", "00000020"), ("~", "00000035")], "a scientist of chemistry"),
    ("00000035", 1, ["biochemist"], [("@", "00000030")], "a chemist of living things"),
    ("00000040", 1, ["psychologist"], [("@", "00000020"), ("+", "00000050")], "a scientist of the mind"),
    ("00000050", 2, ["psychology"], [("@", "00000055"), ("+", "00000040")], "the science of the mind"),
    ("00000055", 2, ["discipline", "field"], [("~", "00000050")], "a branch of knowledge"),
    ("00000060", 1, ["director", "manager"], [("@", "00000010")], "runs a company"),
    ("00000065", 1, ["film_director", "director"], [("@", "00000010")], "directs a film"),
    ("00000080", 3, ["picture", "image"], [], "a visual representation"),
    ("00000070", 4, ["movie", "film", "picture"], [], "a motion picture"),
    ("00000090", 3, ["poster", "bill"], [], "a printed picture"),
]


@pytest.fixture
def made_up_wordnet(tmp_path):
    (tmp_path / "LICENSE").write_text("WordNet 3.0 Copyright 2006 by Princeton University.  All rights reserved.\n")
    (tmp_path / "lexnames").write_text("00\tnoun.Tops\t1\n01\tnoun.person\t1\n02\tnoun.cognition\t1\n"
                                       "03\tnoun.artifact\t1\n04\tnoun.communication\t1\n")
    lines = ["  1 a licence header line, skipped"]
    for offset, lexfile, lemmas, pointers, gloss in SYNSETS:
        words = " ".join(f"{w} 0" for w in lemmas)
        ptrs = " ".join(f"{s} {o} n 0000" for s, o in pointers)
        lines.append(f"{offset} {lexfile:02d} n {len(lemmas):02x} {words} {len(pointers):03d} {ptrs} | {gloss}")
    (tmp_path / "data.noun").write_text("\n".join(lines) + "\n")
    senses: dict[str, list[str]] = {}
    for offset, _, lemmas, _, _ in SYNSETS:
        for w in lemmas:
            senses.setdefault(w.lower(), []).append(offset)
    (tmp_path / "index.noun").write_text("".join(f"{w} n {len(o)} 0 {len(o)} 0 {' '.join(o)}\n"
                                                 for w, o in sorted(senses.items())))
    return tmp_path


def _build_script():
    """scripts/build_class_lexicon.py as a module (scripts/ is no package)."""
    path = Path(__file__).resolve().parents[2] / "scripts" / "build_class_lexicon.py"
    spec = importlib.util.spec_from_file_location("build_class_lexicon", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def test_the_build_reads_senses_kinds_and_fields(made_up_wordnet):
    script = _build_script()
    builder = script.Builder(script.WordNet(made_up_wordnet))
    builder.picked = {}  # classes.yaml's sense numbers are WordNet 3.0's
    chemist = builder.entry("chemist", {"person"})
    assert chemist["narrower"] == ["biochemist"] and chemist["broader"] == ["scientist"]  # never "person"
    assert builder.entry("psychologist", {"person"})["fields"] == ["psychology"]
    film = builder.entry("film", {"work"})
    assert film["synonyms"] == ["movie"]  # "picture" is first of all an image
    assert builder.entry("director", {"person"})["synonyms"] == ["manager"]  # the first sense, unless picked
    builder.picked = {"director": [2]}
    assert builder.entry("director", {"person"})["synonyms"] == ["film director"]  # the picked sense
    builder.picked = {"director": [1, 2]}
    assert builder.entry("director", {"person"})["narrower"] == ["film director", "manager"]  # kinds of it
    assert builder.entry("person", {"thing"}).keys() == {"kinds"}  # too general: nothing
    assert builder.entry("picture", {"person"}).keys() == {"kinds"}  # no sense of its kind


def test_the_build_lists_the_words_that_end_like_a_person_s_and_name_none(made_up_wordnet):
    script = _build_script()
    assert script.not_people(script.WordNet(made_up_wordnet)) == ["poster"]  # director and manager are people


def test_the_build_leaves_out_synsets_over_the_general_size(made_up_wordnet, monkeypatch):
    script = _build_script()
    monkeypatch.setattr(script, "GENERAL_SIZE", 1)  # scientist holds three words below it
    builder = script.Builder(script.WordNet(made_up_wordnet))
    assert "broader" not in builder.entry("chemist", {"person"})
    assert builder.entry("scientist", {"person"}).keys() == {"kinds"} | {"senses"}


def test_the_build_checks_the_wordnet_version(made_up_wordnet):
    (made_up_wordnet / "LICENSE").write_text("WordNet 2.1 Copyright 2005 by Princeton University.\n")
    with pytest.raises(SystemExit, match="not Princeton WordNet 3.0"):
        _build_script().WordNet(made_up_wordnet)


def test_overlapping_values_may_be_held_by_one_entity():
    from pipeline.kg.lexicon import overlaps

    assert overlaps("British", "English") and overlaps("English", "British") and overlaps("Soviet", "Russian")
    assert not overlaps("French", "English") and not overlaps("British", "American")
    assert overlaps("writer", "poet") and overlaps("poet", "writer") and overlaps("director", "film director")
    assert not overlaps("painter", "poet")


def test_a_word_that_ends_like_a_person_s_is_none_when_wordnet_knows_it_only_as_a_thing():
    # not_people.json (built with the lexicon from WordNet's noun.person file)
    assert reads_like_person("occultist") and reads_like_person("hotelier") and reads_like_person("santoor player")
    assert not reads_like_person("color") and not reads_like_person("harbor") and not reads_like_person("polymer")
    assert not reads_like_person("colour")  # in American spelling, as the file holds it
    assert not reads_like_person("temple")  # no person's ending at all
