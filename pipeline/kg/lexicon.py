"""The word lists the kg generator reads: `vocabulary.yaml` (the extractor's class lists, demonyms and
relations), `classes.yaml` (curated: which classes contain others, names of one class, gendered forms,
British spellings) and `class_lexicon.json` (WordNet's synonyms, narrower and broader classes of every
class noun, built by scripts/build_class_lexicon.py).

No fact is inferred from these tables: they say which words a reader takes as a class, and which
classes the corpus check also reads as naming a class ("a Swedish chemist" may be one of "the
Swedish scientists"), so a wrong entry can only drop items.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Callable
from functools import cache

import yaml

from pipeline.resources import package_data

# the class lists of vocabulary.yaml, each naming the node type its members get
CLASS_LISTS = (("PERSON", "occupations"), ("PLACE", "place_classes"), ("WORK", "work_classes"),
               ("ORG", "org_classes"), ("EVENT", "event_classes"), ("OTHER", "other_classes"))


# A class noun the lists miss still reads like an occupation: "occultist", "magician", "hotelier".
PERSON_NOUN = re.compile(r"(?:ist|er|or|ian|man|woman|ess|ant|ent|ee|arch|ain)$")


@cache
def _not_people() -> frozenset[str]:
    """`not_people.json` (built from WordNet with the lexicon): nouns that end like a person's and that WordNet
    knows in no sense as a person ("color", "harbor", "polymer")."""
    text = package_data("pipeline", "kg/not_people.json").read_text(encoding="utf-8")
    return frozenset(json.loads(text)["words"])


def reads_like_person(phrase: str) -> bool:
    """Does an unlisted class phrase read like an occupation ("occultist", "santoor player")? Not when its
    head noun names no person in any sense ("Brown is a color")."""
    return PERSON_NOUN.search(phrase) is not None and spelled(phrase.rpartition(" ")[2]) not in _not_people()


@cache
def person_classes() -> frozenset[str]:
    """Every phrase the tables know as a class of people, as texts write it: vocabulary.yaml's occupations, the
    gendered forms of classes.yaml and class_lexicon.json's classes of people with their synonyms."""
    found = set(vocabulary()["occupations"]) | set(classes()["forms"])
    for noun, entry in class_lexicon().items():
        if "person" in entry["kinds"]:
            found |= {noun, *entry.get("synonyms", ())}
    return frozenset(found)


@cache
def vocabulary() -> dict:
    """`vocabulary.yaml`: the word lists and relations of the extractor (read by `extract.py` too)."""
    return yaml.safe_load(package_data("pipeline", "kg/vocabulary.yaml").read_text(encoding="utf-8"))


@cache
def listed_classes() -> frozenset[str]:
    """Every class phrase of vocabulary.yaml's lists."""
    return frozenset(c for _, key in CLASS_LISTS for c in vocabulary()[key])


def vocabulary_digest() -> str:
    """A short hash of what the reader reads from vocabulary.yaml (part of the reading cache's key)."""
    return hashlib.sha256("\n".join(sorted(listed_classes())).encode()).hexdigest()[:8]


@cache
def classes() -> dict:
    """`classes.yaml`: the classes that contain others, and the British spellings of words."""
    return yaml.safe_load(package_data("pipeline", "kg/classes.yaml").read_text(encoding="utf-8"))


@cache
def class_lexicon() -> dict[str, dict]:
    """`class_lexicon.json` (built from WordNet by scripts/build_class_lexicon.py): per class noun, its
    synonyms, narrower and broader classes and, for a person, the fields its practitioners study."""
    text = package_data("pipeline", "kg/class_lexicon.json").read_text(encoding="utf-8")
    return json.loads(text)["classes"]


@cache
def too_general() -> frozenset[str]:
    """Classes never broader than another (classes.yaml `wordnet.too_general`): "person" would contain all."""
    return frozenset(map(spelled, classes()["wordnet"]["too_general"]))


