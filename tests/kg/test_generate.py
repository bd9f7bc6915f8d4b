"""The kg generator end to end on the hand-made film graph: items, guarantees, determinism, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.errors import ComlqError
from pipeline.kg.generator import KGGenerator, generate_kg
from pipeline.kg.graph import read_triples
from pipeline.kg.query import evaluate, plan_for
from pipeline.kg.sample import Grounding
from pipeline.logical_form import And, Not, Or, parse
from pipeline.querytypes import (
    NEGATION_TYPES,
    TYPE_NAMES,
    check_triples,
    get_type,
    grounded_indicator,
    matches,
    query_graph,
)
from pipeline.records import Item
from pipeline.schemas import validate

FIXTURES = Path(__file__).parent / "fixtures"
PASSAGES = FIXTURES / "films.passages.jsonl"
TRIPLES = FIXTURES / "films.triples.jsonl"


@pytest.fixture(scope="module")
def result(passages, config):
    return generate_kg(passages, config(per_type=3), TYPE_NAMES)


def _recompute(films, item: Item) -> tuple[set[str], set[str]]:
    """Answers from the item's own triples, and the answers without its negations."""
    plan = plan_for(item.type)
    anchors = {}
    for (s, o), triple in zip(plan.edges, item.triples):
        for node, name in ((s, triple.subject), (o, triple.object)):
            if plan.is_anchor(node):
                anchors[node] = name
    relations = {i: t.relation for i, t in enumerate(item.triples)}
    negated = frozenset(i for i, t in enumerate(item.triples) if t.negated)
    answers = evaluate(films, plan, anchors, relations)[plan.target]
    return answers, evaluate(films, plan, anchors, relations, skip=negated)[plan.target]


def test_every_type_is_generated(result):
    counts = {name: sum(i.type == name for i in result.items) for name in TYPE_NAMES}
    assert counts == {name: 3 for name in TYPE_NAMES}
    assert result.stats["short_types"] == []


def test_items_pass_the_schema_and_the_type_check(result):
    for item in result.items:
        validate(item.to_dict(), "item")
        assert check_triples(item.triples, item.target, item.type) == []
        assert matches(query_graph(item.triples, item.target), item.type, directed=True)
        assert item.grounded_indicator == grounded_indicator(item.triples, item.target)
        assert item.check.ok and item.generator.name == "kg" and item.generator.seed == 1


def test_answers_are_the_exact_set(films, result):
    for item in result.items:
        answers, _ = _recompute(films, item)
        assert set(item.answers) == answers and 1 <= len(answers) <= 20


def test_negation_removes_an_answer_and_has_violating_passages(films, result):
    negation_items = [i for i in result.items if i.type in NEGATION_TYPES]
    assert len(negation_items) == 3 * len(NEGATION_TYPES)
    for item in negation_items:
        answers, without = _recompute(films, item)
        assert answers < without
        assert item.violating and not set(item.violating) & {e.passage_id for e in item.evidence}
    assert all(not i.violating for i in result.items if i.type not in NEGATION_TYPES)


def test_graded_evidence_follows_the_comlq_rule(result):
    for item in result.items:
        assert item.n_passages == len(item.evidence) and 1 <= item.n_passages <= 3
        assert {e.grade for e in item.evidence} == ({2} if item.n_passages == 1 else {1})
        assert set(item.source_passages) == {e.passage_id for e in item.evidence} | set(item.violating)


def test_no_duplicate_groundings(result):
    groundings = [tuple(sorted(json.dumps(t.to_dict(), sort_keys=True) for t in i.triples)) for i in result.items]
    assert len(set(groundings)) == len(groundings)
    assert len({i.id for i in result.items}) == len(result.items)


def test_no_relation_is_followed_by_its_inverse(films, result):
    for item in result.items:
        by_object: dict[str, list] = {}
        for t in item.triples:  # consecutive triples of a path share a variable
            by_object.setdefault(t.object, []).append(t)
        for t in item.triples:
            for before in by_object.get(t.subject, []):
                if before.subject.startswith("?") or t.subject.startswith("?"):
                    assert t.relation != films.inverses[before.relation], item.id


def test_max_answers_is_respected(passages, config):
    result = generate_kg(passages, config(per_type=2, max_answers=1), ("1p", "2u", "pin"))
    assert result.items and all(len(i.answers) == 1 for i in result.items)


