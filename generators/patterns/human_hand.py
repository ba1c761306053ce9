"""The working hand of a simulated human, shared by the hand patterns: where it starts and the
camera that frames it, the shrinking of a path until the hand can reach it, its track, its
circles and its waves (see :mod:`.human` for the patterns that use them)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from tempogen.errors import GenerationError
from tempogen.generators.humans import FIRST_PERSON_P, HAND_RADIUS, SIDE_SIGN, SIDES, Rig, bumps
from tempogen.generators.scene import SAMPLES, Scene

SHRINK = (1.0, 0.85, 0.7, 0.55, 0.4)  # path scales tried until every target is in reach
STEADY = 0.6  # share of a hand's leg moved at steady speed; the rest eases in and out
# where the hand works: metres before the shoulder (default), and about it
FORWARD = 0.32
INWARD = (0.0, 0.08)  # metres the point sits in from the shoulder, towards the midline
LIFT_JITTER = (-0.05, 0.08)  # metres up (or down) from the asked lift
# seen first person: the point before the chest where the eyes look down at the hand
FP_INWARD = 0.4  # its sideways offset, as a share of the shoulder's
FP_DROP = (0.0, 0.06)  # metres below the shoulder
FP_AHEAD = 0.36  # metres before the shoulder
LINE_OFFSET = 0.1  # a reference line beside a hand, as a share of the frame's width

# a hand going round a centre (:func:`hand_circles`)
CIRCLE_LIFT = (0.1, 0.2)  # metres the centre stands above the shoulder
CIRCLE_VIEW = 0.25  # metres about the centre the camera keeps in view
CIRCLE_FORWARD = 0.28  # metres the centre stands before the shoulder
CIRCLE_RADIUS = (0.09, 0.14)  # metres
LAP_EXTRA = (45.0, 60.0)  # degrees past the last full lap: pixel noise cannot drop a lap
LAP_STEP = 80.0  # most degrees per sample interval a circle is drawn at (under 90)

# a raised hand waving (:func:`wave_base`, :func:`wave`)
WAVE_OUT = (0.06, 0.1)  # metres the base stands out from the shoulder
WAVE_UP = (0.28, 0.36)  # metres the base stands above the shoulder
WAVE_AHEAD = 0.14  # metres the base stands before the shoulder
WAVE_REACH = 0.35  # metres about the wave's base a camera keeps in view
WAVE_HALF = 0.3  # seconds from a wave's start to its farthest point (an interval at most)
WAVE_AMP = (0.14, 0.2)  # metres the hand swings out
WAVE_DROP = 0.25  # how far the hand drops at the far end, as a share of the swing

# both hands raised from rest (:func:`raise_hands`)
REST_HAND = (0.1, 0.15, 0.25)  # metres out, up and ahead of its hip a resting hand stands
RAISED_OUT = (0.05, 0.12)  # metres out from its shoulder a raised hand stands
RAISED_UP = (0.2, 0.3)  # metres above its shoulder a raised hand stands
RAISED_AHEAD = 0.2  # metres before its shoulder a raised hand stands


def eased(frames: np.ndarray, knots: list[int]) -> np.ndarray:
    """Frames warped so each leg between knots starts and ends gently (a hand does not jump
    to full speed) while never stopping inside a leg."""
    out = frames.copy()
    for a, b in zip(knots[:-1], knots[1:]):
        seg = (frames >= a) & (frames <= b)
        u = (frames[seg] - a) / (b - a)
        # (10 - 15 u + 6 u^2) u^3 is the smootherstep's ease, 0 to 1 with level ends
        out[seg] = a + (b - a) * (STEADY * u + (1 - STEADY) * u**3 * (10 - 15 * u + 6 * u**2))
    return out


def hand_start(
    scene: Scene,
    name: str,
    half: float,
    forward: float = FORWARD,
    lift: float = 0.0,
    companion: float = 0.0,
) -> tuple[Rig, str, np.ndarray]:
    """A person, the working hand's side, a point to work around (``forward`` metres before
    that shoulder, ``lift`` above it) and a camera keeping ``half`` metres about it in view.
    Seen first person, the point moves before the chest, where the eyes look down at it;
    seen third person, a second person stands beside with probability ``companion``."""
    rig = Rig.start(scene, name)
    side = str(scene.rng.choice(SIDES))
    shoulder = rig.rest_point(f"{side}_shoulder")
    if scene.rng.random() < FIRST_PERSON_P:
        centre = shoulder * [FP_INWARD, 1.0, 1.0] + [0.0, -scene.rng.uniform(*FP_DROP), FP_AHEAD]
        rig.first_person_camera(centre)
    else:
        centre = shoulder + [
            -SIDE_SIGN[side] * scene.rng.uniform(*INWARD),
            lift + scene.rng.uniform(*LIFT_JITTER),
            forward,
        ]
        box = np.array([[x, y, 0.0] for x in (-half, half) for y in (-half, half)])
        rig.maybe_companion(companion)
        rig.third_person(rig.frame_points([centre + box], upper=True))
    return rig, side, centre


def reach(rig: Rig, side: str, make: Callable[[float], np.ndarray]) -> np.ndarray:
    """The first of ``make(scale)`` for the scales in :data:`SHRINK` that the hand reaches."""
    for scale in SHRINK:
        targets = make(scale)
        if rig.reachable(side, targets):
            return targets
    raise GenerationError(f"motion {rig.motion!r}: no path size puts the hand within reach")


def hand_track(
    rig: Rig, side: str, targets: np.ndarray, name: str = "hand", noun: str = ""
) -> None:
    """Move the hand along ``targets``, turn its flat side to the camera, add its track
    (named ``noun``, default: by its glove's colour)."""
    rig.arm_to(side, targets, palm_toward=rig.chosen_camera().pose[:3, 3] - targets)
    noun = noun or rig.hand_noun(side)
    rig.track(name, rig.hand(side), noun, rig.look.hands[side][1], HAND_RADIUS)


def side_line(rig: Rig, name: str, hand: np.ndarray, toward: np.ndarray) -> None:
    """A line beside the hand's first position, on the side away from the world point
    ``toward`` (where the hand goes), facing it: a hand moving off reads as a "raise"."""
    (ox, oy), (ix, _) = rig.project(hand[0]), rig.project(toward)
    way = 1.0 if ix > ox else -1.0
    x = ox - way * LINE_OFFSET * rig.scene.width
    rig.line(name, x, oy, 0.0 if way > 0 else 180.0, "a line beside the hand")


def hand_circles(
    scene: Scene, name: str, angles: Callable[[], np.ndarray], centre_noun: str, kind: str
) -> None:
    """A raised hand goes round a centre in a plane facing the camera, at the per-frame
    ``angles`` (degrees, drawn once the hand is placed); the question reads the hand's turns
    around the centre as ``kind`` (``orbit`` senses or ``loop`` laps)."""
    lift = scene.rng.uniform(*CIRCLE_LIFT)
    rig, side, centre = hand_start(scene, name, CIRCLE_VIEW, forward=CIRCLE_FORWARD, lift=lift)
    theta = np.radians(angles())
    circle = np.stack([np.cos(theta), np.sin(theta)], 1)
    radius = scene.rng.uniform(*CIRCLE_RADIUS)
    targets = reach(rig, side, lambda s: rig.on_screen_plane(centre, circle * radius * s))
    hand_track(rig, side, targets)
    cx, cy = rig.project(centre)
    rig.line("centre", cx, cy, 0.0, centre_noun, shape="anchor")
    scene.ask(["hand", "centre"], kind=kind)
    rig.finish()


def laps_turned(scene: Scene, laps: int) -> np.ndarray:
    """Degrees turned by each frame going ``laps`` times round and a little more (see
    :data:`LAP_EXTRA`), at rest before and after, at the same angle per sample interval
    (at most :data:`LAP_STEP`)."""
    total = 360.0 * laps + scene.rng.uniform(*LAP_EXTRA)
    span = int(scene.rng.integers(min(math.ceil(total / LAP_STEP), SAMPLES - 1), SAMPLES))
    k0 = int(scene.rng.integers(0, SAMPLES - span))
    # the angle is linear in sample position, so every sample interval turns total / span
    # even where sampled frames are unevenly spaced
    at = np.interp(scene.frames, scene.samples, np.arange(SAMPLES, dtype=np.float64))
    return total * np.clip((at - k0) / span, 0.0, 1.0)


def raise_hands(
    rig: Rig, sides: dict[str, str], starts: dict[str, int], ends: dict[str, int]
) -> dict[str, np.ndarray]:
    """Paths (name -> (T, 3)) of hands (name -> side) resting low that rise above their
    shoulders from the sample ``starts[name]`` to ``ends[name]`` (a hand not in ``starts``
    stays), shrunk together (:data:`SHRINK`) until both are in reach."""
    scene = rig.scene
    ends_of: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for name, side in sides.items():
        sign = SIDE_SIGN[side]
        low = rig.rest_point(f"{side}_hip") + [sign * REST_HAND[0], *REST_HAND[1:]]
        out, up = scene.rng.uniform(*RAISED_OUT), scene.rng.uniform(*RAISED_UP)
        high = rig.rest_point(f"{side}_shoulder") + [sign * out, up, RAISED_AHEAD]
        u = np.zeros(scene.n)
        if name in starts:  # off at once (eased out), so both hands' starts read alike
            a, b = scene.sample_frame(starts[name]), scene.sample_frame(ends[name])
            u = 1.0 - (1.0 - np.clip((scene.frames - a) / (b - a), 0.0, 1.0)) ** 2
        ends_of[name] = (low, high, u)

    def both(scale: float) -> np.ndarray:
        return np.stack([lo + (hi - lo) * scale * u[:, None] for lo, hi, u in ends_of.values()])

    scale = next(
        (s for s in SHRINK if all(rig.reachable(sd, p) for sd, p in zip(sides.values(), both(s)))),
        None,
    )
    if scale is None:
        raise GenerationError(f"motion {rig.motion!r}: the raised hands are out of reach")
    return dict(zip(sides, both(scale)))


def wave_base(rig: Rig) -> tuple[str, np.ndarray]:
    """The waving hand's side and the point above its shoulder it waves from."""
    rng = rig.scene.look_rng  # which hand and where: the scene's look, not its answer
    side = str(rng.choice(SIDES))
    base = rig.rest_point(f"{side}_shoulder") + [
        SIDE_SIGN[side] * rng.uniform(*WAVE_OUT),
        rng.uniform(*WAVE_UP),
        WAVE_AHEAD,
    ]
    return side, base


def wave(
    rig: Rig,
    peaks: Callable[[], list[int]],
    start: tuple[str, np.ndarray] | None = None,
    names: tuple[str, str] = ("hand", "side"),
    noun: str = "",
) -> None:
    """A raised hand waves out to the side and back once for each frame ``peaks()`` gives
    (called after the camera is chosen), farthest out on that frame; tracked against a
    line beside the hand, so each wave reads as a "raise" run. ``start`` is the side and
    base (:func:`wave_base`) when a camera is already chosen; ``names`` the hand's track and
    its line; ``noun`` how the question names the hand."""
    scene = rig.scene
    if start is None:
        side, base = wave_base(rig)
        rig.hand_camera(base, WAVE_REACH, first_person_p=0.0)
    else:
        side, base = start
    sign = SIDE_SIGN[side]
    half = min(scene.interval, WAVE_HALF * scene.fps)
    swing = bumps(scene.frames, peaks(), half)[:, None]
    amp = scene.rng.uniform(*WAVE_AMP)
    out = amp * swing * [sign, 0.0, 0.0] - WAVE_DROP * amp * swing**2 * [0.0, 1.0, 0.0]
    targets = reach(rig, side, lambda k: base + out * k)
    hand_track(rig, side, targets, names[0], noun)
    side_line(rig, names[1], rig.hand(side), targets[np.argmax(swing)])
    scene.meta["event_words"] = ["waves", "wave", "waves", "wave"]
    scene.ask(list(names), kind="raise")
