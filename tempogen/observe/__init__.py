"""Derive task facts from per-frame states, seen only at chosen frames.

This is the one place where a fact's value is computed from states (each
:class:`tempogen.facts.Fact` derives through these functions). The generator calls it on every
frame to label a clip and on TOMATO's 16 uniform samples to certify that the question can be
answered from them; edit ops never touch facts, they map states and facts are re-derived; the
pixel verifier feeds it states tracked from pixels. An observer that sees a single frame
learns nothing about motion, so it answers ``None`` (undetermined).

Thresholds are rates (pixels or degrees per second), so the answer does not depend on how
densely the frames are sampled, only on what the sampled states show.

One module per kind of fact: :mod:`~tempogen.observe.sampling` (which frames are seen),
:mod:`~tempogen.observe.motion` (direction, depth, rotation, speed),
:mod:`~tempogen.observe.actions` (repeated events, their count and frequency, onset order),
:mod:`~tempogen.observe.shapes` (the shape a path draws) and
:mod:`~tempogen.observe.gesture` (a person's gestures); the names other modules use are
importable from here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tempogen.labels import Labels
from tempogen.observe.actions import (
    CONST_FREQ,
    EVENT_KINDS,
    FLAT_PX,
    FREQ_RATIO,
    PROMINENCE,
    RAISE_MIN,
    contact_mask,
    count,
    events,
    floor_height,
    frequency,
    onset,
    order,
    raised_mask,
)
from tempogen.observe.gesture import (
    ABOVE_HEAD,
    CLAP_GAP,
    CLAP_LOW,
    CLAP_SIDE,
    GESTURES,
    OUT_HEIGHT,
    OUT_SIDE,
    gesture_frames,
    gestures,
    next_gesture,
)
from tempogen.observe.motion import (
    CONST_RATIO,
    DEPTH_BAND,
    DOMINANCE,
    FASTER_RATIO,
    MOVE_EPS,
    SPEED_RATIO,
    SYMMETRY,
    TURN_EPS,
    approach,
    direction,
    fastest,
    mean_speed,
    period_of,
    rotation,
    speed,
    turn_steps,
    wrap,
)
from tempogen.observe.sampling import uniform_indices
from tempogen.observe.shapes import CORNER_DEG, Outline, classify_path, outline, trajectory

__all__ = [
    "ABOVE_HEAD", "CLAP_GAP", "CLAP_LOW", "CLAP_SIDE", "CONST_FREQ", "CONST_RATIO", "CORNER_DEG",
    "DEPTH_BAND", "DOMINANCE", "EVENT_KINDS", "FASTER_RATIO", "FLAT_PX", "FREQ_RATIO", "GESTURES",
    "MOVE_EPS", "OUT_HEIGHT", "OUT_SIDE", "PROMINENCE", "RAISE_MIN", "SPEED_RATIO", "SYMMETRY",
    "TURN_EPS", "Outline", "approach", "classify_path", "contact_mask", "count", "direction",
    "events", "fastest", "floor_height", "frequency", "gesture_frames", "gestures", "mean_speed",
    "next_gesture", "observe", "onset", "order", "outline", "period_of", "raised_mask",
    "rotation", "speed", "trajectory", "turn_steps", "uniform_indices", "wrap",
]  # fmt: skip


def observe(labels: Labels, idx: np.ndarray | None = None) -> dict[str, Any]:
    """All facts the query's objects support, from the states at ``idx`` (default: all)."""
    n = labels.num_frames
    idx = np.arange(n) if idx is None else np.asarray(idx, dtype=np.int64)
    q = labels.query
    subj = labels.subject
    facts: dict[str, Any] = {
        "direction": direction(labels, idx, subj),
        "speed": speed(labels, idx, subj, q.kind if q.fact == "speed" else "position"),
    }
    if q.fact == "rotation" or q.kind == "orbit":
        facts["rotation"] = rotation(labels, idx)
    if q.kind in EVENT_KINDS:
        facts["count"] = count(labels, idx)
        facts["frequency"] = frequency(labels, idx)
    if q.fact == "order":
        facts["order"] = order(labels, idx)
    if q.fact == "trajectory":
        facts["trajectory"] = trajectory(labels, idx)
    if q.fact == "approach":
        facts["approach"] = approach(labels, idx, subj)
    if q.fact == "next":
        facts["next"] = next_gesture(labels, idx)
    return facts
