"""``trim``: keep a part of the clip."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from tempogen.editing.clip import Clip
from tempogen.editing.ops.base import TimeOp, register_op
from tempogen.errors import EditError

MAX_TRIM_SECONDS = 86_400.0  # a day: later than any clip ends


@register_op
@dataclass(frozen=True)
class Trim(TimeOp):
    """Keep the part between ``start`` and ``end`` seconds (end exclusive; None = to the end).

    A cut may remove what an answer describes: every answer is read again from the states
    that remain, and clips with declared facts only refuse."""

    start: float = 0.0
    end: float | None = None
    name: ClassVar[str] = "trim"
    variation: ClassVar[str] = ""  # a cut is neither counterfactual, composite nor zoom
    edit: ClassVar[str] = "trim"  # each fact declares it (``Fact.edits``)

    def validate(self) -> None:
        if not 0 <= self.start <= MAX_TRIM_SECONDS:
            raise EditError(f"start: must be from 0 to {MAX_TRIM_SECONDS:g} s, got {self.start!r}")
        if self.end is not None and not self.start < self.end <= MAX_TRIM_SECONDS:
            raise EditError(
                f"end: must be after start ({self.start:g} s) and at most "
                f"{MAX_TRIM_SECONDS:g} s, got {self.end!r}"
            )

    def select(self, clip: Clip) -> np.ndarray:
        a = int(round(self.start * clip.fps))
        b = clip.num_frames if self.end is None else int(round(self.end * clip.fps))
        if self.start < 0 or a >= min(b, clip.num_frames):
            raise EditError(
                f"trim: [{self.start}, {self.end}) s holds no frame of a "
                f"{clip.num_frames / clip.fps:.2f} s clip"
            )
        return np.arange(a, min(b, clip.num_frames))
