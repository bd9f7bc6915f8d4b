"""Train/validation/test assignment without passage leakage.

Items that share a passage (source or evidence) form one *leakage group*: the connected
components of the item–passage graph. Whole groups are assigned to splits, so no passage is
evidence in two splits. The assignment is stratified by (query type, number of evidence
passages) and deterministic for a seed:

1. coverage: every query type is given to each split that lacks it (small splits first),
   through the free group with the fewest items per type it adds, and not one a larger split
   needs for another type, so every split gets every type when there are enough groups (a type
   in only two groups goes to the two largest splits). Groups holding several rare types can
   still leave the smallest split without one of them (the test fixture's draw at some seeds):
   the larger splits are served first;
2. greedy: the remaining groups, largest first (ties in seeded random order), each go to the
   split that most needs them: the largest Σ_stratum count × (target − assigned), then the
   largest size deficit, then the larger ratio.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import networkx as nx

from pipeline.errors import ComlqError
from pipeline.querytypes import TYPE_NAMES

SPLITS = ("train", "validation", "test")

Stratum = tuple[str, int]  # (query type, number of evidence passages)


def parse_ratios(text: str | Sequence[float]) -> tuple[float, float, float]:
    """'0.7,0.1,0.2' (or a sequence) -> three non-negative ratios that sum to 1."""
    try:
        values = [float(v) for v in (text.split(",") if isinstance(text, str) else text)]
    except ValueError:
        raise ComlqError(f"ratios {text!r}: expected three numbers such as 0.7,0.1,0.2") from None
    if len(values) != 3 or any(v < 0 for v in values) or abs(sum(values) - 1) > 1e-6:
        raise ComlqError(f"ratios {text!r}: expected three non-negative numbers (train, validation, test) summing to 1")
    return values[0], values[1], values[2]


EVALUATED = "test"  # the split the evaluation reads: it must hold every exported type


def groups_needed(ratios: tuple[float, float, float], split: str = EVALUATED) -> int:
    """Leakage groups a type needs before `split` gets one of its items (0: the split's ratio is 0).

    The coverage step (assign_splits, 1.) gives a type in k groups to the k largest splits, so this
    is the split's rank by ratio: 2 for test with 0.7, 0.1, 0.2. Items that share no passage are
    separate groups, so it is also the fewest items per type that can do.
    """
    ratio = dict(zip(SPLITS, ratios))
    if ratio[split] <= 0:
        return 0
    active = sorted((s for s in SPLITS if ratio[s] > 0), key=lambda s: (ratio[s], SPLITS.index(s)))
    return sorted(active, key=ratio.get, reverse=True).index(split) + 1


def _evaluated_share(ratios: tuple[float, float, float]) -> int:
    """groups_needed for the test split, refusing a 0 share (nothing to evaluate)."""
    needed = groups_needed(ratios)
    if needed == 0:
        raise ComlqError(f"export ratios {_ratios(ratios)}: the {EVALUATED} split would be empty; "
                         "give it a share above 0")
    return needed


def check_per_type(per_type: int, ratios: tuple[float, float, float]) -> None:
    """Refuse, before any work, a per_type too small for every type to reach the test split."""
    needed = _evaluated_share(ratios)
    if per_type < needed:
        raise ComlqError(f"per_type {per_type}: with export ratios {_ratios(ratios)} a query type needs at least "
                         f"{needed} items (sharing no passage) to reach the {EVALUATED} split; "
                         f"use --per-type {needed} or more")


def check_evaluated_split(types_by_split: dict[str, Counter[str]], ratios: tuple[float, float, float]) -> list[str]:
    """Refuse an assignment that leaves the whole test split empty; return the types it leaves out
    of the test split (their items share passages in groups too few or too large to reach it
    without leaking): the export goes on, and its card and log name them."""
    needed = _evaluated_share(ratios)
    exported = [t for t in TYPE_NAMES if any(types_by_split[s][t] for s in SPLITS)]
    missing = [t for t in exported if not types_by_split[EVALUATED][t]]
    if missing and len(missing) == len(exported):
        counts = ", ".join(f"{t} {sum(types_by_split[s][t] for s in SPLITS)}" for t in missing)
        raise ComlqError(f"the {EVALUATED} split would have no {', '.join(missing)} queries (items: {counts}); with "
                         f"ratios {_ratios(ratios)} each type needs at least {needed} items that share no passage "
                         "(more when they share passages): generate more per type, or change --ratios")
    return missing


def _ratios(ratios: Sequence[float]) -> str:
    return ",".join(f"{r:g}" for r in ratios)


@dataclass(frozen=True, slots=True)
class SplitUnit:
    """What the split needs to know of an item."""

    id: str
    type: str
    n_passages: int
    passages: frozenset[str]  # source passages and relevant passages: shared ones leak


def leakage_groups(units: Sequence[SplitUnit]) -> list[list[SplitUnit]]:
    """Connected components of the item–passage graph, each sorted by id, in id order."""
    graph = nx.Graph()
    by_id = {unit.id: unit for unit in units}
    for unit in units:
        graph.add_node(("item", unit.id))
        graph.add_edges_from((("item", unit.id), ("passage", p)) for p in unit.passages)
    groups = [sorted((by_id[name] for kind, name in component if kind == "item"), key=lambda u: u.id)
              for component in nx.connected_components(graph)]
    return sorted(groups, key=lambda g: g[0].id)


@dataclass
class _Group:
    units: list[SplitUnit]
    strata: Counter[Stratum]
    types: frozenset[str]


class _Assignment:
    """Groups given to splits so far, and what the two steps of assign_splits weigh."""

    def __init__(self, groups: list[_Group], ratios: tuple[float, float, float], n_units: int) -> None:
        self.groups = groups
        self.n_units = n_units
        # exact: 0.1 × 10 is 1, not 1.0000000000000002
        self.ratio = {s: Fraction(str(r)) for s, r in zip(SPLITS, ratios)}
        self.active = sorted((s for s in SPLITS if self.ratio[s] > 0), key=lambda s: (self.ratio[s], SPLITS.index(s)))
        self.totals: Counter[Stratum] = Counter()
        for g in groups:
            self.totals.update(g.strata)
        self.assigned: dict[str, Counter[Stratum]] = {s: Counter() for s in SPLITS}
        self.split_of_group: dict[int, str] = {}

    def put(self, index: int, split: str) -> None:
        self.split_of_group[index] = split
        self.assigned[split].update(self.groups[index].strata)

    def types_in(self, split: str) -> set[str]:
        return {t for t, _ in self.assigned[split]}

    def size(self, split: str) -> int:
        return sum(self.assigned[split].values())

    def target(self, split: str) -> Fraction:
        return self.ratio[split] * self.n_units


def _cover(state: _Assignment) -> None:
    """1. coverage, rarest types first. A split takes the free group with the fewest items per
    type it adds, preferring groups that fit in the room left below its target size; a
    group larger than the split's whole target (and than the types it adds) is never
    used, so a large group does not land in a small split just to cover a type.
    A type in fewer groups than splits goes to the largest splits it can fill."""
    holding = {t: [i for i, g in enumerate(state.groups) if t in g.types] for t in TYPE_NAMES}
    for type_name in sorted(TYPE_NAMES, key=lambda t: len(holding[t])):
        largest = sorted(state.active, key=state.ratio.get, reverse=True)[:len(holding[type_name])]
        for split in (s for s in state.active if s in largest):
            if type_name in state.types_in(split):
                continue
            target = state.target(split)
            options = []
            for i in holding[type_name]:
                n, new = len(state.groups[i].units), len(state.groups[i].types - state.types_in(split))
                if i not in state.split_of_group and n <= max(target, new):
                    options.append((n > max(target - state.size(split), new), Fraction(n, new), i))
            # a group holding the last free groups of another type that a larger split still lacks is kept for it
            options = [o for o in options if not _needed_above(state, holding, o[2], split)]
            if options:
                state.put(min(options)[2], split)


def _needed_above(state: _Assignment, holding: dict[str, list[int]], index: int, split: str) -> bool:
    """Would giving group `index` to `split` leave a larger split that lacks one of its types too few
    free groups of that type?"""
    for type_name in state.groups[index].types:
        lacking = [s for s in state.active
                   if state.ratio[s] > state.ratio[split] and type_name not in state.types_in(s)]
        free = [i for i in holding[type_name] if i != index and i not in state.split_of_group]
        if len(free) < len(lacking):
            return True
    return False


def _fill(state: _Assignment) -> None:
    """2. greedy, largest groups first."""
    def need(split: str, group: _Group) -> Fraction:
        return sum(n * (state.ratio[split] * state.totals[k] - state.assigned[split][k])
                   for k, n in group.strata.items())

    for index in reversed(range(len(state.groups))):
        if index in state.split_of_group:
            continue
        best = max(state.active, key=lambda s: (need(s, state.groups[index]), state.target(s) - state.size(s),
                                                state.ratio[s], -SPLITS.index(s)))
        state.put(index, best)


def assign_splits(units: Sequence[SplitUnit], ratios: tuple[float, float, float], seed: int) -> dict[str, str]:
    """Item id -> split name."""
    groups = [_Group(g, Counter((u.type, u.n_passages) for u in g), frozenset(u.type for u in g))
              for g in leakage_groups(units)]
    random.Random(seed).shuffle(groups)
    groups.sort(key=lambda g: len(g.units))  # stable: equal sizes keep the seeded order
    state = _Assignment(groups, ratios, len(units))
    _cover(state)
    _fill(state)
    return {unit.id: state.split_of_group[i] for i, g in enumerate(groups) for unit in g.units}
