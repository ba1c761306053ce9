"""``more``: which of several actors repeats its action more times."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.facts.base import Fact, named, register_fact, shift
from tempogen.facts.kernels import kept, once, register_kernel
from tempogen.labels import Labels, Query


@register_fact
class More(Fact):
    """Which of several actors repeats its action more times. The query's objects come in
    pairs, (track, the anchor its events are read against), one pair per actor; the key
    names the track with the strictly highest count (a tie has no answer)."""

    name = "more"
    # no op declares what it does to a comparison of counts: every edit refuses it

    @staticmethod
    def pairs(objects: tuple[str, ...]) -> list[tuple[str, str]]:
        """The (track, anchor) pairs of a query's objects."""
        if len(objects) < 4 or len(objects) % 2:
            raise ValueError(f"fact 'more' reads (track, anchor) pairs, got {objects}")
        return list(zip(objects[0::2], objects[1::2]))

    def actors(self, labels: Labels) -> dict[str, Labels]:
        """Per actor, the labels as a one-actor count query on its (track, anchor) pair."""
        q = labels.query
        return {
            name: replace(labels, query=Query("count", (name, anchor), q.kind))
            for name, anchor in self.pairs(q.objects)
        }

    def counts(self, labels: Labels, idx: np.ndarray | None = None) -> dict[str, int | None]:
        """Each actor's count, read by :func:`observe.count` on its own track and anchor."""
        at = self.frames(labels, idx)
        return {name: observe.count(one, at) for name, one in self.actors(labels).items()}

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        counts = self.counts(labels, idx)
        known = {name: c for name, c in counts.items() if c is not None}
        if len(known) < len(counts):
            return None
        top = max(known.values())
        winners = [name for name, c in known.items() if c == top]
        return winners[0] if len(winners) == 1 else None  # a tie names nobody

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return [name for name, _ in self.pairs(objects)] if objects else []

    def option_text(self, key: str, labels: Labels) -> str:
        return named(key, labels)

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """The other actor repeats more."""
        return shift(key, answers)


register_kernel("rate_ramp", "more")(kept)
register_kernel("repeat", "more")(once)
