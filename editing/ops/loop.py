"""``loop``: play the clip several times in a row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from tempogen.editing import algebra
from tempogen.editing.clip import Clip
from tempogen.editing.effects import REPEAT, Effect, mapped
from tempogen.editing.ops.base import COMPOSITE, TimeOp, register_op
from tempogen.errors import EditError

MAX_TIMES = 1000  # repeats: far past any question's use, far below a memory error


@register_op
@dataclass(frozen=True)
class Loop(TimeOp):
    """Play the clip ``times`` times in a row: counts multiply; a sequence would gain a jump at
    each seam, so sequences, shapes and orders refuse (unless ``times`` is 1)."""

    times: int = 2
    name: ClassVar[str] = "loop"
    variation: ClassVar[str] = COMPOSITE
    edit: ClassVar[str] = "loop"  # each fact declares it (``Fact.edits``)

    def __post_init__(self) -> None:
        if isinstance(self.times, bool) or not isinstance(self.times, int) or self.times < 1:
            raise EditError(f"loop: times must be a positive integer, got {self.times!r}")

    def validate(self) -> None:
        if self.times > MAX_TIMES:
            raise EditError(f"times: at most {MAX_TIMES}, got {self.times!r}")

    def declaration(self) -> tuple[str, Effect | None]:
        return self.edit, mapped(f"repeat_{self.times}", self._kernel, time=REPEAT)

    def _kernel(self, fact: str, value: object) -> object:
        return algebra.facts_loop({fact: value}, self.times)[fact]

    def select(self, clip: Clip) -> np.ndarray:
        return np.tile(np.arange(clip.num_frames), self.times)