def test_logical_forms_and_questions(result):
    cues = ("not", "except", "excluding", "other than", "never", "but not")
    for item in result.items:
        assert item.logical_form.count('"') >= 2 and item.question[-1] in ".?"
        negated = ("NOT" in item.logical_form)
        assert negated == (item.type in set(NEGATION_TYPES) - {"inp"})  # inp's NOT is inside its projected term
        if item.type in NEGATION_TYPES:
            assert any(cue in item.question for cue in cues), item.question
        anchors = {n for t in item.triples for n in (t.subject, t.object) if not n.startswith("?")}
        assert all(a in item.question for a in anchors if a not in {"film", "screenplay", "novel", "director",
                                                                    "novelist"}), item.question


def test_logical_forms_parse_as_itlr(result):
    for item in result.items:
        parse(item.logical_form)  # raises ComlqError on a form the retriever could not read


def test_same_seed_same_bytes(passages, tmp_path, config):
    for run in ("a", "b"):
        KGGenerator().write(generate_kg(passages, config(per_type=2, seed=5), TYPE_NAMES), tmp_path / run)
    for name in ("items.jsonl", "rejected.jsonl"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    stats = [json.loads((tmp_path / run / "stats.json").read_text()) for run in ("a", "b")]
    assert [s | {"timing": None} for s in stats[:1]] == [s | {"timing": None} for s in stats[1:]]
    other = generate_kg(passages, config(per_type=2, seed=6), TYPE_NAMES)
    assert [i.id for i in other.items] != [json.loads(line)["id"] for line in
                                           (tmp_path / "a" / "items.jsonl").read_text().splitlines()]


def test_a_type_that_cannot_be_grounded_is_explained(passages, tmp_path, config):
    tiny = tmp_path / "tiny.triples.jsonl"
    tiny.write_text(TRIPLES.read_text().splitlines()[0] + "\n")  # Lolita instance_of film: one edge
    # (without the corpus check: "Which films ...?" would find Spartacus, a film the graph lacks)
    result = generate_kg(passages, config(per_type=2, triples=str(tiny), corpus_check=False), ("1p", "2i", "3p"))
    # one edge makes two 1p groundings, both senseless: Lolita's class (a class as the answer), and
    # "the films that are films" (nothing asked)
    assert result.items == [] and result.stats["types"]["1p"]["rejections"]["class_as_answer"] == 1
    assert result.stats["short_types"] == ["1p", "2i", "3p"]
    short = result.stats["types"]["2i"]  # walked: the budget of 400 attempts per item runs out
    assert short["generated"] == 0 and short["attempts"] == 800
    assert short["shortfall"].startswith("0 of 2 items after 800 sampled groundings (budget 400 per item)")
    reasons = {r["reason"]: r for r in result.rejected if r["type"] == "2i"}
    assert "shortfall" in reasons and sum(r["attempts"] for k, r in reasons.items() if k != "shortfall") == 800
    enumerated = result.stats["types"]["3p"]  # enumerated: a chain of three hops has nothing to start from
    assert enumerated["generated"] == 0 and "(every grounding enumerated)" in enumerated["shortfall"]
    for record in result.rejected:
        validate(record, "rejected")


@pytest.mark.parametrize(("type_name", "where", "why"), [("2i", "rejections", "duplicate_grounding"),
                                                         ("2in", "shortfall", "every grounding enumerated")])
def test_per_type_too_large_is_explained(passages, config, type_name, where, why):
    """A walked type runs into the groundings it already made; an enumerated one runs out of them."""
    result = generate_kg(passages, config(per_type=500), (type_name,))
    summary = result.stats["types"][type_name]
    assert 0 < summary["generated"] < 500 and why in summary[where]
    assert summary["shortfall"].startswith(f"{summary['generated']} of 500 items")


@pytest.mark.parametrize("line, message", [
    ('{"subject": "A", "relation": "r", "object": "B"}', "field 'passages': is missing"),
    ('{"subject": "A", "relation": "r", "object": "B", "passages": ["nope"]}',
     "field 'passages': unknown passage id 'nope'"),
    ('{"subject": "?A", "relation": "r", "object": "B", "passages": ["f-ran"]}', "field 'subject'"),
    ('{"subject": "A", "relation": "created_by", "object": "B", "passages": ["f-ran"], "inverse": "made"}',
     "field 'inverse': 'made' contradicts"),
    ("{not json", "bad JSON"),
])
def test_bad_triples_file_names_file_line_and_field(passages, tmp_path, line, message):
    bad = tmp_path / "bad.triples.jsonl"
    bad.write_text(TRIPLES.read_text().splitlines()[1] + "\n\n" + line + "\n")
    with pytest.raises(ComlqError) as error:
        read_triples(bad, passages)
    assert str(error.value).startswith(f"{bad}:3: ") and message in str(error.value)


def test_impossible_settings_are_refused(passages, config):
    with pytest.raises(ComlqError, match="per_type must be at least 1"):
        generate_kg(passages, config(per_type=0), ("1p",))
    with pytest.raises(ComlqError, match="unknown query type"):
        generate_kg(passages, config(), ("4p",))


def test_cli_writes_the_three_files(tmp_path, capsys):
    out = tmp_path / "out"
    main(["generate", "--generator", "kg", "--per-type", "1", "--passages", str(PASSAGES), "--triples", str(TRIPLES),
          "--seed", "2", "--types", "1p,2in", "--out", str(out)])
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert [i["type"] for i in items] == ["1p", "2in"]
    stats = json.loads((out / "stats.json").read_text())
    assert stats["types"]["2in"]["generated"] == 1 and stats["timing"]["items_per_second"] > 0
    assert "wrote 2 items" in capsys.readouterr().out


def test_cli_bad_triples_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"subject": "A"}\n')
    code = main(["generate", "--passages", str(PASSAGES), "--triples", str(bad), "--out", str(tmp_path / "o")])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{bad}:1: field" in err


