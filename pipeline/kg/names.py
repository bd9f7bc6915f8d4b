"""How a name is written: NER's span widened to the whole name, and the name's normal form.

NER stops short of many names: before a year after "of" ("the Hungarian Revolution of | 1956"), after a
particle ("Mu'awiya ibn | Abi Sufyan"), inside quotes or a regnal number, at a hyphen or an elided particle
("the Seventh-day | Adventist Church", "the Ballon | d'Or"), or takes a class word for a name ("Canton | of
Geneva": none; "the Valley | of Mexico": the whole); and it runs on into words said of a prize's winning
("the Nobel Prize in Physics | with ...").
`mentions.py` builds its mentions on these spans. Also here: a title without its disambiguator, and the names a
first sentence opens its subject with ("Rudolf Christian Karl Diesel" holds the title "Rudolf Diesel").
"""

from __future__ import annotations

import re

from pipeline.kg.lexicon import listed_classes, vocabulary

_PREPOSITIONS = {"in", "at", "of", "for", "from", "to", "with", "into", "on", "under", "after", "by", "as", "near",
                 "through", "between", "against", "within", "across"}


_NOUN_PREPOSITIONS = {"of", "in", "to", "for", "on"}


PRIZE_WORDS = frozenset({"Prize", "Prizes", "Award", "Awards", "Medal", "Medals", "Trophy", "Trophies"})


def normalise(text: str) -> str:
    text = re.sub(r"^(?:the|The)\s+", "", text.strip())
    text = re.sub(r"(?:'s|’s|')$", "", text)
    text = re.sub(r'\s*["“”]\s*', " ", text).strip()  # a quoted nickname's mark: 'Marlene" Dietrich'
    return text.strip(" ,.;:\"'")


_PARTICLES = {"ibn", "bin", "bint", "ben", "al", "van", "von", "de", "da", "di", "del"}


# titles written before a name that are no part of it (classes are, too: "President", "King", "Saint" ...)
_HONORIFICS = {"sir", "dame", "lord", "lady", "mr", "mrs", "ms", "dr", "saint", "st", "father", "brother", "sister",
               "mother", "reverend", "rev", "captain", "major", "colonel", "lieutenant", "sergeant", "president",
               "senator", "governor", "count", "countess", "duke", "duchess", "baron", "chief", "uncle", "aunt"}


_NAME_JOINERS = _PARTICLES | {"y"}  # "José Ortega y Gasset"


def whole_name(ent):
    """NER's span, with the year it leaves after a final "of" ("the Hungarian Revolution of | 1956"),
    without a final preposition it cannot complete."""
    doc, end = ent.doc, ent.end
    start = ent.start
    # "Mu'awiya ibn | Abi Sufyan": NER's person may start after a particle that joins the name before it
    while ent.label_ == "PERSON" and start >= 2 and doc[start - 1].lower_ in _PARTICLES \
            and doc[start - 2].tag_ == "NNP" and doc[start - 2].text[0].isupper():
        start -= 2
    if start < ent.start:
        return whole_name(doc[start:end])
    # "the Very Rev. Tymofiy | Minenko": a one-word person NER cut from the given name before it (not from a
    # title: "Rev.", "President"), which would else read as a surname, the passage's own
    while ent.label_ == "PERSON" and end - start == 1 and start and (t := doc[start - 1]).tag_ == "NNP" \
            and t.dep_ == "compound" and t.head.i == ent.start and t.is_title and not t.ent_type_ \
            and not t.text.endswith(".") and t.lower_ not in listed_classes() and t.lower_ not in _HONORIFICS:
        start -= 1
    if start < ent.start:
        return doc[start:end]
    if (longer := _quoted_or_numbered(ent) or _joined(ent) or _class_of_name(ent)) is not None:
        return whole_name(longer)
    before = doc[ent.start - 1] if ent.start else None
    if ent.label_ in ("GPE", "LOC") and before is not None and before.ent_type_ == "NORP" and before.tag_ == "NNP" \
            and before.dep_ == "compound" and ent.start <= before.head.i < end:
        return whole_name(doc[ent.start - 1:end])  # "British East Africa", a colony, is not East Africa
    if end < len(doc) and ent[-1].lower_ in _NOUN_PREPOSITIONS and doc[end].head.i == end - 1:
        return doc[ent.start:doc[end].right_edge.i + 1]
    # "the 1957 Nobel Prize in Literature | at the age of 44", "Nobel Prize in Physics | with Marie and
    # Pierre Curie", "Nobel Prize in Literature | for creating": said of the winning, not the prize's name
    # ("Academy Award for Best Actor" is one)
    if any(t.text in PRIZE_WORDS for t in ent):
        end = next((t.i for t in ent if t.i > ent.start and (t.lower_ in ("at", "with", "alongside") or t.lower_
                    in ("for", "in") and t.i + 1 < ent.end and doc[t.i + 1].is_lower)), end)
    if doc[end - 1].text == "Best":  # "Academy Awards for Best | Supporting Actor": NER stopped inside the category
        while end < len(doc) and doc[end].is_title:
            end += 1
    while end > ent.start + 1 and doc[end - 1].lower_ in _PREPOSITIONS:
        end -= 1  # "Maharashtra by" (of "in Maharashtra by area"): the name stops before it
    return doc[ent.start:end]


