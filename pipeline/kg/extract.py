"""The built-in extractor: facts stated in the passage text, for any corpus of Wikipedia-like passages.

Each passage is read on its own (`reading.py`: spaCy entities and dependency parse, cached by the
passage's hash in `cache.py`); this module turns the readings of the whole corpus into facts:

- articles: passages with the same title (given, or recovered from a ComLQ/DPR-style text, also
  where a chunk runs into the next article's lead) are one article, one node, unless their leads
  give other lifespans (two Esma Sultans: a node each, labelled with the years); a name in any
  passage that is an article's title, or the full name, surname or alias ("also Ibn Sīnā") its own
  passages call it by (when no other article claims it), is that article;
- one entity, one node: names equal after the corpus check's normalisation (`complete.tokens`:
  accents, "Southeastern" = "Southeast", plural -s) are one node, the article's when exactly one
  article has that name, else the most frequent spelling's; not when a passage writes both
  spellings (it tells them apart), when they differ in a one-word direction ("South Africa" is
  not "Southern Africa"), when one has accents and the other none ("San José", Costa Rica, is not
  "San Jose", California), when one is capitalised and the other not ("mirror" is no film), for
  the plural of an event ("Punic Wars" is a series) or of one word ("Odes" are a work, "Ode" a
  form; "republics" are not Plato's "Republic"), for a person ("Williams" is not "William"), or
  for a capitalised word spelt the British and the American way ("Labor Party" is not "Labour Party").
  A person name that opens a person article's own passage and holds every word of its title, an
  initial standing for a word ("Bhimrao Ramji Ambedkar" in "B. R. Ambedkar"), is that article;
- relations: statement patterns map to relations through `vocabulary.yaml` (`relations`), which
  merges synonyms ("located in", "situated in", "lies in") and reads some patterns backwards
  ("X is home to Y"); a fact is kept only when both ends have the types the relation declares
  (a node's type: its class, else the types NER gave its mentions, else the description), and
  a relation only when the corpus states it at least `min_facts` times;
- classes from the definitional sentence, in American spelling (`classes.yaml`): `occupation` for
  people, `instance_of` for the rest (never for a value: "Russian is an East Slavic language" says
  nothing of the nationality), `nationality` from its demonym (not for what its class says is no
  person: "Thoth is an ancient Egyptian deity"); years become `..._century` / `..._decade` values;
- `mentions`: a sentence about an article that names another article by its title (a weak link,
  not sampled by default).

The Wikidata short description, when a passage has one, only types its article (a description
naming an occupation makes it a person); no fact comes from it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Container, Iterator
from dataclasses import dataclass
from functools import cache

from pipeline.kg.cache import ReadingCache, read_passages
from pipeline.kg.facts import Evidence, Extraction, Fact
from pipeline.kg.index import tokens
from pipeline.kg.lexicon import CLASS_LISTS, classes, reads_like_person, spelled, vocabulary
from pipeline.kg.mentions import SELF, bare_title
from pipeline.kg.reading import Statement
from pipeline.records import Passage

CLASS_RELATIONS = {"PERSON": "occupation"}  # the class relation of a type; every other type: instance_of
# "South Africa" (a country) and "Southern Africa" (a region) are two places: names differing in one
# of these words are not merged, though the corpus check reads them alike
_CARDINAL = frozenset("north south east west northern southern eastern western".split())
_NAMED = ("PERSON", "PLACE", "ORG", "WORK", "EVENT", "LANGUAGE")  # mention kinds that name an entity
# classes whose name follows a place's own ("Henan Province", "Ararat Province"): the same place
_NAMED_BY_CLASS = frozenset({"province", "prefecture", "governorate", "oblast", "voivodeship"})


@dataclass(frozen=True)
class RelationSpec:
    name: str
    subject: frozenset[str]  # allowed node types
    object: frozenset[str]
    patterns: tuple[tuple[str, ...], ...]  # read subject -> object; "*" any word, "PLACE" a place class
    reverse: tuple[tuple[str, ...], ...]  # read object -> subject ("be home to")
    value: str | None  # for years: century | decade


@cache
def relation_specs() -> tuple[RelationSpec, ...]:
    specs = []
    for name, spec in vocabulary()["relations"].items():
        specs.append(RelationSpec(spec.get("relation", name), frozenset(spec["subject"]), frozenset(spec["object"]),
                                  tuple(tuple(p.split()) for p in spec.get("patterns", ())),
                                  tuple(tuple(p.split()) for p in spec.get("reverse", ())), spec.get("value")))
    return tuple(specs)


def century(year: int, bc: bool) -> str:
    n = (year - 1) // 100 + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix} century" + (" BC" if bc else "")


def date_value(value: str, kind: str) -> str | None:
    """A reading's year ("1926", "470 BC", "1850s", "19th century") as a century or a decade."""
    if match := re.fullmatch(r"(\d+)( BC)?", value):
        year, bc = int(match.group(1)), bool(match.group(2))
        if kind == "century":
            return century(year, bc) if year > 0 else None
        return f"{year // 10 * 10}s" if not bc and year >= 100 else None
    if match := re.fullmatch(r"(\d+)0s", value):
        return century(int(match.group(1)) * 10 + 1, False) if kind == "century" else value
    if match := re.fullmatch(r"(\d+)th century( BC)?", value):
        return century(int(match.group(1)) * 100, bool(match.group(2))) if kind == "century" else None
    return None