def test_same_seed_same_bytes_across_processes():
    """Set iteration order changes with PYTHONHASHSEED; the output must not."""
    script = ("import json, sys; from pipeline.config import GenerateConfig; "
              "from pipeline.kg.generator import generate_kg; "
              "from pipeline.passages import load_passages; from pipeline.querytypes import TYPE_NAMES; "
              f"r = generate_kg(load_passages({str(PASSAGES)!r}), GenerateConfig(per_type=2, seed=4, "
              f"triples={str(TRIPLES)!r}), TYPE_NAMES); "
              "sys.stdout.write(json.dumps([i.to_dict() for i in r.items] + r.rejected))")
    outputs = [subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True,
                              env=os.environ | {"PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")]
    assert outputs[0] == outputs[1] and len(json.loads(outputs[0])) > 28


def test_gzipped_triples_file_reads_the_same(passages, films, tmp_path):
    import gzip

    packed = tmp_path / "films.triples.jsonl.gz"
    packed.write_bytes(gzip.compress((Path(__file__).parent / "fixtures" / "films.triples.jsonl").read_bytes()))
    graph = read_triples(packed, passages)
    assert sorted(graph.graph.edges(keys=True)) == sorted(films.graph.edges(keys=True))


def _operators(node) -> Counter:
    """How many AND, OR and NOT nodes an ITLR tree has (AND/OR with n parts count n - 1)."""
    found: Counter = Counter()
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, Not):
            found["NOT"] += 1
            stack.append(node.child)
        elif isinstance(node, (And, Or)):
            found[type(node).__name__.upper()] += len(node.children) - 1
            stack.extend(node.children)
    return found


def test_every_logical_form_has_its_indicators_operators(result):
    """Read off the indicator (pipeline/querytypes.py): one NOT per negated edge and an AND per
    extra intersected anchor condition that no projection takes over (a projection of an
    intersection or a difference holds all of its conditions, its NOT too, in one term: ip,
    inp); an OR per union edge."""
    found_types = set()
    for item in result.items:
        pattern = get_type(item.type).pattern
        unions = sum(1 for *_, u in pattern.edges(data="union") if u)
        plan = plan_for(item.type)
        projected = {st.child for st in plan.steps[plan.target]} if plan.is_projection(plan.target) else set()
        kept = {node: steps for node, steps in plan.steps.items() if node not in projected}
        negations = sum(st.negated for steps in kept.values() for st in steps)
        ands = sum(max(0, sum(not st.union for st in steps) - 1) for steps in kept.values())
        ops = _operators(parse(item.logical_form))
        assert ops["NOT"] == negations and ops["OR"] == max(0, unions - 1), (item.type, item.logical_form)
        assert ops["AND"] == ands, (item.type, item.logical_form)
        found_types.add(item.type)
    assert found_types == set(TYPE_NAMES)