def entity_kind(span, kind: str) -> str:
    """The mention's type where NER's is wrong: "Chandragupta I" is a person, and "the Angolan exclave of Cabinda"
    holds an adjective, no place."""
    if re.fullmatch(r"[IVX]+", span[-1].text) and kind in ("NORP", "ORG", "PLACE"):
        return "PERSON"
    doc = span.doc
    if span.text in vocabulary()["demonyms"] and span.end < len(doc) and doc[span.end].tag_ in ("NN", "NNS") \
            and doc[span.end].is_lower:
        return "NORP"
    return kind


def _joined(ent):
    """The whole name when NER left out a word joined to it: a hyphenated first word ("the Seventh-day | Adventist
    Church", its first word taken for a date) or an elided French particle after it ("the Ballon | d'Or"), else
    None."""
    doc, start, end = ent.doc, ent.start, ent.end
    if ent.label_ == "ORG" and start >= 3 and doc[start - 2].tag_ == "HYPH" and doc[start - 3].is_title \
            and not doc[start - 3].whitespace_ and not doc[start - 2].whitespace_ \
            and start <= doc[start - 1].head.i < end:
        return doc[start - 3:end]
    if end < len(doc) and re.fullmatch(r"[dDlL]['’][A-Z]\w*", doc[end].text):
        return doc[start:end + 1]
    return None


def _quoted_or_numbered(ent):
    """The whole name when NER began inside quotes ('"So | Far From Real"') or left out a regnal number
    ("Chandragupta | I"), else None."""
    doc, start, end = ent.doc, ent.start, ent.end
    if end < len(doc) and doc[end].tag_ == "''" and start and doc[start - 1].tag_ != "``":
        opening = next((t.i for t in doc[max(start - 4, 0):start] if t.tag_ == "``"), None)
        if opening is not None and not any(t.is_punct for t in doc[opening + 1:start]):
            return doc[opening + 1:end]
    if end < len(doc) and re.fullmatch(r"[IVX]+", doc[end].text) and doc[end].tag_ == "NNP" and ent[-1].is_title:
        return doc[start:end + 1]
    return None


def _class_of_name(ent):
    """The whole name when NER took its class word for it and left the rest out of any entity ("the Valley | of
    Mexico"), else None."""
    doc, end = ent.doc, ent.end
    if len(ent) != 1 or not ent[0].is_title or ent[0].lower_ not in listed_classes() or end + 1 >= len(doc) \
            or doc[end].lower_ != "of" or doc[end + 1].tag_ != "NNP" or doc[end + 1].ent_type_:
        return None
    stop = end + 1
    while stop < len(doc) and doc[stop].tag_ == "NNP" and not doc[stop].ent_type_:
        stop += 1
    return doc[ent.start:stop]


