"""The built-in extractor: facts stated in the passage text, for any corpus of Wikipedia-like passages.

Each passage is read on its own (`reading.py`: spaCy entities and dependency parse, cached by the
passage's hash in `cache.py`); this module turns the readings of the whole corpus into facts:

- articles: passages with the same title (given, or recovered from a ComLQ/DPR-style text) are
  one article, one node; a name in any passage that is an article's title, or the full name or
  surname its own passages call it by (when no other article claims it), is that article;
- relations: statement patterns map to relations through `vocabulary.yaml` (`relations`), which
  merges synonyms ("located in", "situated in", "lies in") and reads some patterns backwards
  ("X is home to Y"); a fact is kept only when both ends have the types the relation declares
  (a node's type: its class, else the types NER gave its mentions, else the description), and
  a relation only when the corpus states it at least `min_facts` times;
- classes from the definitional sentence: `occupation` for people, `instance_of` for the rest,
  `nationality` from its demonym; years become `..._century` / `..._decade` values;
- `mentions`: a sentence about an article that names another article by its title (a weak link,
  not sampled by default).

The Wikidata short description, when a passage has one, only types its article (a description
naming an occupation makes it a person); no fact comes from it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import yaml

from pipeline.kg.cache import ReadingCache, read_passages
from pipeline.kg.facts import Evidence, Extraction, Fact
from pipeline.kg.reading import SELF, bare_title
from pipeline.records import Passage
from pipeline.resources import package_data

CLASS_RELATIONS = {"PERSON": "occupation"}
# An occupation the lists miss still reads like one: "occultist", "magician", "bodybuilder".
_PERSON_NOUN = re.compile(r"(?:ist|er|or|ian|man|woman|ess|ant|ent|ee|arch|ain)$")  # the class relation of a type; every other type: instance_of


@cache
def vocabulary() -> dict:
    return yaml.safe_load(package_data("pipeline", "kg/vocabulary.yaml").read_text(encoding="utf-8"))


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
        specs.append(RelationSpec(name, frozenset(spec["subject"]), frozenset(spec["object"]),
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


def _longest_suffix(phrase: str, words: Sequence[str]) -> str | None:
    best = None
    for w in words:
        if (phrase == w or phrase.endswith(" " + w)) and (best is None or len(w) > len(best)):
            best = w
    return best


class _Corpus:
    def __init__(self, passages: dict[str, Passage], readings: dict[str, dict]):
        vocab = vocabulary()
        self.passages, self.readings = passages, readings
        self.places = frozenset(vocab["place_classes"])
        self.class_types: dict[str, str] = {}
        for kind, key in (("PERSON", "occupations"), ("PLACE", "place_classes"), ("WORK", "work_classes"),
                          ("ORG", "org_classes"), ("EVENT", "event_classes"), ("OTHER", "other_classes")):
            for word in vocab[key]:
                self.class_types.setdefault(word, kind)
        self.ignored_classes = frozenset(vocab["ignored_classes"])
        self.labels: dict[str, str] = {}
        self.facts: dict[tuple[str, str, str], list[Evidence]] = defaultdict(list)
        self._articles()

    # nodes --------------------------------------------------------------------------------
    def _articles(self) -> None:
        """Article nodes by title, and the names (titles, aliases) that link to them."""
        by_bare: dict[str, set[str]] = defaultdict(set)
        aliases: dict[str, set[str]] = defaultdict(set)
        self.article_of: dict[str, str] = {}  # passage id -> article node
        for pid in sorted(self.readings):
            title = self.readings[pid]["title"]
            if not title:
                continue
            node = f"article:{title}"
            self.article_of[pid] = node
            self.labels[node] = bare_title(title)
            by_bare[bare_title(title)].add(node)
            for st in self.readings[pid]["statements"]:
                if st[2] == SELF:
                    aliases[st[3]].add(node)
        self.link: dict[str, str] = {}
        for alias, nodes in aliases.items():
            if len(nodes) == 1 and alias not in by_bare:
                self.link[alias] = next(iter(nodes))
        for name, nodes in by_bare.items():
            exact = [n for n in nodes if n == f"article:{name}"]
            if len(nodes) == 1 or exact:
                self.link[name] = exact[0] if exact else next(iter(nodes))

    def node(self, pid: str, name: str, kind: str) -> str:
        if kind == SELF:
            return self.article_of[pid]
        if kind == "CLASS":
            return self._value("class", name)
        if name in self.link:
            return self.link[name]
        if kind == "NORP":
            return self._value("nationality", name)
        node = f"entity:{name}"
        self.labels.setdefault(node, name)
        return node

    def _value(self, kind: str, text: str) -> str:
        node = f"value:{kind}:{text}"
        self.labels[node] = text
        return node

    def types(self) -> dict[str, str]:
        """Every node's type: its class's type, else the majority of its mentions' NER types."""
        votes: dict[str, Counter] = defaultdict(Counter)
        occupations = self.class_types
        for pid, reading in self.readings.items():
            for st in reading["statements"]:
                for name, kind in ((st[1], st[2]), (st[5], st[6])):
                    if kind not in (SELF, "CLASS", "NORP", "DATE"):
                        votes[self.node(pid, name, kind)][kind] += 1
                if st[4] == "is a" and st[2] == SELF:
                    kind = self.class_types.get(self._class(st[5]) or "")
                    if kind and kind != "OTHER":
                        votes[self.article_of[pid]][kind] += 1000  # the class decides
                if st[2] == SELF and pid in self.article_of:
                    if st[4] in ("bear in", "die in", "nationality"):
                        votes[self.article_of[pid]]["PERSON"] += 3
                    words = st[4].split()  # "X is the capital and largest city of Y": X is a place
                    if len(words) == 3 and words[0] == "be" and self.class_types.get(words[1]) == "PLACE":
                        votes[self.article_of[pid]]["PLACE"] += 3
            for kind in reading.get("self_types", ()):
                if pid in self.article_of:
                    votes[self.article_of[pid]][kind] += 1
            description = self.passages[pid].description
            if description and pid in self.article_of:
                head = re.split(r"\s*[(;,]|\s+(?:of|in|by|from)\s", description)[0].lower()
                if (cls := _longest_suffix(head, list(occupations))) and occupations[cls] == "PERSON":
                    votes[self.article_of[pid]]["PERSON"] += 2
        return {node: counter.most_common(1)[0][0] for node, counter in votes.items()}

    def _class(self, phrase: str) -> str | None:
        """A class phrase as a class: its longest listed suffix, else its head noun."""
        listed = _longest_suffix(phrase, list(self.class_types))
        cls = listed or phrase.split()[-1]
        return None if cls in self.ignored_classes or not cls.isalpha() and "-" not in cls and " " not in cls else cls

    # facts --------------------------------------------------------------------------------
    def add(self, s: str, relation: str, o: str, evidence: Evidence) -> None:
        if s != o:
            self.facts[(s, relation, o)].append(evidence)

    def build(self, min_facts: int) -> Extraction:
        types = self.types()
        specs = relation_specs()
        by_relation: dict[str, list] = defaultdict(list)
        for pid in sorted(self.readings):
            reading = self.readings[pid]
            for index, s_name, s_kind, s_text, pattern, o_name, o_kind, o_text in reading["statements"]:
                if s_kind == SELF and pid not in self.article_of:
                    continue
                sentence = reading["sentences"][index]
                s = self.node(pid, s_name, s_kind)
                evidence = Evidence(pid, sentence, s_text, o_text)
                if pattern == "is a":
                    cls = self._class(o_name)
                    if cls:
                        relation = CLASS_RELATIONS.get(types.get(s, ""), "instance_of")
                        if relation == "occupation" and not (self.class_types.get(cls) == "PERSON" or (
                                cls not in self.class_types and _PERSON_NOUN.search(cls))):
                            relation = None  # "Ancestral Puebloans ... were an ancient culture"
                        if relation == "instance_of" and self.class_types.get(cls) == "PERSON":
                            relation = None
                        if relation:
                            by_relation[relation].append((s, self._value("class", cls), evidence))
                    continue
                if pattern == "nationality":
                    if types.get(s) == "PERSON" and o_name in self._demonyms():
                        by_relation["nationality"].append((s, self._value("nationality", o_name), evidence))
                    continue
                if pattern == "mention":
                    o = self.link.get(o_name)
                    if o and o != s and o_name == self.labels[o]:  # the exact title, not an alias
                        by_relation["mentions"].append((s, o, evidence))
                    continue
                words = tuple(pattern.split())
                for spec in specs:
                    forward = any(_matches(p, words, self.places) for p in spec.patterns)
                    backward = not forward and any(_matches(p, words, self.places) for p in spec.reverse)
                    if not (forward or backward):
                        continue
                    subject, obj, ev = (s, (o_name, o_kind), evidence) if forward else (
                        None, (s_name, s_kind), Evidence(pid, sentence, o_text, s_text))
                    if backward:
                        if o_kind == "DATE":
                            continue
                        subject = self.node(pid, o_name, o_kind)
                    if types.get(subject) not in spec.subject:
                        continue
                    if spec.value:
                        if obj[1] != "DATE" or not (value := date_value(obj[0], spec.value)):
                            continue
                        by_relation[spec.name].append((subject, self._value(spec.value, value), ev))
                        continue
                    if obj[1] == "DATE":
                        continue
                    o = self.node(pid, *obj)
                    if types.get(o) in spec.object:
                        by_relation[spec.name].append((subject, o, ev))
        for relation, facts in by_relation.items():
            if len({(s, o) for s, o, _ in facts}) >= min_facts or relation == "mentions":
                for s, o, evidence in facts:
                    self.add(s, relation, o, evidence)
        facts = [Fact(s, r, o, tuple(sorted({e.passage for e in ev})), tuple(dict.fromkeys(ev)))
                 for (s, r, o), ev in sorted(self.facts.items())]
        used = {n for f in facts for n in (f.subject, f.object)}
        topics = {}
        for pid, node in self.article_of.items():
            if self.passages[pid].topic:
                topics.setdefault(node, self.passages[pid].topic)
        return Extraction(facts, {n: self.labels[n] for n in sorted(used)}, {n: t for n, t in topics.items() if n in used})

    @cache
    def _demonyms(self) -> frozenset[str]:
        return frozenset(vocabulary()["demonyms"])


def extract(passages: dict[str, Passage], cache: ReadingCache | None = None, min_facts: int = 3,
            processes: int = 1) -> Extraction:
    """All facts the passages' text states (deterministic: sorted by subject, relation, object)."""
    readings = read_passages(list(passages.values()), cache or ReadingCache(), processes=processes)
    return _Corpus(passages, readings).build(min_facts)
