"""``speed``: how the subject's speed (of position, or of turning) changes over the clip."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.facts.base import Fact, opposite, register_fact
from tempogen.facts.caption import CaptionParts
from tempogen.facts.kernels import (
    FROM_STATES,
    MAPPED,
    PRESERVED,
    kept,
    register_kernel,
    trend_kernels,
)
from tempogen.labels import Labels

SPEED_TEXT = {
    "accelerating": "Accelerating.",
    "decelerating": "Decelerating.",
    "constant": "Constant speed.",
    "none": "No movement.",
}


@register_fact
class Speed(Fact):
    """How the subject's speed (of position, or of turning) changes over the clip."""

    name = "speed"
    orientation_free = turn_free = True
    edits = {
        "reverse": MAPPED,
        "mirror": PRESERVED,
        "rotate": PRESERVED,
        "speed": PRESERVED,
        "speed_up": PRESERVED,  # a uniform rate keeps the trend
        "speed_ramp": MAPPED,
        "speed_ramp_up": MAPPED,
        "loop": MAPPED,
        "concat": MAPPED,
        "composite": PRESERVED,
        "trim": FROM_STATES,
        "zoom": PRESERVED,
    }

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        kind = labels.query.kind or "position"
        return observe.speed(labels, self.frames(labels, idx), labels.subject, kind)

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(SPEED_TEXT)

    def option_text(self, key: str, labels: Labels) -> str:
        return SPEED_TEXT[key]

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """Accelerating and decelerating swap; a constant pace or none has no flip."""
        return opposite(
            key, answers, {"accelerating": "decelerating", "decelerating": "accelerating"}
        )

    def caption(self, parts: CaptionParts) -> str | None:
        move = "turn" if parts.kind == "angle" else "move"
        speed = {
            "accelerating": "speeds up",
            "decelerating": "slows down",
            "constant": f"{move}s at a constant speed",
            "none": f"does not {move}",
        }
        return parts.says(speed.get(parts.key, f"{move}s: {parts.answer}"))


trend_kernels("speed", "accelerating", "decelerating")
register_kernel("speed", "speed")(kept)
