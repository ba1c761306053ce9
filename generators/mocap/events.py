"""Joint events of recorded motion: foot steps, jumps, squats, waves, and which hand or foot
starts moving first, read from posed joints ``(T, 24, 3)`` (SMPL's order, metres, ``y`` up).

These detectors only pick WHICH body part a mocap question asks about and which windows of a
file are worth certifying; every answer still comes from the projected tracks through the
facts (:mod:`tempogen.facts`), as for any other clip. So they are tuned to be strict: an event
that is not clear (a foot that only shuffles, a dip a few centimetres deep, hands that start
together) is not an event here, and a window made of unclear ones is skipped.

Heights are measured from each joint's own low level in the window (its 5th percentile), so a
motion whose floor is not at ``y = 0`` (an ungrounded import) reads the same.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tempogen.generators.skeleton import INDEX

SIDES = ("left", "right")
LIFT_ON = 0.08  # metres a foot rises off its low level before it counts as lifted
LIFT_OFF = 0.03  # ...and within this of it, it is down again (hysteresis)
MIN_SWING = 0.15  # seconds a step's foot stays lifted at least
AIR_ON = 0.05  # metres both feet are off their low level in a jump's flight
MIN_FLIGHT = 0.06  # seconds of flight at least
SQUAT_DROP = 0.2  # metres the pelvis sinks below its standing height in a squat
SQUAT_BACK = 0.07  # ...and it is standing again within this of it
MIN_SQUAT = 0.4  # seconds a squat stays down at least (a landing's give is shorter)
JUMP_CLEAR = 0.3  # seconds from a jump's flight within which a dip is its crouch, no squat
WAVE_AMP = 0.08  # metres a waving hand swings from one side to the other at least
WAVE_ABOVE = 0.0  # metres the wrist stands above its shoulder while it waves
MIN_TURNS = 2  # turning points one raised hand makes at least (one is a hand raised and dropped)
MIN_TURN_GAP = 0.15  # seconds between two turns of a wave at least (closer: a tremor, unclear)
HANDS_OVER = 0.05  # metres both wrists rise above the head joint in a jumping jack
MIN_OVER = 0.1  # seconds they stay over it at least
JACK_NEAR = 0.3  # seconds from a flight within which a jack's hands go up and come down
JACK_SPREAD = 0.15  # metres farther apart the ankles are with the hands up than down
MOVE_ON = 0.06  # metres a hand or foot moves from where it was before it counts as moving
STILL_AT_START = 0.5  # seconds every part stays put at the window's start
FIRST_MARGIN = 0.5  # seconds the first mover starts before the next one, at least


@dataclass(frozen=True)
class Event:
    """One event: what moved (``left``/``right`` or ``body``) and its first and last frame."""

    part: str
    start: int
    end: int


def _check(joints: np.ndarray, fps: float) -> np.ndarray:
    j = np.asarray(joints, dtype=np.float64)
    if j.ndim != 3 or j.shape[1:] != (24, 3):
        raise ValueError(f"joints must be (T, 24, 3), got {j.shape}")
    if not fps > 0:
        raise ValueError(f"fps must be positive, got {fps}")
    return j


def runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) frames of each run of True in ``mask``."""
    m = np.r_[False, np.asarray(mask, bool), False].astype(np.int8)
    d = np.diff(m)
    return list(zip(np.flatnonzero(d == 1).tolist(), (np.flatnonzero(d == -1) - 1).tolist()))


def hysteresis(x: np.ndarray, on: float, off: float) -> np.ndarray:
    """True from where ``x`` rises above ``on`` until it falls back below ``off``."""
    out = np.zeros(len(x), bool)
    state = False
    for i, v in enumerate(x):
        state = v > off if state else v > on
        out[i] = state
    return out


FLOOR_WINDOW = 1.0  # seconds either side over which a joint's lowest height is its floor


def _low(y: np.ndarray, fps: float) -> np.ndarray:
    """Height (T,) of a joint above its lowest in ``FLOOR_WINDOW`` either side: a floor that
    drifts (an ungrounded import sinking in a crouch) moves the reference with it."""
    k = max(1, int(round(FLOOR_WINDOW * fps)))
    pad = np.r_[np.full(k, y[0]), y, np.full(k, y[-1])]
    floor = np.lib.stride_tricks.sliding_window_view(pad, 2 * k + 1).min(axis=1)
    return np.asarray(y - floor)


def foot_heights(joints: np.ndarray, fps: float) -> dict[str, np.ndarray]:
    """Per side, how far the foot is off the floor: the lower of ankle and toe above their
    floors (a heel raised for the push-off lifts the ankle, not the toes: still down)."""
    j = _check(joints, fps)
    return {
        s: np.minimum(
            _low(j[:, INDEX[f"{s}_ankle"], 1], fps), _low(j[:, INDEX[f"{s}_foot"], 1], fps)
        )
        for s in SIDES
    }


