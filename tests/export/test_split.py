"""Split assignment: no passage leakage, every type in every split, ratios, determinism."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from pipeline.errors import ComlqError
from pipeline.export.split import SPLITS, SplitUnit, assign_splits, leakage_groups, parse_ratios
from pipeline.querytypes import TYPE_NAMES
from pipeline.records import Item, Passage


def _units(items: list[Item]) -> list[SplitUnit]:
    return [SplitUnit(i.id, i.type, i.n_passages, frozenset(i.source_passages)) for i in items]


def _leaks(units: list[SplitUnit], split_of: dict[str, str]) -> dict[str, set[str]]:
    splits_of_passage: dict[str, set[str]] = defaultdict(set)
    for unit in units:
        for passage in unit.passages:
            splits_of_passage[passage].add(split_of[unit.id])
    return {p: s for p, s in splits_of_passage.items() if len(s) > 1}


@pytest.mark.parametrize("seed", [0, 13])
def test_no_leakage_and_every_type_in_every_split(pool: list[Passage], seed: int, build_items) -> None:
    units = _units(build_items(pool, per_type=6, seed=seed))
    assert len(leakage_groups(units)) < len(units)  # the fixture does share passages
    split_of = assign_splits(units, (0.7, 0.1, 0.2), seed)
    assert split_of.keys() == {u.id for u in units}
    assert _leaks(units, split_of) == {}
    groups_per_type = Counter(t for g in leakage_groups(units) for t in {u.type for u in g})
    assert sum(n >= len(SPLITS) for n in groups_per_type.values()) >= 12  # "enough items" for most types
    for split in SPLITS:
        # a type in only two groups goes to the two largest splits
        reachable = {t for t, n in groups_per_type.items() if n >= 3 or (n == 2 and split != "validation")}
        assert {u.type for u in units if split_of[u.id] == split} >= reachable, split


def test_same_seed_same_split_other_seed_other_split(pool: list[Passage], build_items) -> None:
    units = _units(build_items(pool, per_type=6))
    assert assign_splits(units, (0.7, 0.1, 0.2), 5) == assign_splits(list(reversed(units)), (0.7, 0.1, 0.2), 5)
    assert assign_splits(units, (0.7, 0.1, 0.2), 5) != assign_splits(units, (0.7, 0.1, 0.2), 6)


def test_sizes_and_strata_follow_the_ratios(pool: list[Passage]) -> None:
    # singletons over distinct passages: ratios can be met exactly per (type, n_passages) stratum
    units = [SplitUnit(f"q{k}", TYPE_NAMES[k % 14], 1 + (k // 14) % 3, frozenset({f"p{k}"})) for k in range(14 * 30)]
    split_of = assign_splits(units, (0.7, 0.1, 0.2), 1)
    sizes = Counter(split_of.values())
    assert sizes == {"train": 294, "validation": 42, "test": 84}
    for stratum in {(u.type, u.n_passages) for u in units}:  # 10 of each stratum: 7 / 1 / 2
        counts = Counter(split_of[u.id] for u in units if (u.type, u.n_passages) == stratum)
        assert counts == {"train": 7, "validation": 1, "test": 2}, stratum


def test_large_group_is_not_used_to_cover_a_small_split() -> None:
    # one 40-item group holds every type; otherwise only two singletons per type
    big = [SplitUnit(f"big{k}", TYPE_NAMES[k % 14], 1, frozenset({"hub", f"b{k}"})) for k in range(40)]
    small = [SplitUnit(f"s{k}", TYPE_NAMES[k % 14], 1, frozenset({f"s{k}"})) for k in range(28)]
    split_of = assign_splits(big + small, (0.7, 0.1, 0.2), 0)
    assert {split_of[u.id] for u in big} == {"train"}
    for split in ("validation", "test"):
        assert {u.type for u in small if split_of[u.id] == split} == set(TYPE_NAMES)


def test_a_zero_ratio_leaves_its_split_empty(pool: list[Passage], build_items) -> None:
    units = _units(build_items(pool, per_type=3))
    split_of = assign_splits(units, (0.8, 0.0, 0.2), 0)
    assert set(split_of.values()) == {"train", "test"}


@pytest.mark.parametrize("text", ["0.7,0.1", "0.7,0.2,0.2", "a,b,c", "1.2,-0.1,-0.1"])
def test_bad_ratios(text: str) -> None:
    with pytest.raises(ComlqError, match="ratios"):
        parse_ratios(text)


def test_good_ratios() -> None:
    assert parse_ratios("0.8, 0.1, 0.1") == (0.8, 0.1, 0.1)
    assert parse_ratios([0.6, 0.2, 0.2]) == (0.6, 0.2, 0.2)


# the leakage groups (types of their items) of a 65-item draw whose train split lacked pi: the rarer types'
# coverage had given all three pi groups to the small splits
DRAW = ["1p", "1p", "2p pin 1p", "1p", "1p 2in", "2p pin", "2p", "2p 2i 2i up", "2p", "pi pi 3p", "3p 2u 2u", "3in 2i",
        "2i pi pni", "2i 3in pi pi ip", "3i 3i", "3i", "3i", "inp inp inp 3in 3i", "ip", "ip", "ip", "ip", "2u 2u",
        "2u", "up up up inp inp", "up", "2in pin pin", "2in", "2in 2in", "3in", "3in", "pin", "pni pni"]


@pytest.mark.parametrize("seed", [13, 1, 2, 3])
def test_coverage_keeps_for_a_larger_split_the_groups_it_still_needs(seed: int) -> None:
    units = [SplitUnit(f"g{g}-{k}", type_name, 1, frozenset({f"p{g}"}))
             for g, types in enumerate(DRAW) for k, type_name in enumerate(types.split())]
    split_of = assign_splits(units, (0.7, 0.1, 0.2), seed)
    groups_per_type = Counter(t for types in DRAW for t in set(types.split()))
    for split, rank in (("train", 1), ("test", 2)):
        reachable = {t for t, n in groups_per_type.items() if n >= rank}
        assert {u.type for u in units if split_of[u.id] == split} >= reachable, split
