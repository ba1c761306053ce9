"""A new edit op in one file: hold the middle frame for a moment."""

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from tempogen.editing import Clip, register_op
from tempogen.editing.effects import FROM_STATES, PRESERVED, Effect
from tempogen.editing.ops import TimeOp


@register_op
@dataclass(frozen=True)
class Freeze(TimeOp):
    """Hold the middle frame for ``seconds``. A pause keeps every sequence, count and shape;
    it breaks speed and rhythm trends, so it declares nothing for them: they are refused."""

    seconds: float = 1.0
    name: ClassVar[str] = "freeze"
    effects: ClassVar[dict[str, Effect]] = {
        "direction": PRESERVED,
        "rotation": PRESERVED,
        "count": PRESERVED,
        "trajectory": PRESERVED,
        "order": FROM_STATES,  # who starts first is read again from the held states
    }

    def select(self, clip: Clip) -> np.ndarray:
        mid = clip.num_frames // 2
        hold = np.full(int(round(self.seconds * clip.fps)), mid)
        return np.concatenate([np.arange(mid), hold, np.arange(mid, clip.num_frames)])
