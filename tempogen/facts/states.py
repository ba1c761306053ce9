"""What a question takes for granted of the states, read frame by frame: whether an object
moves at each step, and which objects a question reads."""

from __future__ import annotations

import numpy as np

from tempogen.labels import Labels

STILL_PX = 0.05  # px (and degrees) a state may change between frames and still be at rest


def moving(labels: Labels, name: str) -> np.ndarray:
    """Per step between consecutive frames, whether the track moves or turns."""
    t = labels.track(name)
    step = np.hypot(np.diff(t.x), np.diff(t.y))
    return (step > STILL_PX) | (np.abs(np.diff(t.angle)) > STILL_PX)


def asked(labels: Labels) -> list[str]:
    """The objects a question reads, less anchors (floors, lines)."""
    return [o for o in labels.query.objects if labels.track(o).role != "anchor"]
