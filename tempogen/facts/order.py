"""``order``: which object starts its action first (or all at once, or none)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.facts.base import Fact, named, register_fact, shift
from tempogen.facts.caption import CaptionParts
from tempogen.facts.kernels import (
    FROM_STATES,
    MAPPED,
    PRESERVED,
    KernelRefusal,
    kept,
    once,
    register_kernel,
)
from tempogen.facts.states import asked, moving
from tempogen.labels import Labels


@register_fact
class Order(Fact):
    """Which object starts its action first (or all at once, or none); the key names the first
    group: one object's name, ``same`` for a tie, ``none`` when nothing starts."""

    name = "order"
    words = r"^(?:first|starts? (?:moving|turning|rolling)|starts?|turns? on|lights? up)$"
    orientation_free = turn_free = True
    edits = {
        "reverse": FROM_STATES,  # who starts first backwards depends on when each action ends
        "mirror": PRESERVED,
        "rotate": PRESERVED,
        "speed": PRESERVED,
        "speed_up": PRESERVED,
        "speed_ramp": PRESERVED,
        "speed_ramp_up": PRESERVED,
        "loop": MAPPED,
        "concat": FROM_STATES,  # read from the joined states
        "composite": PRESERVED,
        "trim": FROM_STATES,
        "zoom": PRESERVED,
    }

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.order(labels, self.frames(labels, idx))

    def key(self, value: Any) -> str:
        if value is None:
            raise ValueError(f"fact {self.name!r} is undetermined: no answer key")
        if not value:
            return "none"
        first = value[0]
        return first[0] if len(first) == 1 else "same"

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(objects) + ["same", "none"]

    def option_text(self, key: str, labels: Labels) -> str:
        n = len(labels.query.objects)
        if key == "same":
            return "Both at the same time." if n == 2 else "All at the same time."
        if key == "none":
            return "None of them." if n > 2 else "Neither of them."
        return named(key, labels)

    def presumes(self, labels: Labels) -> str | None:
        """What "which ... starts (turns on) first" takes for granted: every object's action
        the clip shows starts inside it, so no object is already moving (or lit) in the
        first frame."""
        for name in asked(labels):
            t = labels.track(name)
            if labels.query.kind == "lit":
                if bool(t.lit[0] and t.visible[0]):
                    return f"{name} is already lit in the first frame, so its start is not shown"
            elif labels.num_frames > 1 and bool(moving(labels, name)[0]):
                return f"{name} is already moving in the first frame, so its start is not shown"
        return None

    def phrase_without_states(self, key: str, nouns: dict[str, str]) -> str:
        """An object's noun from the labels' nouns (no tracks to name it by)."""
        if key in ("same", "none"):
            return super().phrase_without_states(key, nouns)
        return str(nouns.get(key, f"the {key}"))

    def caption(self, parts: CaptionParts) -> str | None:
        kind, key, objects = parts.kind, parts.key, parts.objects
        if kind not in ("move", "lit") or not objects:
            return None
        names = [parts.nouns.get(o, o) for o in objects]
        group = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
        act = "starts moving" if kind == "move" else "turns on"
        if key == "same":
            acts = "start moving" if kind == "move" else "turn on"
            return f"{group} {'both' if len(names) == 2 else 'all'} {acts} at the same time"
        if key == "none":
            if len(names) == 2:
                return f"neither {names[0]} nor {names[1]} {act}"
            return f"none of {group} {act}"
        return f"of {group}, {parts.answer} {act} first"

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """Another object goes first (two: the order reversed); a tie or none has no flip."""
        return shift(key, answers)


@register_kernel("time_reversal", "order")
def _reverse(value: Any) -> Any:
    """Backwards, who starts first is who ended last: only "nobody starts" is kept."""
    if value:
        raise KernelRefusal("who starts first in reverse depends on when each action ends")
    return value


for _kernel in ("mirror", "rotate", "rate_ramp", "speed"):
    register_kernel(_kernel, "order")(kept)
register_kernel("repeat", "order")(once)
