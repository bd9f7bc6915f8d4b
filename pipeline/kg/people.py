"""What a passage says someone or something is: the classes, nationality and lifespan of its subject
(the definitional first sentence, "X is/was a [American] poet[, philosopher and writer]") and of people it
names in passing ("the Swedish astronomer Anders Celsius (1701–1744)"), its subject's other names.

`ClassReading` is the half of the passage reader (`reading.py`) that reads these; it states what it finds
with the reader's `state`.
"""

from __future__ import annotations

import re
from dataclasses import replace

from pipeline.kg.lexicon import listed_classes, vocabulary
from pipeline.kg.mentions import _DASH, _REALMS, _YEAR, SELF, Mention, Mentions, _dated, year_value
from pipeline.kg.names import _NAME_JOINERS
from pipeline.kg.nlp import lemma

# a name as written: up to five capitalised words, "of"/"al"/"ibn" and the like between ("Abu Ali Sina")
_NAME = r"[A-Z][\w'’.-]*(?: (?:[A-Z][\w'’.-]*|of|the|de|al|ibn|bin|van|von|da|di|y))*(?<! of)(?<! the)"


_COLLECTIVE = {"series", "chain", "pair", "cluster", "string", "sequence"}  # "a series of X" names no class


# nouns of a stance towards something: "an advocate of freedom of speech" is no occupation
_STANCES = {"advocate", "proponent", "supporter", "opponent", "defender", "admirer", "follower", "adherent",
            "believer", "enthusiast", "fan", "lover"}


_RULERS = {"emperor", "empress", "king", "queen", "sultan", "pharaoh", "caliph", "shah", "khan", "tsar"}


# nouns of an office: the years after "the manager Alex Ferguson (1986–2013)" are his time in it, no lifespan
_OFFICES = _RULERS | {"manager", "coach", "president", "chairman", "chairwoman", "minister", "governor", "mayor",
                      "bishop", "archbishop", "pope", "editor", "director", "captain", "chancellor", "senator",
                      "premier", "leader", "head", "chief", "secretary", "ambassador", "commissioner", "dean"}


