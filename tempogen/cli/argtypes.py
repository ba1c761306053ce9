"""Argparse types of the ``tempogen`` options: a bad value (``-3``, ``nan``, ``1e400``, ``abc``,
an odd frame size, a name that is no module) is a usage error naming the option (exit 2)
before any work starts, never a traceback or a hang.

    p.add_argument("--sample", type=positive_int, ...)
    p.add_argument("--fps", type=finite_float(1, 240), ...)
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def bounded_int(lo: int, hi: int | None = None) -> Callable[[str], int]:
    """An integer option from ``lo`` to ``hi`` (None: no upper bound)."""

    def parse(text: str) -> int:
        try:
            v = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if v < lo or (hi is not None and v > hi):
            span = f"at least {lo}" if hi is None else f"from {lo} to {hi:,}"
            raise argparse.ArgumentTypeError(f"must be {span}, got {text!r}")
        return v

    parse.__name__ = "integer"  # argparse names the type in its messages
    return parse


def finite_float(lo: float, hi: float, lo_open: bool = False) -> Callable[[str], float]:
    """A finite number option from ``lo`` to ``hi`` (``lo_open``: ``lo`` itself excluded)."""

    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
        if (v <= lo if lo_open else v < lo) or v > hi:
            left = "(" if lo_open else "["
            raise argparse.ArgumentTypeError(f"must be in {left}{lo:g}, {hi:g}], got {text!r}")
        return v

    parse.__name__ = "number"
    return parse


positive_int = bounded_int(1)
seed_int = bounded_int(0, 2**63 - 1)  # as a config's ``seed``


def frame_size(text: str) -> tuple[int, int]:
    """``--size``: WIDTHxHEIGHT, both even and at least 32 (what yuv420p video needs)."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 640x360, got {text!r}")
    w, h = int(parts[0]), int(parts[1])
    if w < 32 or h < 32 or w > 7680 or h > 4320 or w % 2 or h % 2:
        raise argparse.ArgumentTypeError(f"width and height must be even, 32..7680x4320: {text!r}")
    return w, h


def module_names(text: str) -> tuple[str, ...]:
    """``--plugins a,b.c``: module names, comma-separated."""
    names = tuple(n.strip() for n in text.split(","))
    for n in names:
        if not all(part.isidentifier() for part in n.split(".")):
            raise argparse.ArgumentTypeError(f"{n!r} is not a module name")
    return names
