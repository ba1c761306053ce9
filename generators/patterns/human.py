"""Simulated humans: procedural body motions for every TOMATO task, labelled from the posed
joints (see :mod:`tempogen.generators.humans`). Left, right and clockwise are the viewer's."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from tempogen.generators.humans import (
    COMPANION_P,
    FIRST_PERSON_P,
    HAND_RADIUS,
    SIDE_SIGN,
    SIDES,
    HumanMotion,
    Rig,
    arm_down,
    arm_forward,
    bumps,
)
from tempogen.generators.kinematics import axis_angle, blend
from tempogen.generators.motion import (
    MAX_TURN_PER_SAMPLE,
    SAMPLES,
    GenerationError,
    Scene,
    register_motion,
)
from tempogen.generators.paths import UNIT, event_samples, signed_sweep, spaced_gaps, through
from tempogen.generators.patterns.rotation import SENSES
from tempogen.generators.patterns.shape import knot_frames, outline
from tempogen.generators.patterns.velocity import GAPS, PROFILES
from tempogen.generators.skeleton import INDEX

SHRINK = (1.0, 0.85, 0.7, 0.55, 0.4)  # path scales tried until every target is in reach


def _eased(frames: np.ndarray, knots: list[int]) -> np.ndarray:
    """Frames warped so each leg between knots starts and ends gently (a hand does not jump
    to full speed) while never stopping inside a leg."""
    out = frames.copy()
    for a, b in zip(knots[:-1], knots[1:]):
        seg = (frames >= a) & (frames <= b)
        u = (frames[seg] - a) / (b - a)
        out[seg] = a + (b - a) * (0.6 * u + 0.4 * u**3 * (10 - 15 * u + 6 * u**2))
    return out


def _hand_start(
    scene: Scene,
    name: str,
    half: float,
    forward: float = 0.32,
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
        centre = shoulder * [0.4, 1.0, 1.0] + [0.0, -scene.rng.uniform(0.0, 0.06), 0.36]
        rig.first_person_camera(centre)
    else:
        centre = shoulder + [
            -SIDE_SIGN[side] * scene.rng.uniform(0.0, 0.08),
            lift + scene.rng.uniform(-0.05, 0.08),
            forward,
        ]
        box = np.array([[x, y, 0.0] for x in (-half, half) for y in (-half, half)])
        rig.maybe_companion(companion)
        rig.third_person(rig.frame_points([centre + box], upper=True))
    return rig, side, centre


def _reach(rig: Rig, side: str, make: Callable[[float], np.ndarray]) -> np.ndarray:
    """The first of ``make(scale)`` for the scales in :data:`SHRINK` that the hand reaches."""
    for scale in SHRINK:
        targets = make(scale)
        if rig.reachable(side, targets):
            return targets
    raise GenerationError(f"motion {rig.motion!r}: no path size puts the hand within reach")


def _hand_track(
    rig: Rig, side: str, targets: np.ndarray, name: str = "hand", noun: str = ""
) -> None:
    """Move the hand along ``targets``, turn its flat side to the camera, add its track
    (named ``noun``, default: by its glove's colour)."""
    rig.arm_to(side, targets, palm_toward=rig.camera.pose[:3, 3] - targets)
    noun = noun or rig.hand_noun(side)
    rig.track(name, rig.hand(side), noun, rig.look.hands[side][1], HAND_RADIUS)


# rotation -------------------------------------------------------------------------------


@register_motion
class Twirl(HumanMotion):
    """A raised hand circles in a plane facing the camera, under 90 degrees per sample."""

    name = "twirl"
    task = "rotation"
    fact = "rotation"
    answers = SENSES
    question = "Which direction(s) does {subject} circle in, from the viewer's perspective?"

    def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
        def angles() -> np.ndarray:
            step = scene.rng.uniform(0.4, 0.75) * MAX_TURN_PER_SAMPLE
            return scene.rng.uniform(0, 360) + signed_sweep(scene, answer, step)

        _hand_circles(scene, self.name, angles, "the circle's centre", "orbit")


def _hand_circles(
    scene: Scene, name: str, angles: Callable[[], np.ndarray], centre_noun: str, kind: str
) -> None:
    """A raised hand goes round a centre in a plane facing the camera, at the per-frame
    ``angles`` (degrees, drawn once the hand is placed); the question reads the hand's turns
    around the centre as ``kind`` (``orbit`` senses or ``loop`` laps)."""
    lift = scene.rng.uniform(0.1, 0.2)
    rig, side, centre = _hand_start(scene, name, 0.25, forward=0.28, lift=lift)
    theta = np.radians(angles())
    circle = np.stack([np.cos(theta), np.sin(theta)], 1)
    radius = scene.rng.uniform(0.09, 0.14)
    targets = _reach(rig, side, lambda s: rig.on_screen_plane(centre, circle * radius * s))
    _hand_track(rig, side, targets)
    cx, cy = rig.project(centre)
    rig.line("centre", cx, cy, 0.0, centre_noun, shape="anchor")
    scene.ask(["hand", "centre"], kind=kind)
    rig.finish()


# direction ------------------------------------------------------------------------------


@register_motion
class HandMove(HumanMotion):
    """A hand moves left, right, up or down (viewer's view), one leg or two, or stays."""

    name = "hand_move"
    task = "direction"
    fact = "direction"
    answers = tuple([(d,) for d in UNIT] + [(a, b) for a in UNIT for b in UNIT if a != b] + [()])
    question = "In which direction(s) does {subject} move, from the viewer's perspective?"

    def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
        rig, side, centre = _hand_start(scene, self.name, 0.3)
        n = scene.n
        knots = (
            [0, n - 1] if len(answer) < 2 else [0, scene.sample_frame(scene.switch_sample()), n - 1]
        )
        frames = _eased(scene.frames, knots)
        size = scene.rng.uniform(0.22, 0.4) / max(len(answer), 1) ** 0.5
        pts = np.cumsum([np.zeros(2)] + [np.array(UNIT[t]) * size for t in answer], axis=0)
        if not answer:
            pts = np.zeros((2, 2))
        pts = pts - 0.5 * (pts.min(0) + pts.max(0)) + scene.rng.uniform(-0.04, 0.04, 2)
        uv = np.stack(through(pts, np.array(knots, float), frames), 1)
        targets = _reach(rig, side, lambda s: rig.on_screen_plane(centre, uv * s))
        _hand_track(rig, side, targets)
        scene.ask(["hand"])
        rig.finish()


# count ----------------------------------------------------------------------------------


def jump(rig: Rig, peaks: list[int], arms: float = 25.0) -> None:
    """Jumps whose apex is at each of ``peaks`` (frames): a crouch, a flight short enough
    that the samples on either side see the feet down, a crouch on landing, arms swinging
    up to ``arms`` degrees below the horizontal (less swing keeps two people's hands apart)."""
    scene = rig.scene
    f, fps, iv = scene.frames, scene.fps, scene.interval
    tau = min(0.25 * fps, 0.75 * iv)  # half the flight, in frames
    crouch = max(1.0, min(0.25 * fps, iv - tau))
    height = scene.rng.uniform(0.28, 0.36)
    lift = np.zeros(scene.n)
    dip = np.zeros(scene.n)
    for p in peaks:
        lift = np.maximum(lift, height * np.clip(1 - ((f - p) / tau) ** 2, 0, None))
        for start in (p - tau - crouch, p + tau):
            u = np.clip((f - start) / crouch, 0, 1)
            dip = np.maximum(dip, np.sin(np.pi * u))
    depth = scene.rng.uniform(0.08, 0.13)
    rig.trans[:, 1] += lift - 0.03 - depth * dip
    ankles = {s: rig.rest_point(f"{s}_ankle") + np.zeros((scene.n, 3)) for s in SIDES}
    for s in SIDES:
        ankles[s][:, 1] += lift * 1.15  # the legs tuck a little in the air
        rig.leg_to(s, ankles[s])
        up = lift / height
        rig.poses[:, INDEX[f"{s}_shoulder"]] = blend(arm_down(s), arm_down(s, arms), up)


def _jump_peaks(scene: Scene, count: int) -> list[int]:
    """Frames of ``count`` jumps' apexes, each on a sampled frame (none for 0)."""
    if count == 0:
        return []
    return [scene.sample_frame(k) for k in event_samples(scene, spaced_gaps(scene, count))]


def _feet_track(rig: Rig) -> None:
    j = rig.joints
    feet = j[:, [INDEX[n] for n in ("left_ankle", "right_ankle", "left_foot", "right_foot")]]
    rig.track("feet", feet.mean(1), rig.part_noun("feet"), rig.look.body, 0.06, shape="feet")
    gx, gy = rig.project(np.array([rig.trans[0, 0], 0.0, 0.05]))
    rig.line("floor", gx, gy, -90.0, "the floor")


@register_motion
class Jumps(HumanMotion):
    """The person jumps N times; each apex is on a sampled frame with the feet down between.
    With N = 0 (TOMATO asks it too) the person stands, and a companion, if any, jumps
    instead: the count is of the person asked about, not of whoever moves."""

    name = "jumps"
    temporal_noise = True  # read from the silhouette (builders/audit/noise.py)
    task = "count"
    fact = "count"
    answers = (0, 1, 2, 3, 4, 5)  # six answers: every one is an option (no rank tell)
    question = "How many times does {person} jump?"

    def animate(self, scene: Scene, answer: int) -> None:
        rig = Rig.start(scene, self.name)
        jump(rig, _jump_peaks(scene, answer))
        other = rig.maybe_companion()
        if answer == 0 and other is not None:
            jump(other, _jump_peaks(scene, int(scene.rng.integers(2, 5))), arms=45.0)
        rig.third_person(rig.frame_points(), elevation=(2.0, 12.0), fill=(0.8, 0.88))
        _feet_track(rig)
        scene.meta["event_words"] = ["jumps", "jump", "jumps", "jump"]
        scene.meta["actor"] = rig.who
        scene.ask(["feet", "floor"], kind="raise")
        rig.finish()


@register_motion
class Squats(HumanMotion):
    """The person squats N times: hips back and down, torso leaning, arms forward; the head
    (measured down from a line above it) is lowest on a sampled frame each time."""

    name = "squats"
    temporal_noise = True  # read from the silhouette (builders/audit/noise.py)
    task = "count"
    fact = "count"
    answers = (1, 2, 3, 4, 5, 6)
    question = "How many squats does {person} do?"

    def animate(self, scene: Scene, answer: int) -> None:
        rig = Rig.start(scene, self.name)
        peaks = [scene.sample_frame(k) for k in event_samples(scene, spaced_gaps(scene, answer))]
        down = bumps(scene.frames, peaks, min(scene.interval, 0.9 * scene.fps))
        depth = scene.rng.uniform(0.3, 0.4)
        ankles = {s: rig.rest_point(f"{s}_ankle") + np.zeros((scene.n, 3)) for s in SIDES}
        rig.trans[:, 1] -= 0.03 + depth * down
        rig.trans[:, 2] -= 0.4 * depth * down
        rig.poses[:, INDEX["spine1"]] = axis_angle((1.0, 0.0, 0.0), 32.0 * down)
        rig.poses[:, INDEX["neck"]] = axis_angle((1.0, 0.0, 0.0), -20.0 * down)
        for s in SIDES:
            rig.leg_to(s, ankles[s], pole=np.array([0.35 * SIDE_SIGN[s], 0.0, 1.0]))
            rig.poses[:, INDEX[f"{s}_shoulder"]] = blend(arm_down(s), arm_forward(s), down)
        rig.maybe_companion()
        rig.third_person(rig.frame_points(), elevation=(4.0, 14.0), fill=(0.8, 0.88))
        head = rig.joints[:, INDEX["head"]]
        rig.track("head", head, rig.part_noun("head"), rig.look.body, 0.11, shape="head")
        hx, hy = rig.project(head[0] + [0.0, 0.25, 0.0])
        rig.line("ceiling", hx, hy, 90.0, "a line above the head")
        scene.meta["event_words"] = ["squats", "squat", "squats", "squat"]
        scene.meta["actor"] = rig.who
        scene.ask(["head", "ceiling"], kind="raise")
        rig.finish()


@register_motion
class Claps(HumanMotion):
    """The person claps N times in front of the chest; the hands meet on a sampled frame."""

    name = "claps"
    task = "count"
    fact = "count"
    answers = (1, 2, 3, 4, 5, 6)
    question = "How many times does the person clap?"

    def animate(self, scene: Scene, answer: int) -> None:
        rig = Rig.start(scene, self.name)
        peaks = [scene.sample_frame(k) for k in event_samples(scene, spaced_gaps(scene, answer))]
        shut = bumps(scene.frames, peaks, min(scene.interval, 0.35 * scene.fps))
        chest = 0.5 * (rig.rest_point("left_shoulder") + rig.rest_point("right_shoulder"))
        look = scene.look_rng  # where the hands meet and which is tracked: the scene's look
        centre = chest + [0.0, -look.uniform(0.1, 0.22), look.uniform(0.3, 0.36)]
        rig.hand_camera(centre, 0.35)
        apart = look.uniform(0.2, 0.28)
        for s in SIDES:
            x = SIDE_SIGN[s] * (0.03 + (apart - 0.03) * (1 - shut))
            targets = centre + x[:, None] * np.array([1.0, 0.0, 0.0])
            pole = np.array([0.3 * SIDE_SIGN[s], -1.0, -0.6])
            rig.arm_to(s, targets, pole, palm_toward=np.array([1.0, 0.0, 0.0]))
        side = str(look.choice(SIDES))
        hand = rig.hand(side)
        rig.track("hand", hand, rig.hand_noun(side), rig.look.hands[side][1], HAND_RADIUS)
        (ox, oy), (cx, _) = rig.project(hand[0]), rig.project(centre)
        toward = 1.0 if cx > ox else -1.0
        rig.line("side", ox - toward * 0.1 * scene.width, oy, 0.0 if toward > 0 else 180.0,
                 "a line beside the hand")  # fmt: skip
        scene.meta["event_words"] = ["claps", "clap", "claps", "clap"]
        scene.meta["actor"] = "the person"
        scene.ask(["hand", "side"], kind="raise")
        rig.finish()


# rotation: the whole body ---------------------------------------------------------------


@register_motion
class BodyTurn(HumanMotion):
    """The person turns on the spot, arms out; the yaw (seen from above) is the label."""

    name = "body_turn"
    task = "rotation"
    fact = "rotation"
    answers = SENSES
    question = "Seen from above, which direction(s) does {subject} turn in?"

    def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
        rig = Rig.start(scene, self.name)
        step = scene.rng.uniform(0.35, 0.7) * MAX_TURN_PER_SAMPLE
        yaw = scene.rng.uniform(-30.0, 30.0) + signed_sweep(scene, answer, step)
        rig.poses[:, 0] = axis_angle((0.0, 1.0, 0.0), -yaw)  # +y turns counter-clockwise
        lift = scene.rng.uniform(0.0, 15.0)
        for s in SIDES:
            out = axis_angle((0.0, 0.0, 1.0), SIDE_SIGN[s] * lift)
            rig.poses[:, INDEX[f"{s}_shoulder"]] = blend(out, arm_forward(s), 0.15)
        rig.maybe_companion()
        rig.third_person(rig.frame_points(), elevation=(32.0, 42.0), azimuth=(-8.0, 8.0))
        pelvis = rig.joints[:, INDEX["pelvis"]]
        rig.track("person", pelvis, rig.who, rig.look.body, 0.25, shape="human", angle=yaw)
        scene.ask(["person"], kind="spin")
        scene.meta["viewpoint"] = "above"  # the angle is a yaw: its sense is read from above
        rig.finish()


# direction: stepping sideways ------------------------------------------------------------


@register_motion
class SideStep(HumanMotion):
    """The person side-steps left or right (viewer's view), or one way then back: the
    leading foot steps out, the other closes in, the pelvis glides at a steady speed."""

    name = "side_step"
    temporal_noise = True  # read from the silhouette (builders/audit/noise.py)
    task = "direction"
    fact = "direction"
    answers = (("left",), ("right",), ("left", "right"), ("right", "left"))
    question = "In which direction(s) does {subject} move, from the viewer's perspective?"

    def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
        rig = Rig.start(scene, self.name)
        n, fps = scene.n, scene.fps
        knots = (
            [0, n - 1] if len(answer) < 2 else [0, scene.sample_frame(scene.switch_sample()), n - 1]
        )
        speed = min(scene.rng.uniform(0.2, 0.32), 1.4 / ((n - 1) / fps))  # metres per second
        width = scene.rng.uniform(0.08, 0.11)  # half the distance between the feet
        x = np.zeros(n)
        feet = {s: np.tile(rig.rest_point(f"{s}_ankle"), (n, 1)) for s in SIDES}
        start = 0.0
        for tok, a, b in zip(answer, knots[:-1], knots[1:]):
            way = 1.0 if tok == "right" else -1.0  # image right is the world's +x
            steps = max(1, round((b - a) / fps / scene.rng.uniform(0.6, 0.85)))
            lead = "left" if way > 0 else "right"
            trail = "right" if way > 0 else "left"
            for k in range(steps):
                c0, c1 = a + (b - a) * k / steps, a + (b - a) * (k + 1) / steps
                p0 = start + way * speed * (c0 - a) / fps
                p1 = start + way * speed * (c1 - a) / fps
                for foot, half in ((lead, (0.0, 0.5)), (trail, (0.5, 1.0))):
                    seg = (scene.frames >= c0) & (scene.frames <= c1)
                    u = np.clip(((scene.frames[seg] - c0) / (c1 - c0) - half[0]) / 0.5, 0, 1)
                    ease = u * u * (3 - 2 * u)
                    sign = way if foot == lead else -way
                    feet[foot][seg, 0] = p0 + sign * width + (p1 - p0) * ease
                    feet[foot][seg, 1] = rig.rest_point(f"{foot}_ankle")[1] + 0.07 * np.sin(
                        np.pi * u
                    )
            seg = (scene.frames >= a) & (scene.frames <= b)
            x[seg] = start + way * speed * (scene.frames[seg] - a) / fps
            start = x[seg][-1]
        rig.trans[:, 0] += x
        rig.trans[:, 1] -= 0.05
        for s in SIDES:
            rig.leg_to(s, feet[s])
        rig.maybe_companion()
        rig.third_person(rig.frame_points(), elevation=(4.0, 14.0), azimuth=(-8.0, 8.0))
        pelvis = rig.joints[:, INDEX["pelvis"]]
        rig.track("person", pelvis, rig.who, rig.look.body, 0.2, shape="human")
        scene.ask(["person"])
        rig.finish()


# velocity & frequency -------------------------------------------------------------------


@register_motion
class ArmSwingSpeed(HumanMotion):
    """A hand sweeps along an arc before the body, speeding up, slowing down or steadily."""

    name = "arm_swing_speed"
    task = "velocity&frequency"
    fact = "speed"
    answers = ("accelerating", "decelerating", "constant", "none")
    question = "What is the speed pattern of {subject}?"

    def animate(self, scene: Scene, answer: str) -> None:
        rig, side, centre = _hand_start(scene, self.name, 0.4, forward=0.28)
        # the arc bulges away from the body's midline: up and out on the image
        outward = 180.0 if rig.project(centre)[0] < scene.width / 2 else 0.0
        mid = -45.0 if outward == 0.0 else 225.0  # image y points down: -45 is up and right
        span = scene.rng.uniform(120.0, 170.0) * scene.rng.choice([-1.0, 1.0])
        u = scene.frames / (scene.n - 1)
        s = np.zeros(scene.n) + 0.5 if answer == "none" else PROFILES[answer](u)
        theta = np.radians(mid - span / 2 + span * s)
        arc = np.stack([np.cos(theta), np.sin(theta)], 1) * scene.rng.uniform(0.24, 0.3)
        targets = _reach(rig, side, lambda k: rig.on_screen_plane(centre, arc * k))
        _hand_track(rig, side, targets)
        scene.ask(["hand"], kind="position")
        rig.finish()


def _rhythm_peaks(scene: Scene, answer: str) -> list[int]:
    if answer == "none":
        return []
    gaps = GAPS[answer][int(scene.rng.integers(len(GAPS[answer])))]
    return [scene.sample_frame(k) for k in event_samples(scene, gaps)]


@register_motion
class JumpRhythm(HumanMotion):
    """The person jumps again and again; the gaps between jumps shrink, grow or stay."""

    name = "jump_rhythm"
    temporal_noise = True  # read from the silhouette (builders/audit/noise.py)
    task = "velocity&frequency"
    fact = "frequency"
    answers = ("increasing", "decreasing", "constant", "none")
    question = "How does the jumping frequency of {person} change over the video?"

    def animate(self, scene: Scene, answer: str) -> None:
        rig = Rig.start(scene, self.name)
        jump(rig, _rhythm_peaks(scene, answer))
        rig.maybe_companion()
        rig.third_person(rig.frame_points(), elevation=(2.0, 12.0), fill=(0.8, 0.88))
        _feet_track(rig)
        scene.meta["event_words"] = ["jumps", "jump", "jumps", "jump"]
        scene.meta["actor"] = rig.who
        scene.ask(["feet", "floor"], kind="raise")
        rig.finish()


def wave_base(rig: Rig) -> tuple[str, np.ndarray]:
    """The waving hand's side and the point above its shoulder it waves from."""
    rng = rig.scene.look_rng  # which hand and where: the scene's look, not its answer
    side = str(rng.choice(SIDES))
    base = rig.rest_point(f"{side}_shoulder") + [
        SIDE_SIGN[side] * rng.uniform(0.06, 0.1),
        rng.uniform(0.28, 0.36),
        0.14,
    ]
    return side, base


WAVE_REACH = 0.35  # metres about the wave's base a camera keeps in view


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
    half = min(scene.interval, 0.3 * scene.fps)
    swing = bumps(scene.frames, peaks(), half)[:, None]
    amp = scene.rng.uniform(0.14, 0.2)
    out = amp * swing * [sign, 0.0, 0.0] - 0.25 * amp * swing**2 * [0.0, 1.0, 0.0]
    targets = _reach(rig, side, lambda k: base + out * k)
    _hand_track(rig, side, targets, names[0], noun)
    hand = rig.hand(side)
    (ox, oy), (ix, _) = rig.project(hand[0]), rig.project(targets[np.argmax(swing)])
    toward = 1.0 if ix > ox else -1.0
    rig.line(names[1], ox - toward * 0.1 * scene.width, oy, 0.0 if toward > 0 else 180.0,
             "a line beside the hand")  # fmt: skip
    scene.meta["event_words"] = ["waves", "wave", "waves", "wave"]
    scene.ask(list(names), kind="raise")


@register_motion
class WaveRhythm(HumanMotion):
    """A raised hand waves: out to the side and back, pivoting at the elbow; the waves come
    faster, slower, evenly, or the hand stays still."""

    name = "wave_rhythm"
    task = "velocity&frequency"
    fact = "frequency"
    answers = ("increasing", "decreasing", "constant", "none")
    question = "How does the waving frequency of {subject} change over the video?"

    def animate(self, scene: Scene, answer: str) -> None:
        rig = Rig.start(scene, self.name)
        wave(rig, lambda: _rhythm_peaks(scene, answer))
        rig.finish()


# count: waves and circles drawn ----------------------------------------------------------


@register_motion
class Waves(HumanMotion):
    """The person waves a raised hand N times; each wave is farthest out on a sampled frame
    with the hand back in place on the unsampled and sampled frames between."""

    name = "waves"
    task = "count"
    fact = "count"
    answers = (1, 2, 3, 4, 5, 6)
    question = "How many times does the person wave?"

    def animate(self, scene: Scene, answer: int) -> None:
        rig = Rig.start(scene, self.name)
        gaps = spaced_gaps(scene, answer)
        wave(rig, lambda: [scene.sample_frame(k) for k in event_samples(scene, gaps)])
        scene.meta["actor"] = "the person"
        rig.finish()


LAP_EXTRA = (45.0, 60.0)  # degrees past the last full lap: pixel noise cannot drop a lap
LAP_STEP = 80.0  # most degrees per sample interval a circle is drawn at (under 90)


@register_motion
class CircleCount(HumanMotion):
    """A raised hand draws N full circles in the air about a fixed centre, in a plane facing
    the camera, at the same angle per sample interval (under 90 degrees); it rests before
    and after, and stops a little past the N-th lap so no lap is cut short."""

    name = "circle_count"
    task = "count"
    fact = "count"
    answers = (1, 2, 3)  # 15 sample intervals of at most 90 degrees hold under 4 laps
    question = "How many circles does {subject} draw in the air?"

    def animate(self, scene: Scene, answer: int) -> None:
        def angles() -> np.ndarray:
            total = 360.0 * answer + scene.rng.uniform(*LAP_EXTRA)
            span = int(scene.rng.integers(min(math.ceil(total / LAP_STEP), SAMPLES - 1), SAMPLES))
            k0 = int(scene.rng.integers(0, SAMPLES - span))
            # the angle is linear in sample position, so every sample interval turns
            # total / span even where sampled frames are unevenly spaced
            at = np.interp(scene.frames, scene.samples, np.arange(SAMPLES, dtype=np.float64))
            turned = total * np.clip((at - k0) / span, 0.0, 1.0)
            sense = float(scene.rng.choice([-1.0, 1.0]))
            return scene.rng.uniform(0, 360) + sense * turned

        _hand_circles(scene, self.name, angles, "the centre of the circles", "loop")


# shape & trend --------------------------------------------------------------------------


@register_motion
class AirDrawing(HumanMotion):
    """The wrist draws a shape in the air on a plane facing the camera (IK follows the
    path), its corners on sampled frames; or the hand stays put."""

    name = "air_drawing"
    task = "shape&trend"
    fact = "trajectory"
    answers = ("circle", "triangle", "square", "trapezoid", "diamond", "infinity", "star", "none")
    question = "What shape does {subject} draw in the air?"

    def animate(self, scene: Scene, answer: str) -> None:
        rig, side, centre = _hand_start(scene, self.name, 0.3, companion=COMPANION_P)
        if answer == "none":
            uv = np.zeros((scene.n, 2))
        else:
            verts = outline(answer, scene.rng)
            if scene.rng.random() < 0.5:
                verts = verts[::-1].copy()
            if answer in ("circle", "infinity"):
                knots = np.linspace(0, scene.n - 1, len(verts))
            else:
                knots = knot_frames(scene, verts)
            uv = np.stack(through(verts * scene.rng.uniform(0.13, 0.17), knots, scene.frames), 1)
        targets = _reach(rig, side, lambda k: rig.on_screen_plane(centre, uv * k))
        _hand_track(rig, side, targets)
        scene.ask(["hand"])
        rig.finish()


# visual cues ----------------------------------------------------------------------------


@register_motion
class FirstHand(HumanMotion):
    """Both hands rest low; one rises above its shoulder first, both at once, or neither
    moves. Which glove is obj1 is drawn per seed, so the answer is not a side."""

    name = "first_hand"
    task = "visual_cues"
    fact = "order"
    answers = ((("obj1",), ("obj2",)), (("obj2",), ("obj1",)), (("obj1", "obj2"),), ())
    question = "Which hand of {person} starts moving first?"
    objects = ("obj1", "obj2")

    def animate(self, scene: Scene, answer: tuple) -> None:
        from tempogen.generators.patterns.visual_cues import end_samples, start_samples

        rig = Rig.start(scene, self.name)
        sides = list(SIDES) if scene.rng.random() < 0.5 else list(SIDES)[::-1]
        names = list(self.objects)
        starts = start_samples(scene, names, answer)
        ends = end_samples(scene, starts)
        ends_of: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        for name, side in zip(names, sides):
            sign = SIDE_SIGN[side]
            low = rig.rest_point(f"{side}_hip") + [sign * 0.1, 0.15, 0.25]
            high = rig.rest_point(f"{side}_shoulder") + [
                sign * scene.rng.uniform(0.05, 0.12), scene.rng.uniform(0.2, 0.3), 0.2
            ]  # fmt: skip
            u = np.zeros(scene.n)
            if name in starts:  # off at once (eased out), so both hands' starts read alike
                a, b = scene.sample_frame(starts[name]), scene.sample_frame(ends[name])
                u = 1.0 - (1.0 - np.clip((scene.frames - a) / (b - a), 0.0, 1.0)) ** 2
            ends_of[name] = (low, high, u)

        def both(scale: float) -> np.ndarray:
            return np.stack([lo + (hi - lo) * scale * u[:, None] for lo, hi, u in ends_of.values()])

        scale = next(
            (s for s in SHRINK if all(rig.reachable(sd, p) for sd, p in zip(sides, both(s)))), None
        )
        if scale is None:
            raise GenerationError(f"motion {self.name!r}: the raised hands are out of reach")
        paths = dict(zip(names, both(scale)))
        box = np.concatenate(list(paths.values()))
        rig.maybe_companion()
        rig.third_person(rig.frame_points([box], upper=True))
        for name, side in zip(names, sides):  # pose both arms before reading either hand
            targets = paths[name]
            rig.arm_to(side, targets, palm_toward=rig.camera.pose[:3, 3] - targets)
        for name, side in zip(names, sides):
            rig.track(
                name, rig.hand(side), rig.hand_noun(side), rig.look.hands[side][1], HAND_RADIUS
            )
        scene.meta["actor"] = "the person"
        scene.ask(names, kind="move")
        rig.finish()
