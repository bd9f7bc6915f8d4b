"""How the corpus index reads words: sentences, tokens normalised so that variants of a name match, how a
sentence writes its tokens, the years of a date value, and the cue words of a relation's evidence."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from pipeline.kg.lexicon import classes

# a sentence ends at . ! ? before a capital or digit, but not after an initial ("Riley B. King")
_SENTENCE = re.compile(r"(?<=[.!?])(?<!\b[A-HJ-UWYZ]\.)\s+(?=[\"'(\[]?[A-Z0-9])")  # "World War I. He" ends


_TOKEN = re.compile(r"\w+")


# articles, copulas, pronouns: never a relation's cue (prepositions may be: "in" is located_in's)
_STOP_WORDS = """a an the and or as is are was were be been being has have had
that which who whom whose this these those it its his her their he she they also one first""".split()


CUE_COVER = 0.9  # cue words are used only when they stand between the mentions of this share of statements


MAX_CUES = 8  # at most this many cue words per relation; a relation needing more has none (any sentence counts)


MAX_GAP = 8  # words between the mentions of one statement, at most, for its cue words to count


# "Southeast Europe" and "Southeastern Europe" name one region
_DIRECTION = {f"{d}ern": d for d in ("north", "south", "east", "west", "northeast", "northwest", "southeast",
                                     "southwest")}


def sentences(text: str) -> list[str]:
    return _SENTENCE.split(text)


def tokens(text: str) -> list[str]:
    """Words normalised so that variants of a name match: no accents, "-ern" directions, American
    spelling ("draughtsman" = "draftsman"), no plural -s."""
    plain = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    return [_normal(w) for w in _TOKEN.findall(plain)]


def _normal(word: str) -> str:
    word = _DIRECTION.get(word, word)
    word = classes()["spellings"].get(word, word)
    if len(word) > 3 and word.isalpha() and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


_STOP = frozenset(map(_normal, _STOP_WORDS))  # as tokens() gives them ("this" -> "thi")


_DIRECTIONS = frozenset(_DIRECTION.values()) | {"central"}


def _date_names(label: str) -> set[tuple[str, ...]]:
    """The years (and decades) that name a century or a decade value: the extractor reads "built in
    1967" as the 20th century, so a sentence with any of its years may state a fact about it."""
    if match := re.fullmatch(r"(\d+)(?:st|nd|rd|th) century( BC)?", label):
        n, bc = int(match.group(1)), bool(match.group(2))
        years = range((n - 1) * 100 + 1, n * 100 + 1)
        if bc:
            return {(str(y), "bc") for y in years}
        return {(str(y),) for y in years} | {(f"{d}0s",) for d in range((n - 1) * 10, n * 10)}
    if match := re.fullmatch(r"(\d+)0s", label):
        return {(f"{match.group(1)}{k}",) for k in range(10)}
    return set()


def _cues(statements: list[frozenset[str]]) -> frozenset[str]:
    """The few words that stand between the mentions of nearly every statement of a relation, or none.

    A cue set that covers only some statements would let the check skip sentences worded like the
    others ("Fauré was a French pianist" when most pianists are "American"), so a relation whose
    statements share no such few words gets no cues: every sentence naming the anchor is read.
    """
    chosen: set[str] = set()
    left = list(statements)
    while len(left) > (1 - CUE_COVER) * len(statements) and len(chosen) < MAX_CUES:
        counts = Counter(w for s in left for w in s)
        if not counts:
            break
        word = min(counts, key=lambda w: (-counts[w], w))
        chosen.add(word)
        left = [s for s in left if word not in s]
    return frozenset(chosen) if len(left) <= (1 - CUE_COVER) * len(statements) else frozenset()


@dataclass(frozen=True, slots=True)
class _Shape:
    capital: tuple[bool, ...]  # the token is written with a capital
    joined: tuple[bool, ...]  # only a space or a hyphen stands between it and the token before


def _shape(sentence: str, count: int) -> _Shape | None:
    """How a sentence writes its tokens (as `tokens` gives them), None if they do not line up."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", sentence) if not unicodedata.combining(c))
    found = list(_TOKEN.finditer(plain))
    if len(found) != count:
        return None
    capital = tuple(m.group()[0].isupper() for m in found)
    joined = tuple(k > 0 and plain[found[k - 1].end():m.start()] in (" ", "-") for k, m in enumerate(found))
    return _Shape(capital, joined)


def _gap(sentence: str, first: str, second: str) -> list[str] | None:
    """The words between two mentions in a sentence (either order), None if they are not both found
    or are far apart."""
    i, j = sentence.find(first), sentence.find(second)
    if i < 0 or j < 0:
        return None
    start, end = (i + len(first), j) if i < j else (j + len(second), i)
    words = _TOKEN.findall(sentence[start:end])
    return None if len(words) > MAX_GAP else words


def _content(words: list[str]) -> list[str]:
    """The words of a gap that may be cues: a capitalised word is a name or a nationality ("a German
    pianist"), not what states the relation."""
    return [w for w in tokens(" ".join(w for w in words if not w[0].isupper())) if w not in _STOP and not w.isdigit()]


def _is_class(label: str) -> bool:
    """A class is written in lower case ("painter"); a century ("20th century") is a date, not a class."""
    return label[:1].isalpha() and label.islower()
