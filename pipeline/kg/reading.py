"""Reading one passage: the statements its sentences make, from spaCy's entities and dependency parse.

A reading is what one passage says on its own, before the corpus is known (so it can be cached
by the passage's hash and computed anywhere): its title (given, or recovered from the start of
the text), and statements `subject - pattern - object`, each with the sentence that makes it and
the substrings of that sentence that name both ends. Patterns are lemma paths, in the active voice:

- what it says someone or something is (`people.py`): `is a` (object: a class noun) and `nationality` (a
  NORP adjective), from the definitional first sentence "X is/was a [American] poet[, philosopher and
  writer]"; `also a` for the same said of a named entity elsewhere ("Alexis Carrel, a distinguished surgeon
  and biologist"); `bear in` / `die in` with a year, from a lifespan "(June 3, 1926 – April 5, 1997)" after
  the subject, or after a person named in passing after an occupation ("the French zoologist Étienne
  Geoffroy Saint-Hilaire (1772–1844)"); `alias`, the other names it gives the subject first ("Avicenna (;
  also Ibn Sīnā or Abu Ali Sina; ...)");
- `VERB` (direct object), `VERB PREP` (prepositional object) between named entities, the passive
  turned active ("Barry Lyndon was directed by Stanley Kubrick" -> Stanley Kubrick `direct` Barry Lyndon);
  participles and relative clauses take the noun they modify ("a film directed by ..."), verbs in a
  conjunction share subject and agent ("written, produced and directed by ..."), names listed "together
  with" / "along with" a verb's end share its role, a cast verb's "with" lists more of its cast;
- `be NOUN PREP` from a copula or apposition ("X is the capital of Y", "X, a city in Y").

Ends are what the passage names (`mentions.py`): named entities or mentions of the passage's own
subject (type `SELF`); a pronoun's statement is evidenced with the sentences from the one naming the
subject, and "his honor" in a man's passage names him. Negated and modal verbs are skipped. Which
patterns become which relations is decided for the whole corpus (`extract.py`, `vocabulary.yaml`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import NamedTuple

from pipeline.kg.lexicon import listed_classes, vocabulary
from pipeline.kg.mentions import SELF, Mention, Titled, co_listed, listed_with_or, year_value
from pipeline.kg.names import _NOUN_PREPOSITIONS, _PREPOSITIONS
from pipeline.kg.nlp import lemma
from pipeline.kg.people import ClassReading, _class_head, _class_name

VERSION = "reading-48"  # bump when the statements a passage yields change (the cache key)


_MODALS = {"may", "might", "could", "would", "should", "must", "can"}


_PLACED = {"locate", "situate", "base"}  # participles that place the noun they follow


_RELATIVE = {"who", "which", "that", "whom", "whose"}


_GIVING = {"award", "grant", "give"}  # passives with an object: "X was awarded Y" says X received Y


_LIST_VERBS = {"border", "bound"}  # verbs whose objects come as a list with a direction each


_FINITE = {"VBD", "VBZ", "VBP", "MD"}  # a finite verb: the quoted words are a clause


_CAST = {"star", "co-star", "feature"}  # verbs whose "with" lists more of their objects


_SECOND = {"vice", "deputy", "assistant", "acting", "associate"}  # "vice president of X": not X's president


_WORKING_AS = {"work", "serve"}  # "worked as a teacher": an occupation ("appeared as a nurse" plays one)
_CUTTING = {"IN", "DT", "CC", "TO"}  # tags of the words a chunk cut after a name may end in ("the Nobel Prize in")
_DIRECTIONS = {f"{a}{b}" for a in ("", "north", "south") for b in ("", "east", "west")} - {""}


class Statement(NamedTuple):
    """One statement of a reading (stored as a plain list in the cache)."""

    sentence: int  # index into the reading's sentences
    subject: str  # name
    subject_type: str
    subject_text: str  # as written in the sentence
    pattern: str
    object: str
    object_type: str
    object_text: str


def read_docs(titled: Iterable[Titled], docs: Iterable) -> Iterator[dict]:
    """One reading per titled body (`mentions.title_and_body`) and its parsed body."""
    for passage, doc in zip(titled, docs):
        yield _Reader(passage.title, doc, passage.articles).reading()


class _Reader(ClassReading):
    """The statements one parsed passage makes (`reading()`), over what it names (`Mentions`) and what it says
    things are (`ClassReading`)."""

    def __init__(self, title: str, doc, articles: tuple[tuple[int, str], ...] = ()) -> None:
        super().__init__(title, doc, articles)
        self.sentences: list[str] = []
        self.sentence_index: dict[tuple[int, int], int] = {}  # evidence span (tokens) -> index in self.sentences
        self.statements: list[list] = []
        # a chunk cut mid-sentence: a name that ends at self.cut or later ("in", "the" ... after it) may be cut
        self.cut = len(doc) + 1
        if len(doc) and doc[-1].is_alpha:
            self.cut = len(doc)
            while self.cut and doc[self.cut - 1].tag_ in _CUTTING:
                self.cut -= 1
        # the tokens of someone's words in quotation marks: a clause ending in a stop or comma (not a quoted
        # title such as "Help!" or "Yesterday,")
        self.speech = {t.i for start, end in _quoted(doc.text) if doc.text[end - 1:end] in ".,!?"
                       and (span := doc.char_span(start, end, alignment_mode="expand")) is not None
                       and sum(t.is_alpha for t in span) >= 4 and any(t.tag_ in _FINITE for t in span)
                       for t in span}

    def state(self, subject: Mention, pattern: str, obj: Mention, sentence) -> None:
        if subject.name == obj.name or not subject.name or not obj.name or subject.start in self.speech:
            return
        if max(subject.end, obj.end) >= self.cut:
            return  # a name that ends a chunk cut mid-sentence may be cut too: "received a 2007 Primetime Emmy"
        if pattern != "mention" and all(self.doc[m.start:m.end].root.conjuncts for m in (subject, obj)) \
                and any(t.lower_ == "respectively" for t in sentence):
            return  # "Edinburgh, Cardiff and Belfast are the capitals of Scotland, Wales and Northern Ireland,
            # respectively": each of one list goes with one of the other, which the parse does not say
        # a pronoun's statement (its subject, or its object once a passive is read actively) is evidenced
        # by its sentence together with the sentences back to the one that names it
        named = subject.start in self.pronouns or obj.start in self.pronouns
        start = self.antecedents[sentence.start] if named else sentence.start
        text = self.doc[start:sentence.end].text
        if subject.text not in text or obj.text not in text or any(start < j < sentence.end for j in self.joins):
            return  # a name across a sentence break the parser put inside it, or a cut title: no evidence
        index = self.sentence_index.setdefault((start, sentence.end), len(self.sentences))
        if index == len(self.sentences):
            self.sentences.append(text)
        self.statements.append([index, subject.name, subject.type, subject.text, pattern, obj.name, obj.type, obj.text])

    def reading(self) -> dict:
        for sentence in self.doc.sents:
            if sentence.start in self.speech:
                continue  # someone's words ("Jackie Stewart is a very sensible driver and a very good teacher.")
            if sentence.start == self.enter(sentence.root).start and self.title:
                self._definition(sentence)
            for token in sentence:
                if token.tag_.startswith("VB"):
                    self._verb(token, sentence)
                if token.dep_ == "appos":
                    self._apposition(token, sentence)
            self._fronted(sentence)
            self._named_classes(sentence)
            self._passing_lifespans(sentence)
            self._post_nominals(sentence)
            self._co_mentions(sentence)
        return {"title": self.articles[0].title, "sentences": self.sentences, "statements": self.statements,
                "articles": [{"title": a.title, "self_types": sorted(set(a.types)), "lifespan": list(a.lifespan)}
                             for a in self.articles if a.title]}

    def _post_nominals(self, sentence) -> None:
        """"Joseph Kellaway VC (1824–1880) was an English recipient of the": the letters after a name say he
        received the Victoria Cross, also where the chunk is cut before the sentence does."""
        for m in self._mentions_in(sentence):
            if m.type in (SELF, "PERSON") and m.end - m.start > 1 and self.doc[m.end - 1].text in ("VC", "V.C."):
                vc = self.doc[m.end - 1]
                self.state(m, "be recipient of", Mention("Victoria Cross", "ORG", vc.text, vc.i, vc.i + 1), sentence)

    def _co_mentions(self, sentence) -> None:
        """`mention`: the passage's subject and another name in one sentence (a title mention, if
        the corpus has an article of that name)."""
        found = set(self._mentions_in(sentence))
        subjects = [m for m in found if m.type == SELF]
        if subjects:
            subject = min(subjects, key=lambda m: m.start)
            for other in sorted(found - set(subjects), key=lambda m: m.start):
                if other.type not in ("DATE", "NORP"):
                    self.state(subject, "mention", other, sentence)

    def _verb(self, verb, sentence) -> None:
        if _fragment(verb) or any(c.dep_ == "neg" or c.lower_ in _MODALS for c in verb.children):
            return
        verb_lemma = lemma(verb)
        if verb_lemma in ("be", "have"):
            return self._copula(verb, sentence) if verb_lemma == "be" else None
        passive = _is_passive(verb)
        subjects = self._subjects(verb)
        objects = [m for c in verb.children if c.dep_ == "dobj" for m in self.arguments(c)]
        # those listed with the verb's own ends: more of the cast after "with" ("stars A and B, with C"),
        # else more of who did it ("produced by Milton Bradley together with Games Workshop")
        cast = verb_lemma in _CAST and bool(objects)
        listing = (verb, *(t for c in verb.children if c.dep_ == "dobj" for t in (c, *c.conjuncts))) if cast \
            else (verb,)
        partners = [m for t in listing for o in co_listed(t, plain=cast) for m in self.arguments(o)
                    if m.type != "DATE"]
        if cast:
            objects += [m for m in partners if m not in objects]
        elif not passive and subjects:
            # "co-authored the act alongside Reims": the parser hangs the partner on the object
            partners += [m for o in objects for t in self.doc[o.start:o.end] for c in co_listed(t)
                         for m in self.arguments(c) if m.type == "PERSON" and o.type != "PERSON"]
            subjects += [m for m in partners if m not in subjects]
        # "was awarded the 1983 Nobel Prize": the subject received it; another passive's object is no patient
        pattern = "receive" if passive and verb_lemma in _GIVING else None if passive else verb_lemma
        for obj in objects if pattern else ():
            for subject in subjects:
                self.state(subject, pattern, obj, sentence)
        if passive:
            objects = []
        self._prepositional(verb, verb_lemma, subjects, objects, sentence)
        if verb_lemma == "name" and passive:
            self._in_honour(verb, sentence)
        self._working_as(verb, verb_lemma, [] if passive else subjects, sentence)
        agents = self._agents(verb) if passive else []
        agents += [m for m in partners if agents and m not in agents]
        if verb_lemma in _LIST_VERBS and (agents or objects):  # "bordered by A and B to the north, C to the west"
            agents += [m for m in self._listed_places(verb) if m not in agents and m not in objects]
        for agent in agents:  # read actively: "directed by K" -> K direct X
            for patient in subjects:
                self.state(agent, verb_lemma, patient, sentence)

    def _working_as(self, verb, verb_lemma: str, subjects: list[Mention], sentence) -> None:
        """"She has worked as a television anchor and correspondent": the listed occupations are hers."""
        if verb_lemma not in _WORKING_AS or not subjects:
            return
        occupations = vocabulary()["occupations"]
        for prep in (c for c in verb.children if c.dep_ == "prep" and c.lower_ == "as"):
            for noun in (c for c in prep.children if c.dep_ == "pobj" and c.tag_ in ("NN", "NNS")):
                if noun.lower_ in occupations or _class_name(noun) in occupations:
                    for subject in subjects:
                        self._classes(subject, noun, sentence, pattern="also a")

    def _in_honour(self, verb, sentence) -> None:
        """"The Bering Strait, the Bering Sea, Bering Island ... were all named in his honor", right after a
        sentence naming the person of the passage: each is named after that person."""
        named = self.unnamed.get(sentence.start)
        if named is None or self.article.gender is None or self._others_named(sentence.start, sentence.end):
            return
        him, his = ("him", "his") if self.article.gender == "he" else ("her", "her")  # the passage's own pronouns
        for pobj in (o for p in verb.children if p.dep_ == "prep" and p.lower_ in ("in", "after", "for")
                     for o in p.children if o.dep_ == "pobj"):
            if pobj.lower_ == him or lemma(pobj) in ("honor", "honour", "memory") and any(
                    c.dep_ == "poss" and c.lower_ == his for c in pobj.children):
                person = self._self_at(pobj, named)
                for token in (c for c in verb.children if c.dep_ == "nsubjpass"):
                    # the list may go on in an apposition: "The Bering Strait, the Bering Sea, Bering Island"
                    listed = [token, *token.conjuncts, *(t for a in token.children if a.dep_ == "appos"
                                                         for t in (a, *a.conjuncts))]
                    for m in dict.fromkeys(m for t in listed if (m := self.mention(t)) is not None):
                        self.state(m, "name after", person, sentence)

    def _prepositional(self, verb, verb_lemma: str, subjects: list[Mention], objects: list[Mention],
                       sentence) -> None:
        """`VERB PREP` statements; "X founded Y in 1850" dates Y, as "Y was founded in 1850" does, and not X."""
        # "HSBC opened its second branch in 2005": a year of a verb with an object dates the object only
        takes_object = bool(objects) or any(c.dep_ == "dobj" for c in verb.children)
        # "Rosmini College was founded in 1962, and St Joseph's in 1894": what follows a name joined to the verb
        # belongs to a clause without its verb; "founded in 1983 and 1991 respectively" pairs what we don't
        gap = next((c.i for c in verb.children if c.dep_ == "conj" and c.tag_ in ("NN", "NNS", "NNP", "NNPS")),
                   len(self.doc))
        paired = any(c.lower_ == "respectively" for c in verb.subtree)
        # "studied at the College of Saint Joseph ..., and then at the Séminaire de Rimouski": a preposition
        # may be a conjunct of the verb or of another preposition
        preps = [c for c in verb.children if c.i < gap and (c.dep_ in ("prep", "dative") or c.dep_ == "conj"
                                                             and c.tag_ == "IN")]
        preps += [c for p in preps for c in p.conjuncts if c.tag_ == "IN" and c not in preps]
        for child in preps:
            if child.lower_ in _PREPOSITIONS and child.lower_ != "by":
                # "born in Paris or Lyon": alternatives, neither is stated
                for obj in (m for c in child.children if c.dep_ == "pobj" and not listed_with_or(c)
                            for m in self._objects(c)):
                    if obj.type == "DATE" and paired:
                        continue
                    for subject in objects if obj.type == "DATE" and takes_object else subjects:
                        self.state(subject, f"{verb_lemma} {child.lower_}", obj, sentence)
        # "was born in Luoyang and grew up there": "there" is the one place the verb it is joined to names
        if verb.dep_ == "conj" and any(c.dep_ == "advmod" and c.lower_ == "there" for c in verb.children):
            # (each conjunct too, "or" ones included: "born in Paris or Lyon" names two places)
            places = list(dict.fromkeys(
                m for p in verb.head.children if p.dep_ == "prep" and p.lower_ in ("in", "at", "to")
                for c in p.children if c.dep_ == "pobj" for t in (c, *c.conjuncts) for m in self._objects(t)))
            for subject in subjects if len(places) == 1 and places[0].type == "PLACE" else ():
                self.state(subject, f"{verb_lemma} in", places[0], sentence)

    def _listed_places(self, verb) -> list[Mention]:
        """Places a bordering verb lists after its first object, each with its own direction
        ("A to the north, B to the northwest and C to the south"), which the parse hangs anywhere
        below the verb: every place to the right of the verb whose path up to it passes only
        through places, direction nouns and the prepositions "by" and "to" (never "of", "at", "in":
        "the Gulf of Fonseca" is where, "an inlet of the Caribbean Sea" what)."""
        found: list[Mention] = []
        for token in verb.subtree:
            mention = self.mention(token)
            if token.i <= verb.i or mention is None or mention.type != "PLACE" or mention in found:
                continue
            if token.i != mention.end - 1 and self.mention(token.head) == mention:
                continue  # a word inside the name; its head word is checked instead
            node = token
            while node.i != verb.i and self._listing_step(node, verb):
                node = node.head
            if node.i == verb.i:
                found.append(mention)
        return found

    def _listing_step(self, node, verb) -> bool:
        """May a listed place's path up to its verb go from `node` to its head?"""
        head, above = node.head, self.mention(node.head)
        if node.dep_ == "pobj" and head.lower_ not in ("by", "to"):
            return False
        return head.i == verb.i or head.lower_ in ("by", "to") and head.dep_ in ("prep", "agent", "conj") \
            or head.lower_ in _DIRECTIONS or above is not None and above.type == "PLACE"

    def _objects(self, pobj) -> Iterator[Mention]:
        """The mentions a prepositional object names, a date as its year ("in 1850" -> 1850)."""
        for obj in self.arguments(pobj):
            if obj.type != "DATE":
                yield obj
            elif value := year_value(obj.text):
                yield Mention(value, "DATE", obj.text, obj.start, obj.end)

    def _subjects(self, verb) -> list[Mention]:
        """Who or what the verb is about (the passive's patient)."""
        found = [m for c in verb.children if c.dep_ in ("nsubj", "nsubjpass") for m in self.arguments(c)]
        relative = any(c.dep_ in ("nsubj", "nsubjpass") and c.lower_ in _RELATIVE for c in verb.children)
        if found:
            return found
        if verb.dep_ in ("acl", "relcl") and (verb.dep_ == "acl" or relative):
            head = verb.head
            if verb.dep_ == "acl" and lemma(verb) in _PLACED and head.dep_ == "pobj" and head.tag_ == "NNP" \
                    and head.head.lower_ == "of" and head.head.head.tag_ in ("NN", "NNS"):
                head = head.head.head  # "a territory of the United States located in the South Pacific": the territory
            if (m := self.mention(head)) is None:
                return self._noun_entity(head)
            # a clause on a name is about that name, not those listed with it ("Yoshinkan Aikido, founded by
            # Gozo Shioda in 1955, and Shodokan Aikido, founded by ..."), and "which" is said of no person
            which = any(c.dep_ in ("nsubj", "nsubjpass") and c.lower_ == "which" for c in verb.children)
            # nor of the agent just before it: "a franchise created by Hironobu Sakaguchi which is owned ... by
            # Square Enix" is the franchise's owner (NER may not know the agent for a person)
            after_agent = head.dep_ == "pobj" and head.head.dep_ == "agent"
            return [] if which and (m.type == "PERSON" or after_agent) else [m]
        if verb.dep_ == "conj" and verb.head.tag_.startswith("VB"):
            return self._subjects(verb.head)
        if verb.dep_ == "advcl" and verb.tag_ == "VBG" and verb.head.tag_.startswith("VB"):
            return self._subjects(verb.head)  # "directed by Gene Kelly and Stanley Donen, starring Kelly, ..."
        if verb.dep_ in ("xcomp", "advcl") and verb.head.tag_.startswith("VB") and any(
                c.dep_ == "aux" and c.lower_ == "to" for c in verb.children) and not any(
                c.dep_ == "dobj" for c in verb.head.children):  # "ordered Konev to defend Moscow": Konev defends
            return self._subjects(verb.head)  # "She went on to win the Academy Award"
        return []

    def _noun_entity(self, noun) -> list[Mention]:
        """The entity a noun stands for: itself, or the subject it is said of ("X is a film [directed by]")."""
        if found := self.arguments(noun):
            return found
        if noun.dep_ == "attr" and lemma(noun.head) == "be" and not _second_attr(noun):
            return [m for c in noun.head.children if c.dep_ == "nsubj" for m in self.arguments(c)]
        if noun.dep_ == "appos":
            return self.arguments(noun.head)
        if noun.dep_ == "conj":
            return self._noun_entity(noun.head)
        return []

    def _agents(self, verb) -> list[Mention]:
        """The by-agents of a passive, shared back along a conjunction ("written, produced and directed by"),
        never forward ("written by X and published in 1939": X did not publish it)."""
        for v in (verb, *(c for c in verb.conjuncts if c.i > verb.i)):
            found = [m for c in v.children if c.dep_ == "agent" for p in c.children if p.dep_ == "pobj"
                     for m in self.arguments(p)]
            if found:
                return found
        return []

    def _copula(self, verb, sentence) -> None:
        """"X is the capital of Y", "X is a city in Y": `be NOUN PREP`; "X was a Japanese actor": `also a`."""
        # (a date is no one: "16 April 1844 ... was a French poet" is a lead the parser cut)
        subjects = [m for c in verb.children if c.dep_ == "nsubj" for m in self.arguments(c) if m.type != "DATE"]
        for attr in (c for c in verb.children if c.dep_ == "attr" and not _second_attr(c)):
            self._relational_noun(subjects, attr, sentence)
            self._described(subjects, attr, sentence)

    def _apposition(self, noun, sentence) -> None:
        """"Paris, the capital of France, ...", "Alexis Carrel, a distinguished surgeon and biologist, ..."."""
        if noun.head.conjuncts:
            return  # "Germany, Austria, the German parts of Switzerland, ...": a list, not an apposition
        if any(not t.is_punct and not noun.head.is_ancestor(t) for t in self.doc[noun.head.i + 1:noun.left_edge.i]):
            return  # "it was adapted to other formats, including ..., a 1981 BBC television series": across a clause
        if any(c.dep_ == "advmod" for c in noun.children) or noun.tag_ == "NNS" and noun.head.tag_ == "NNP":
            return  # "Scandinavia, especially parts of Finland and Sweden": examples, not the same place
        if any(p.dep_ == "prep" and any(o.lower_ in _DIRECTIONS for o in p.children)
               for t in (noun, noun.head) for p in t.children):
            return  # "the Kuril Islands on the southeast, Japan's island of Hokkaido on the south": a list of sides
        governor = noun.head.head.head if noun.head.dep_ == "pobj" else None
        if governor is not None and lemma(governor) == lemma(noun):
            return  # "the largest lake in Sweden, the largest lake in the European Union": a list of rankings
        subjects = self.arguments(noun.head)
        if subjects and not self.mention(noun):
            self._relational_noun(subjects, noun, sentence)
            self._described(subjects, noun, sentence)

    def _described(self, subjects: list[Mention], noun, sentence) -> None:
        """Classes said of a named entity outside the definition (`also a`: only listed classes count)."""
        head = None if self.mention(noun) else _class_head(noun)
        # "India was a participating state in the Summer Olympics": a role in an event, not a class
        if head is not None and any(d.dep_ == "det" and d.lower_ in ("a", "an") for d in head.children) and not any(
                c.dep_ == "amod" and c.tag_ == "VBG" and c.lower_ != "leading" for c in head.children):
            for subject in subjects:
                self._classes(subject, head, sentence, "also a")

    def _relational_noun(self, subjects: list[Mention], noun, sentence) -> None:
        if not subjects or self.mention(noun):
            return
        # "Philip II ... was King of Spain": a listed class noun may be capitalised
        head = noun if noun.tag_ == "NNP" and noun.lower_ in listed_classes() else _class_head(noun)
        if head is None:
            return
        nouns = [n for n in (head, *head.conjuncts)
                 if n.tag_ in ("NN", "NNS") or n.tag_ == "NNP" and n.lower_ in listed_classes()]
        # "one of the most prominent rulers of late medieval Eastern Europe" ranks; it says not what he ruled
        ranked = any(c.tag_ == "JJS" or c.dep_ == "amod" and any(g.lower_ == "most" for g in c.children)
                     for c in head.children)
        if head is not noun and ranked and lemma(head) in vocabulary()["occupations"]:
            return
        # "the capital and largest city of Algeria": a noun without prepositions of its own takes the last
        # noun's; one with its own keeps them ("the founder of X and the first King of Siam")
        own = {n: [c for c in n.children if c.dep_ == "prep" and c.lower_ in _NOUN_PREPOSITIONS] for n in nouns}
        shared = next((own[n] for n in reversed(nouns) if own[n]), [])
        the = any(c.dep_ == "det" and c.lower_ == "the" for c in head.children)
        if not shared and the and lemma(head) == "capital" and sentence.start in self.unnamed \
                and "PERSON" not in self.self_types:  # a country's passage ("unnamed" holds a man's too)
            # "Ashgabat is the capital and largest city." after a sentence naming Turkmenistan: its capital
            article = self._self_at(head, self.unnamed[sentence.start])
            for subject in subjects:
                if subject.type in ("PLACE", "PERSON", "ORG"):
                    self.state(_placed(subject), "be capital of", article, sentence)
        # ("a former vice president of the Discovery Institute" did not lead it; "the founder and vice president of
        # Enron" founded it)
        for n in (n for n in nouns if not any(c.dep_ in ("compound", "amod") and c.lower_ in _SECOND
                                              for c in n.children)):
            place = lemma(n) in vocabulary()["place_classes"]
            for prep in own[n] or shared:
                for obj in (m for c in prep.children if c.dep_ == "pobj" for m in self._places_in(c, prep)):
                    # "was King of Italy" with NER's "King of Italy" the object: a name holding its preposition
                    if obj.type != "DATE" and not obj.start <= prep.i < obj.end:
                        for subject in subjects:
                            self.state(_placed(subject) if place else subject, f"be {lemma(n)} {prep.lower_}", obj,
                                       sentence)


