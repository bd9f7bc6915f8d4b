"""What one passage names: the mentions of a spaCy parse that the reader (`reading.py`) builds statements on.

Ends of statements are named entities (spaCy NER, typed coarsely, each span widened to the whole name,
two halves NER cut at a name's "and" joined: "the Social Democratic and Labour Party"; a surname NER
left untagged is the one person of the passage it ends) or mentions of the passage's own subject
(type `SELF`): the title, the full name its first sentence gives (or the name it is "known as"), the
surname, and "He"/"She"/"It" right after a sentence about the subject; so, right after it, are "the
country" and a bare "the capital" in a country's passage. A mention keeps how the sentence writes it,
so a statement can show both ends in its evidence. A chunk that runs from one article into the lead of
the next (`title_and_body`) is read as two articles.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from pipeline.kg.lexicon import listed_classes, vocabulary
from pipeline.kg.names import (
    _HONORIFICS,
    _holds_title,
    _opening_names,
    _untagged_name,
    bare_title,
    class_of,
    entity_kind,
    normalise,
    shares_head,
    whole_name,
)
from pipeline.kg.nlp import lemma
from pipeline.passages import article_start, recover_title

ENTITY_TYPES = {"PERSON": "PERSON", "NORP": "NORP", "FAC": "PLACE", "GPE": "PLACE", "LOC": "PLACE", "ORG": "ORG",
                "PRODUCT": "WORK", "EVENT": "EVENT", "WORK_OF_ART": "WORK", "LAW": "WORK", "LANGUAGE": "LANGUAGE",
                "DATE": "DATE"}


SELF = "SELF"


# degrees NER takes for names: "received her PhD"
_NO_ENTITY = {"PhD", "Ph.D.", "Ph.D", "doctorate", "BSc", "MSc"}  # (MD, MA, BA are states and firms too)


MAX_CHAIN = 2  # pronoun sentences that may follow the sentence naming the passage's subject


_YEAR = re.compile(r"(?<![\d.,])(\d{3,4})(?![\d,]|s\b)(?:\s*(BC|BCE|AD|CE)\b)?|(?<![\d.,])(\d{1,2})\s*(BC|BCE)\b")


_DECADE = re.compile(r"\b(\d{3}0)s\b")


_CENTURY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)[- ]century(?:\s*(BC|BCE))?", re.IGNORECASE)


_DASH = re.compile(r"\s*[–—-]\s*|(?<=\d)(?=[A-Z])")  # "1924December 30" (a dash lost in the corpus)


@dataclass(frozen=True, slots=True)
class Mention:
    name: str  # the entity's name (normalised: no leading "the", no "'s")
    type: str  # coarse type: PERSON PLACE ORG NORP WORK EVENT LANGUAGE DATE, or SELF
    text: str  # as written in the sentence
    start: int  # token span in the doc
    end: int


class Titled(NamedTuple):
    """What the reader parses of a passage: its title and its body, and the articles that start inside it."""

    title: str
    body: str
    articles: tuple[tuple[int, str], ...] = ()  # (character offset in `body`, title), in order


# a sentence's end inside a chunk, not an initial's ("Robert Y. | Hayne"), or a title with a disambiguator
# written twice after a section heading, which ends in no stop ("... publication year | John Lyons (VC) John Lyons")
_ARTICLE_BREAK = re.compile(r"(?<![\s.][A-Z]\.)(?<=[.!?\"”)]) (?=[A-Z0-9])"
                            r"| (?=(?P<name>[A-Z][\w'-]*(?: [A-Z][\w'.-]*){0,3}) \([^()]{1,40}\) (?P=name)\b)")


def title_and_body(title: str, text: str) -> Titled:
    """The passage's title (recovered from the text when empty) and the text after a repeated title. A
    chunk without a title of its own may run from the end of one article into the start of the next
    ("... England. William Goate William Goate (or Goat) VC (12 January 1836 – ...) was"): the title
    written before the new article's first sentence is cut from the body, and that article's is kept."""
    if title:
        return Titled(title, text)
    title = recover_title(text)
    rest = text[len(title):].lstrip() if title else text
    body, articles, at = "", [], 0
    for match in _ARTICLE_BREAK.finditer(rest):
        if match.end() < at or not (start := article_start(rest[match.end():])):
            continue
        body += rest[at:match.end()]
        articles.append((len(body), start))
        at = match.end() + len(start)
        at += len(rest[at:]) - len(rest[at:].lstrip())
    return Titled(title, body + rest[at:], tuple(articles))


def year_value(text: str) -> str | None:
    """The year, decade or century a date names ("June 3, 1926" -> "1926", "470 BC", "1850s",
    "19th century"), or None."""
    if match := _YEAR.search(text):
        number, era = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
        return f"{int(number)} BC" if era in ("BC", "BCE") else str(int(number))
    if match := _DECADE.search(text):
        return f"{match.group(1)}s"
    if match := _CENTURY.search(text):
        return f"{int(match.group(1))}th century" + (" BC" if match.group(2) else "")
    return None

@dataclass
class Article:
    """One article a passage holds, from its first sentence (a chunk may run from one article into the next)."""

    title: str
    start: int  # its first token
    end: int  # the token after its last
    types: list[str] = field(default_factory=list)  # NER types of the mentions of the article's subject
    gender: str | None = None  # "he" or "she", the first pronoun that names a person's passage
    lifespan: tuple[str | None, str | None] = (None, None)  # years of its first sentence's "(1778 – 1848)"


class Mentions:
    """What one parsed passage names, token by token: NER's entities (whole names), the passage's own
    subject by its aliases, and the pronouns and definite descriptions that stand for it. A passage may
    hold the starts of other articles (`Titled.articles`); each is read as a passage of its own title from
    its first sentence on, and `article` is the one being read."""

    def __init__(self, title: str, doc, articles: tuple[tuple[int, str], ...] = ()) -> None:
        self.doc = doc
        starts = {s.start_char: s.start for s in doc.sents}  # an article starts a sentence, or is not read
        bounds = [(0, title)] + [(starts[at], t) for at, t in articles if starts.get(at)]
        # where the body joins text that the passage has apart (a title cut between): no evidence across
        self.joins = [span.start for at, _ in articles if (span := doc.char_span(at, at + 1, alignment_mode="expand"))]
        self.articles = [Article(t, start, end) for (start, t), (end, _) in zip(bounds, [*bounds[1:], (len(doc), "")])]
        self.article = self.articles[0]
        self.mentions: dict[int, Mention] = {}  # token index -> mention covering it
        self.pronouns: set[int] = set()  # tokens of subject pronouns that name the passage's subject
        self.antecedents: dict[int, int] = {}  # sentence start -> start of the earlier sentence that names it
        self.unnamed: dict[int, tuple[int, Mention]] = {}  # sentence start -> `named` of the one before it
        self._mentions()
        self._pronouns()

    @property
    def title(self) -> str:
        return self.article.title

    @property
    def self_types(self) -> list[str]:
        return self.article.types

    def enter(self, token) -> Article:
        """Make the article that `token` belongs to the one being read."""
        self.article = next(a for a in self.articles if a.start <= token.i < a.end)
        return self.article

    def _mentions(self) -> None:
        from spacy.tokens import Span  # spaCy loads only where a passage is read

        ents, joined = list(self.doc.ents), set()
        for n, (first, second) in enumerate(zip(ents, ents[1:])):
            # "the Social Democratic | and | Labour Party": one name NER cut in two at its "and" (the first
            # part modifies the second's head), not two parties
            if first.label_ == second.label_ == "ORG" and second.start == first.end + 1 \
                    and self.doc[first.end].lower_ == "and" and second.start <= first.root.head.i < second.end:
                ents[n + 1] = Span(self.doc, first.start, second.end, label="ORG")  # the next `first`: A and B and C
                joined.add(n)
        for n, ent in enumerate(ents):
            kind = None if n in joined else ENTITY_TYPES.get(ent.label_)
            if kind:
                span = self._before_surname(whole_name(ent), kind)
                name = normalise(span.text)
                if shares_head(span) or class_of(span):
                    continue  # "the American and British Societies of Cinematographers": two names, neither whole
                kind = entity_kind(span, kind)
                # "first university statistics department", "Zaporozhian Cossacks as Hetman": no name
                if name not in _NO_ENTITY and (kind == "DATE" or re.search(r"[A-Z]", name) and " as " not in name):
                    self._add(Mention(name, kind, span.text, span.start, span.end))
        self._named_after_occupation()
        self._full_names()
        for article in self.articles:
            self.article = article
            if not article.title:
                continue
            span = self.doc[article.start:article.end]
            for alias in sorted(self._aliases(), key=len, reverse=True):
                for match in re.finditer(rf"(?<!\w){re.escape(alias)}(?!\w)", span.text):
                    self._alias_at(alias, span.start_char + match.start(), span.start_char + match.end())

    def _before_surname(self, span, kind: str):
        """A name that runs on into the surname of the article's subject ends before it: "He was educated at
        Fettes College Anderson was 36 years old", a chunk that lost a full stop, in William Herbert Anderson's."""
        title = bare_title(next(a.title for a in self.articles if a.start <= span.start < a.end)).split()
        # (not "The Amu Darya" in Amu Darya's, nor "the Tower of London" in Jack London's: a verb follows the cut)
        after = span.end < len(self.doc) and self.doc[span.end].tag_.startswith(("VB", "MD"))
        if kind != "PERSON" and len(title) > 1 and len(span) > 2 and span[-1].text == title[-1] and after \
                and span[-2].is_title and not {t.text for t in span[:-1]} & set(title):
            return span[:-1]
        return span

    def _named_after_occupation(self) -> None:
        """"named after the Swedish astronomer Anders Celsius": a full name NER left untagged, right after a
        listed occupation written lower-case ("the astronomer", not "the Astronomer Royal")."""
        occupations = frozenset(vocabulary()["occupations"])
        for t in self.doc:
            if t.i in self.mentions or t.i == 0 or not _untagged_name(t) or _untagged_name(self.doc[t.i - 1]):
                continue
            end = t.i
            while end < len(self.doc) and _untagged_name(self.doc[end]) and end not in self.mentions:
                end += 1
            before = self.doc[t.i - 1]
            if before.is_lower and before.text in occupations and 2 <= end - t.i <= 4 \
                    and not (end < len(self.doc) and self.doc[end].tag_ in ("NNP", "NNPS")):
                span = self.doc[t.i:end]
                self._add(Mention(normalise(span.text), "PERSON", span.text, t.i, end))

    def _full_names(self) -> None:
        """A one-word person mention that ends a longer person mention of the same passage is that
        person ("directed by Federico Fellini and written by Fellini, Ennio Flaiano, ...")."""
        full: dict[str, set[str]] = {}
        for m in set(self.mentions.values()):
            if m.type == "PERSON" and " " in m.name and " of " not in m.name:  # "Song of Roland" ends in no surname
                full.setdefault(m.name.split()[-1], set()).add(m.name)
        # a firm named after its founder is no surname ("Ford acquired Volvo Cars" in Ford Motor Company's passage)
        firms = {w for m in self.mentions.values() if m.type == "ORG" and " " in m.name for w in m.name.split()} \
            | set(bare_title(self.articles[0].title).split())
        for i, m in list(self.mentions.items()):
            # "written by Tarkovsky and Aleksandr Misharin": NER may take the surname beside a person for an ORG
            person = m.type == "PERSON" or m.type in ("ORG", "PLACE", "WORK") and (any(
                (c := self.mentions.get(t.i)) is not None and c.type == "PERSON" for t in self.doc[i].conjuncts)
                # "Morihei Ueshiba began ... Ueshiba sought to develop": a surname NER took for an ORG, acting; and
                # "co-authored the act alongside Reims": one NER took for a place
                or m.end - m.start == 1 and m.name not in firms and (
                    m.type == "ORG" and self.doc[i].dep_ in ("nsubj", "poss")
                    or self.doc[i].dep_ == "pobj" and self.doc[i].head.lower_ == "alongside"))
            if person and " " not in m.name and len(full.get(m.name, ())) == 1:
                self.mentions[i] = Mention(next(iter(full[m.name])), "PERSON", m.text, m.start, m.end)
            elif person and m.type != "PERSON" and " " in m.name \
                    and all(t.tag_ == "NNP" for t in self.doc[m.start:m.end]):
                # "starring Chishū Ryū and Chieko Higashiyama": a full name NER took for an ORG
                for j in range(m.start, m.end):
                    self.mentions[j] = Mention(m.name, "PERSON", m.text, m.start, m.end)
        # "... by American biochemist Kary Mullis. Mullis and biochemist Michael Smith were jointly awarded":
        # a surname NER left untagged, standing as a noun phrase of its own
        for t in self.doc:
            if t.i not in self.mentions and t.tag_ == "NNP" and t.is_title and len(full.get(t.text, ())) == 1 \
                    and t.dep_ in _NOMINAL and not any(c.dep_ == "compound" for c in t.children):
                self.mentions[t.i] = Mention(next(iter(full[t.text])), "PERSON", t.text, t.i, t.i + 1)

    def _aliases(self) -> set[str]:
        """The names of the passage's subject: its title, the name its first sentence opens with
        when that holds the title ("Irwin Allen Ginsberg") or is "known as" the title, then a
        person's surname, or else the title's head noun after "the" ("the Strait" in "Bering Strait")."""
        aliases = {bare_title(self.title)}
        first = next((s for s in self.doc.sents if s.start == self.article.start), None)
        if first is None:
            return aliases
        opening = sorted({m for i, m in self.mentions.items() if first.start <= i < first.start + 3},
                         key=lambda m: m.start)
        opened = None
        for name in _opening_names(first):  # "Heinrich Luitpold Himmler", which NER cut
            # or a lead's "Daniel Romanovich (1201–1266) was Prince of Galicia" in Daniel of Galicia
            if _holds_title(name, self.title) or lemma(first.root) == "be" and _dated(first.text[len(name):]):
                aliases.add(opened := name)
                break
        person = False
        for mention in opening:  # "Sir Alfred Joseph Hitchcock": a title or two may come first
            regnal = mention.type == "PERSON" and self.title.startswith(mention.text + " of ")  # "Philip II" of Spain
            if mention.type in ("PERSON", "ORG", "PLACE", "WORK", "EVENT") and _holds_title(mention.text, self.title) \
                    or regnal:
                aliases.update((mention.name, mention.text))
                person = mention.type == "PERSON"
                break
        else:
            # "Armand Jean du Plessis, ..., known as Cardinal Richelieu"
            if (known := self._known_as(first)) is not None:
                aliases.update((known.name, known.text))
                person = known.type == "PERSON"
            elif opened is not None:  # "Ferdinand Emmanuel | Edralin Marcos Sr.": NER cut the name, or tagged only
                # its end ("María de la Soledad Teresa | O'Brien")
                person = any(m.type == "PERSON" for i, m in self.mentions.items()
                             if first.start <= i < first.start + len(opened.split()))
        words = bare_title(self.title).split()
        if person and len(words) >= 2 and re.fullmatch(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", words[-1]) \
                and " of " not in self.title:
            aliases.add(words[-1])  # "Vesalius", "O'Brien" (but "Russia" is no surname of Alexander II of Russia)
        # "The Strait is named after Vitus Bering": a listed class noun that ends a title of no "of" ("the
        # Boltzmann constant" is no Ludwig Boltzmann, "the Americas" no European colonization of the Americas)
        if not person and "PERSON" not in self.self_types and len(words) >= 2 and " of " not in self.title \
                and words[-1].lower() in listed_classes() and words[-1][0].isupper():
            aliases.update((f"the {words[-1]}", f"The {words[-1]}"))
        return aliases

    def _known_as(self, first) -> Mention | None:
        """The name a first sentence's subject opens with when the subject phrase says it is "known as"
        the title: that name is the article's too."""
        subject = next((t for t in first.root.children if t.dep_ == "nsubj"), None)
        if subject is None or subject.left_edge.i != first.start:
            return None
        phrase = self.doc[first.start:subject.right_edge.i + 1].text
        title = re.escape(bare_title(self.title).split(" of ")[0])  # "known as Alexis" for Alexis of Russia
        said = r"(?:known|called|styled|[Ll]atini[sz]ed|[Aa]nglici[sz]ed)"
        # "known professionally as", "known, especially in English, as", "known by his stage name"
        how = r"(?:as|by (?:his|her|their|the) (?:stage |pen |ring )?name)"
        if not re.search(rf"\b{said}(?: \w+ly|, [^,]{{1,30}},)? {how} (?:the )?{title}(?!\w)", phrase):
            return None
        opening = next((self.mentions[i] for i in range(first.start, min(first.start + 3, subject.i + 1))
                        if i in self.mentions), None)  # "Mu'izz | al-Din Muhammad ibn Sam": NER may start late
        if opening is None or opening.type not in ("PERSON", "ORG", "PLACE", "WORK", "EVENT"):
            return None
        words = self.doc[first.start:subject.i + 1]  # the whole name NER may have cut: "Israel | ben Eliezer"
        # ("Konstantinos | Petrou Kavafis": or early)
        if (subject.i >= opening.end or opening.start > first.start) and not any(t.is_punct for t in words) and all(
                t.is_title or t.is_lower and t.dep_ == "compound" for t in words):
            return Mention(normalise(words.text), opening.type, words.text, words.start, words.end)
        return opening

    def _pronouns(self) -> None:
        """"He", "She" (a person's article) or "It" (any other) as the subject of a sentence whose
        previous sentence has the passage's subject as its subject: "Robert Mugabe was a Zimbabwean
        politician. [...] He also led the Zimbabwe African National Union"; and "the" with the class its
        first sentence gives a thing, as a later sentence's subject ("Psycho is a 1960 American horror
        film. [...] The film stars Anthony Perkins"). The mention keeps the name that sentence gives, and
        its statements are evidenced by the sentences from it on (`state`)."""
        for sentence in self.doc.sents:
            if sentence.start == self.enter(sentence.root).start:
                person = "PERSON" in self.self_types
                named = None  # (start, mention) of the last sentence that names the passage's subject as its subject
                last = None  # the same, kept across sentences about something else
                chain = 0  # sentences since, each with the pronoun as its subject
                own = kind = None  # the (country-like) class of the first sentence: "Tajikistan is a country"
            subject = next((t for t in sentence.root.children if t.dep_ in ("nsubj", "nsubjpass")), None)
            mention = self.mention(subject) if subject is not None else None
            if mention is not None and mention.type == SELF:
                named, chain = (sentence.start, mention), 0
                last = named if subject.i not in self.pronouns else last
                if sentence.start == self.article.start and lemma(sentence.root) == "be":
                    attr = next((t for t in sentence.root.children if t.dep_ == "attr"), None)
                    kind = lemma(attr) if attr is not None and attr.tag_ in ("NN", "NNS") else None
                    own = kind if kind in _REALMS else None
                    # the class decides over NER ("Spirited Away ... is a film", NER's person)
                    person = kind in vocabulary()["occupations"] or person and kind not in listed_classes()
            elif mention is None and subject is not None and named is not None and chain < MAX_CHAIN \
                    and subject.lower_ in (("he", "she") if person else ("it",)):
                self.mentions[subject.i] = self._self_at(subject, named)
                self.article.gender = self.article.gender or subject.lower_
                chain += 1
            elif mention is None and subject is not None and last is not None and not person and kind \
                    and lemma(subject) == kind and subject.tag_ == "NN" \
                    and [c.lower_ for c in subject.children] == ["the"]:
                self.mentions[subject.i] = self._self_at(subject, last)  # "The film stars ..."
                named, chain = None, 0
            else:
                # only after the lead sentence: "Kenya borders Uganda. Kampala is the capital of the country"
                if named is not None and own and not person and named[0] == self.article.start:
                    self.unnamed[sentence.start] = named
                    # "Dushanbe is the capital and largest city of the country": the country's own class
                    # with "the", in the sentence right after the one naming it, is the country
                    for t in sentence:
                        if t.dep_ == "pobj" and t.tag_ == "NN" and lemma(t) == own and not self.mention(t) \
                                and any(c.dep_ == "det" and c.lower_ == "the" for c in t.children):
                            self.mentions[t.i] = self._self_at(t, named)
                elif named is not None and person and not self._others_named(named[0], sentence.start):
                    self.unnamed[sentence.start] = named  # for "named in his honor"
                named = None

    def _self_at(self, token, named: tuple[int, Mention]) -> Mention:
        """The passage's subject as named by `token`, a pronoun or a definite description ("the country"),
        the sentence starting at named[0] naming it: its statements are evidenced from that sentence on."""
        self.pronouns.add(token.i)
        self.antecedents[token.sent.start] = named[0]
        return Mention(self.title, SELF, named[1].text, token.i, token.i + 1)

    def _others_named(self, start: int, end: int) -> bool:
        """Do the tokens from `start` to `end` name a person other than the passage's subject?"""
        return any(m.type == "PERSON" for i in range(start, end) if (m := self.mentions.get(i)) is not None)

    def _alias_at(self, alias: str, start_char: int, end_char: int) -> None:
        span = self.doc.char_span(start_char, end_char, alignment_mode="expand")
        if span is None:
            return
        start, end = span.start, span.end
        around = {m for i in range(start, end) if (m := self.mentions.get(i)) and m.type != SELF}
        for m in around:
            if m.name == alias:  # NER's span with the article: "the Amu Darya"
                start, end = min(start, m.start), max(end, m.end)
            elif start < m.start < end < m.end:  # NER began inside the name: "Ferdinand Emmanuel | Edralin Marcos Sr."
                end = m.end
        if any(m.start < start or m.end > end for i in range(start, end) if (m := self.mentions.get(i))):
            return  # inside a longer name: "Ankara Province" is not Ankara
        before = self.doc[start - 1] if start else None
        if end - start == 1 and before is not None and before.tag_ == "NNP" and before.dep_ == "compound" \
                and before.head.i == start and before.is_title and before.i not in self.mentions \
                and before.lower_.rstrip(".") not in _HONORIFICS | listed_classes():
            return  # a surname after another given name: "Tymofiy Minenko" is not Mark Minenko
        self.self_types.extend(m.type for m in around)  # what NER took the subject for
        self._add(Mention(self.title, SELF, self.doc[start:end].text, start, end))

    def _add(self, mention: Mention) -> None:
        for i in range(mention.start, mention.end):
            old = self.mentions.get(i)
            if old is not None and old.type != SELF:
                for j in range(old.start, old.end):
                    self.mentions.pop(j, None)
        for i in range(mention.start, mention.end):
            self.mentions[i] = mention

    def mention(self, token) -> Mention | None:
        return self.mentions.get(token.i)

    def arguments(self, token) -> list[Mention]:
        """The mentions a dependent names: itself and the conjuncts ("Vienna and Paris"), and those listed
        with it ("Smuts, along with Louis Botha, ...")."""
        found = []
        alternatives = listed_with_or(token)  # "The Angara or Angar"
        # "part of the largest urban agglomeration in Africa, the Arab world, and the Middle East": the parser may
        # join the list of a common noun's preposition to the noun
        inner = self.mention(token) is None and any(c.dep_ == "prep" for c in token.children)
        listed = () if alternatives or inner or self._containers(token) else token.conjuncts
        for t in (token, *listed, *self._nested(token)) if not alternatives else (token,):
            m = self.mention(t)
            if m is not None and m not in found:
                found.append(m)
        if found and not alternatives:  # (of its kind: "co-authored the act alongside Reims" lists no act)
            found += [m for t in (token, *token.conjuncts) for o in co_listed(t) for m in self.arguments(o)
                      if m not in found and m.type != "DATE" and found[0].type in (SELF, m.type)]
        return found

    def _places_in(self, token, prep) -> list[Mention]:
        """The arguments of a preposition's object, and after "in" the place it names next ("a city in West
        Yorkshire, England": in both)."""
        found = self.arguments(token)
        if prep.lower_ == "in" and (m := self.mention(token)) is not None and m.type == "PLACE":
            found += [n for c in (*(c for c in token.children if c.dep_ == "appos"), *self._containers(token))
                      if (n := self.mention(c)) is not None and n.type == "PLACE" and n not in found]
        return found

    def _containers(self, token) -> tuple:
        """The places a comma joins to a place without "and" or "or", which the parser may take for a list:
        "born in Boston, Massachusetts, and grew up ..." names where Boston is, no second birthplace."""
        chain = (token, *token.conjuncts)
        if len(chain) != 2 or any(t.dep_ == "cc" for t in self.doc[token.i:chain[1].i]) \
                or any(c.dep_ in ("appos", "conj") for c in chain[1].children):
            return ()  # ("lived in Vienna, Prague, Budapest": a list)
        places = [self.mention(t) for t in chain]
        return token.conjuncts if all(m is not None and m.type == "PLACE" for m in places) else ()

    def _nested(self, token) -> list:
        """Names the parser hung inside the next one: "starring Chishū Ryū and Chieko Higashiyama" read
        as one noun phrase, "Ryū" a modifier of "Higashiyama" with "Chieko" its conjunct."""
        m = self.mention(token)
        if m is None or m.type != "PERSON":
            return []
        return [c for c in token.children if c.dep_ in ("nmod", "compound") and c.i < m.start
                and (n := self.mention(c)) is not None and n.type == "PERSON" and any(
                    g.dep_ == "conj" and m.start <= g.i < m.end for g in c.children)]

def listed_with_or(token) -> bool:
    """Is the token listed with "or" ("Paris or Lyon"): alternatives, neither of which is stated?"""
    return any(c.dep_ == "cc" and c.lower_ == "or" for c in token.children)


def co_listed(token, plain: bool = False) -> list:
    """The objects of the prepositions below `token` that list more of what it names or does: "together
    with", "along with", "alongside", and with `plain` any "with" ("stars Julie Andrews and Christopher
    Plummer, with Richard Haydn")."""
    found = []
    for prep in (c for c in token.children if c.dep_ == "prep"):
        if prep.lower_ in ("along", "together"):  # "along | with Louis Botha"
            prep = next((c for c in prep.children if c.dep_ == "prep" and c.lower_ == "with"), prep)
        elif prep.lower_ == "with" and not plain and not any(
                c.dep_ == "advmod" and c.lower_ in ("together", "along") for c in prep.children):
            continue
        if prep.lower_ in ("with", "alongside"):
            found += [o for o in prep.children if o.dep_ == "pobj"]
    return found


_REALMS = {"country", "state", "nation", "kingdom", "empire", "republic", "island country", "city-state",
           "microstate", "sultanate", "emirate", "principality", "territory", "province"}


_NOMINAL = frozenset({"nsubj", "nsubjpass", "dobj", "pobj", "conj", "appos", "poss"})  # a noun phrase's own roles


def _dated(text: str) -> bool:
    """Does the text open with a lifespan in brackets, "(1201–1266)"?"""
    match = re.match(r"\s*\(([^()]*)\)", text)
    return match is not None and len([p for p in _DASH.split(match.group(1), maxsplit=1) if _YEAR.search(p)]) == 2