class ClassReading(Mentions):
    """Classes, nationalities, lifespans and other names: what a passage says someone or something is."""

    def state(self, subject: Mention, pattern: str, obj: Mention, sentence) -> None:
        raise NotImplementedError  # the reader (`reading._Reader`) records a statement with its evidence

    def _mentions_in(self, sentence) -> list[Mention]:
        """The sentence's mentions, each once, in the order it names them."""
        found = {self.mentions[i] for i in range(sentence.start, sentence.end) if i in self.mentions}
        return sorted(found, key=lambda m: m.start)

    def _fronted(self, sentence) -> None:
        """Classes of a noun phrase that opens a sentence about the passage's subject: "A journalist and
        politician during the French Revolution, he was ..." (`also a`: listed classes only)."""
        first = sentence[1] if sentence[0].lower_ == "both" and len(sentence) > 1 else sentence[0]  # "Both a ..."
        head = first.head if first.dep_ == "det" and first.lower_ in ("a", "an") else None
        subject = next((t for t in sentence.root.children if t.dep_ in ("nsubj", "nsubjpass")), None)
        if head is None or subject is None or head.head.i != sentence.root.i or not head.i < subject.i \
                or head.dep_ not in ("dep", "npadvmod", "appos") or head.tag_ not in ("NN", "NNS"):
            return
        mention = self.mention(subject)
        if mention is not None and mention.type == SELF:
            self._classes(mention, head, sentence, "also a")

    def _named_classes(self, sentence) -> None:
        """Classes written before a person's name: "the brother of philosopher and psychologist William
        James and diarist Alice James" (`also a`: listed classes only)."""
        for person in (m for m in self._mentions_in(sentence) if m.type == "PERSON"):
            last = self.doc[person.end - 1]
            if last.dep_ == "appos" and last.head.is_lower and last.head.tag_ == "NN" and any(
                    d.dep_ == "det" and d.lower_ in ("a", "an", "another") for d in last.head.children):
                # "with another Bulgarian footballer, Kostadin Vidolov"
                self._classes(person, last.head, sentence, "also a", conjuncts=False)
            nouns = [n for n in last.children if n.dep_ in ("compound", "nmod")
                     and n.i < person.start and n.is_lower and n.tag_ in ("NN", "NNS") and not _qualified(n)]
            if nouns:
                for noun in nouns:
                    self._classes(person, noun, sentence, "also a")
                continue
            # "father of ... and British-American musician and sitar player Anoushka Shankar": the parser may
            # hang the nouns before the name elsewhere (here as conjuncts of an earlier name); read them off
            # the words, listed classes only, each one a noun right before "and" or the name
            for noun in self._class_run(person.start, sentence.start):
                if _class_name(noun) in listed_classes() and not _qualified(noun):
                    self._classes(person, noun, sentence, "also a", conjuncts=False)
                    self._realm(person, noun, sentence)

    def _realm(self, person: Mention, noun, sentence) -> None:
        """"the Gupta emperor Chandragupta I": a ruler's title with a name before it rules the realm of that
        name, when the passage names it ("the Gupta Empire") and nothing else of that name."""
        if noun.lower_ not in _RULERS:
            return
        for mod in (c for c in noun.children if c.dep_ == "compound" and c.tag_ == "NNP" and c.i == noun.i - 1):
            realms = {m for m in self.mentions.values() if m.type in ("PLACE", "ORG") and m.name.split()[0] == mod.text
                      and len(m.name.split()) == 2 and m.name.split()[1].lower() in _REALMS}
            if len(realms) == 1 and (realm := realms.pop()):
                self.state(person, f"be {noun.lower_} of", replace(realm, text=mod.text, start=mod.i, end=mod.i + 1),
                           sentence)

    def _class_run(self, end: int, start: int) -> list:
        """The head nouns of the words right before token `end`: lower-case nouns, demonyms and "and"."""
        heads, i = [], end - 1
        while i >= start:
            t = self.doc[i]
            m = self.mentions.get(i)
            # (a listed class the tagger took for a verb: "the Swedish chemist and engineer Alfred Nobel")
            if t.is_lower and m is None and (t.tag_ in ("NN", "NNS") or t.lower_ in listed_classes()
                                                 and i > start and self.doc[i - 1].lower_ == "and"):
                if i + 1 == end or self.doc[i + 1].lower_ == "and":
                    heads.append(t)
            elif not (m is not None and m.type == "NORP" or t.tag_ == "HYPH" or t.lower_ == "and" and heads):
                # "his teacher Oskar Heinroth": a relation to someone, not a class
                return [] if t.tag_ in ("PRP$", "POS") else heads
            i -= 1
        return heads

    def _definition(self, sentence) -> None:
        """"X (1928–1999) is/was a [NORP] CLASS[, CLASS and CLASS]": classes, nationality, lifespan."""
        root = sentence.root
        subjects = [m for t in root.children if t.dep_ == "nsubj" for m in self.arguments(t) if m.type == SELF]
        subjects = subjects or self._opening_subject(sentence)
        if not subjects:
            return
        self._lifespan(subjects[0], sentence)
        self._other_names(subjects[0], sentence)
        # "Willem Barentsz, anglicized as William Barents, was a Dutch navigator": the parser's root is
        # the participle, the copula its conjunct
        copula = root if lemma(root) == "be" else None if root.tag_ != "VBN" else next((
            c for c in root.children if c.dep_ == "conj" and lemma(c) == "be"
            and not any(d.dep_ in ("nsubj", "nsubjpass") for d in c.children)), None)
        if copula is not None:
            for attr in (t for t in copula.children if t.dep_ == "attr" and not self.mention(t)):
                head = _class_head(attr)
                if head is None or any(d.lower_ == "the" for d in head.children if d.dep_ == "det"):
                    continue  # "the capital of ..." is a relation (_copula)
                # so is "head of the Catholic Church"; "professor of physics" (a listed occupation) is a class
                if not any(d.dep_ == "det" for d in head.children) and lemma(head) not in vocabulary()["occupations"] \
                        and any(c.dep_ == "prep" and c.lower_ == "of" for c in head.children):
                    continue
                self._classes(subjects[0], head, sentence)

    def _opening_subject(self, sentence) -> list[Mention]:
        """The passage's subject opening a definition whose parse lost it: "Juan Negrín y López (; 3 February
        1892 – 12 November 1956) was a Spanish politician", the subject "López" outside NER's name. Only
        name words, commas and brackets may stand between the name and the copula."""
        m = self.mentions.get(sentence.start)
        subject = next((t for t in sentence.root.children if t.dep_ == "nsubj"), None)
        if m is None or m.type != SELF or lemma(sentence.root) != "be" or subject is None \
                or not m.end <= subject.i < sentence.root.i:  # the parser's subject is one of those words
            return []
        depth = 0
        for t in self.doc[m.end:sentence.root.i]:
            inside = depth > 0 or "(" in t.text
            depth += t.text.count("(") - t.text.count(")")
            if not (inside or t.text == "," or t.tag_ == "NNP" and t.is_title or t.lower_ in _NAME_JOINERS):
                return []
        return [m] if depth == 0 else []

    def _classes(self, subject: Mention, head, sentence, pattern: str = "is a", conjuncts: bool = True) -> None:
        if any(c.dep_ == "cc" and c.lower_ == "or" for c in head.children):
            return  # "a real person or fictional character": alternatives, neither is stated
        for noun in (head, *head.conjuncts, *_list_items(head)) if conjuncts else (head,):
            # "monk, yogi, and guru" (yogi a foreign word), "novelist, screenwriter, academic" (an adjective)
            # (a listed class written before a name may be tagged a verb: "the chemist and engineer Alfred Nobel")
            tags = ("NN", "NNS", "FW") if noun.dep_ == "appos" else ("NN", "NNS", "JJ", "VB", "NNP") if (
                noun.is_lower and noun.lower_ in listed_classes()) else ("NN", "NNS")
            if noun.tag_ not in tags or noun is not head and any(
                    c.dep_ == "det" and c.lower_ == "the" or c.dep_ == "prep" and c.lower_ == "of"
                    for c in noun.children):
                continue  # "a prophet, high priest, and the brother of Moses": a relation
            name = _class_name(noun)
            # "an advocate of freedom of speech" (a stance); "sub" of a "sub-prefecture" the tokenizer cut; a bare
            # "player": no class, though a demonym before it still says a nationality
            if not (self._stance(noun, pattern) or _before_hyphen(noun) or name in vocabulary()["bare_classes"]):
                self.state(subject, pattern, Mention(name, "CLASS", noun.text, noun.i, noun.i + 1), sentence)
            self._modifiers(subject, noun, sentence)

    def _stance(self, noun, pattern: str) -> bool:
        """"an advocate of freedom of speech", "A vocal critic of Benito Mussolini, he": a stance, no occupation
        ("premier of Ontario" is an office)."""
        return any(c.dep_ == "prep" and c.lower_ == "of" and (lemma(noun) in _STANCES or pattern == "also a" and any(
            self.mention(o) for o in c.children if o.dep_ == "pobj") and lemma(noun) not in _OFFICES)
                   for c in noun.children)

    def _modifiers(self, subject: Mention, noun, sentence) -> None:
        """The nationality and the year a class noun's modifiers say of its subject ("a 1960 French film")."""
        # "an American blues guitarist": the demonym may modify the compound before the noun
        compounds = [c for c in noun.children if c.dep_ == "compound" and not self.mention(c)]
        mods = (*noun.children, *(g for c in compounds for g in c.children))
        # "a British Indian poet" (from British India? British, of Indian descent?), "a Swiss German
        # painter": two demonyms side by side say neither nationality for sure
        listed = {o.i for o in mods if o.text in vocabulary()["demonyms"] and self._demonym(o)}
        for mod in mods:
            m = self.mention(mod)
            paired = mod.i in listed and (mod.i - 1 in listed or mod.i + 1 in listed)
            if (n := self._demonym(mod)) and mod.dep_ in ("amod", "compound") and not paired:
                self.state(subject, "nationality", n, sentence)
                # "a British and American actress", "an American-British author"
                for other in (*mod.conjuncts, *(c for c in mod.children if c.dep_ == "amod")):
                    if o := self._demonym(other):
                        self.state(subject, "nationality", o, sentence)
            year = year_value(m.text) if m and m.type == "DATE" else None
            if year and mod.dep_ in ("nummod", "compound", "amod"):
                self.state(subject, "be from", Mention(year, "DATE", m.text, m.start, m.end), sentence)

    def _demonym(self, token) -> Mention | None:
        """A NORP mention, or a listed demonym NER missed beside a hyphen ("a German-American child psychoanalyst")."""
        m = self.mention(token)
        hyphen = any(0 <= j < len(self.doc) and self.doc[j].text == "-" for j in (token.i - 1, token.i + 1))
        if m is None and hyphen and token.text in vocabulary()["demonyms"]:
            return Mention(token.text, "NORP", token.text, token.i, token.i + 1)
        if m is not None and m.type == "LANGUAGE" and m.name in vocabulary()["demonyms"] and token.dep_ == "amod":
            return replace(m, type="NORP")  # "an English recipient": NER may take the demonym for the language
        return m if m is not None and m.type == "NORP" else None

    def _other_names(self, subject: Mention, sentence) -> None:
        """`alias`: the other names a definition gives its subject before saying what it is, in brackets
        ("Avicenna (; also Ibn Sīnā or Abu Ali Sina; ...)", "William Goate (or Goat) VC") or "also known as"."""
        if sentence.root.i <= subject.end:
            return
        phrase = self.doc[subject.end:sentence.root.i].text
        said = [part for bracket in re.findall(r"\(([^()]*)\)", phrase) for part in bracket.split(";")
                if re.match(r"\s*(?:also|or)\s", part)]
        said += re.findall(r"\b(?:also|better|commonly|otherwise) (?:known as|called) ([^,;()]+)", phrase)
        for part in said:
            for name in re.split(r",\s*|\s+or\s+", re.sub(r"^\s*(?:also|or)\s+", "", part).strip()):
                if re.fullmatch(_NAME, name) and name != subject.text:
                    self.state(subject, "alias", Mention(name, "PERSON" if "PERSON" in self.self_types else "ORG",
                                                         name, -1, -1), sentence)

    def _lifespan(self, subject: Mention, sentence) -> None:
        """Years of "(June 3, 1926 – April 5, 1997)", "(born 1951)", "(c. 470 – 399 BC)" right after the subject."""
        after = self.doc[subject.end:sentence.end].text
        match = re.match(r"\s*\(([^()]*)\)", after)
        if match and not (_dated(match.group(0)) or re.search(r"\b(?:born|died|d\.)\s", match.group(1))):
            match = None  # "William Goate (or Goat) VC (12 January 1836 – 24 October 1901)": a name first
        if not match and sentence.root.i > subject.end and "PERSON" in self.self_types:
            # "Jayavarman VII, known posthumously as Mahaparamasaugata (1122–1218), was king" (but "Volgograd,
            # formerly Tsaritsyn (1589–1925)": a place's former name)
            phrase = self.doc[subject.end:sentence.root.i].text
            match = next((m for m in re.finditer(r"\(([^()]*)\)", phrase) if _dated(m.group(0))), None)
        if match:
            self.article.lifespan = self._years(subject, match.group(1), sentence)

    def _passing_lifespans(self, sentence) -> None:
        """A person named in passing after an occupation, or defined by the sentence as a lead defines its
        subject, with a lifespan right after the name: "the French zoologist Étienne Geoffroy Saint-Hilaire
        (1772–1844)" (both years, or "born 1951"). Not without either ("Das Kapital (1867–1894)", a book NER took
        for a person), nor in passing after an office, whose years are a reign or a term ("the caliph Harun
        al-Rashid (786–809)", "the manager Alex Ferguson (1986–2013)")."""
        for m in self._mentions_in(sentence):
            after = self.doc[m.end:sentence.end].text if m.type == "PERSON" else ""
            if not (match := re.match(r"\s*\(([^()]*)\)", after)) or not (_dated(match.group(0)) and _DASH.search(
                    match.group(1)) or re.match(r"\s*born\s", match.group(1))):
                continue
            nouns = [n for n in self._class_run(m.start, sentence.start) if _class_name(n) in listed_classes()]
            if nouns and not any(n.lower_ in _OFFICES for n in nouns) or self._defined(m, sentence):
                self._years(m, match.group(1), sentence)

    def _defined(self, person: Mention, sentence) -> bool:
        """Is the person the subject of the sentence's "was a/an": "Daniel Hiester (1774–1834) was an American
        political leader", a definition inside a chunk that is no article of its own?"""
        root = sentence.root
        return lemma(root) == "be" and any(c.dep_ == "nsubj" and person.start <= c.i < person.end
                                           for c in root.children) and any(
            c.dep_ == "attr" and any(d.dep_ == "det" and d.lower_ in ("a", "an") for d in c.children)
            for c in root.children)

    def _years(self, subject: Mention, inside: str, sentence) -> tuple[str | None, str | None]:
        """`bear in` / `die in` the years in a lifespan's brackets give; (born, died) as values."""
        parts = _DASH.split(inside, maxsplit=1)
        born = died = None  # the year as written ("1926", "399 BC")
        if len(parts) == 2 and _YEAR.search(parts[0]) and _YEAR.search(parts[1]):
            born, died = list(_YEAR.finditer(parts[0]))[-1].group(0), _YEAR.search(parts[1]).group(0)
        elif match := re.search(r"\bborn\b(.*)", inside):
            born = _YEAR.search(match.group(1)).group(0) if _YEAR.search(match.group(1)) else None
        elif match := re.search(r"\b(?:died|d\.)\s(.*)", inside):
            died = _YEAR.search(match.group(1)).group(0) if _YEAR.search(match.group(1)) else None
        born_value, died_value = (year_value(x) if x else None for x in (born, died))
        if born_value and died_value and died_value.endswith("BC") and born_value.isdigit() \
                and int(born_value) >= int(died_value.split()[0]):
            born_value += " BC"  # "470 – 399 BC": both before Christ
        for pattern, text, value in (("bear in", born, born_value), ("die in", died, died_value)):
            if value:
                written = re.sub(r"\s*(BC|BCE|AD|CE)$", "", text.strip())
                self.state(subject, pattern, Mention(value, "DATE", written, -1, -1), sentence)
        return born_value, died_value