def _matches(pattern: tuple[str, ...], words: tuple[str, ...], places: frozenset[str]) -> bool:
    return len(pattern) == len(words) and all(
        p == w or p == "*" or (p == "PLACE" and w in places) for p, w in zip(pattern, words))


def _longest_suffix(phrase: str, words: Container[str]) -> str | None:
    """The longest of `words` that ends `phrase` on a word boundary ("film director" -> "film director")."""
    parts = phrase.split()
    return next((" ".join(parts[i:]) for i in range(len(parts)) if " ".join(parts[i:]) in words), None)


class _Corpus:
    def __init__(self, passages: dict[str, Passage], readings: dict[str, dict]):
        vocab = vocabulary()
        self.passages, self.readings = passages, readings
        self.places = frozenset(vocab["place_classes"])
        self.class_types: dict[str, str] = {}
        for kind, key in CLASS_LISTS:
            for word in vocab[key]:
                self.class_types.setdefault(word, kind)
        self.ignored_classes = frozenset(vocab["ignored_classes"])
        self.demonyms = frozenset(vocab["demonyms"])
        self.labels: dict[str, str] = {}
        self.types: dict[str, str] = {}
        self.spelling: dict[str, str] = {}  # a name -> the name of its entity node, when another spelling
        self.shared_titles: dict[str, int] = {}  # title -> passages read as its one article, when several
        self._articles()
        self._same_names()

    # nodes --------------------------------------------------------------------------------
    def _articles(self) -> None:
        """Article nodes by title, and the names (titles, aliases) that link to them."""
        by_bare, ambiguous = self._article_nodes()
        aliases: dict[str, set[str]] = defaultdict(set)
        said: set[str] = set()  # the other names leads give ("also known as LBJ")
        for pid, reading in self.readings.items():
            for st in map(Statement._make, reading["statements"]):
                if st.subject_type == SELF and (node := self.self_nodes.get((pid, st.subject))):
                    aliases[st.subject_text].add(node)
                    if st.pattern == "alias":
                        # not a part of the title: "Washington" of Washington, D.C. is as much the state's
                        if not re.search(rf"(?<!\w){re.escape(st.object)}(?!\w)", st.subject):
                            aliases[st.object].add(node)
                            said.add(st.object)
                    elif st.pattern == "is a" and st.object in _NAMED_BY_CLASS:  # "Henan is a province"
                        aliases[f"{bare_title(st.subject)} {st.object.title()}"].add(node)  # is Henan Province
        self.titles = frozenset(by_bare)  # a one-word person name links only as a title ("Plato")
        self.link: dict[str, str] = {}
        for alias, nodes in aliases.items():
            if len(nodes) == 1 and alias not in by_bare:
                self.link[alias] = next(iter(nodes))
        self.other_names = frozenset(self.link) & said  # what NER takes these for is no vote ("LBJ" an ORG)
        for name, nodes in by_bare.items():
            exact = [n for n in nodes if n == f"article:{name}"]
            if name not in ambiguous and (len(nodes) == 1 or exact):
                self.link[name] = exact[0] if exact else next(iter(nodes))

    def _article_nodes(self) -> tuple[dict[str, set[str]], set[str]]:
        """A node per article the passages hold: per title, or per title and lifespan when the leads of
        one title give other years (two Esma Sultans are two people). Returns the nodes of each bare
        title, and the bare titles that name more than one person so."""
        self.article_of: dict[str, str] = {}  # passage id -> the node of the article it opens with
        self.self_nodes: dict[tuple[str, str], str] = {}  # (passage id, title) -> node of each article it holds
        by_bare: dict[str, set[str]] = defaultdict(set)
        ambiguous: set[str] = set()
        for title, held in sorted(self._held_articles().items()):
            lifespans = {tuple(a["lifespan"]) for _, a in held if any(a["lifespan"])}
            if len(lifespans) > 1:
                ambiguous.add(bare_title(title))
            for pid, article in held:
                years = f" ({_years(article['lifespan'])})" if len(lifespans) > 1 and any(article["lifespan"]) else ""
                node = f"article:{title}{years}"
                self.self_nodes[(pid, title)] = node
                if title == self.readings[pid]["title"]:
                    self.article_of[pid] = node
                self.labels[node] = bare_title(title) + years
                by_bare[bare_title(title)].add(node)
                if not years:
                    self.shared_titles[title] = self.shared_titles.get(title, 0) + 1
        self.shared_titles = {title: n for title, n in self.shared_titles.items() if n > 1}
        return by_bare, ambiguous

    def _held_articles(self) -> dict[str, list[tuple[str, dict]]]:
        """title -> (passage id, article) of each article the passages hold (`reading.py`'s `articles`)."""
        held: dict[str, list[tuple[str, dict]]] = defaultdict(list)
        for pid in sorted(self.readings):
            for article in self.readings[pid]["articles"]:
                held[article["title"]].append((pid, article))
        return held

    def _same_names(self) -> None:
        """Link the spellings of one entity to one node (the module's docstring says when)."""
        counts: Counter[str] = Counter()
        kinds: dict[str, set[str]] = defaultdict(set)
        named_in: dict[str, set[str]] = defaultdict(set)  # name -> passages whose statements name it
        for pid, reading in self.readings.items():
            for st in map(Statement._make, reading["statements"]):
                for name, kind in ((st.subject, st.subject_type), (st.object, st.object_type)):
                    if kind in _NAMED:
                        counts[name] += 1
                        kinds[name].add(kind)
                        named_in[name].add(pid)
        groups: dict[tuple[str, ...], set[str]] = defaultdict(set)
        for name in set(counts) | self.titles:
            groups[tuple(tokens(name))].add(name)
        for names in groups.values():
            if len(names) < 2:
                continue
            articles = {self.link[n] for n in names & self.titles if n in self.link}
            if names & self.titles and len(articles) != 1:
                continue  # two articles of one name ("Casablanca", "Casablanca (film)"): ambiguous
            main = self.labels[next(iter(articles))] if articles else min(
                names, key=lambda n: (not n[:1].isupper(), -counts[n], n))  # a capitalised name first
            for name in sorted(names - {main} - self.titles - set(self.link)):
                texts = [self.passages[pid].text for pid in sorted(named_in[name] | named_in[main])]
                if _apart(name, main, kinds[name] | kinds[main], texts):
                    continue
                if articles:
                    self.link[name] = next(iter(articles))
                else:
                    self.spelling[name] = main

    def _person_names(self) -> None:
        """Link the full name a person article's own passage opens with, when NER read it as a
        PERSON and the reader did not take it for the title ("Bhimrao Ramji Ambedkar", "B. R. Ambedkar")."""
        found: dict[str, set[str]] = defaultdict(set)
        for pid, article in self.article_of.items():
            if self.types.get(article, "PERSON") != "PERSON":  # untyped: nothing but this name says what it is
                continue
            reading, text = self.readings[pid], self.passages[pid].text
            for st in map(Statement._make, reading["statements"]):
                name = st.subject
                if st.subject_type != "PERSON" or name in self.link or not _holds(name, self.labels[article]):
                    continue
                sentence = reading["sentences"][st.sentence]
                opening = text[:text.find(sentence)].strip() in ("", reading["title"])
                if opening and sentence.startswith(st.subject_text):  # the name the passage is about
                    found[name].add(article)
        self.link.update({name: next(iter(nodes)) for name, nodes in found.items() if len(nodes) == 1})

    def node(self, pid: str, name: str, kind: str) -> str | None:
        """The node a mention names; None for a bare given name ("John"), which names no one
        person: two Johns of two passages would be one node."""
        if kind == SELF:
            return self.self_nodes.get((pid, name))
        if kind == "CLASS":
            return self._value("class", name)
        if kind == "PERSON" and " " not in name and name not in self.titles:
            return None
        if name in self.link:
            return self.link[name]
        if kind == "NORP":
            return self._value("nationality", name)
        name = self.spelling.get(name, name)
        node = f"entity:{name}"
        self.labels.setdefault(node, name)
        return node

    def _value(self, kind: str, text: str) -> str:
        node = f"value:{kind}:{text}"
        self.labels[node] = text
        return node

    def _types(self) -> dict[str, str]:
        """Every node's type: its class's type, else a vote of what its statements say it is
        (NER types of its mentions, a lifespan for a person, "is the capital of"
        for a place), and of what its description's head noun names (an occupation: a person)."""
        votes: dict[str, Counter] = defaultdict(Counter)
        lifespans: Counter[str] = Counter()  # see _lifespan_or_thing
        things: set[str] = set()
        for pid, reading in self.readings.items():
            for st in map(Statement._make, reading["statements"]):
                for name, kind in ((st.subject, st.subject_type), (st.object, st.object_type)):
                    if kind not in (SELF, "CLASS", "NORP", "DATE") and st.pattern != "alias" \
                            and name not in self.other_names and (node := self.node(pid, name, kind)):
                        votes[node][kind] += 1
                if st.subject_type == SELF and (article := self.node(pid, st.subject, SELF)):
                    for kind, weight in self._says_of_subject(st):
                        votes[article][kind] += weight
                    self._lifespan_or_thing(st, article, lifespans, things)
            for held in reading["articles"]:
                article = self.self_nodes[(pid, held["title"])]
                for kind in held["self_types"]:
                    votes[article][kind] += 1
            if (article := self.article_of.get(pid)) and self._described_as_person(self.passages[pid].description):
                votes[article]["PERSON"] += 2
        for article, weight in lifespans.items():
            votes[article]["PERSON"] += weight
        for article in things:  # what its class says is no person is none ("Thoth is an ancient Egyptian deity")
            votes[article].pop("PERSON", None)
        return {node: counter.most_common(1)[0][0] for node, counter in votes.items() if counter}

    def _lifespan_or_thing(self, st: Statement, article: str, lifespans: Counter[str], things: set[str]) -> None:
        """Count a lifespan (not a verb: "Neoclassicism ... was born in Rome" makes no person), or note a listed
        class of no person (then a lifespan is none: "The Carolingian Empire (800–887) was ... an empire")."""
        if st.pattern in ("bear in", "die in") and st.object_type == "DATE":
            lifespans[article] += 3
        elif st.pattern == "is a" and self.class_types.get(self._class(st.object) or "") == "OTHER":
            things.add(article)

    def _says_of_subject(self, st: Statement) -> Iterator[tuple[str, int]]:
        if st.pattern == "is a":
            kind = self.class_types.get(self._class(st.object) or "")
            if kind and kind != "OTHER":
                yield kind, 1000  # the class decides
        # (a lifespan is counted in `_types`; a demonym makes no person: "a large Mexican altepetl", "a Swedish
        # pop group", "the Sasanian Empire")
        elif (words := st.pattern.split())[0] == "be" and len(words) == 3 and self.class_types.get(words[1]) == "PLACE":
            yield "PLACE", 3  # "X is the capital and largest city of Y": X is a place

    def _described_as_person(self, description: str | None) -> bool:
        if not description:
            return False
        head = re.split(r"\s*[(;,]|\s+(?:of|in|by|from)\s", description)[0].lower()
        cls = _longest_suffix(head, self.class_types)
        return cls is not None and self.class_types[cls] == "PERSON"

    def _class(self, phrase: str) -> str | None:
        """A class phrase as a class, in American spelling ("draughtsman" is a draftsman): its longest
        listed suffix, else its head noun; a bare class with the word before it ("santoor player")."""
        phrase = spelled(phrase)
        cls = _longest_suffix(phrase, self.class_types) or phrase.split()[-1]
        if cls in vocabulary()["bare_classes"]:  # "santoor player", not "player"; alone it is no class
            if " " not in phrase:
                return None
            cls = " ".join(phrase.split()[-2:])
        if cls in self.ignored_classes or not re.fullmatch(r"[a-z]+(?:[- ][a-z]+)*", cls):
            return None
        return cls

    # facts --------------------------------------------------------------------------------
    def build(self, min_facts: int) -> Extraction:
        self.types = self._types()
        self._person_names()
        self.types = self._types()  # with the linked names' votes
        candidates: dict[str, list[tuple[str, str, Evidence]]] = defaultdict(list)
        for pid in sorted(self.readings):
            reading = self.readings[pid]
            for st in map(Statement._make, reading["statements"]):
                if st.subject_type == SELF and (pid, st.subject) not in self.self_nodes:
                    continue
                evidence = Evidence(pid, reading["sentences"][st.sentence], st.subject_text, st.object_text)
                for relation, s, o, ev in self._facts(pid, st, evidence):
                    if s != o:
                        candidates[relation].append((s, o, ev))
        found: dict[tuple[str, str, str], list[Evidence]] = defaultdict(list)
        for relation, facts in candidates.items():  # a relation the corpus states rarely is left out
            if len({(s, o) for s, o, _ in facts}) >= min_facts or relation == "mentions":
                for s, o, evidence in facts:
                    found[(s, relation, o)].append(evidence)
        facts = [Fact(s, r, o, tuple(sorted({e.passage for e in ev})), tuple(dict.fromkeys(ev)))
                 for (s, r, o), ev in sorted(found.items())]
        used = {n for f in facts for n in (f.subject, f.object)}
        topics: dict[str, str] = {}
        for (pid, _), node in sorted(self.self_nodes.items()):
            if self.passages[pid].topic and node in used:
                topics.setdefault(node, self.passages[pid].topic)
        return Extraction(facts, {n: self.labels[n] for n in sorted(used)}, topics, self.shared_titles)

    def _facts(self, pid: str, st: Statement, evidence: Evidence) -> Iterator[tuple[str, str, str, Evidence]]:
        """(relation, subject node, object node, evidence) of what a statement states."""
        s = self.node(pid, st.subject, st.subject_type)
        if s is None:
            return
        if st.pattern in ("is a", "also a"):
            cls = self._class(st.object)
            relation = CLASS_RELATIONS.get(self.types.get(s, ""), "instance_of")
            # a value is no entity: "Russian is an East Slavic language" says nothing of the nationality
            if cls and not s.startswith("value:") and (st.pattern == "is a" or cls in self.class_types) \
                    and self._fits(relation, cls):
                yield relation, s, self._value("class", cls), evidence
        elif st.pattern == "nationality" and self.types.get(s) == "PERSON":
            # "a Bahamian-American actor": each listed part ("Anglo-Irish" is one); "a Gandhian Indian
            # activist": the last word (not "Roman" of "an American Roman Catholic priest")
            parts = [st.object] if st.object in self.demonyms else st.object.split(" ")[-1].split("-")
            for demonym in (p for p in parts if p in self.demonyms):
                yield "nationality", s, self._value("nationality", demonym), evidence
        elif st.pattern == "mention":
            o = self.link.get(st.object)
            if o and st.object == self.labels[o]:  # the exact title, not an alias
                yield "mentions", s, o, evidence
        else:
            yield from self._relations(pid, s, st, evidence)

    def _fits(self, relation: str, cls: str) -> bool:
        """A person's class is an occupation, listed or reading like one ("occultist"); no one
        else's class is an occupation ("Ancestral Puebloans ... were an ancient culture")."""
        if relation == "occupation":
            head = cls.rpartition(" ")[2]  # ("communications expert": an expert)
            bare = head in vocabulary()["bare_classes"] and self.class_types.get(head) == "PERSON"
            listed = self.class_types.get(cls)
            return listed == "PERSON" or listed is None and (reads_like_person(cls) or bare)
        return self.class_types.get(cls) != "PERSON"

    def _relations(self, pid: str, s: str, st: Statement,
                   evidence: Evidence) -> Iterator[tuple[str, str, str, Evidence]]:
        """The vocabulary's relations a pattern states, where both ends have the declared types."""
        words = tuple(st.pattern.split())
        for spec in relation_specs():
            if any(_matches(p, words, self.places) for p in spec.patterns):
                subject, (name, kind), ev = s, (st.object, st.object_type), evidence
            elif any(_matches(p, words, self.places) for p in spec.reverse) and st.object_type != "DATE":
                subject, (name, kind) = self.node(pid, st.object, st.object_type), (st.subject, st.subject_type)
                if subject is None:
                    continue
                ev = Evidence(pid, evidence.sentence, evidence.object_mention, evidence.subject_mention)
            else:
                continue
            if self.types.get(subject) not in spec.subject or (kind == "DATE") != bool(spec.value):
                continue
            if spec.value:
                if value := date_value(name, spec.value):
                    yield spec.name, subject, self._value(spec.value, value), ev
            elif self.types.get(o := self.node(pid, name, kind)) in spec.object:
                yield spec.name, subject, o, ev