def class_of(span) -> bool:
    """Is the span a class word NER cut from the place after its "of" ("the Republic and Canton | of Geneva")? It
    names no place of its own (Canton is Guangzhou's old name)."""
    doc = span.doc
    return len(span) == 1 and span[0].lower_ in listed_classes() and span.end + 1 < len(doc) \
        and doc[span.end].lower_ == "of" and doc[span.end + 1].ent_type_ in ("GPE", "LOC")


def shares_head(span) -> bool:
    """Does the span begin with a modifier conjoined to one before it, the two sharing a plural head
    ("American and | British Societies of Cinematographers")?"""
    first, heads = span[0], [t for t in span if t.head.i < span.start or t.head.i >= span.end]
    return first.dep_ == "conj" and first.head.i < span.start and first.head.tag_ in ("JJ", "NNP") \
        and first.i != span.root.i and any(h.tag_ in ("NNS", "NNPS") for h in heads)  # ("Europe and | Balkans")


def bare_title(title: str) -> str:
    """'Chicken Little (2005 film)' -> 'Chicken Little'."""
    return re.sub(r"\s*\([^()]*\)$", "", title).strip()


def _untagged_name(token) -> bool:
    return token.tag_ in ("NNP", "NN") and token.is_title and token.is_alpha  # "Celsius" may be tagged NN


def _opening_names(sentence) -> list[str]:
    """The names a first sentence's subject is written with, read from the parse, when it opens the
    sentence: the subject and its compounds ("Rudolf Christian Karl Diesel"), then its whole phrase
    ("Louis Victor Pierre Raymond, 7th Duc de Broglie")."""
    subject = next((t for t in sentence.root.children if t.dep_ == "nsubj"), None)
    if subject is None:
        return []
    if subject.left_edge.i != sentence.start:
        # "Benito Amilcare Andrea Mussolini was", the given names parsed as adverbs of "was": the run of names
        # (its first word may be tagged anything: "Dolly" of "Dolly Rebecca Parton" as an adverb)
        run = sentence.doc[sentence.start:subject.i + 1]
        return [run.text] if len(run) <= 6 and all(t.is_title and (t.tag_ == "NNP" or t.i == sentence.start)
                                                   for t in run) else []
    words, todo = [subject], [subject]
    while todo:
        compounds = [c for c in todo.pop().children if c.dep_ == "compound"]
        words += compounds
        todo += compounds
    indices = sorted(t.i for t in words)
    names = []
    if indices[0] == sentence.start and indices == list(range(indices[0], indices[-1] + 1)) \
            and all(t.is_title for t in words):
        names.append(sentence.doc[indices[0]:indices[-1] + 1].text)
    # up to a bracket: "Douglas Reynolds VC (1882 – 1916)"
    end = next((t.i for t in sentence.doc[sentence.start:subject.right_edge.i + 1] if "(" in t.text),
               subject.right_edge.i + 1)
    if end - sentence.start <= 12:
        phrase = sentence.doc[sentence.start:end]
        if len(phrase) and not any(t.tag_ == "POS" for t in phrase):  # "Tom Hanks's brother Jim" is not Tom
            names.append(phrase.text.rstrip(" ,"))
    return names


def _holds_title(text: str, title: str) -> bool:
    """Does a name hold all the title's words in order ("Irwin Allen Ginsberg" holds "Allen Ginsberg"), an
    initial standing for a word ("John Pierpont Morgan Sr." holds "J. P. Morgan")? Then the passage's
    definition and pronouns are the article's (the graph joins such names across passages: extract.py)."""
    words = iter(re.sub(r'["“”]', " ", text).lower().split())
    wanted = bare_title(title).lower().split()
    return bool(wanted) and all(any(w == x or _initial(w) and x[0] == w[0] for x in words) for w in wanted)


def _initial(word: str) -> bool:
    return len(word) == 2 and word[0].isalpha() and word[1] == "."
