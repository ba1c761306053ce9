"""``direction``: the dominant screen directions the subject moves in, in order."""

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
    SCREEN_OPPOSITE,
    SCREEN_TOKENS,
    kept,
    merged,
    once,
    register_kernel,
    tokens,
)
from tempogen.labels import Labels

DIRECTION_WORD = {"left": "Leftwards", "right": "Rightwards", "up": "Upwards", "down": "Downwards"}
# a picture turned a quarter clockwise: where each screen direction goes
CLOCKWISE_TURN = {"right": "down", "down": "left", "left": "up", "up": "right"}
MIRRORED = {
    "horizontal": {t: SCREEN_OPPOSITE[t] for t in ("left", "right")},
    "vertical": {t: SCREEN_OPPOSITE[t] for t in ("up", "down")},
}


@register_fact
class Direction(SequenceFact):
    """The dominant screen directions the subject moves in, in order."""

    name = "direction"
    options = 6
    flip = SCREEN_OPPOSITE
    aliases = {"leftwards": "left", "rightwards": "right", "upwards": "up", "downwards": "down"}
    edits = {
        "reverse": MAPPED,
        "mirror": MAPPED,
        "rotate": MAPPED,
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
        return observe.direction(labels, self.frames(labels, idx), labels.subject)

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        singles = list(DIRECTION_WORD)
        return singles + [f"{a}-{b}" for a in singles for b in singles if a != b] + ["none"]

    def option_text(self, key: str, labels: Labels) -> str:
        if key == "none":
            return "No movements."
        words = [DIRECTION_WORD[t] for t in key.split("-")]
        return (words[0] if len(words) == 1 else words[0] + " then " + words[1].lower()) + "."

    def caption(self, parts: CaptionParts) -> str | None:
        if parts.key == "none":
            return parts.says("does not move")
        return parts.says(f"moves {parts.answer}")


@register_kernel("time_reversal", "direction")
def _reverse(value: Any) -> list[str]:
    """Played backwards: the sequence reverses and each direction turns round."""
    return [SCREEN_TOKENS[t] for t in reversed(tokens(value, "direction", SCREEN_TOKENS))]


@register_kernel("mirror", "direction")
def _mirror(value: Any, axis: str) -> list[str]:
    """Flipped: left and right swap (horizontal), or up and down (vertical)."""
    swap = MIRRORED["horizontal" if axis == "horizontal" else "vertical"]
    return [swap.get(t, t) for t in tokens(value, "direction", SCREEN_TOKENS)]


@register_kernel("rotate", "direction")
def _rotate(value: Any, degrees: int) -> list[str]:
    """The picture turned clockwise by a multiple of 90: each direction turns with it."""
    toks = tokens(value, "direction", SCREEN_TOKENS)
    for _ in range((degrees // 90) % 4):
        toks = [CLOCKWISE_TURN[t] for t in toks]
    return toks


@register_kernel("join", "direction")
def _join(a: Any, b: Any) -> list[str]:
    """A then B: the sequences join, a repeated direction merging."""
    return merged(tokens(a, "direction", SCREEN_TOKENS) + tokens(b, "direction", SCREEN_TOKENS))


register_kernel("rate_ramp", "direction")(kept)
register_kernel("speed", "direction")(kept)
register_kernel("repeat", "direction")(once)