def _apart(name: str, main: str, kinds: set[str], texts: list[str]) -> bool:
    """May two spellings equal after `tokens` name two entities (the module's docstring says when)?"""
    plural = len(name) != len(main)  # (or "-ern"; accents are caught before)
    return ("PERSON" in kinds or _cardinals(name) != _cardinals(main) or name.isascii() != main.isascii()
            or name[:1].isupper() != main[:1].isupper()  # a common noun is no title: "mirror", "Mirror"
            or _respelled(name, main)  # "Labor Party" (Australia) is not "Labour Party" (Britain)
            or plural and ("EVENT" in kinds or " " not in name)  # "Punic Wars", "Odes", "republics"
            or any(_names(text, name) and _names(text, main) for text in texts))  # a text writing both


def _respelled(name: str, main: str) -> bool:
    """Do the names differ in a capitalised word spelt the British and the American way? A spelling
    merges common words ("theatre"), never a proper name's."""
    spellings = classes()["spellings"]
    return any(a.lower() != b.lower() and a[:1].isupper()
               and spellings.get(a.lower(), a.lower()) == spellings.get(b.lower(), b.lower())
               for a, b in zip(name.split(), main.split()))


def _years(lifespan: list) -> str:
    """"1778–1848", "born 1778", "died 1848": what tells apart two people of one name."""
    born, died = lifespan
    return f"{born}–{died}" if born and died else f"born {born}" if born else f"died {died}"


def _cardinals(name: str) -> list[str]:
    return [w for w in re.findall(r"\w+", name.lower()) if w in _CARDINAL]


def _names(text: str, name: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def _holds(name: str, title: str) -> bool:
    """Does a name hold every word of a title in order, an initial ("B.") standing for a word ("Bhimrao")?"""
    words = iter(name.split())
    wanted = title.split()
    return len(wanted) >= 2 and all(
        any(w == x or (re.fullmatch(r"[A-Z]\.", w) is not None and x[0] == w[0] and len(x) > 2) for x in words)
        for w in wanted)


def extract(passages: dict[str, Passage], cache: ReadingCache | None = None, min_facts: int = 3,
            processes: int = 1) -> Extraction:
    """All facts the passages' text states (deterministic: sorted by subject, relation, object)."""
    readings = read_passages(list(passages.values()), cache or ReadingCache(), processes=processes)
    return _Corpus(passages, readings).build(min_facts)
