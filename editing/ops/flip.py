"""``mirror`` and ``rotate``: flip or turn the picture; directions and turning senses follow."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from tempogen.editing import algebra
from tempogen.editing.clip import Clip
from tempogen.editing.effects import Effect, mapped
from tempogen.editing.ops.base import SpaceOp, register_op
from tempogen.errors import EditError


@register_op
@dataclass(frozen=True)
class Mirror(SpaceOp):
    """Flip left-right (``horizontal``) or top-bottom (``vertical``): the sense of turning flips."""

    axis: str = "horizontal"
    name: ClassVar[str] = "mirror"
    edit: ClassVar[str] = "mirror"  # each fact declares it (``Fact.edits``)

    def __post_init__(self) -> None:
        if self.axis not in ("horizontal", "vertical"):
            raise EditError(f"mirror: axis must be 'horizontal' or 'vertical', got {self.axis!r}")

    def declaration(self) -> tuple[str, Effect | None]:
        return self.edit, mapped(f"mirror_{self.axis}", self._kernel)

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
    edit: ClassVar[str] = "rotate"  # each fact declares it (``Fact.edits``)

    def __post_init__(self) -> None:
        if self.degrees not in (90, 180, 270):
            raise EditError(f"rotate: degrees must be 90, 180 or 270, got {self.degrees!r}")

    def declaration(self) -> tuple[str, Effect | None]:
        return self.edit, mapped(f"rotate_{self.degrees}", self._kernel)

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
