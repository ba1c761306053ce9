"""``next``: what a person does right after a named gesture."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.facts.base import Fact, register_fact
from tempogen.facts.caption import CaptionParts
from tempogen.facts.kernels import FROM_STATES, PRESERVED, kept, once, register_kernel
from tempogen.labels import Labels

# what a person does (fact ``next``): an option, and the anchor as the question names it;
# a hand is named by its glove's colour (``meta["gloves"]``), never by its side
NEXT_TEXT = {
    "left_up": "Raises the {left} hand.",
    "right_up": "Raises the {right} hand.",
    "both_up": "Raises both hands.",
    "clap": "Claps.",
    "arms_out": "Holds both arms out to the sides.",
}
NEXT_ANCHOR = {
    "left_up": "raising the {left} hand",
    "right_up": "raising the {right} hand",
    "both_up": "raising both hands",
    "clap": "clapping",
    "arms_out": "holding both arms out to the sides",
}


def gesture_words(template: str, labels: Labels) -> str:
    """A gesture's words with each hand named by its glove's colour."""
    gloves = labels.meta.get("gloves", {})
    return template.format(left=gloves.get("left", "left"), right=gloves.get("right", "right"))


@register_fact
class Next(Fact):
    """What a person does right after a named gesture (``query.kind``): the gestures are read
    per frame from the hands against the body's anchors (:func:`observe.gesture_frames`), rest
    ignored and repeats merged; the key is the gesture that follows the anchor. The options
    are the other gestures: the anchor itself is never offered."""

    name = "next"
    words = r"^right after$"
    options = len(observe.GESTURES) - 1
    # gestures are read in the body's own frame (flipped or turned with the picture) and hands
    # are named by their gloves, never by side: a flip, a turn or a zoom keeps the answer
    edits = {
        "reverse": FROM_STATES,  # what follows a gesture backwards is what preceded it
        "mirror": PRESERVED,
        "rotate": PRESERVED,
        "speed": PRESERVED,
        "speed_up": FROM_STATES,  # dropped frames may hide a brief gesture
        "speed_ramp": PRESERVED,
        "speed_ramp_up": FROM_STATES,
        "concat": FROM_STATES,  # B's gestures follow A's: read from the joined states
        "composite": PRESERVED,
        "trim": FROM_STATES,
        "zoom": PRESERVED,
    }

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.next_gesture(labels, self.frames(labels, idx))

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(observe.GESTURES)

    def option_text(self, key: str, labels: Labels) -> str:
        return gesture_words(NEXT_TEXT[key], labels)

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """None: the gesture the question names is drawn with the answer, so a twin would
        ask another question; no sound minimal pair."""
        return None

    def caption(self, parts: CaptionParts) -> str | None:
        if parts.kind not in NEXT_ANCHOR:
            return None
        gloves = parts.meta.get("gloves") or {}
        anchor = NEXT_ANCHOR[parts.kind].format(
            left=gloves.get("left", "left"), right=gloves.get("right", "right")
        )
        return f"right after {anchor}, {parts.meta.get('person') or parts.subject} {parts.answer}"

    def choose_options(
        self, key: str, labels: Labels, rng: np.random.Generator, answer_pos: int | None = None
    ) -> list[str]:
        """Every gesture but the anchor: four options, the right one at ``answer_pos``."""
        anchor = labels.query.kind
        pool = [g for g in observe.GESTURES if g != anchor]
        if key not in pool:
            raise ValueError(f"answer {key!r} is not a valid next option; valid: {pool}")
        others = [g for g in pool if g != key]
        rng.shuffle(others)
        pos = int(rng.integers(0, len(pool))) if answer_pos is None else answer_pos % len(pool)
        return others[:pos] + [key] + others[pos:]


register_kernel("rate_ramp", "next")(kept)
register_kernel("repeat", "next")(once)
