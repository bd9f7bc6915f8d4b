"""The run's variety: no named entity is the anchor or an answer of more than a share of its items."""

from __future__ import annotations

from collections import Counter

from pipeline.kg.sample import Grounding
from pipeline.records import Item


class Variety:
    """How often each named entity (values such as a nationality or a century aside) is an anchor or an
    answer of the run's items so far; an item that would take one past `cap` (`max_entity_share` of the
    items asked, at least 2) is turned down, so no person or place carries a run (one anchored 9 of 140
    items of an unseen corpus). A run short of what it asked has a lower share to keep: `trim`."""

    def __init__(self, expected_items: int, share: float):
        self.share = share
        self.cap = self._cap(expected_items)
        self.anchors: Counter[str] = Counter()
        self.answers: Counter[str] = Counter()
        self.uses: dict[str, set[str]] = {}  # item id -> its named anchors and answers ("anchor:X", "answer:Y")

    def _cap(self, items: int) -> int:
        return max(2, int(self.share * items))  # (a tiny run may use a name twice)

    @staticmethod
    def _named(nodes) -> set[str]:
        return {n for n in nodes if not n.startswith("value:")}

    def admits(self, grounding: Grounding) -> bool:
        return all(self.anchors[n] < self.cap for n in self._named(grounding.anchors.values())) and all(
            self.answers[n] < self.cap for n in self._named(grounding.answers))

    def add(self, grounding: Grounding, item_id: str) -> None:
        anchors, answers = self._named(grounding.anchors.values()), self._named(grounding.answers)
        self.anchors.update(anchors)
        self.answers.update(answers)
        self.uses[item_id] = {f"anchor:{n}" for n in anchors} | {f"answer:{n}" for n in answers}

    def trim(self, items: list[Item]) -> set[str]:
        """The ids of the items to drop so that no named entity is in more than the share of the items made (a
        short run: 7 of 202 items anchored at one prize were within 3% of the 420 asked). Each drop is an item
        of the type with the most items kept, the last made: the scarce types keep theirs."""
        kept = list(items)
        while True:
            cap = self._cap(len(kept))
            counts = Counter(use for item in kept for use in self.uses.get(item.id, ()))
            over = [i for i in kept if any(counts[u] > cap for u in self.uses.get(i.id, ()))]
            if not over:
                return {i.id for i in items} - {i.id for i in kept}
            per_type = Counter(i.type for i in kept)
            kept.remove(max(reversed(over), key=lambda i: per_type[i.type]))