def _quoted(text: str) -> list[tuple[int, int]]:
    """The character spans inside quotation marks (from the opening mark to the closing one); a chunk
    that opens inside a quote (its first mark closes one) is quoted up to that mark."""
    spans, opened = [], None
    for match in re.finditer(r'["“”]', text):
        at, mark = match.start(), match.group()
        before, after = text[at - 1:at] if at else " ", text[at + 1:at + 2] or " "
        closes = mark == "”" or mark == '"' and not before.isspace() and (after.isspace() or after in ".,;:!?)")
        if closes:
            spans.append((opened if opened is not None else 0 if not spans else at, at))
            opened = None
        elif opened is None:
            opened = at
    return [(start, end) for start, end in spans if start < end]


def _second_attr(noun) -> bool:
    """Is the noun a copula's second complement right after a quoted title? It is the parser's place for an
    apposition to the title: in 'O'Brien is the anchor for "Matter of Fact," a weekly show owned by Hearst' the
    show is owned, not O'Brien."""
    at = noun.left_edge.i - 1
    at -= at > 0 and noun.doc[at].tag_ == ","  # ('"Matter of Fact", a weekly show')
    return at >= 0 and noun.doc[at].tag_ == "''" and any(
        c.dep_ == "attr" and c.i < noun.i for c in noun.head.children)


def _placed(mention: Mention) -> Mention:
    """The subject of "is the capital (city, town) of" is a place, whatever NER took it for ("Ashgabat" a
    person, "Dushanbe" an organisation)."""
    return replace(mention, type="PLACE") if mention.type in ("PERSON", "ORG") else mention


def _fragment(verb) -> bool:
    """Is the verb, or the one it is joined to by "and", a sentence's root with no finite verb: "... in Monza,
    Italy beating Chiron and defeating Nuvolari" (a chunk's cut start, whose subject is lost)?"""
    while verb.dep_ == "conj" and verb.head.tag_.startswith("VB"):
        verb = verb.head
    return verb.dep_ == "ROOT" and verb.tag_ == "VBG"


def _is_passive(verb) -> bool:
    """"was directed by", and the participle of "a film directed by" or "written and directed by"."""
    return any(c.dep_ in ("nsubjpass", "auxpass") for c in verb.children) or (
        verb.dep_ in ("acl", "conj") and verb.tag_ == "VBN" and not any(c.dep_ == "nsubj" for c in verb.children))