def _class_head(noun):
    """The noun a class is named by: "one of the largest cities" -> cities."""
    if noun.lower_ in ("one", "some", "any", "each") and noun.tag_ in ("CD", "NN", "DT"):
        for prep in (c for c in noun.children if c.dep_ == "prep" and c.lower_ == "of"):
            for pobj in (c for c in prep.children if c.dep_ == "pobj"):
                return pobj
        return None
    if noun.lower_ in _COLLECTIVE and any(c.dep_ == "prep" and c.lower_ == "of" for c in noun.children):
        return None  # "a series of military campaigns" is neither a series (a work) nor a campaign
    # ("Gauss was a German mathematician, astronomer, ...": the tagger may take a listed class for an adjective)
    listed = noun.dep_ == "attr" and noun.is_lower and noun.lower_ in listed_classes()
    return noun if noun.tag_ in ("NN", "NNS") or listed else None


def _list_items(head) -> list:
    """Items of a class list the parser did not make conjuncts: "a Hindu monk, yogi, and guru" and "a
    Turkish novelist, screenwriter, academic, and ..." (the second an apposition, the rest its conjuncts),
    "an American financier and investment banker" (financier a modifier of banker)."""
    items = []
    # "a French chemist, pharmacist, and microbiologist renowned for ...": the last class hung on the adjective
    # after it
    for c in (c for c in head.conjuncts if c.tag_ in ("JJ", "VBN") and c.lower_ not in listed_classes()):
        items += [g for g in c.children if g.dep_ == "amod" and g.i == c.i - 1 and g.lower_ in listed_classes()
                  and g.i > 0 and g.doc[g.i - 1].lower_ == "and"]
    for c in head.children:
        if c.is_lower and c.dep_ == "appos" and c.tag_ in ("NN", "NNS", "FW"):
            items += [c, *c.conjuncts]
        elif c.is_lower and c.dep_ in ("nmod", "compound") \
                and (_class_name(c) in vocabulary()["occupations"] or lemma(c) in vocabulary()["occupations"]) \
                and any(g.dep_ == "cc" and g.lower_ == "and" for g in c.children):
            items.append(c)
    return items