def steps(joints: np.ndarray, fps: float) -> list[Event]:
    """Steps: a foot lifted ``LIFT_ON`` above the other for ``MIN_SWING`` and put down again,
    both inside the window (a foot already up at the start or still up at the end is no whole
    step; both feet up together, a jump, is no step)."""
    j = _check(joints, fps)
    h = foot_heights(j, fps)
    out = []
    for side, other in zip(SIDES, SIDES[::-1]):
        up = hysteresis(h[side] - h[other], LIFT_ON, LIFT_OFF)
        for a, b in runs(up):
            if a > 0 and b < len(up) - 1 and (b - a + 1) / fps >= MIN_SWING:
                out.append(Event(side, a, b))
    return sorted(out, key=lambda e: e.start)


def jumps(joints: np.ndarray, fps: float) -> list[Event]:
    """Jumps: both feet off the floor together for ``MIN_FLIGHT``, the pelvis above its usual
    height as well (one foot always down in a walk or a run, so neither is a jump; nor is a
    hop on one foot)."""
    j = _check(joints, fps)
    h = foot_heights(j, fps)
    pelvis = j[:, INDEX["pelvis"], 1]
    lifted = pelvis - np.median(pelvis) > AIR_ON
    air = hysteresis(np.minimum(h["left"], h["right"]), AIR_ON, 0.5 * AIR_ON) & lifted
    return [
        Event("body", a, b)
        for a, b in runs(air)
        if a > 0 and b < len(air) - 1 and (b - a + 1) / fps >= MIN_FLIGHT
    ]


def squats(joints: np.ndarray, fps: float) -> list[Event]:
    """Squats: the pelvis sinks ``SQUAT_DROP`` below its standing height (its 95th percentile
    outside any flight) for ``MIN_SQUAT`` and rises back within ``SQUAT_BACK`` of it, both
    inside the window, clear of any jump by ``JUMP_CLEAR`` (a jump's crouch is no squat)."""
    j = _check(joints, fps)
    y = j[:, INDEX["pelvis"], 1]
    near = np.zeros(len(y), bool)
    clear = int(round(JUMP_CLEAR * fps))
    for e in jumps(j, fps):
        near[max(0, e.start - clear) : e.end + clear + 1] = True
    flying = np.zeros(len(y), bool)
    for e in jumps(j, fps):
        flying[e.start : e.end + 1] = True
    stand = np.percentile(y[~flying], 95) if (~flying).any() else np.percentile(y, 95)
    down = hysteresis(stand - y, SQUAT_DROP, SQUAT_BACK)
    return [
        Event("body", a, b)
        for a, b in runs(down)
        if a > 0 and b < len(y) - 1 and (b - a + 1) / fps >= MIN_SQUAT and not near[a : b + 1].any()
    ]


def _sideways(j: np.ndarray, side: str) -> np.ndarray:
    """The wrist's offset (T,) from its shoulder along the shoulders' line (the body's own
    left-right axis, so a body turning does not read as a wave)."""
    axis = j[:, INDEX["left_shoulder"]] - j[:, INDEX["right_shoulder"]]
    axis[:, 1] = 0.0
    axis /= np.maximum(np.linalg.norm(axis, axis=1, keepdims=True), 1e-9)
    d = j[:, INDEX[f"{side}_wrist"]] - j[:, INDEX[f"{side}_shoulder"]]
    return np.asarray(np.einsum("ij,ij->i", d, axis))


def turning_points(x: np.ndarray, amp: float) -> list[int]:
    """Frames where ``x`` turns back after moving at least ``amp`` one way, and moves back at
    least ``amp`` (a zig-zag filter: wiggles smaller than ``amp`` are not turns)."""
    out: list[int] = []
    lo = hi = ext = 0
    trend = 0  # +1 rising, -1 falling, 0 not yet moved ``amp``
    for i in range(1, len(x)):
        if trend == 0:
            lo = i if x[i] < x[lo] else lo
            hi = i if x[i] > x[hi] else hi
            if x[hi] - x[lo] >= amp:
                trend, ext = (1, hi) if hi > lo else (-1, lo)
        elif (x[i] - x[ext]) * trend > 0:
            ext = i
        elif (x[ext] - x[i]) * trend >= amp:
            out.append(ext)
            trend, ext = -trend, i
    return out


