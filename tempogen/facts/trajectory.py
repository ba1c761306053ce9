"""``trajectory``: the shape the subject's path draws over the clip."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.facts.base import Fact, register_fact, shift
from tempogen.facts.caption import CaptionParts
from tempogen.facts.kernels import FROM_STATES, MAPPED, PRESERVED, kept, once, register_kernel
from tempogen.labels import Labels

TRAJECTORY_TEXT = {
    "circle": "Circle.",
    "triangle": "Triangle.",
    "square": "Square/rectangle.",
    "trapezoid": "Trapezoid.",
    "diamond": "Diamond.",
    "infinity": "Infinity-shape.",
    "star": "Star.",
    "none": "Not drawing at all.",
}


@register_fact
class Trajectory(Fact):
    """The shape the subject's path draws over the clip."""

    name = "trajectory"
    options = 6
    order_free = orientation_free = turn_free = True  # a mirrored star is a star
    # a path drawn twice (a loop, a join) is no shape: neither declares it
    edits = {
        "reverse": PRESERVED,
        "mirror": PRESERVED,
        "rotate": PRESERVED,
        "speed": PRESERVED,
        "speed_up": PRESERVED,
        "speed_ramp": PRESERVED,
        "speed_ramp_up": PRESERVED,
        "loop": MAPPED,
        "composite": PRESERVED,
        "trim": FROM_STATES,
        "zoom": PRESERVED,
    }

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.trajectory(labels, self.frames(labels, idx))

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(TRAJECTORY_TEXT)

    def option_text(self, key: str, labels: Labels) -> str:
        return TRAJECTORY_TEXT[key]

    def caption(self, parts: CaptionParts) -> str | None:
        if parts.key == "none":
            return parts.says("moves without drawing a shape")
        article = "an" if parts.answer[:1] in "aeiou" else "a"
        return parts.says(f"moves along {article} {parts.answer} trajectory")

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """Another of the pattern's shapes drawn by the same subject; not drawing has none."""
        return shift(key, answers)


for _kernel in ("time_reversal", "mirror", "rotate", "rate_ramp", "speed"):
    register_kernel(_kernel, "trajectory")(kept)
register_kernel("repeat", "trajectory")(once)