@cache
def _containment() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """The curated tables both ways, in American spelling: (class -> the classes it directly contains,
    class -> the classes that directly contain it). `broader` entries, `synonyms` (each contains the
    other) and head nouns of the known compounds ("opera composer" -> composer). Built once: `narrower`
    and `broader` are asked of hundreds of classes."""
    contained: dict[str, set[str]] = defaultdict(set)
    containing: dict[str, set[str]] = defaultdict(set)
    pairs = curated_pairs() + [(phrase, head) for phrase in _known() if (head := _head(phrase))]
    for noun, wide in pairs:
        contained[spelled(wide)].add(spelled(noun))
        containing[spelled(noun)].add(spelled(wide))
    return {k: frozenset(v) for k, v in contained.items()}, {k: frozenset(v) for k, v in containing.items()}


def curated_pairs() -> list[tuple[str, str]]:
    """(narrower, broader) pairs of classes.yaml: `broader` entries, and `synonyms` (each contains the other)."""
    pairs = [(noun, w) for noun, wider in classes()["broader"].items() for w in wider]
    return pairs + [(a, b) for group in classes()["synonyms"] for a in group for b in group if a != b]


@cache
def _known() -> frozenset[str]:
    """Every class phrase the tables name: the extractor's lists, classes.yaml's and class_lexicon.json's."""
    return frozenset({spelled(c) for pair in curated_pairs() for c in pair} | set(map(spelled, listed_classes()))
                     | set(class_lexicon()))


@cache
def _wordnet() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """`class_lexicon.json` as (class -> its narrower classes and synonyms, class -> its broader classes and
    synonyms), each link read both ways. A too general class is in neither (the build leaves them out too)."""
    down: dict[str, set[str]] = defaultdict(set)
    up: dict[str, set[str]] = defaultdict(set)
    general = too_general()
    for noun, entry in class_lexicon().items():
        synonyms = set(entry.get("synonyms", ()))
        for word in synonyms | set(entry.get("narrower", ())):
            down[noun].add(word)
            up[word].add(noun)
        for word in synonyms | set(entry.get("broader", ())):
            up[noun].add(word)
            down[word].add(noun)
    return _frozen(down, general), _frozen(up, general)


@cache
def _practitioners() -> dict[str, frozenset[str]]:
    """Field -> the classes whose members practise it ("psychology" -> psychologist)."""
    found: dict[str, set[str]] = defaultdict(set)
    for noun in _known():
        for field in fields_of(noun):
            found[field].add(noun)
    return _frozen(found, frozenset())


def fields_of(noun: str) -> frozenset[str]:
    """The fields a class's members practise: WordNet's (psychologist: psychology) and classes.yaml's."""
    return frozenset(class_lexicon().get(noun, {}).get("fields", ())) | frozenset(classes()["fields"].get(noun, ()))


def _frozen(table: dict[str, set[str]], leave_out: frozenset[str]) -> dict[str, frozenset[str]]:
    return {k: frozenset(v - leave_out) for k, v in table.items() if k not in leave_out}


def _head(phrase: str) -> str | None:
    """The class a compound class phrase is a kind of: its longest known proper suffix, else its last word
    ("ice hockey player" -> hockey player, "talk show host" -> host), or what stands before "of" ("head of
    state" -> head); None for one word and for the compounds classes.yaml lists as no kind of their head
    ("attorney general")."""
    words = phrase.split(" ")
    if len(words) < 2 or phrase in _not_kinds():
        return None
    if "of" in words[1:]:
        return " ".join(words[:words.index("of", 1)])
    suffixes = (" ".join(words[i:]) for i in range(1, len(words)))
    return next((suffix for suffix in suffixes if suffix in _known()), words[-1])


@cache
def _not_kinds() -> frozenset[str]:
    return frozenset(map(spelled, classes()["not_kinds"]))


def _wider(noun: str) -> frozenset[str]:
    """The classes that directly contain `noun`: the curated tables, its head noun and, for "<field>
    professor" (or teacher, scholar ...) and "professor of <field>", the field's practitioners."""
    found = set(_containment()[1].get(noun, ()))
    if head := _head(noun):
        found.add(head)
    words, heads, practitioners = noun.split(" "), classes()["field_heads"], _practitioners()
    if len(words) > 1 and words[-1] in heads:
        found |= practitioners.get(" ".join(words[:-1]), frozenset())
    if len(words) > 2 and words[0] in heads and words[1] == "of":
        found |= practitioners.get(" ".join(words[2:]), frozenset())
    return frozenset(found)


