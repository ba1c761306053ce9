"""Argparse types for numeric options: a bad number (``-3``, ``nan``, ``1e400``, ``abc``) is a
usage error naming the option (exit 2) before any work starts, never a traceback or a hang.

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
