"""Which frames an observer sees and the small readers every fact shares: sample times, runs."""

from __future__ import annotations

import numpy as np

from tempogen.labels import Labels


def uniform_indices(n: int, m: int) -> np.ndarray:
    """TOMATO's sampling: ``np.linspace(0, n - 1, m, dtype=int)``."""
    return np.linspace(0, n - 1, m, dtype=int)


def collapse(tokens: list[str]) -> tuple[str, ...]:
    """``tokens`` with runs of one value merged: ``a a b a`` reads ``a b a``."""
    out: list[str] = []
    for t in tokens:
        if not out or out[-1] != t:
            out.append(t)
    return tuple(out)


def sample_times(labels: Labels, idx: np.ndarray) -> np.ndarray:
    """The times in seconds of the sampled frames ``idx``."""
    return np.asarray(idx, dtype=np.float64) / labels.fps


def mask_runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) positions of runs of True, inclusive."""
    runs, start = [], None
    for i, v in enumerate(mask):
        if v and start is None:
            start = i
        elif not v and start is not None:
            runs.append((start, i - 1))
            start = None
    if start is not None:
        runs.append((start, len(mask) - 1))
    return runs
