"""The word lists the kg generator reads: `vocabulary.yaml` (the extractor's class lists, demonyms and
relations) and `classes.yaml` (which classes contain others, gendered forms, British spellings).

No fact is inferred from these tables: they say which words a reader takes as a class, and which
classes the corpus check also reads as naming a class ("a Swedish chemist" may be one of "the
Swedish scientists"), so a wrong entry can only drop items.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from functools import cache

import yaml

from pipeline.resources import package_data

# the class lists of vocabulary.yaml, each naming the node type its members get
CLASS_LISTS = (("PERSON", "occupations"), ("PLACE", "place_classes"), ("WORK", "work_classes"),
               ("ORG", "org_classes"), ("EVENT", "event_classes"), ("OTHER", "other_classes"))


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
def _containment() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """`classes.yaml`'s broader table both ways, in American spelling: (class -> the classes it
    directly contains, class -> the classes that directly contain it). Built once: `narrower` and
    `broader` are asked of hundreds of classes."""
    contained: dict[str, set[str]] = defaultdict(set)
    for noun, wider in classes()["broader"].items():
        for w in wider:
            contained[spelled(w)].add(spelled(noun))
    containing = {spelled(noun): frozenset(map(spelled, wider)) for noun, wider in classes()["broader"].items()}
    return {k: frozenset(v) for k, v in contained.items()}, containing


def _closure(table: dict[str, frozenset[str]], start: str) -> frozenset[str]:
    """Every class reached from `start` through `table` (not `start` itself)."""
    found: set[str] = set()
    todo = [start]
    while todo:
        for noun in table.get(todo.pop(), frozenset()) - found:
            found.add(noun)
            todo.append(noun)
    return frozenset(found - {start})


@cache
def narrower(cls: str) -> frozenset[str]:
    """Every class noun whose members are members of `cls` by `classes.yaml` (not `cls` itself), and
    the other forms of `cls` ("actress" for actor)."""
    own = spelled(cls)
    forms = {form for form, to in classes()["forms"].items() if to == own and form != own}
    return _closure(_containment()[0], own) | frozenset(forms)


@cache
def broader(cls: str) -> frozenset[str]:
    """Every class noun that contains `cls` by `classes.yaml` (not `cls` itself): chemist -> scientist."""
    return _closure(_containment()[1], spelled(cls))


def spelled(phrase: str) -> str:
    """A class phrase in American spelling and one form per class, word by word ("draughtsman" ->
    "draftsman", "actress" -> "actor")."""
    spellings, forms = classes()["spellings"], classes()["forms"]
    return " ".join(forms.get(w, spellings.get(w, w)) for w in phrase.split(" "))
