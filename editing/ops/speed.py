"""``speed`` and ``speed_ramp``: play faster or slower, at a constant or a changing rate."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from tempogen.editing import algebra
from tempogen.editing.clip import Clip
from tempogen.editing.effects import Effect, mapped
from tempogen.editing.ops.base import TimeOp, register_op
from tempogen.errors import EditError

# Dropped frames (a rate above 1) may hide a brief event, alias a fast turn, cut a corner of a
# walked path or hide a brief gesture: facts declare apart what a rate that drops frames does
# (``speed_up``, ``speed_ramp_up``) and what a rate that does not does (``speed``, ``speed_ramp``).


def _positive(op: str, name: str, v: object) -> None:
    if isinstance(v, bool) or not (isinstance(v, int | float) and v > 0 and math.isfinite(v)):
        raise EditError(f"{op}: {name} must be a positive number, got {v!r}")


MAX_RATE = 1000.0  # playback rates from 1/1000 to 1000 times normal


def _in_range(name: str, v: float) -> None:
    if not 1 / MAX_RATE <= v <= MAX_RATE:
        raise EditError(f"{name}: must be from {1 / MAX_RATE:g} to {MAX_RATE:g}, got {v!r}")


@register_op
@dataclass(frozen=True)
class Speed(TimeOp):
    """Play ``factor`` times faster (frames dropped) or slower (frames repeated); fps stays."""

    factor: float
    name: ClassVar[str] = "speed"

    def __post_init__(self) -> None:
        _positive("speed", "factor", self.factor)

    def validate(self) -> None:
        _in_range("factor", self.factor)

    def declaration(self) -> tuple[str, Effect | None]:
        return ("speed_up" if self.factor > 1 else "speed"), None

    def select(self, clip: Clip) -> np.ndarray:
        n = clip.num_frames
        m = int(math.floor((n - 1) / self.factor)) + 1
        # floor, not round: slow motion holds every frame equally long (no 2-1-3 judder)
        return np.minimum(np.floor(np.arange(m) * self.factor + 1e-9).astype(int), n - 1)


@register_op
@dataclass(frozen=True)
class SpeedRamp(TimeOp):
    """Playback rate changing linearly from ``start`` to ``end`` times normal over the clip."""

    start: float
    end: float
    name: ClassVar[str] = "speed_ramp"

    def __post_init__(self) -> None:
        _positive("speed_ramp", "start", self.start)
        _positive("speed_ramp", "end", self.end)

    def validate(self) -> None:
        _in_range("start", self.start)
        _in_range("end", self.end)

    def declaration(self) -> tuple[str, Effect | None]:
        # a steady motion becomes accelerating under a rising rate, decelerating under a
        # falling one; a trend against the ramp cannot be decided and refuses
        edit = "speed_ramp_up" if max(self.start, self.end) > 1 else "speed_ramp"
        return edit, mapped("rate_ramp", self._ramp)

    def _ramp(self, fact: str, value: object) -> object:
        ramped = algebra.facts_ramp({fact: value}, self.start, self.end)
        return algebra.facts_speed(ramped, max(self.start, self.end))[fact]

    def select(self, clip: Clip) -> np.ndarray:
        n = clip.num_frames
        pos, out = 0.0, []
        while pos <= n - 1 + 1e-9:
            out.append(min(int(round(pos)), n - 1))
            u = pos / max(n - 1, 1)
            pos += self.start + (self.end - self.start) * u
        return np.array(out, dtype=int)
