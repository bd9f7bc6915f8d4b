"""Where the corpus text names each node: an index of every sentence's words, and how the graph's
evidence words each relation.

The corpus check (`complete.py`) asks this index which sentences name an entity and which may state a
relation, so that no sentence is missed (unlike a top-k search). Names of an entity are its label,
every way an evidence sentence names it and, for a century or a decade, its years; names are matched
on normalised words (no accents, "Southeastern" = "Southeast", no plural -s), a proper name only where
it is written with its capital. Cue words of a relation are the few words (prepositions included,
capitalised words not) that stand between the two mentions of nearly every one of its evidence
sentences; a relation without such words has none, and every sentence naming the anchor is read. A
passage's entity is its own node, else the node of its title, else the node its statements name that
shares a word with its title.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter, defaultdict
from functools import cache

from pipeline.kg.graph import KnowledgeGraph
from pipeline.kg.lexicon import (
    class_lexicon,
    listed_classes,
    narrower,
    person_classes,
    reads_like_person,
    vocabulary,
)
from pipeline.kg.mentions import bare_title, title_and_body
from pipeline.kg.words import (
    _DIRECTIONS,
    _STOP,
    CUE_COVER,
    _content,
    _cues,
    _date_names,
    _gap,
    _is_class,
    _normal,
    _Shape,
    _shape,
    sentences,
    tokens,
)
from pipeline.records import Passage

MIN_ORDERED = 3  # statements a relation needs before the order of its mentions is read as its direction


_HE_SHE = frozenset({("he",), ("she",)})


_MONTHS = frozenset(("january", "february", "march", "april", "may", "june", "july", "august", "september",
                     "october", "november", "december"))


_COPULAS = frozenset(map(_normal, "is are was were be been being became become becomes remained as".split()))


@cache
def _not_names() -> frozenset[tuple[str, ...]]:
    """Capitalised runs that name no entity a set could hold: months and listed demonyms ("In July", "German")."""
    return frozenset({(m,) for m in _MONTHS} | {tuple(tokens(d)) for d in vocabulary()["demonyms"]})


class CorpusIndex:
    """Where the corpus's sentences name each node of the graph, and how the graph's evidence words each relation."""

    def __init__(self, kg: KnowledgeGraph, passages: dict[str, Passage]):
        self.kg, self.passages = kg, passages
        self.sentences: list[tuple[str, tuple[str, ...]]] = []  # (passage id, the sentence's tokens)
        self.shapes: list[_Shape | None] = []  # per sentence, which tokens are capitalised / joined to the previous
        self.lowered: set[str] = set()  # tokens written in lower case somewhere: common words, not name parts
        self.postings: dict[str, set[int]] = defaultdict(set)  # token -> sentences
        self.by_passage: dict[str, list[int]] = defaultdict(list)
        self._index(passages)
        self.names: dict[str, set[tuple[str, ...]]] = defaultdict(set)  # node -> its names, as token tuples
        self._cases: dict[tuple[str, ...], set[bool]] = defaultdict(set)  # name -> written with a capital?
        stated = self._read_statements(kg)  # passage -> the subjects of its statements
        for node, label in kg.labels.items():
            name = tuple(tokens(label))
            if _is_class(label):  # a class is named by its whole phrase: "designer" alone is no "fashion designer"
                self.names[node] = {n for n in self.names[node] if n[-len(name):] == name}
            self.names[node].add(name)
            self._cases[name].add(label[:1].isupper())
            self.names[node] |= _date_names(label)
        # names only ever written with a capital: in lower case they are other words ("a strong critic" is
        # no William Duncan Strong)
        self.proper = frozenset(n for n, cases in self._cases.items() if cases == {True})
        # the entity a passage is about: the passage's own node, else the node labelled with its title, else
        # the node sharing a word with the title that its statements name most ("Lewis" in "Carl Lewis")
        by_label = {label: node for node, label in sorted(kg.labels.items(), reverse=True)}
        # (a DPR/ComLQ chunk's title is the one its text opens with, as the reader recovers it)
        titled = {pid: title_and_body(p.title, p.text) for pid, p in passages.items()}
        self.titles = {pid: bare_title(t.title) for pid, t in titled.items()}
        # the articles that start inside a chunk ("... England. William Goate William Goate (or Goat) VC ...")
        self.held = {pid: nodes for pid, t in titled.items()
                     if (nodes := tuple(n for _, title in t.articles if (n := by_label.get(bare_title(title)))))}
        self.entity_of = {pid: pid if pid in kg.labels else by_label.get(self.titles[pid])
                          or _titled(self.titles[pid], stated[pid], kg) or pid for pid in passages}
        self.passages_of: dict[str, list[str]] = defaultdict(list)
        self.stated_in: dict[str, list[str]] = defaultdict(list)
        for pid, entity in sorted(self.entity_of.items()):
            self.passages_of[entity].append(pid)
        # an entity without a passage of its own is read in the passages whose statements name it as subject
        for pid, named in sorted(stated.items()):
            for node in named:
                if node not in self.passages_of and pid in passages:
                    self.stated_in[node].append(pid)
        self.with_passage = frozenset(self.passages_of)
        self.entity_at = [self.entity_of[pid] for pid, _ in self.sentences]  # per sentence: its passage's entity
        # every node's names: the one-word ones, and the lengths of the longer ones each first two words begin
        # (see `_named_in`; by two words, since "the" alone begins names of ten lengths)
        self.all_names = frozenset(n for names in self.names.values() for n in names if n)
        self._one_word = frozenset(n[0] for n in self.all_names if len(n) == 1)
        lengths: dict[tuple[str, ...], set[int]] = defaultdict(set)
        for name in self.all_names:
            if len(name) > 1:
                lengths[name[:2]].add(len(name))
        self._lengths = {head: tuple(sorted(ns)) for head, ns in lengths.items()}
        self._heads = frozenset(head[0] for head in self._lengths)  # the first words of the longer names
        # caches that do not depend on use_classes (shared with CorpusCheck.without_classes())
        self._mentioned: dict[int, tuple[tuple[int, tuple[str, ...]], ...]] = {}  # see _named_in
        self._occurrences: dict[tuple[str, ...], dict[int, list[int]]] = {}  # see _occurring
        self._cued_in: dict[str, frozenset[int]] = {}  # relation -> the sentences using one of its cue words
        self._words: list[str] = []  # the corpus's words, sorted (those beginning with a cue stand together)
        self._name_parts: frozenset[tuple[str, ...]] = frozenset()  # see _unknown_names
        self._by_name: dict[tuple[str, ...], frozenset[str]] = {}  # see _nodes_named
        self._sentences_of: dict[str, frozenset[int]] = {}  # see _read_for
        self._class_phrases: frozenset[str] = frozenset()  # see _class_words
        self._person_nodes: frozenset[str] = frozenset()  # see _people
        self._person_phrases: frozenset[tuple[str, ...]] = frozenset()  # see person_classes_in
        self._person_subjects: frozenset[str] | None = None  # see _persons
        # caches that depend on use_classes
        self._names_of: dict[str, frozenset[tuple[str, ...]]] = {}  # node -> _all_names
        self._named: dict[str, dict[int, list[int]]] = {}  # node -> sentence -> where it names the node
        self._at: dict[tuple[int, str], list[int]] = {}  # see _where
        self.use_classes = True  # a class is named by its narrower classes too (classes.yaml)

    def _index(self, passages: dict[str, Passage]) -> None:
        """Every sentence of the corpus: its tokens, how it writes them, and an index of its words."""
        for pid in sorted(passages):
            for sentence in sentences(passages[pid].text):
                words = tuple(tokens(sentence))
                index = len(self.sentences)
                self.sentences.append((pid, words))
                shape = _shape(sentence, len(words))
                self.shapes.append(shape)
                if shape:
                    self.lowered |= {w for w, cap in zip(words, shape.capital, strict=True) if not cap}
                self.by_passage[pid].append(index)
                for word in set(words):
                    self.postings[word].add(index)

    def _read_statements(self, kg: KnowledgeGraph) -> dict[str, Counter[str]]:
        """How the graph's evidence words each relation (names, cues, direction, copula); returns the
        subjects each passage's statements name."""
        gaps: dict[str, list[frozenset[str]]] = defaultdict(list)  # relation -> words between, per statement
        order: dict[str, Counter[bool]] = defaultdict(Counter)  # relation -> subject named first?, per statement
        copular: dict[str, Counter[bool]] = defaultdict(Counter)  # relation -> a copula between?, per statement
        stated: dict[str, Counter[str]] = defaultdict(Counter)
        for (s, relation, o), evidence in kg.evidence.items():
            for e in evidence:
                stated[e.passage][s] += 1
                for node, mention in ((s, e.subject_mention), (o, e.object_mention)):
                    self.names[node].add(name := tuple(tokens(mention)))
                    self._cases[name].add(mention[:1].isupper())
                words = _gap(e.sentence, e.subject_mention, e.object_mention)
                if words is not None:  # a gap not read (mentions far apart or not found) says nothing of cues
                    gaps[relation].append(frozenset(_content(words)))
                    copular[relation][bool(_COPULAS & set(tokens(" ".join(words))))] += 1
                i, j = e.sentence.find(e.subject_mention), e.sentence.find(e.object_mention)
                if 0 <= i != j >= 0:
                    order[relation][i < j] += 1
        self.cues = {r: _cues(statements) for r, statements in gaps.items()}
        # a relation whose statements name the subject first (or last) nearly always is read that way only:
        # "Aleppo is a city in northern Syria" says Aleppo lies in Syria, not Syria in Aleppo
        self.direction = {r: (1 if c[True] >= CUE_COVER * total else -1 if c[False] >= CUE_COVER * total else 0)
                          for r, c in order.items() if (total := c.total()) >= MIN_ORDERED}
        # a class relation stated by a copula ("X is a Y", "served as Y") nearly always is read that way only:
        # "Blues has incorporated work songs" and "a style of painting" say no class of their subject
        self.copular = frozenset(r for r, c in copular.items() if c.total() >= MIN_ORDERED and c[True] >= CUE_COVER
                                 * c.total() and _classes_share(kg, r) >= CUE_COVER)
        return stated

    def _naming(self, node: str) -> dict[int, list[int]]:
        """The sentences that name the node (all tokens of one of its names, in a row), each with the token
        positions where it does (`_where`)."""
        if node not in self._named:
            self._named[node] = self._find_naming(node)
        return self._named[node]

    def _all_names(self, node: str) -> frozenset[tuple[str, ...]]:
        """The node's names; a class is named by its narrower classes too: "a Swedish chemist" may be a
        member of "Swedish scientists". Cached: asked for every sentence read."""
        if node not in self._names_of:
            label = self.kg.labels.get(node, "")
            wider = {tuple(tokens(c)) for c in narrower(label)} if self.use_classes and label.islower() else set()
            self._names_of[node] = frozenset(n for n in self.names.get(node, set()) | wider if n)
        return self._names_of[node]

    def _find_naming(self, node: str) -> dict[int, list[int]]:
        names = self._all_names(node)
        if len(names) == 1:  # one name: its occurrences as they are (positions ascending, as merged ones)
            naming = self._occurring(next(iter(names)))
        else:
            found: dict[int, set[int]] = defaultdict(set)
            for name in names:
                for i, where in self._occurring(name).items():
                    found[i].update(where)
            naming = {i: sorted(where) for i, where in found.items()}
        if node in self._persons():
            # "... named in honor of Princess Louise Caroline Alberta. She was the daughter of Queen Victoria and
            # Prince Albert.": a sentence opening with "He" or "She" right after one naming a person may be about them
            after = {i + 1 for i in naming if i + 1 < len(self.sentences) and i + 1 not in naming
                     and self.sentences[i + 1][0] == self.sentences[i][0] and self.sentences[i + 1][1][:1] in _HE_SHE}
            naming = {**naming, **{i: [0] for i in after}}
        return naming

    def _persons(self) -> frozenset[str]:
        """The subjects of relations only people have (an occupation, a nationality, vocabulary.yaml's child_of,
        born_in ...)."""
        if self._person_subjects is None:
            only = [r for r, spec in vocabulary()["relations"].items() if spec["subject"] == ["PERSON"]]
            self._person_subjects = self._people() | frozenset(n for r in only for n in self.kg.subjects.get(r, ()))
        return self._person_subjects

    def _occurring(self, name: tuple[str, ...]) -> dict[int, list[int]]:
        """Every sentence naming `name` as a whole, with where; the sentences holding all its words are read.
        Cached by name: the classes of classes.yaml are names of many nodes' (their broader classes')."""
        if name not in self._occurrences:
            candidates = set.intersection(*(self.postings.get(t, set()) for t in name))
            self._occurrences[name] = {i: where for i in candidates if (where := self._mentions(i, name))}
        return self._occurrences[name]

    def _named_in(self, index: int) -> tuple[tuple[int, tuple[str, ...]], ...]:
        """Every whole mention (position, name) in the sentence of a name of any node (`all_names`)."""
        if index not in self._mentioned:
            words, found = self.sentences[index][1], []
            one_word, heads, lengths, all_names = self._one_word, self._heads, self._lengths, self.all_names
            for k, word in enumerate(words):
                if word in one_word and self._whole(index, k, 1):
                    found.append((k, (word,)))
                if word in heads:  # most words begin no longer name: no slice built for them
                    for n in lengths.get(words[k:k + 2], ()):
                        if words[k:k + n] in all_names and self._whole(index, k, n):
                            found.append((k, words[k:k + n]))
            self._mentioned[index] = tuple(found)
        return self._mentioned[index]

    def _mentions(self, index: int, name: tuple[str, ...]) -> list[int]:
        """Where the sentence names `name` (not empty) as a whole: not as part of a longer name ("Ernst"
        in "Ernst Haeckel" is not Max Ernst, "Aleppo" in "the Aleppo Governorate" not the city)."""
        if index not in self.postings.get(name[0], ()):  # most names are not in the sentence
            return []
        words, n, found = self.sentences[index][1], len(name), []
        k = words.index(name[0])  # tuple.index jumps to each occurrence of the first word (C, not a Python loop)
        while True:
            if words[k:k + n] == name and self._whole(index, k, n):
                found.append(k)
            try:
                k = words.index(name[0], k + 1)
            except ValueError:
                return found

    def _whole(self, index: int, k: int, n: int) -> bool:
        """Is the mention of n tokens at k a whole name, not part of a longer one (see `_mentions`), and
        written as the name is (a proper name with its capital)?"""
        shape = self.shapes[index]
        if shape is None:
            return True
        words = self.sentences[index][1]
        if not shape.capital[k]:
            return words[k:k + n] not in self.proper
        # "Gabriel Zaid Gabriel Zaid is a Mexican writer": a chunk's title run into its first sentence, the name twice
        # at the sentence's start (not "Sirhan Sirhan", "Bora Bora" anywhere)
        start, end = (0, 2 * n) if k in (0, n) and words[:n] == words[n:2 * n] else (k, k + n)
        return not (self._name_part(index, start - 1, before=True) or self._name_part(index, end, before=False))

    def _name_part(self, index: int, k: int, before: bool) -> bool:
        """Is token k a capitalised word joined to the mention next to it (a part of a longer name)? A
        sentence's first word is capitalised anyway: it is a name part only if the corpus never writes
        it in lower case; a direction before a place ("northern Syria") is no part of its name."""
        words, shape = self.sentences[index][1], self.shapes[index]
        if not 0 <= k < len(words) or shape is None or not shape.capital[k]:
            return False
        if not shape.joined[k + 1 if before else k]:
            return False
        if before and words[k] in _DIRECTIONS:
            return False
        return k > 0 or words[k] not in self.lowered

    def _where(self, index: int, node: str) -> list[int]:
        """The token positions where the sentence names the node as a whole: from `_naming` once it has
        been asked of the node (it finds them for every sentence naming one of its names), else from the
        sentence's mentions of node names (`_named_in`) when those include all the node's names, else read."""
        if node in self._named or node in self._persons():  # (a person's "He"/"She" sentences: only `_naming`)
            return self._naming(node).get(index, [])
        key = (index, node)  # cached: a passage's entity is looked for in each of its sentences, again and again
        if key not in self._at:
            names = self._all_names(node)
            if names <= self.all_names:
                self._at[key] = sorted({k for k, name in self._named_in(index) if name in names})
            else:
                self._at[key] = sorted({k for name in names for k in self._mentions(index, name)})
        return self._at[key]

    def _ordered(self, index: int, relation: str, subject: list[int], obj: list[int]) -> bool:
        """May the sentence, naming the subject at `subject` and the object at `obj`, state (subject,
        relation, object), by the order of the relation's statements and, for a copular class relation,
        a copula between the two and no "of" just before the later? (-1: not named, the sentence's topic.)"""
        way = self.direction.get(relation, 0)
        words = self.sentences[index][1]
        for s in subject:
            for o in obj:
                if s == o or (way and (s < o) != (way > 0)):
                    continue
                if relation not in self.copular:
                    return True
                first, last = min(s, o), max(s, o)
                # anywhere between: a long list of classes follows its copula ("was a polymath whose
                # interests ranged through those of mathematician, physician, ... philosopher")
                if _COPULAS & set(words[first + 1:last]) and words[last - 1] != "of":
                    return True
        return False

    def _cued(self, index: int, relation: str) -> bool:
        cued = self._cued_sentences(relation)
        return cued is None or index in cued

    def _cued_sentences(self, relation: str) -> frozenset[int] | None:
        """The sentences using a cue word of the relation, None for a relation without cue words (any
        sentence may state it). A word cued as it begins counts ("bordered" for "border"): reading more
        sentences is the safe side. Found once per relation in the sorted words and their postings."""
        cues = self.cues.get(relation)
        if not cues:
            return None
        if relation not in self._cued_in:
            if not self._words:
                self._words = sorted(self.postings)
            found: set[int] = set()
            for cue in cues:
                at = bisect_left(self._words, cue)
                while at < len(self._words) and self._words[at].startswith(cue):
                    found |= self.postings[self._words[at]]
                    at += 1
            self._cued_in[relation] = frozenset(found)
        return self._cued_in[relation]

    def _nodes_named(self) -> dict[tuple[str, ...], frozenset[str]]:
        """Every node by each of its names (built once)."""
        if not self._by_name:
            by_name: dict[tuple[str, ...], set[str]] = defaultdict(set)
            for node, names in self.names.items():
                for name in names:
                    by_name[name].add(node)
            self._by_name = {name: frozenset(nodes) for name, nodes in by_name.items()}
        return self._by_name

    def names_beside(self, index: int, where: list[int], node: str) -> list[tuple[str, ...]]:
        """The names the sentence gives right beside its mentions (at `where`) of a value node: after a
        demonym and one to three words of a listed class ("Swiss hotelier César Ritz", "Belgian
        cryptographers Vincent Rijmen and Joan Daemen"), or before a year of a date that opens a lifespan
        ("Daniel Hiester (1774–1834)"). Names of two or more capitalised words; a list's names all count."""
        words, shape = self.sentences[index][1], self.shapes[index]
        if shape is None:
            return []
        def run(k: int) -> int:  # the end of the capitalised run from k
            end = k
            while end < len(words) and shape.capital[end] and words[end].isalpha() and (end == k or shape.joined[end]):
                end += 1
            return end

        found = []
        years = node.startswith(("value:century:", "value:decade:"))
        for k in where:
            if years:  # "Name Surname (1774–1834)": the run ends right before the year, a second year follows
                start = k
                while start > 0 and shape.capital[start - 1] and words[start - 1].isalpha():
                    start -= 1
                if k - start >= 2 and k + 1 < len(words) and words[k + 1].isdigit() and run(start) == k:
                    found.append(words[start:k])
                continue
            size = max((len(n) for n in self.names.get(node, ()) if words[k:k + len(n)] == n), default=1)
            j = k + size
            lower = j
            while lower < len(words) and lower - j < 3 and not shape.capital[lower] and words[lower].isalpha():
                lower += 1
            phrase = " ".join(words[j:lower])
            if lower == j or phrase not in self._class_words() and not reads_like_person(phrase):
                continue
            while lower < len(words) and (end := run(lower)) - lower >= 2:  # "A B and C D"
                found.append(words[lower:end])
                lower = end + 1 if end < len(words) and words[end] == "and" else len(words)
        return found

    def person_names(self, index: int) -> list[tuple[str, ...]]:
        """The people a sentence names: the names of nodes the graph knows as people, and runs of two to
        four capitalised words no node has (not the sentence's opening run)."""
        people = self._people()
        found = [name for _, name in self._named_in(index) if self._nodes_named().get(name, frozenset()) & people]
        return found + [name for _, name in self._unknown_names(index) if 2 <= len(name) <= 4]

    def _people(self) -> frozenset[str]:
        if not self._person_nodes:
            self._person_nodes = frozenset(self.kg.subjects.get("occupation", ())) | frozenset(
                self.kg.subjects.get("nationality", ()))
        return self._person_nodes

    def _class_words(self) -> frozenset[str]:
        """Class phrases as tokens give them ("cryptographer"): the extractor's lists and the class lexicon
        (and, in `names_beside`, any word that reads like an occupation: "hotelier")."""
        if not self._class_phrases:
            phrases = set(listed_classes()) | set(class_lexicon())
            self._class_phrases = frozenset(" ".join(tokens(p)) for p in phrases)
        return self._class_phrases

    def person_classes_in(self, index: int) -> list[tuple[int, tuple[str, ...]]]:
        """(position, words) of each class of people (`person_classes`, of one to three words) the sentence writes,
        whether or not a node stands for it ("satirist" when no one was read to be one)."""
        if not self._person_phrases:
            self._person_phrases = frozenset(tuple(tokens(p)) for p in person_classes())
        words, phrases = self.sentences[index][1], self._person_phrases
        return [(k, words[k:k + n]) for k in range(len(words)) for n in (1, 2, 3) if words[k:k + n] in phrases]

    def _unknown_names(self, index: int) -> list[tuple[int, tuple[str, ...]]]:
        """(position, words) of each run of capitalised words in the sentence, but its opening one, that is
        not part of a node's name ("Kubrick" of Stanley Kubrick) and holds no proper name of one (a class
        word inside it does not count: "Oyo State" is unknown though "state" is a class)."""
        shape, words = self.shapes[index], self.sentences[index][1]
        if shape is None:
            return []
        if not self._name_parts:
            self._name_parts = frozenset(n[i:j] for n in self.all_names for i in range(len(n))
                                         for j in range(i + 1, len(n) + 1))

        def capital(k: int) -> bool:
            return k < len(words) and shape.capital[k] and words[k].isalpha()

        opening = 1
        while words[0] not in self.lowered and capital(opening) and shape.joined[opening]:
            opening += 1  # the rest of the name the sentence opens with (not after "The" or "In")
        runs, start = [], None
        for k in range(opening, len(words) + 1):
            if capital(k) and (start is None or shape.joined[k]):
                start = k if start is None else start
                continue
            if start is not None:
                run = words[start:k]
                common = len(run) == 1 and run[0] in self.lowered  # "Blessed", "Prudent": a word, capitalised
                if not common and run not in _not_names() and run not in self._name_parts and not any(
                        run[i:j] in self.proper for i in range(len(run)) for j in range(i + 1, len(run) + 1)):
                    runs.append((start, run))
            start = k if capital(k) else None
        return runs

    def _read_for(self, answer: str) -> frozenset[int]:
        """The sentences of the answer's own passages, else of the passages stating something of it."""
        if answer not in self._sentences_of:
            own = self.passages_of.get(answer) or self.stated_in.get(answer, ())
            self._sentences_of[answer] = frozenset(i for pid in own for i in self.by_passage[pid])
        return self._sentences_of[answer]


def _titled(title: str, stated: Counter[str], kg: KnowledgeGraph) -> str | None:
    """The node named most in a passage's statements whose label shares a word with the passage's title."""
    words = set(tokens(title)) - _STOP
    named = [n for n in stated if words & set(tokens(kg.labels.get(n, "")))]
    return min(named, key=lambda n: (-stated[n], n)) if named else None


def _classes_share(kg: KnowledgeGraph, relation: str) -> float:
    """The share of the relation's facts with a class at one end."""
    facts = [(s, o) for s in kg.subjects.get(relation, ()) for o in kg.out[s][relation]]
    return sum(_is_class(kg.labels.get(s, "")) or _is_class(kg.labels.get(o, "")) for s, o in facts) / len(facts) \
        if facts else 0.0