def waves(joints: np.ndarray, fps: float, side: str) -> list[Event]:
    """Waves of one hand: with the wrist above its shoulder, the hand swings out (away from
    the body's midline) and back at least ``WAVE_AMP`` each way; each outward turn is one
    wave (one out-and-back). A hand raised with fewer than ``MIN_TURNS`` turns either way (a
    jumping jack's arms) does not wave, nor one that turns faster than ``MIN_TURN_GAP``."""
    j = _check(joints, fps)
    if side not in SIDES:
        raise ValueError(f"side must be one of {SIDES}, got {side!r}")
    up = j[:, INDEX[f"{side}_wrist"], 1] - j[:, INDEX[f"{side}_shoulder"], 1] > WAVE_ABOVE
    out_x = _sideways(j, side) * (1.0 if side == "left" else -1.0)  # the body's left is +x
    out = []
    for a, b in runs(up):
        x = out_x[a : b + 1]
        turns = turning_points(x, WAVE_AMP)
        if len(turns) < MIN_TURNS or np.diff(turns).min() < MIN_TURN_GAP * fps:
            continue
        # turns alternate: the outward ones are those farther out than the next (or last) one
        first_out = x[turns[0]] > x[turns[1]]
        out += [Event(side, a + t, a + t) for t in turns[0 if first_out else 1 :: 2]]
    return out


def waving(joints: np.ndarray, fps: float) -> list[Event]:
    """The waves of the one hand that waves; none where both hands wave (which hand, and
    how many, would be unclear) or neither does."""
    found = {s: waves(joints, fps, s) for s in SIDES}
    moving = [s for s in SIDES if found[s]]
    return found[moving[0]] if len(moving) == 1 else []


def jacks(joints: np.ndarray, fps: float) -> list[Event]:
    """Jumping jacks: both wrists over the head (``HANDS_OVER``) for ``MIN_OVER``, whole inside
    the window, the feet ``JACK_SPREAD`` farther apart than with the hands down, landing from
    a jump as the hands go up and taking off for the next as they come down (a flight within
    ``JACK_NEAR`` of either end). None at all unless the whole window is such jacks: every
    raise of the hands and every flight belongs to one (a dance's raised arms, a jump with the
    hands up once, are no set of jacks)."""
    j = _check(joints, fps)
    flights = jumps(j, fps)
    head = j[:, INDEX["head"], 1]
    over = np.minimum(j[:, INDEX["left_wrist"], 1], j[:, INDEX["right_wrist"], 1]) - head
    up = runs(hysteresis(over, HANDS_OVER, 0.0))
    k = JACK_NEAR * fps
    spread = np.linalg.norm(j[:, INDEX["left_ankle"]] - j[:, INDEX["right_ankle"]], axis=1)
    raised = np.zeros(len(over), bool)
    for a, b in up:
        raised[a : b + 1] = True
    if not up or raised.all():
        return []
    apart = float(np.median(spread[~raised]))

    def near(t: int, e: Event) -> bool:
        return e.start - k <= t <= e.end + k

    found = [
        Event("body", a, b)
        for a, b in up
        if a > 0
        and b < len(over) - 1
        and (b - a + 1) / fps >= MIN_OVER
        and float(spread[a : b + 1].mean()) >= apart + JACK_SPREAD
        and any(near(a, e) for e in flights)
        and any(near(b, e) for e in flights)
    ]
    every_flight = all(any(near(x.start, e) or near(x.end, e) for x in found) for e in flights)
    return found if len(found) == len(up) and every_flight else []


@dataclass(frozen=True)
class FirstMove:
    """Which of two parts starts moving first: its name, and each part's onset frame (None:
    it never moves in the window)."""

    first: str
    onsets: dict[str, int | None]


def onset(points: np.ndarray, moved: float = MOVE_ON) -> int | None:
    """First frame where ``points`` (T, 3) are ``moved`` metres from the first frame."""
    d = np.linalg.norm(np.asarray(points) - points[0], axis=1)
    hits = np.flatnonzero(d > moved)
    return int(hits[0]) if len(hits) else None


def first_mover(
    joints: np.ndarray, fps: float, parts: tuple[str, str] = ("left_wrist", "right_wrist")
) -> FirstMove | None:
    """Which of two joints starts moving first, or None when that is not clear: either is
    already moving within ``STILL_AT_START`` of the window's start, neither moves, or the
    second starts within ``FIRST_MARGIN`` of the first."""
    j = _check(joints, fps)
    for p in parts:
        if p not in INDEX:
            raise ValueError(f"unknown joint {p!r}")
    at = {p: onset(j[:, INDEX[p]]) for p in parts}
    known = sorted((t, p) for p, t in at.items() if t is not None)
    if not known or known[0][0] < STILL_AT_START * fps:
        return None
    if len(known) == 2 and known[1][0] - known[0][0] < FIRST_MARGIN * fps:
        return None
    return FirstMove(known[0][1], at)