def _narrower_direct(noun: str) -> frozenset[str]:
    """The classes `noun` directly contains by the curated tables, and for a practitioner of a field, the
    field's professors, teachers and scholars ("psychology professor" for psychologist)."""
    found = set(_containment()[0].get(noun, ()))
    for field in fields_of(noun):
        for head in classes()["field_heads"]:
            found |= {f"{field} {head}", f"{head} of {field}"}
    return frozenset(found)


def _closure(step: Callable[[str], frozenset[str]], start: str) -> frozenset[str]:
    """Every class reached from `start` by `step` (class -> classes), not `start` itself."""
    found: set[str] = set()
    todo = [start]
    while todo:
        for noun in step(todo.pop()) - found:
            found.add(noun)
            todo.append(noun)
    return frozenset(found - {start})


@cache
def narrower(cls: str) -> frozenset[str]:
    """Every class noun whose members are members of `cls` (not `cls` itself): by the curated tables
    (classes.yaml, head nouns, field rule), then by one WordNet link (class_lexicon.json: "abbess" under
    nun is curated, "biochemist" under chemist is WordNet's), then by the curated tables again; and the
    other forms of `cls` ("actress" for actor). A too general class gets no WordNet classes of its own."""
    own = spelled(cls)
    forms = {form for form, to in classes()["forms"].items() if to == own and form != own}
    found = set(_closure(_narrower_direct, own))
    down = _wordnet()[0]
    for noun in {own} | found:
        for word in down.get(noun, ()):
            found |= {word} | _closure(_narrower_direct, word)
    return frozenset(found - {own}) | frozenset(forms)


@cache
def broader(cls: str) -> frozenset[str]:
    """Every class noun that contains `cls` (not `cls` itself), the converse of `narrower`: chemist ->
    scientist; "opera composer" -> composer; "psychology professor" -> psychologist; "docudrama" -> film
    (WordNet). Never a too general class ("person", "leader")."""
    own = spelled(cls)
    found = set(_closure(_wider, own))
    up, curated = _wordnet()[1], _containment()[1]
    for noun in {own} | found:
        for word in up.get(noun, ()):  # a WordNet word's own head may be of another sense ("top dog")
            found |= {word} | _closure(lambda w: curated.get(w, frozenset()), word)
    return frozenset(found - {own} - too_general())


@cache
def synonyms(cls: str) -> frozenset[str]:
    """The classes that contain `cls` and that it contains (filmmaker and film director; author and writer)."""
    return narrower(cls) & broader(cls)


@cache
def _nationality_groups() -> dict[str, frozenset[str]]:
    """classes.yaml `nationalities`, both ways: a nationality -> the ones that hold it or that it holds."""
    groups: dict[str, set[str]] = defaultdict(set)
    for wide, narrow in classes().get("nationalities", {}).items():
        for n in narrow:
            groups[wide].add(n)
            groups[n].add(wide)
    return {k: frozenset(v) for k, v in groups.items()}


def overlaps(a: str, b: str) -> bool:
    """May one entity be both `a` and `b`: the same value, a class holding the other ("writer" and "poet"),
    or nationalities one of which holds the other ("British" and "English", "Soviet" and "Russian")?"""
    if a == b or b in _nationality_groups().get(a, ()):
        return True
    if a[:1].isupper() or b[:1].isupper():  # nationalities and other names: only the table joins them
        return False
    a, b = spelled(a), spelled(b)
    return a == b or b in narrower(a) or a in narrower(b)


def spelled(phrase: str) -> str:
    """A class phrase in American spelling and one form per class, word by word ("draughtsman" ->
    "draftsman", "actress" -> "actor")."""
    spellings, forms = classes()["spellings"], classes()["forms"]
    return " ".join(forms.get(w, spellings.get(w, w)) for w in phrase.split(" "))
