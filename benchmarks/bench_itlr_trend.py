"""The ITLR paper's trend on exclusion-style queries: dense retrieval of the verbalised query falls
as negations are added, ITLR on the logical form does not.

    .venv/bin/python benchmarks/bench_itlr_trend.py [--per-count 60] [--seed 7]

Corpus: the People passages of the shipped sample (pipeline/data/wiki_sample.jsonl.gz), each
encoded as "title: description, born in the Nth century. text", so that the attributes below
are stated in the passage (MiniLM cannot turn "(1853–1890)" into a century by itself).
Every query has 3 terms, one per attribute family: nationality ("American"), occupation
("painter") and century of birth ("born in the 19th century"), read from the Wikidata
description and the passage's first sentence; 0..3 of them negated; only triples that at least
3 passages hold. Relevant (grade 1): the passages with every positive attribute and none of
the negated ones; NOT means "passages about X are not relevant". Paper
(NV-Embed-V1): base 0.95/0.77/0.65/0.52 for 0/1/2/3 negations, ITLR 0.99/0.97/0.96/1.00.
"""

from __future__ import annotations

import argparse
import itertools
import random
import re
from collections import Counter, defaultdict
from statistics import mean

from pipeline.config import Config
from pipeline.passages import SAMPLE_PATH, load_passages
from retrieval.base import Corpus, Query
from pipeline.logical_form import And, Not, Term, to_string
from retrieval.metrics import per_query
from retrieval.registry import Factory

NATIONALITIES = ["American", "French", "German", "English", "Italian", "Russian", "British", "Indian", "Chinese",
                 "Japanese", "Greek", "Roman", "Spanish", "Dutch", "Austrian"]
OCCUPATIONS = ["writer", "philosopher", "poet", "mathematician", "physicist", "composer", "painter", "politician",
               "actor", "singer", "novelist", "historian", "architect", "chemist", "engineer", "inventor", "king",
               "emperor", "filmmaker", "playwright", "theologian"]
CENTURIES = {16: "16th", 17: "17th", 18: "18th", 19: "19th", 20: "20th"}
MIN_SUPPORT = 3  # a triple is used when at least 3 passages have all three attributes
RETRIEVERS = ["dense", "bm25", "itlr", "itlr(cal=shift)", "itlr(ops=minmax,cal=shift)", "itlr-bm25", "logical(neg=1,ctx=0)"]


def attributes(description: str, first_sentence: str = "") -> dict[str, list[str]]:
    """Family -> the term texts a person has, from a Wikidata description like 'Dutch painter
    (1853–1890)' and the passage's first sentence ("... was a Dutch post-impressionist painter"):
    every nationality or occupation stated in either counts; the century comes from the dates."""
    stated = f"{description} {first_sentence}"
    born = re.search(r"\((?:c\.\s*)?(\d{3,4})\s*[–-]", description)
    century = int(born[1]) // 100 + 1 if born else None
    found = {"nationality": [n for n in NATIONALITIES if re.search(rf"\b{n}\b", stated)],
             "occupation": [o for o in OCCUPATIONS if re.search(rf"\b{o}s?\b", stated, re.I)],
             "century": [f"born in the {CENTURIES[century]} century"] if century in CENTURIES else []}
    return {family: terms for family, terms in found.items() if terms}


def passage_text(passage, found: dict[str, str]) -> str:
    """Title, description (with the century of birth spelled out, as the paper's synthetic
    documents state their attributes), then the lead text."""
    century = f", {found['century'][0]}" if "century" in found else ""
    return f"{passage.title}: {passage.description}{century}. {passage.text}"


def verbalise(positive: list[str], negated: list[str]) -> str:
    """The question a person would type; the base retriever sees only this."""
    text = "Passages about people"
    if positive:
        text += " who are " + " and ".join(positive)
    if negated:
        text += (", but not about people who are " if positive else " who are not ") + " or ".join(negated)
    return text.replace("are born", "were born")


def build(per_count: int, seed: int):
    passages = [p for p in load_passages(SAMPLE_PATH).values() if p.topic == "People" and p.description]
    found = {p.id: attributes(p.description, p.text.split(". ")[0]) for p in passages}
    corpus = Corpus.from_mapping({p.id: passage_text(p, found[p.id]) for p in passages})
    facts = {pid: {term for terms in a.values() for term in terms} for pid, a in found.items()}
    # a triple (nationality, occupation, century) is used when enough passages have all three
    support = Counter(triple for a in found.values() if len(a) == 3 for triple in itertools.product(*a.values()))
    triples = sorted(triple for triple, count in support.items() if count >= MIN_SUPPORT)
    rng = random.Random(seed)
    queries, qrels = [], {}
    by_count: dict[int, list[tuple[list[str], list[str]]]] = defaultdict(list)
    for triple in triples:
        for count in range(4):
            for negated in itertools.combinations(range(3), count):
                pos = [t for i, t in enumerate(triple) if i not in negated]
                neg = [triple[i] for i in negated]
                by_count[count].append((pos, neg))
    for count, candidates in sorted(by_count.items()):
        rng.shuffle(candidates)
        for n, (pos, neg) in enumerate(candidates[:per_count]):
            relevant = {pid for pid, f in facts.items() if set(pos) <= f and not set(neg) & f}
            qid = f"n{count}-{n}"
            tree = And(tuple([Term(t) for t in pos] + [Not(Term(t)) for t in neg]))
            queries.append(Query(qid, verbalise(pos, neg), logical_form=to_string(tree), negations=count))
            qrels[qid] = {pid: 1 for pid in relevant}
    return corpus, queries, qrels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-count", type=int, default=60, help="queries per number of negations")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    corpus, queries, qrels = build(args.per_count, args.seed)
    print(f"{len(corpus)} People passages, {len(queries)} queries; e.g.")
    for q in queries[:: args.per_count][:4]:
        print(f"  {q.negations} NOT: {q.text!r}\n         {q.logical_form}  ({len(qrels[q.id])} relevant)")
    config = Config()
    config.evaluate.parse = "gold"
    factory = Factory(config.evaluate, config.llm, progress=True)
    table = {}
    for spec in RETRIEVERS:
        retriever = factory.build(spec)
        retriever.index(corpus)
        values = per_query(retriever.retrieve(queries, 100), qrels, queries)
        table[spec] = [mean(values[q.id]["nDCG@10"] for q in queries if q.negations == n) for n in range(4)]
    print("\nnDCG@10 by number of negations    0      1      2      3")
    print(f"{'paper: base (NV-Embed-V1)':32}" + "".join(f"{v:7.2f}" for v in (0.95, 0.77, 0.65, 0.52)))
    print(f"{'paper: ITLR':32}" + "".join(f"{v:7.2f}" for v in (0.99, 0.97, 0.96, 1.00)))
    for spec, row in table.items():
        print(f"{spec:32}" + "".join(f"{v:7.3f}" for v in row))


if __name__ == "__main__":
    main()
