"""``reverse``: play the clip backwards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from tempogen.editing import algebra
from tempogen.editing.clip import Clip
from tempogen.editing.effects import BACKWARD, Effect, by_dict, mapped
from tempogen.editing.ops.base import TimeOp, register_op

TIME_REVERSAL = mapped("time_reversal", by_dict(algebra.facts_reverse), time=BACKWARD)


@register_op
@dataclass(frozen=True)
class Reverse(TimeOp):
    """Play the clip backwards: sequences reverse and invert (towards the camera becomes
    away), trends swap, counts stay."""

    name: ClassVar[str] = "reverse"
    edit: ClassVar[str] = "reverse"  # each fact declares it (``Fact.edits``)

    def declaration(self) -> tuple[str, Effect | None]:
        return self.edit, TIME_REVERSAL

    def select(self, clip: Clip) -> np.ndarray:
        return np.arange(clip.num_frames)[::-1]
