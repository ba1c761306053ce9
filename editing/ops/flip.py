"""``mirror`` and ``rotate``: flip or turn the picture; directions and turning senses follow."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from tempogen.editing import algebra
from tempogen.editing.clip import Clip
from tempogen.editing.effects import PRESERVED, Effect, mapped
from tempogen.editing.ops.base import SpaceOp, register_op
from tempogen.errors import EditError

# A flip or a turn keeps trends, counts, orders and shape classes (a mirrored star is a star),
# and the subject's apparent size, so whether it comes towards the camera or goes away. A
# person's gestures are read in the body's own frame (shoulders and head, flipped or turned
# with the picture) and its hands are named by their gloves, never by side: ``next`` stays.
KEPT = ("speed", "frequency", "count", "order", "trajectory", "approach", "next")


@register_op
@dataclass(frozen=True)
class Mirror(SpaceOp):
    """Flip left-right (``horizontal``) or top-bottom (``vertical``): the sense of turning flips."""

    axis: str = "horizontal"
    name: ClassVar[str] = "mirror"

    def __post_init__(self) -> None:
        if self.axis not in ("horizontal", "vertical"):
            raise EditError(f"mirror: axis must be 'horizontal' or 'vertical', got {self.axis!r}")

    def effect(self, fact: str) -> Effect:
        if fact in ("direction", "rotation"):
            return mapped(f"mirror_{self.axis}", self._kernel)
        if fact in KEPT:
            return PRESERVED
        return super().effect(fact)

    @property
    def upright(self) -> bool:
        return self.axis == "horizontal"

    def _kernel(self, fact: str, value: object) -> object:
        return algebra.facts_mirror({fact: value}, self.axis)[fact]

    def maps(self, clip: Clip) -> tuple[np.ndarray, tuple[int, int]]:
        w, h = clip.size
        if self.axis == "horizontal":
            return np.array([[-1.0, 0, w - 1], [0, 1, 0]]), (w, h)
        return np.array([[1.0, 0, 0], [0, -1, h - 1]]), (w, h)


@register_op
@dataclass(frozen=True)
class Rotate(SpaceOp):
    """Rotate the picture clockwise by 90, 180 or 270 degrees (the canvas turns with it):
    directions turn with it; a turning sense seen on screen stays."""

    degrees: int = 90
    name: ClassVar[str] = "rotate"

    def __post_init__(self) -> None:
        if self.degrees not in (90, 180, 270):
            raise EditError(f"rotate: degrees must be 90, 180 or 270, got {self.degrees!r}")

    def effect(self, fact: str) -> Effect:
        if fact == "direction":
            return mapped(f"rotate_{self.degrees}", self._kernel)
        if fact == "rotation" or fact in KEPT:
            return PRESERVED
        return super().effect(fact)

    @property
    def upright(self) -> bool:
        return False

    def _kernel(self, fact: str, value: object) -> object:
        return algebra.facts_rotate({fact: value}, self.degrees)[fact]

    def maps(self, clip: Clip) -> tuple[np.ndarray, tuple[int, int]]:
        w, h = clip.size
        if self.degrees == 90:
            return np.array([[0.0, -1, h - 1], [1, 0, 0]]), (h, w)
        if self.degrees == 180:
            return np.array([[-1.0, 0, w - 1], [0, -1, h - 1]]), (w, h)
        return np.array([[0.0, 1, 0], [-1, 0, w - 1]]), (h, w)
