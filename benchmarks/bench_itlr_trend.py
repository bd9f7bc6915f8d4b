"""The ITLR paper's trend on exclusion-style queries, on a corpus where relevance rests on facts
stated in varied wording and passages carry negation words of their own; with the random
ranking's nDCG@10 next to every figure.

    .venv/bin/python benchmarks/bench_itlr_trend.py [--people 2400] [--per-count 50] [--seed 7]

Paper (arXiv 2503.17860, NV-Embed-V1, synthetic 3-term queries): base nDCG@10 0.95/0.77/0.65/0.52
for 0/1/2/3 negations, ITLR 0.99/0.97/0.96/1.00.

Corpus: seeded invented people, one passage each. A person has four facts: an occupation (6),
a nationality (4), a century of birth (4: 17th-20th) and a city they lived in (4). The passage
states each fact in one of several wordings, most of which share no word with the query term:
a nationality as an adjective, a country or only a birthplace ("grew up in Leipzig"); a century
through years ("(1853–1921)", "born in the 1850s") or words ("in the late 19th/nineteenth century");
an occupation as a noun or through the work ("composed two operas"); a city as "settled in",
"moved to", ... Every passage also carries negations of its own: a plain one ("She never
married.") and a decoy that names a value the person does *not* have ("He never worked as a
poet.", "Contrary to some accounts, she was not Italian."), so a term's presence is not a fact.

Queries: an occupation (always positive) and one value of each of the three other families,
0-3 of those three negated; relevant (grade 1) = the people whose facts satisfy the query.
With four values per family the share of relevant passages grows with every negation (printed,
with the expected nDCG@10 of a random ranking). The base retrievers see the verbalised question
("Painters who were born in the 19th century, but are not French and did not live in Vienna");
ITLR and logical see its logical form ('"painter" AND "born in the 19th century" AND NOT
"French" AND NOT "lived in Vienna"'). The script also prints how well a regex over the term
strings reproduces the labels (the old benchmark: 99.55%).
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import re
from collections import defaultdict
from dataclasses import dataclass
from statistics import mean

from pipeline.config import Config
from pipeline.logical_form import And, Not, Term, to_string
from retrieval.base import Corpus, Qrels, Query
from retrieval.metrics import per_query
from retrieval.registry import Factory

RETRIEVERS = ["dense", "bm25", "itlr", "itlr(ops=minmax,cal=shift)", "itlr-bm25", "logical", "logical(neg=1)"]
PAPER = {"paper: base (NV-Embed-V1)": (0.95, 0.77, 0.65, 0.52), "paper: ITLR": (0.99, 0.97, 0.96, 1.00)}
MIN_RELEVANT = 3  # a query is used when at least this many passages are relevant

# occupation -> (term, plural, wordings); {o} is filled by nothing (the wording carries it)
OCCUPATIONS = {
    "painter": ("painters", ["a painter", "a painter of portraits and landscapes",
                             "an artist best known for oil paintings",
                             "an artist who painted altarpieces and still lifes"]),
    "composer": ("composers", ["a composer", "a composer of chamber music",
                               "a musician who composed two operas and a requiem", "a musician who wrote symphonies"]),
    "poet": ("poets", ["a poet", "a lyric poet", "a writer who published four collections of verse",
                       "a writer remembered for sonnets and ballads"]),
    "architect": ("architects", ["an architect", "an architect of churches",
                                 "a builder who designed theatres and railway stations",
                                 "a designer of bridges and public buildings"]),
    "physicist": ("physicists", ["a physicist", "a physicist working on optics",
                                 "a scientist who studied heat and electricity",
                                 "a scientist known for experiments on magnetism"]),
    "sculptor": ("sculptors", ["a sculptor", "a sculptor in bronze",
                               "an artist who carved marble statues", "an artist who cast monuments for city squares"]),
}
# nationality -> (country, birthplaces)
NATIONALITIES = {
    "French": ("France", ["Lyon", "Bordeaux", "Marseille"]),
    "German": ("Germany", ["Leipzig", "Hamburg", "Munich"]),
    "Italian": ("Italy", ["Florence", "Naples", "Turin"]),
    "Russian": ("Russia", ["Moscow", "Kazan", "Novgorod"]),
}
CENTURIES = {17: ("17th", "seventeenth"), 18: ("18th", "eighteenth"), 19: ("19th", "nineteenth"),
             20: ("20th", "twentieth")}
CITIES = ["Paris", "Vienna", "London", "Rome"]
NAMES_SHE = ["Alma", "Clara", "Elin", "Greta", "Ida", "Karin", "Mira", "Olga", "Rosa", "Tilde"]
NAMES_HE = ["Bruno", "Dario", "Felix", "Hugo", "Jonas", "Leon", "Nils", "Paul", "Sven", "Victor"]
SYLLABLES = ["ber", "mon", "dal", "ven", "tor", "lis", "gar", "ron", "mel", "sab", "kor", "fen", "dro", "val"]


@dataclass(frozen=True)
class Person:
    id: str
    name: str
    she: bool
    occupation: str
    nationality: str
    century: int
    city: str

    def facts(self) -> set[str]:
        return {self.occupation, self.nationality, century_term(self.century), city_term(self.city)}


def century_term(century: int) -> str:
    return f"born in the {CENTURIES[century][0]} century"


def city_term(city: str) -> str:
    return f"lived in {city}"


def passage(p: Person, rng: random.Random) -> str:
    """The person's four facts in randomly chosen wordings, plus two negations of their own."""
    he, his = ("she", "her") if p.she else ("he", "his")
    He, His = he.capitalize(), his.capitalize()
    born = rng.randrange((p.century - 1) * 100 + 5, p.century * 100 - 5)
    died = born + rng.randrange(38, 88)
    country, birthplaces = NATIONALITIES[p.nationality]
    work = rng.choice(OCCUPATIONS[p.occupation][1])
    part = ["early", "mid", "late"][min(2, (born % 100) // 34)]
    ordinal, word = CENTURIES[p.century]
    when = rng.choice([f" ({born}–{died})", f", born in the {born // 10 * 10}s,",
                       f", born in the {part} {ordinal} century,", f", born in the {part} {word} century,"])
    nationality = rng.choice(["adjective", f"{He} was born in {country}.",
                              f"{He} grew up in {rng.choice(birthplaces)}.", f"{His} family came from {country}."])
    if nationality == "adjective":  # "a painter ..." -> "a French painter ..."
        rest = work.split(" ", 1)[1]
        work, nationality = f"{'an' if p.nationality[0] in 'AEIOU' else 'a'} {p.nationality} {rest}", ""
    city = rng.choice([f"{He} settled in {p.city} in {born + 25}.",
                       f"{He} moved to {p.city}, where {he} remained until {his} death.",
                       f"{He} spent most of {his} working life in {p.city}.", f"{He} made {his} home in {p.city}."])
    other_city = rng.choice([c for c in CITIES if c != p.city])
    decoy = rng.choice([f"{He} never worked as a {rng.choice([o for o in OCCUPATIONS if o != p.occupation])}.",
                        f"Contrary to some accounts, {he} was not "
                        f"{rng.choice([n for n in NATIONALITIES if n != p.nationality])}.",
                        f"{He} never lived in {other_city}.",
                        f"{He} did not visit {other_city} until {his} last years."])
    plain = rng.choice([f"{He} never married.", f"{He} did not attend a university.",
                        f"{His} early work was not well received.", f"{He} had no children."])
    rest = [s for s in (nationality, city, decoy, plain) if s]
    rng.shuffle(rest)
    return " ".join([f"{p.name}{when} was {work}.", *rest])


def people(n: int, rng: random.Random) -> list[Person]:
    out = []
    for i in range(n):
        she = rng.random() < 0.5
        name = f"{rng.choice(NAMES_SHE if she else NAMES_HE)} {''.join(rng.choices(SYLLABLES, k=2)).capitalize()}"
        out.append(Person(f"p{i:05d}", name, she, rng.choice(list(OCCUPATIONS)),
                          rng.choice(list(NATIONALITIES)), rng.choice(list(CENTURIES)), rng.choice(CITIES)))
    return out


def verbalise(occupation: str, positive: list[str], negated: list[str]) -> str:
    """The question a person would type; the base retrievers see only this."""
    def clause(term: str, negate: bool) -> str:
        if term.startswith("born in"):
            return f"were {'not ' if negate else ''}{term}"
        if term.startswith("lived in"):
            return f"did not live in {term[len('lived in '):]}" if negate else term
        return f"are {'not ' if negate else ''}{term}"

    text = OCCUPATIONS[occupation][0].capitalize()
    if positive:
        text += " who " + " and ".join(clause(t, False) for t in positive)
    if negated:
        text += (", but " if positive else " who ") + " and ".join(clause(t, True) for t in negated)
    return text


def build(n_people: int, per_count: int, seed: int) -> tuple[Corpus, list[Query], Qrels, dict[str, str]]:
    rng = random.Random(seed)
    persons = people(n_people, rng)
    texts = {p.id: passage(p, rng) for p in persons}
    facts = {p.id: p.facts() for p in persons}
    by_count: dict[int, list[tuple[str, list[str], list[str]]]] = defaultdict(list)
    for occupation, nationality, century, city in itertools.product(OCCUPATIONS, NATIONALITIES, CENTURIES, CITIES):
        conditions = [nationality, century_term(century), city_term(city)]
        for count in range(4):
            for negated in itertools.combinations(range(3), count):
                by_count[count].append((occupation, [c for i, c in enumerate(conditions) if i not in negated],
                                        [conditions[i] for i in negated]))
    queries, qrels = [], {}
    for count, candidates in sorted(by_count.items()):
        rng.shuffle(candidates)
        used = 0
        for occupation, pos, neg in candidates:
            relevant = {pid for pid, f in facts.items() if {occupation, *pos} <= f and not set(neg) & f}
            if len(relevant) < MIN_RELEVANT:
                continue
            qid = f"n{count}-{used}"
            tree = And(tuple([Term(occupation), *(Term(t) for t in pos), *(Not(Term(t)) for t in neg)]))
            queries.append(Query(qid, verbalise(occupation, pos, neg), logical_form=to_string(tree), negations=count))
            qrels[qid] = {pid: 1 for pid in relevant}
            used += 1
            if used == per_count:
                break
    return Corpus.from_mapping(texts), queries, qrels, texts


def random_ndcg(n_relevant: int, n_passages: int, k: int = 10) -> float:
    """Expected nDCG@k of a uniformly random ranking, binary relevance: each rank holds a relevant
    passage with probability R/N, so E[DCG] = (R/N) * sum 1/log2(i+1); the ideal DCG is fixed."""
    discounts = [1 / math.log2(i + 2) for i in range(k)]
    return n_relevant / n_passages * sum(discounts) / sum(discounts[:min(n_relevant, k)])


def regex_labels(query: Query, texts: dict[str, str]) -> set[str]:
    """What string matching would call relevant: every positive term's key word present, no
    negated term's (the old benchmark's labels were exactly this)."""
    def key(term: str) -> str:
        return re.sub(r"^(born in the |lived in )", "", term)

    pos = [key(t) for t in re.findall(r'(?<!NOT )"([^"]+)"', query.logical_form)]
    neg = [key(t) for t in re.findall(r'NOT "([^"]+)"', query.logical_form)]
    return {pid for pid, text in texts.items()
            if all(re.search(rf"\b{re.escape(t)}", text, re.I) for t in pos)
            and not any(re.search(rf"\b{re.escape(t)}", text, re.I) for t in neg)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=2400, help="passages (one invented person each)")
    parser.add_argument("--per-count", type=int, default=50, help="queries per number of negations")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    corpus, queries, qrels, texts = build(args.people, args.per_count, args.seed)
    counts = sorted({q.negations for q in queries})
    print(f"{len(corpus)} passages, {len(queries)} queries; e.g.")
    for q in queries[:: args.per_count][:4]:
        print(f"  {q.negations} NOT: {q.text!r}\n         {q.logical_form}  ({len(qrels[q.id])} relevant)")
    print("  passage:", texts[corpus.ids[0]])
    negation_words = sum(bool(re.search(r"\b(not|never|no)\b", t)) for t in texts.values())
    print(f"passages with a negation word of their own: {negation_words / len(texts):.0%}")

    hits = found = labelled = 0
    for q in queries:
        guess, truth = regex_labels(q, texts), set(qrels[q.id])
        hits, found, labelled = hits + len(guess & truth), found + len(guess), labelled + len(truth)
    print(f"regex over the term strings: precision {hits / found:.2f}, recall {hits / labelled:.2f} "
          f"of the relevant passages")

    config = Config()
    config.evaluate.parse = "gold"
    factory = Factory(config.evaluate, config.llm, progress=True)
    table = {}
    for spec in RETRIEVERS:
        retriever = factory.build(spec)
        retriever.index(corpus)
        values = per_query(retriever.retrieve(queries, 100), qrels, queries)
        table[spec] = [mean(values[q.id]["nDCG@10"] for q in queries if q.negations == n) for n in counts]

    share = [mean(len(qrels[q.id]) / len(corpus) for q in queries if q.negations == n) for n in counts]
    chance = [mean(random_ndcg(len(qrels[q.id]), len(corpus)) for q in queries if q.negations == n) for n in counts]
    width = 30
    print("\nnDCG@10 by number of negations (in brackets: minus the random ranking's expected nDCG@10)")
    print(f"{'':{width}}" + "".join(f"{n:>16}" for n in counts))
    print(f"{'share of corpus relevant':{width}}" + "".join(f"{v:16.3f}" for v in share))
    print(f"{'random ranking (expected)':{width}}" + "".join(f"{v:16.3f}" for v in chance))
    for name, row in PAPER.items():
        print(f"{name:{width}}" + "".join(f"{v:16.2f}" for v in row))
    for spec, row in table.items():
        print(f"{spec:{width}}" + "".join(f"{v:9.3f} ({v - c:+.2f})" for v, c in zip(row, chance)))


if __name__ == "__main__":
    main()
