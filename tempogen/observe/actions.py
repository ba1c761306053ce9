"""Facts of repeated actions and of who starts first: flashes, bounces (contacts with the
floor anchor), raises and loops as events; their count and frequency; the order of onsets."""

from __future__ import annotations

import math

import numpy as np

from tempogen.labels import Labels, Track
from tempogen.observe.motion import turn_steps
from tempogen.observe.sampling import mask_runs, sample_times

FREQ_RATIO = 1.35  # first/last interval ratio that reads as a change of frequency
CONST_FREQ = 1.1


def floor_height(labels: Labels, idx: np.ndarray) -> np.ndarray:
    """Distance of the subject's edge above the floor anchor (along the anchor's normal)."""
    q = labels.query
    subj, floor = labels.track(q.objects[0]), labels.track(q.objects[1])
    a = np.radians(floor.angle[idx])
    h = (subj.x[idx] - floor.x[idx]) * np.cos(a) + (subj.y[idx] - floor.y[idx]) * np.sin(a)
    above: np.ndarray = h - subj.size * subj.scale[idx]
    return above


FLAT_PX = 0.05  # px: a bounce's fall and rise exceed this, far above the labels' 0.01 px rounding
PROMINENCE = 0.01  # and 1% of the height's range
TOUCH = 0.08  # at either end a bounce shows within this share of the subject's size (+1 px)
# how far (px, degrees) a track moves or turns before its action counts as started: exact
# states move from the first frame on; states measured from pixels jitter
EXACT_START = (0.05, 0.05)
MEASURED_START = (1.5, 3.0)


def contact_mask(labels: Labels, idx: np.ndarray) -> np.ndarray:
    """Sampled frames where the subject bounces: the low turning points of its height.

    A bounce is where the height stops falling and starts rising, in the lower half of its
    range. This reads a bounce whether or not a sampled frame caught the exact contact, as a
    viewer does; heights that hover or wiggle high up (an apex) do not count.
    """
    h = floor_height(labels, idx)
    mask = np.zeros(len(h), bool)
    if len(h) < 3:
        return mask
    low = h.min() + 0.5 * (h.max() - h.min())
    # a bounce falls and rises by a visible amount: wiggles of a few hundredths of a pixel
    # (an apex after the labels' 0.01 px rounding) are not low turning points
    from scipy.signal import find_peaks

    deep = set(find_peaks(-h, prominence=max(FLAT_PX, PROMINENCE * (h.max() - h.min())))[0])
    i = 1
    while i < len(h) - 1:
        j = i
        while j + 1 < len(h) - 1 and abs(h[j + 1] - h[i]) < 1e-9:
            j += 1  # a flat run counts once
        if h[i - 1] > h[i] and h[j + 1] > h[j] and h[i] <= low and deep & set(range(i, j + 1)):
            mask[i : j + 1] = True
        i = j + 1
    # at either end only a visible touch counts: the turning point itself may lie outside
    subj = labels.track(labels.query.objects[0])
    touch = TOUCH * subj.size * subj.scale[idx] + 1.0
    if h[0] <= touch[0] and h[1] > h[0]:
        mask[0] = True
    if h[-1] <= touch[-1] and h[-2] > h[-1]:
        mask[-1] = True
    return mask


EVENT_KINDS = ("flash", "bounce", "raise", "loop")  # query kinds whose facts are events
RAISE_MIN = 0.03  # canvas diagonals: a smaller swing of the height is not an action


def raised_mask(labels: Labels, idx: np.ndarray) -> np.ndarray:
    """Sampled frames where the subject is raised: its height above the anchor line (along
    the anchor's normal) lies in the upper half of its range. A jump lifts the feet off the
    floor; with the line placed elsewhere the same rule reads a squat, a clap or a wave."""
    h = floor_height(labels, idx)
    if len(h) < 2 or h.max() - h.min() < RAISE_MIN * math.hypot(labels.width, labels.height):
        return np.zeros(len(h), bool)
    raised: np.ndarray = h > h.min() + 0.5 * (h.max() - h.min())
    return raised


def events(labels: Labels, idx: np.ndarray) -> list[tuple[float, float]] | None:
    """Repeated events of the query's kind as (start, end) times in seconds."""
    q = labels.query
    subj = labels.track(q.objects[0])
    t = sample_times(labels, idx)
    if q.kind == "flash":
        mask = subj.lit[idx] & subj.visible[idx]
    elif q.kind == "bounce":
        mask = contact_mask(labels, idx)
    elif q.kind == "raise":
        mask = raised_mask(labels, idx)
    elif q.kind == "loop":
        if len(idx) < 2:
            return None
        turned = np.concatenate([[0.0], np.cumsum(turn_steps(labels, idx))])
        laps = np.floor(np.abs(turned) / 360.0 + 1e-4)
        ends = [i for i in range(1, len(laps)) if laps[i] > laps[i - 1]]
        return [(float(t[i]), float(t[i])) for i in ends]
    else:
        raise ValueError(f"query kind {q.kind!r} has no events (flash, bounce, raise or loop)")
    return [(float(t[s]), float(t[e])) for s, e in mask_runs(mask)]


def count(labels: Labels, idx: np.ndarray) -> int | None:
    """How many times the repeated action happens."""
    if len(idx) < 2:
        return None
    ev = events(labels, idx)
    return None if ev is None else len(ev)


def frequency(labels: Labels, idx: np.ndarray) -> str | None:
    """``increasing``/``decreasing``/``constant``/``none``: how often the action repeats."""
    if len(idx) < 3:
        return None
    ev = events(labels, idx)
    if ev is None:
        return None
    if len(ev) == 0:
        return "none"
    if len(ev) < 4:
        return None
    gaps = np.diff([s for s, _ in ev])
    ratio = gaps[0] / gaps[-1]
    # frames are whole numbers: gaps meant to be equal may differ by a frame
    slack = max(0.1 * gaps.mean(), 1.5 / labels.fps)
    if ratio >= FREQ_RATIO and np.all(np.diff(gaps) <= slack):
        return "increasing"
    if ratio <= 1 / FREQ_RATIO and np.all(np.diff(gaps) >= -slack):
        return "decreasing"
    if np.all(np.abs(gaps - gaps.mean()) <= max((CONST_FREQ - 1) * gaps.mean(), slack)):
        return "constant"
    return None


def onset(labels: Labels, idx: np.ndarray, track: Track, kind: str) -> int | None:
    """Position in ``idx`` of the first sampled frame where the track has started its action."""
    if kind == "lit":
        on = track.lit[idx] & track.visible[idx]
    else:
        tol, turn_tol = MEASURED_START if labels.meta.get("measured") else EXACT_START
        moved = np.hypot(track.x[idx] - track.x[idx[0]], track.y[idx] - track.y[idx[0]])
        on = (moved > tol) | (np.abs(track.angle[idx] - track.angle[idx[0]]) > turn_tol)
    hits = np.flatnonzero(on)
    return int(hits[0]) if len(hits) else None


def order(labels: Labels, idx: np.ndarray) -> tuple[tuple[str, ...], ...] | None:
    """Groups of objects by the sampled frame where their action starts, earliest first."""
    if len(idx) < 2:
        return None
    q = labels.query
    starts: dict[int, list[str]] = {}
    for name in q.objects:
        tr = labels.track(name)
        k = onset(labels, idx, tr, q.kind)
        if k is not None and k == 0 and q.kind == "lit":
            return None  # already lit in the first frame: its start is not visible
        if k is not None:
            starts.setdefault(k, []).append(name)
    return tuple(tuple(starts[k]) for k in sorted(starts))