def test_no_named_entity_carries_a_run(passages, config, films):
    """No named anchor or answer in more than 3% of a run's items, at least 2 (Variety); values (a
    nationality, a century) may recur. Without the cap the film graph's runs repeat names more."""
    from pipeline.kg.generator import Variety, generate_type

    def uses(items):
        named = Counter()
        for item in items:
            anchors = {t.object for t in item.triples if not t.object.startswith("?")} | {
                t.subject for t in item.triples if not t.subject.startswith("?")}
            named.update(f"anchor:{n}" for n in anchors)
            named.update(f"answer:{n}" for n in item.answers)
        return {n: c for n, c in named.items() if n.split(":", 1)[1] not in values}

    values = {films.label(n) for n in films.labels if n.startswith("value:")}
    free = [i for name in TYPE_NAMES for i in generate_type(films, name, config())[0]]
    assert max(uses(free).values()) > 2
    capped = generate_kg(passages, config(max_entity_share=0.03), TYPE_NAMES)
    cap = Variety(3 * len(TYPE_NAMES), 0.03).cap
    assert cap == 2 and max(uses(capped.items).values()) <= cap
    assert capped.stats["types"]["2in"]["rejections"]["overused_entity"] > 0
    assert Variety(30 * len(TYPE_NAMES), 0.03).cap == 12  # 3% of 420
    # a run short of what it asked keeps the share of the items it made: 202 made of 420 asked may use a
    # name 6 times, not 12 (issue 29: one prize anchored 7 of 202 items). Drops come from the type with the
    # most items (here 1p, 182 items, before 2in's 20), the last made first
    from pipeline.kg.generator import _summary, _trimmed

    variety = Variety(420, 0.03)
    made = []
    for n in range(202):
        anchor = "Nobel Prize" if n % 10 == 0 else f"entity {n}"
        grounding = Grounding(plan_for("1p"), {"?x": anchor}, {0: "won"}, {}, frozenset({f"answer {n}"}), (), ())
        made.append(replace(capped.items[0], id=f"item {n}", type="1p" if n < 182 else "2in"))
        variety.add(grounding, f"item {n}")
    per_type = {t: _summary(182 if t == "1p" else 20, [i for i in made if i.type == t], 500, Counter(),
                            "all items asked") for t in ("1p", "2in")}
    kept = _trimmed(made, per_type, variety)
    dropped = {i.id for i in made} - {i.id for i in kept}
    # 21 uses of the prize (2 of them 2in's): 16 dropped, all 1p, the last made (180 down to 30): 5 of 186
    assert dropped == {f"item {n}" for n in range(30, 181, 10)}
    uses = sum(int(i.id.split()[1]) % 10 == 0 for i in kept)
    assert uses <= 0.03 * len(kept) < uses + 1
    assert [i.id for i in kept] == [i.id for i in made if i.id not in dropped]  # order kept
    assert per_type["1p"]["generated"] == 182 - len(dropped) and per_type["2in"]["generated"] == 20
    assert per_type["1p"]["rejections"] == {"overused_entity": len(dropped)}
    assert f"then {len(dropped)} dropped: max_entity_share" in per_type["1p"]["shortfall"]
    assert "shortfall" not in per_type["2in"]


def test_a_not_s_violating_passages_show_how_it_removes():
    # "the occupations of Allen Ginsberg but not those Mexican people had": poet and writer are removed by
    # Gabriel Zaid, a Mexican writer and poet, so his passage is the one that shows it (issue 29's fourth round
    # gave only a passage on Ginsberg's poetry, which says nothing of Mexicans)
    import random

    from pipeline.kg.facts import Fact
    from pipeline.kg.generator import builtin_inverses
    from pipeline.kg.graph import build_graph
    from pipeline.kg.sample import Sampler

    mexican, poet, writer, philosopher = ("value:nationality:Mexican", "value:class:poet", "value:class:writer",
                                          "value:class:philosopher")
    facts = [Fact("ginsberg", "occupation", c, ("p-ginsberg",)) for c in (poet, writer, philosopher)]
    facts += [Fact("zaid", "nationality", mexican, ("p-zaid",)), Fact("zaid", "occupation", writer, ("p-zaid",)),
              Fact("zaid", "occupation", poet, ("p-zaid",))]
    labels = {"ginsberg": "Allen Ginsberg", "zaid": "Gabriel Zaid", mexican: "Mexican", poet: "poet",
              writer: "writer", philosopher: "philosopher"}
    kg = build_graph(facts, labels, builtin_inverses())
    sampler = Sampler(kg, plan_for("pni"), random.Random(0), 10)
    grounding = sampler._evaluate({"?x": mexican, "?w": "ginsberg"},
                                  {0: "nationality_of", 1: "occupation", 2: "occupation"})
    assert grounding.answers == {philosopher}
    assert grounding.evidence == ("p-ginsberg",) and grounding.violating == ("p-zaid",)


def test_one_item_per_type_has_a_set_of_answers_and_evidence(passages, config):
    # "the occupations of Sulla that Doubleday never had", "... that Floyd never had": a NOT that only swaps
    # whom it removes by is a near-copy, whatever its violating passages (issue 29's fifth draw)
    result = generate_kg(passages, config(), TYPE_NAMES)
    signatures = Counter((i.type, i.answers, i.evidence) for i in result.items)
    assert max(signatures.values()) == 1
    assert sum(s["rejections"].get("duplicate_qrels", 0) for s in result.stats["types"].values()) > 0
