"""``reverse``: play the clip backwards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from tempogen.editing import algebra
from tempogen.editing.clip import Clip
from tempogen.editing.effects import BACKWARD, FROM_STATES, PRESERVED, Effect, by_dict, mapped
from tempogen.editing.ops.base import TimeOp, register_op

TIME_REVERSAL = mapped("time_reversal", by_dict(algebra.facts_reverse), time=BACKWARD)


@register_op
@dataclass(frozen=True)
class Reverse(TimeOp):
    """Play the clip backwards: sequences reverse and invert (towards the camera becomes
    away), trends swap, counts stay."""

    name: ClassVar[str] = "reverse"
    effects: ClassVar[dict[str, Effect]] = {
        "direction": TIME_REVERSAL,
        "rotation": TIME_REVERSAL,
        "speed": TIME_REVERSAL,
        "frequency": TIME_REVERSAL,
        "count": PRESERVED,
        "trajectory": PRESERVED,
        "approach": TIME_REVERSAL,  # towards <-> away, in reverse order
        "order": FROM_STATES,  # who starts first backwards depends on when each action ends
        "faster": PRESERVED,  # the same paths in the same time
        # what follows a gesture backwards is what preceded it: read again from the reversed
        # states (undetermined, so refused, when the gesture came first)
        "next": FROM_STATES,
    }

    def select(self, clip: Clip) -> np.ndarray:
        return np.arange(clip.num_frames)[::-1]
