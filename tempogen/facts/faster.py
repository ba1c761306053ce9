"""``faster``: which of several actors moves faster on average over the clip."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.facts.base import Fact, named, register_fact, shift
from tempogen.facts.kernels import FROM_STATES, PRESERVED, kept, once, register_kernel
from tempogen.labels import Labels


@register_fact
class Faster(Fact):
    """Which of several actors moves faster on average over the clip (its path length over
    the time, at its own depth); a near tie has no answer, so clips are drawn with a clear
    winner. The key names the winner's track."""

    name = "faster"
    words = r"^faster$"
    order_free = True  # the same paths in the same time, backwards
    edits = {
        "reverse": PRESERVED,
        "speed": PRESERVED,
        "speed_up": FROM_STATES,  # dropped frames may cut a corner of a walked path
        "speed_ramp": PRESERVED,
        "speed_ramp_up": FROM_STATES,
    }

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.fastest(labels, self.frames(labels, idx))

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(objects)

    def option_text(self, key: str, labels: Labels) -> str:
        return named(key, labels)

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """The other actor is the faster."""
        return shift(key, answers)


register_kernel("rate_ramp", "faster")(kept)
register_kernel("repeat", "faster")(once)
