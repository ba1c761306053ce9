"""``approach``: whether the subject comes towards the camera or goes away, in order."""

from __future__ import annotations

from typing import Any

import numpy as np

from tempogen import observe
from tempogen.facts.base import SequenceFact, register_fact
from tempogen.facts.caption import CaptionParts
from tempogen.facts.kernels import (
    DEPTH_OPPOSITE,
    FROM_STATES,
    MAPPED,
    PRESERVED,
    kept,
    merged,
    once,
    register_kernel,
    tokens,
)
from tempogen.labels import Labels

APPROACH_TEXT = {
    "towards": "Towards the camera.",
    "away": "Away from the camera.",
    "towards-away": "Towards the camera, then away.",
    "away-towards": "Away from the camera, then back towards it.",
    "none": "It does not come closer or go farther.",
}
INVERT_APPROACH = DEPTH_OPPOSITE


@register_fact
class Approach(SequenceFact):
    """Whether the subject comes towards the camera or goes away, in order: read from how its
    apparent size (the track's ``scale``) grows or shrinks, which one frame cannot show."""

    name = "approach"
    words = r"^(?:towards|away)$"
    flip = INVERT_APPROACH
    split_declared = True  # ``towards-away``
    # no flip, turn or zoom of the picture changes whether the subject grows or shrinks
    orientation_free = turn_free = True
    edits = {
        "reverse": MAPPED,  # towards <-> away, in reverse order
        "mirror": PRESERVED,
        "rotate": PRESERVED,
        "speed": PRESERVED,
        "speed_up": PRESERVED,
        "speed_ramp": PRESERVED,
        "speed_ramp_up": PRESERVED,
        "loop": MAPPED,
        "concat": MAPPED,
        "composite": PRESERVED,
        "trim": FROM_STATES,
        "zoom": PRESERVED,
    }

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.approach(labels, self.frames(labels, idx), labels.subject)

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(APPROACH_TEXT)

    def option_text(self, key: str, labels: Labels) -> str:
        return APPROACH_TEXT[key]

    def caption(self, parts: CaptionParts) -> str | None:
        if parts.key == "none":
            return parts.says("stays at the same distance from the camera")
        words = {"towards": "walks towards the camera", "away": "walks away from the camera"}
        return parts.says(" and then ".join(words[t] for t in parts.key.split("-")))


def _depth(value: Any) -> list[str]:
    return tokens(value, "approach", INVERT_APPROACH)


@register_kernel("time_reversal", "approach")
def _reverse(value: Any) -> list[str]:
    """Played backwards: towards and away swap, in reverse order."""
    return [INVERT_APPROACH[t] for t in reversed(_depth(value))]


@register_kernel("mirror", "approach")
def _mirror(value: Any, axis: str) -> list[str]:
    """A flip keeps whether the subject grows or shrinks."""
    return _depth(value)


@register_kernel("rotate", "approach")
def _rotate(value: Any, degrees: int) -> list[str]:
    """A turn keeps whether the subject grows or shrinks."""
    return _depth(value)


@register_kernel("join", "approach")
def _join(a: Any, b: Any) -> list[str]:
    """A then B (B starts as big as A ends, else the states check refuses): the runs join."""
    return merged(_depth(a) + _depth(b))


register_kernel("rate_ramp", "approach")(kept)
register_kernel("speed", "approach")(kept)
register_kernel("repeat", "approach")(once)
