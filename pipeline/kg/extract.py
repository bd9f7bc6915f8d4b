"""The built-in extractor: precise facts from Wikipedia lead passages and their short descriptions.

Precise rather than broad: a fact is kept only when a closed word list
(`pipeline/kg/vocabulary.yaml`) or a strict pattern recognises it. Relations (subject -> object;
every fact is stated by the subject's own passage):

- `mentions`       passage A's text names passage B by its exact title (titles that are proper
                   names only: no lower-case word outside particles, never written in lower case
                   anywhere in the corpus, no parenthesis; not inside a longer capitalised name);
- `instance_of`    class of a non-person ("Mountain range in Antarctica" -> mountain range);
- `occupation`     occupations of a person ("American actor and filmmaker" -> actor, filmmaker);
- `nationality`    leading demonyms of a person description ("Russian and Soviet poet");
- `born_in_century`, `died_in_century`  from a lifespan "(1928–1987)", "(born 1942)", "(c. 470 – 399 BC)";
- `located_in`     "City in Texas, United States" for place classes (also "Capital of X");
- `created_by`     "1968 film by Stanley Kubrick" for work classes;
- `from_decade`    the leading year of a work description ("1968 film ..." -> 1960s);
- `topic`          the passage's topic (People, Arts, Geography, History).

Nodes are passage ids for passage entities and `value:` ids for the rest; a creator or place
name that equals a passage title (or, for creators, the unique person whose title ends with the
name: "Mozart") becomes that passage's node, which is what lets queries chain over passages.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import cache

import yaml

from pipeline.kg.facts import Extraction, Fact
from pipeline.records import Passage
from pipeline.resources import package_data

_PARTICLES = {"of", "the", "and", "de", "da", "di", "del", "der", "van", "von", "la", "le", "du", "al", "bin", "ibn",
              "y", "on", "upon", "in", "&"}
_DIRECTIONS = re.compile(r"^(?:(?:north|south|east|west|central|northern|southern|eastern|western|northeastern|"
                         r"northwestern|southeastern|southwestern|upper|lower)\s+)+")
_TOKEN = re.compile(r"\w+(?:[-'’]\w+)*|[^\w\s]")
_LIFESPAN = re.compile(r"^(?:c\.\s*)?(\d{1,4})(\s*BC)?\s*[–-]\s*(?:c\.\s*)?(\d{1,4})(\s*(?:BC|BCE|AD))?$")
_BORN = re.compile(r"^born (\d{4})$")
_DIED = re.compile(r"^died (\d{1,4})( BC)?$")
_WORK_YEAR = re.compile(r"^(\d{4})\s")


@cache
def vocabulary() -> dict:
    return yaml.safe_load(package_data("pipeline", "kg/vocabulary.yaml").read_text(encoding="utf-8"))


def century(year: int, bc: bool) -> str:
    n = (year - 1) // 100 + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix} century" + (" BC" if bc else "")


def _is_name(text: str) -> bool:
    words = text.split()
    return bool(words) and words[0][:1].isupper() and all(w[:1].isupper() or w in _PARTICLES for w in words)


def _longest_suffix(phrase: str, words: Iterable[str]) -> str | None:
    """The longest listed word or phrase that ends `phrase` on a word boundary."""
    phrase = phrase.lower()
    best = None
    for w in words:
        if (phrase == w or phrase.endswith(" " + w)) and (best is None or len(w) > len(best)):
            best = w
    return best


def _inside_longer_name(tokens: list[str], start: int, end: int) -> bool:
    """Is tokens[start:end] part of a longer capitalised name ("Fatima Ibrahim", "New Spain", "Paris Commune")?"""
    if end < len(tokens) and tokens[end][:1].isupper():
        return True
    sentence_start = start <= 1 or tokens[start - 2] in {".", "!", "?", '"', "“", ":"}
    return start > 0 and tokens[start - 1][:1].isupper() and not sentence_start


class _Extractor:
    def __init__(self, passages: dict[str, Passage]):
        vocab = vocabulary()
        self.passages = passages
        self.demonyms = sorted(vocab["demonyms"], key=len, reverse=True)
        self.occupations = vocab["occupations"]
        self.places = vocab["place_classes"]
        self.works = vocab["work_classes"]
        self.classes = self.places + self.works + vocab["other_classes"]
        self.by_title: dict[str, str] = {}
        for pid in sorted(passages):
            self.by_title.setdefault(passages[pid].title, pid)
        people_by_last: dict[str, list[str]] = defaultdict(list)
        for pid in sorted(passages):
            p = passages[pid]
            if p.topic == "People" and "(" not in p.title:
                words = p.title.split()
                for k in range(1, len(words)):
                    people_by_last[" ".join(words[k:])].append(pid)
        self.people_by_last = {k: v[0] for k, v in people_by_last.items() if len(v) == 1}
        self.facts: dict[tuple[str, str, str], set[str]] = defaultdict(set)
        self.labels: dict[str, str] = {pid: p.title for pid, p in passages.items()}

    def add(self, subject: str, relation: str, obj: str, passage: str) -> None:
        if subject != obj:
            self.facts[(subject, relation, obj)].add(passage)

    def value(self, kind: str, text: str) -> str:
        node = f"value:{kind}:{text}"
        self.labels[node] = text
        return node

    def name(self, text: str, person: bool = False) -> str:
        """A creator or place name: the passage titled so, else a value node."""
        if text in self.by_title:
            return self.by_title[text]
        if person and text in self.people_by_last:
            return self.people_by_last[text]
        return self.value("name", text)

    # description-based facts -------------------------------------------------------------
    def description(self, pid: str, passage: Passage) -> None:
        desc = (passage.description or "").strip()
        if not desc:
            return
        if passage.topic == "People":
            self.person(pid, desc)
        else:
            self.thing(pid, desc)

    def person(self, pid: str, desc: str) -> None:
        match = re.fullmatch(r"(.*?)\s*\(([^()]*)\)", desc)
        head, paren = (match.group(1), match.group(2).strip()) if match else (desc, None)
        if ";" in head or "(" in head:
            return
        rest, nationalities = head, []
        while True:  # "Russian and Soviet poet", "American-born ..." is skipped as unlisted
            demonym = next((d for d in self.demonyms if rest.startswith(d + " ")), None)
            if demonym is None:
                break
            nationalities.append(demonym)
            rest = rest[len(demonym) + 1:]
            if rest.startswith("and ") and any(rest[4:].startswith(d + " ") for d in self.demonyms):
                rest = rest[4:]
        occupations = []
        for part in re.split(r",\s*|\s+and\s+", rest):
            occupation = _longest_suffix(part.strip(), self.occupations)
            if occupation and occupation not in occupations:
                occupations.append(occupation)
        if not occupations:  # "King of France", "President of ...": not a person-by-trade description
            return
        for demonym in nationalities:
            self.add(pid, "nationality", self.value("nationality", demonym), pid)
        for occupation in occupations:
            self.add(pid, "occupation", self.value("class", occupation), pid)
        if paren:
            self.lifespan(pid, paren)

    def lifespan(self, pid: str, text: str) -> None:
        if match := _LIFESPAN.match(text):
            start, start_bc, end, end_mark = match.groups()
            end_bc = bool(end_mark) and "BC" in end_mark
            start_bc = bool(start_bc) or (end_bc and not start_bc and int(start) >= int(end))
            self.add(pid, "born_in_century", self.value("century", century(int(start), start_bc)), pid)
            self.add(pid, "died_in_century", self.value("century", century(int(end), end_bc)), pid)
        elif match := _BORN.match(text):
            self.add(pid, "born_in_century", self.value("century", century(int(match.group(1)), False)), pid)
        elif match := _DIED.match(text):
            self.add(pid, "died_in_century", self.value("century", century(int(match.group(1)), bool(match.group(2)))),
                     pid)

    def thing(self, pid: str, desc: str) -> None:
        desc = re.split(r"\s*[;(]", desc)[0]
        match = re.match(r"(.+?)(?: (in|of|by) (.+))?$", desc)
        head, link, tail = match.group(1), match.group(2), match.group(3)
        year = _WORK_YEAR.match(head)
        head_words = re.sub(r"^[\d–-]+s?\s+", "", head)
        cls = _longest_suffix(head_words, self.classes)
        if cls is None:
            return
        self.add(pid, "instance_of", self.value("class", cls), pid)
        if cls in self.places and link in ("in", "of") and tail:
            if link == "of" and not head_words.lower().startswith(("capital", "largest city", "capital and largest")):
                return
            for place in re.split(r",\s*|\s+and\s+", tail):
                place = _DIRECTIONS.sub("", place.strip())
                place = place[4:] if place.startswith("the ") else place
                if _is_name(place):
                    self.add(pid, "located_in", self.name(place), pid)
        if cls in self.works and link == "by" and tail:
            creator_text = re.split(r",| in | on | from | describing | about | for ", tail)[0].strip()
            for creator in re.split(r"\s+and\s+", creator_text):
                if _is_name(creator) and not creator.startswith("the "):
                    self.add(pid, "created_by", self.name(creator, person=True), pid)
            if year:
                decade = f"{int(year.group(1)) // 10 * 10}s"
                self.add(pid, "from_decade", self.value("decade", decade), pid)

    # mentions ----------------------------------------------------------------------------
    def mentions(self) -> None:
        corpus = " ".join(p.text for p in self.passages.values())
        words = Counter(_TOKEN.findall(corpus))
        names: dict[tuple[str, ...], str] = {}
        for title, pid in self.by_title.items():
            if "(" in title or not _is_name(title):
                continue
            tokens = tuple(_TOKEN.findall(title))
            # written in lower case somewhere ("jazz", "painting"): a common noun, not a name
            if words[tokens[0].lower()] and (len(tokens) == 1 or title.lower() in corpus):
                continue
            names[tokens] = pid
        longest: dict[str, int] = {}  # first token -> longest name starting with it
        for tokens in names:
            longest[tokens[0]] = max(longest.get(tokens[0], 0), len(tokens))
        for pid in sorted(self.passages):
            tokens = _TOKEN.findall(self.passages[pid].text)
            i = 0
            while i < len(tokens):
                step = 1
                for n in range(min(longest.get(tokens[i], 0), len(tokens) - i), 0, -1):
                    target = names.get(tuple(tokens[i:i + n]))
                    if target is not None:  # leftmost-longest: "New York City" before "New York"
                        if not _inside_longer_name(tokens, i, i + n):
                            self.add(pid, "mentions", target, pid)
                        step = n
                        break
                i += step

    def result(self) -> Extraction:
        facts = [Fact(s, r, o, tuple(sorted(ps))) for (s, r, o), ps in sorted(self.facts.items())]
        topics = {pid: p.topic for pid, p in self.passages.items() if p.topic}
        return Extraction(facts, dict(sorted(self.labels.items())), topics)


def extract(passages: dict[str, Passage]) -> Extraction:
    """All built-in facts of `passages` (deterministic: sorted by subject, relation, object)."""
    extractor = _Extractor(passages)
    for pid in sorted(passages):
        passage = passages[pid]
        extractor.description(pid, passage)
        if passage.topic:
            extractor.add(pid, "topic", extractor.value("topic", passage.topic), pid)
    extractor.mentions()
    return extractor.result()