# adjectives before a class that leave it the class ("the late poet X"); another makes a different one
# ("Technical director Velimir Zajec" is no film director)
_PLAIN_ADJECTIVES = frozenset("""former late famous noted renowned celebrated acclaimed prominent leading great
well-known influential young fellow legendary veteran retired future then prolific distinguished""".split())


def _qualified(noun) -> bool:
    return any(c.dep_ == "amod" and c.tag_ == "JJ" and c.lower_ not in _PLAIN_ADJECTIVES
               and c.ent_type_ not in ("NORP", "DATE", "ORDINAL") for c in noun.children)


def _class_name(noun) -> str:
    """A class noun with the compound noun before it ("film director", "rock band"), or the adjective
    before it when the two are a listed class ("civil servant", "prime minister"), singular; a word the tokenizer
    cut at a hyphen whole ("singer-songwriter", "sub-prefecture")."""
    doc, i = noun.doc, noun.i
    if i >= 2 and doc[i - 1].text == "-" and not doc[i - 1].whitespace_ and not doc[i - 2].whitespace_:
        return f"{doc[i - 2].lower_}-{lemma(noun)}"
    words = [lemma(noun)]
    before = [c for c in noun.children if c.i == noun.i - 1 and (
        c.dep_ == "compound" and c.tag_ in ("NN", "NNS")
        or c.dep_ in ("amod", "compound") and f"{c.lower_} {words[0]}" in listed_classes())]
    if not before and words[0] in vocabulary()["bare_classes"] and noun.i > 0:
        # "a music composer and santoor player": the parser may hang the word before elsewhere
        prev = noun.doc[noun.i - 1]
        before = [prev] if prev.is_lower and prev.is_alpha and prev.tag_ == "NN" else []  # not "a key player"
    if before:
        words.insert(0, before[0].lower_)
    return " ".join(words)


def _before_hyphen(token) -> bool:
    """Is the token a hyphen, or the first part of a word the tokenizer cut at one ("sub" of "sub-prefecture"; the
    last part stays the class: "singer-songwriter", "co-founder")?"""
    doc = token.doc
    return token.text == "-" or token.whitespace_ == "" and token.i + 1 < len(doc) and doc[token.i + 1].text == "-"

