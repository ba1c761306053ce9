"""``frequency``: how often a repeated action happens: more often, less often, steadily, never."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.facts.base import Fact, opposite, register_fact
from tempogen.facts.caption import KIND_VERB, CaptionParts, agree
from tempogen.facts.kernels import (
    FROM_STATES,
    MAPPED,
    PRESERVED,
    frames_kept,
    register_kernel,
    trend_kernels,
)
from tempogen.labels import Labels

FREQUENCY_TEXT = {
    "increasing": "The frequency increases.",
    "decreasing": "The frequency decreases.",
    "constant": "The frequency stays constant.",
    "none": "It does not happen at all.",
}
RATE_WORDS = {
    "increasing": "more and more often",
    "decreasing": "less and less often",
    "constant": "at a steady rate",
}


@register_fact
class Frequency(Fact):
    """How often a repeated action happens: more often, less often, steadily, never."""

    name = "frequency"
    orientation_free = turn_free = True
    edits = {
        "reverse": MAPPED,
        "mirror": PRESERVED,
        "rotate": PRESERVED,
        "speed": PRESERVED,
        "speed_up": FROM_STATES,  # dropped frames may hide a flash
        "speed_ramp": MAPPED,
        "speed_ramp_up": FROM_STATES,  # count the gaps that remain
        "loop": MAPPED,
        "concat": MAPPED,
        "composite": PRESERVED,
        "trim": FROM_STATES,
        "zoom": PRESERVED,
    }

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.frequency(labels, self.frames(labels, idx))

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(FREQUENCY_TEXT)

    def option_text(self, key: str, labels: Labels) -> str:
        return FREQUENCY_TEXT[key]

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """More and more often swaps with less and less; constant or none has no flip."""
        return opposite(key, answers, {"increasing": "decreasing", "decreasing": "increasing"})

    def caption(self, parts: CaptionParts) -> str | None:
        if parts.kind not in KIND_VERB:
            return None
        verb = agree(parts.subject, KIND_VERB[parts.kind])
        if parts.key == "none":
            return f"{parts.subject} never {verb}"
        return f"{parts.subject} {verb} {RATE_WORDS.get(parts.key, parts.answer)}"


trend_kernels("frequency", "increasing", "decreasing")
register_kernel("speed", "frequency")(frames_kept("frequency"))
