"""``rotation``: the senses of turning (``cw``/``ccw``), of a spin or an orbit."""

from __future__ import annotations

from typing import Any

import numpy as np

from tempogen import observe
from tempogen.facts.base import SequenceFact, register_fact
from tempogen.facts.caption import CaptionParts
from tempogen.facts.kernels import (
    FROM_STATES,
    MAPPED,
    PRESERVED,
    SCREEN_TOKENS,
    TURN_OPPOSITE,
    frames_kept,
    kept,
    merged,
    once,
    register_kernel,
    tokens,
)
from tempogen.labels import Labels

ROTATION_TEXT = {
    "cw": "Clockwise throughout.",
    "ccw": "Counter-clockwise throughout.",
    "cw-ccw": "Clockwise then counter-clockwise.",
    "ccw-cw": "Counter-clockwise then clockwise.",
    "none": "No rotation.",
}


@register_fact
class Rotation(SequenceFact):
    """The senses of turning (``cw``/``ccw``), of a spin or an orbit as the query says."""

    name = "rotation"
    flip = TURN_OPPOSITE
    aliases = {
        "clockwise": "cw",
        "counter-clockwise": "ccw",
        "counterclockwise": "ccw",
        "anticlockwise": "ccw",
    }
    turn_free = True  # a turned picture keeps a spin's sense; a flip reverses it
    edits = {
        "reverse": MAPPED,
        "mirror": MAPPED,
        "rotate": PRESERVED,
        "speed": PRESERVED,
        "speed_up": FROM_STATES,  # dropped frames may alias a fast turn
        "speed_ramp": PRESERVED,
        "speed_ramp_up": FROM_STATES,
        "loop": MAPPED,
        "concat": MAPPED,
        "composite": PRESERVED,
        "trim": FROM_STATES,
        "zoom": PRESERVED,
    }

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.rotation(labels, self.frames(labels, idx))

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(ROTATION_TEXT)

    def option_text(self, key: str, labels: Labels) -> str:
        return ROTATION_TEXT[key]

    def caption(self, parts: CaptionParts) -> str | None:
        other = parts.other
        verb = f"moves around {other}" if parts.kind == "orbit" and other else "rotates"
        if parts.key == "none":
            return parts.says(
                f"does not {'rotate' if verb == 'rotates' else 'move around ' + other}"
            )
        return parts.says(f"{verb} {parts.answer}")


@register_kernel("time_reversal", "rotation")
def _reverse(value: Any) -> list[str]:
    """Played backwards: the senses reverse in order and each turns round."""
    return [SCREEN_TOKENS[t] for t in reversed(tokens(value, "rotation", SCREEN_TOKENS))]


@register_kernel("mirror", "rotation")
def _mirror(value: Any, axis: str) -> list[str]:
    """Flipped either way: every sense of turning reverses."""
    return [SCREEN_TOKENS[t] for t in tokens(value, "rotation", SCREEN_TOKENS)]


@register_kernel("join", "rotation")
def _join(a: Any, b: Any) -> list[str]:
    """A then B: the sequences join, a repeated sense merging."""
    return merged(tokens(a, "rotation", SCREEN_TOKENS) + tokens(b, "rotation", SCREEN_TOKENS))


register_kernel("rotate", "rotation")(kept)
register_kernel("rate_ramp", "rotation")(kept)
register_kernel("speed", "rotation")(frames_kept("rotation"))
register_kernel("repeat", "rotation")(once)
