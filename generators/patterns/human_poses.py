"""Whole-body poses of a simulated human, shared by the body patterns: jumps, squats, claps and
side steps, planned per frame on a :class:`~tempogen.generators.humans.Rig`, and the feet's
track the jump questions read (see :mod:`.human` for the patterns that use them)."""

from __future__ import annotations

import numpy as np

from tempogen.generators.humans import (
    SIDE_SIGN,
    SIDES,
    Rig,
    arm_down,
    arm_forward,
    bumps,
)
from tempogen.generators.kinematics import axis_angle, blend
from tempogen.generators.paths import event_samples, spaced_gaps
from tempogen.generators.patterns.velocity import GAPS
from tempogen.generators.scene import Scene
from tempogen.generators.skeleton import INDEX

KNEE_BEND = 0.03  # metres the pelvis stands lower than at rest: knees a little bent
LOW_VIEW = (2.0, 12.0)  # degrees above level a camera looks from to see the feet leave the floor
UPRIGHT_VIEW = (4.0, 14.0)  # degrees above level a camera looks from at a standing body
BODY_FILL = (0.8, 0.88)  # share of the frame the whole body fills
HEAD_RADIUS = 0.11  # metres: the head's track

# a jump (:func:`jump`)
FLIGHT = 0.25  # seconds of half a flight at most...
FLIGHT_SHARE = 0.75  # ...and at most this share of a sample interval, so the feet show down
CROUCH = 0.25  # seconds a crouch takes, before take-off and after landing
JUMP_HEIGHT = (0.28, 0.36)  # metres the pelvis rises at the apex
CROUCH_DEPTH = (0.08, 0.13)  # metres the pelvis sinks in a crouch
TUCK = 1.15  # the ankles rise this many times the pelvis's lift: the legs tuck in the air
JUMP_ARMS = 25.0  # degrees below level the arms swing up to
FEET_RADIUS = 0.06  # metres: the feet's track
FLOOR_AHEAD = 0.05  # metres before the pelvis the floor's line is read at

# a squat (:func:`squat`)
SQUAT_HALF = 0.9  # seconds from standing to the lowest point (a sample interval at most)
SQUAT_DEPTH = (0.3, 0.4)  # metres the pelvis sinks
SQUAT_BACK = 0.4  # the hips move back this share of the sink
SQUAT_LEAN = 32.0  # degrees the torso leans forward at the bottom
SQUAT_NOD = -20.0  # degrees the neck tilts back, keeping the eyes ahead
HEAD_LINE = 0.25  # metres above the head the squats' reference line stands
KNEES_OUT = 0.35  # the knees' pole: this far out to the side for one forward

# a clap (:func:`clap`)
CLAP_HALF = 0.35  # seconds from hands apart to hands together (a sample interval at most)
CLAP_DROP = (0.1, 0.22)  # metres below the shoulders the hands meet
CLAP_AHEAD = (0.3, 0.36)  # metres before the shoulders the hands meet
CLAP_VIEW = 0.35  # metres about where the hands meet that the camera keeps in view
CLAP_APART = (0.2, 0.28)  # metres from the middle to each hand, apart
CLAP_MET = 0.03  # metres from the middle to each hand when they meet
ELBOWS = (0.3, -1.0, -0.6)  # the elbows' pole: out (to each side), down and back

# side steps (:func:`side_steps`)
STEP_SPEED = (0.2, 0.32)  # metres per second the pelvis glides
STEP_TRAVEL = 1.4  # most metres the pelvis travels in a clip
STANCE = (0.08, 0.11)  # metres: half the distance between the feet
STEP_TIME = (0.6, 0.85)  # seconds one step (out and in) takes
STEP_LIFT = 0.07  # metres a stepping foot clears the floor
STEP_SINK = 0.05  # metres the pelvis stands lower than at rest


def jump(rig: Rig, peaks: list[int], arms: float = JUMP_ARMS) -> None:
    """Jumps whose apex is at each of ``peaks`` (frames): a crouch, a flight short enough
    that the samples on either side see the feet down, a crouch on landing, arms swinging
    up to ``arms`` degrees below the horizontal (less swing keeps two people's hands apart)."""
    scene = rig.scene
    f, fps, iv = scene.frames, scene.fps, scene.interval
    tau = min(FLIGHT * fps, FLIGHT_SHARE * iv)  # half the flight, in frames
    crouch = max(1.0, min(CROUCH * fps, iv - tau))
    height = scene.rng.uniform(*JUMP_HEIGHT)
    lift = np.zeros(scene.n)
    dip = np.zeros(scene.n)
    for p in peaks:
        lift = np.maximum(lift, height * np.clip(1 - ((f - p) / tau) ** 2, 0, None))
        for start in (p - tau - crouch, p + tau):
            u = np.clip((f - start) / crouch, 0, 1)
            dip = np.maximum(dip, np.sin(np.pi * u))
    depth = scene.rng.uniform(*CROUCH_DEPTH)
    rig.trans[:, 1] += lift - KNEE_BEND - depth * dip
    ankles = {s: rig.rest_point(f"{s}_ankle") + np.zeros((scene.n, 3)) for s in SIDES}
    for s in SIDES:
        ankles[s][:, 1] += lift * TUCK
        rig.leg_to(s, ankles[s])
        up = lift / height
        rig.poses[:, INDEX[f"{s}_shoulder"]] = blend(arm_down(s), arm_down(s, arms), up)


def jump_peaks(scene: Scene, count: int) -> list[int]:
    """Frames of ``count`` jumps' apexes, each on a sampled frame (none for 0)."""
    if count == 0:
        return []
    return [scene.sample_frame(k) for k in event_samples(scene, spaced_gaps(scene, count))]


def rhythm_peaks(scene: Scene, answer: str) -> list[int]:
    """Frames of events whose gaps shrink, grow or stay as ``answer`` says (none for "none"),
    each on a sampled frame."""
    if answer == "none":
        return []
    gaps = GAPS[answer][int(scene.rng.integers(len(GAPS[answer])))]
    return [scene.sample_frame(k) for k in event_samples(scene, gaps)]


def film_jumps(rig: Rig) -> None:
    """Frame the jumping person low, from the side of the floor, and ask about the feet
    rising off the floor."""
    scene = rig.scene
    rig.third_person(rig.frame_points(), elevation=LOW_VIEW, fill=BODY_FILL)
    j = rig.joints
    feet = j[:, [INDEX[n] for n in ("left_ankle", "right_ankle", "left_foot", "right_foot")]]
    rig.track("feet", feet.mean(1), rig.part_noun("feet"), rig.look.body, FEET_RADIUS, shape="feet")
    gx, gy = rig.project(np.array([rig.trans[0, 0], 0.0, FLOOR_AHEAD]))
    rig.line("floor", gx, gy, -90.0, "the floor")
    scene.meta["event_words"] = ["jumps", "jump", "jumps", "jump"]
    scene.meta["actor"] = rig.who
    scene.ask(["feet", "floor"], kind="raise")


def squat(rig: Rig, peaks: list[int]) -> None:
    """Squats lowest at each of ``peaks`` (frames): hips back and down, torso leaning, arms
    forward, the feet planted."""
    scene = rig.scene
    down = bumps(scene.frames, peaks, min(scene.interval, SQUAT_HALF * scene.fps))
    depth = scene.rng.uniform(*SQUAT_DEPTH)
    ankles = {s: rig.rest_point(f"{s}_ankle") + np.zeros((scene.n, 3)) for s in SIDES}
    rig.trans[:, 1] -= KNEE_BEND + depth * down
    rig.trans[:, 2] -= SQUAT_BACK * depth * down
    rig.poses[:, INDEX["spine1"]] = axis_angle((1.0, 0.0, 0.0), SQUAT_LEAN * down)
    rig.poses[:, INDEX["neck"]] = axis_angle((1.0, 0.0, 0.0), SQUAT_NOD * down)
    for s in SIDES:
        rig.leg_to(s, ankles[s], pole=np.array([KNEES_OUT * SIDE_SIGN[s], 0.0, 1.0]))
        rig.poses[:, INDEX[f"{s}_shoulder"]] = blend(arm_down(s), arm_forward(s), down)


def film_squats(rig: Rig) -> None:
    """Frame the squatting person upright and ask about the head going down from a line
    above it."""
    scene = rig.scene
    rig.third_person(rig.frame_points(), elevation=UPRIGHT_VIEW, fill=BODY_FILL)
    head = rig.joints[:, INDEX["head"]]
    rig.track("head", head, rig.part_noun("head"), rig.look.body, HEAD_RADIUS, shape="head")
    hx, hy = rig.project(head[0] + [0.0, HEAD_LINE, 0.0])
    rig.line("ceiling", hx, hy, 90.0, "a line above the head")
    scene.meta["event_words"] = ["squats", "squat", "squats", "squat"]
    scene.meta["actor"] = rig.who
    scene.ask(["head", "ceiling"], kind="raise")


def clap(rig: Rig, peaks: list[int]) -> np.ndarray:
    """Claps in front of the chest, the hands meeting at each of ``peaks`` (frames); where
    they meet (drawn from the scene's look), with the camera framing it, is returned."""
    scene = rig.scene
    shut = bumps(scene.frames, peaks, min(scene.interval, CLAP_HALF * scene.fps))
    chest = 0.5 * (rig.rest_point("left_shoulder") + rig.rest_point("right_shoulder"))
    look = scene.look_rng  # where the hands meet and which is tracked: the scene's look
    centre = chest + [0.0, -look.uniform(*CLAP_DROP), look.uniform(*CLAP_AHEAD)]
    rig.hand_camera(centre, CLAP_VIEW)
    apart = look.uniform(*CLAP_APART)
    for s in SIDES:
        x = SIDE_SIGN[s] * (CLAP_MET + (apart - CLAP_MET) * (1 - shut))
        targets = centre + x[:, None] * np.array([1.0, 0.0, 0.0])
        pole = np.array([ELBOWS[0] * SIDE_SIGN[s], *ELBOWS[1:]])
        rig.arm_to(s, targets, pole, palm_toward=np.array([1.0, 0.0, 0.0]))
    return centre


def side_steps(rig: Rig, answer: tuple[str, ...], knots: list[int]) -> None:
    """Side steps left or right (viewer's view) for each leg of ``answer`` between ``knots``
    (frames): the leading foot steps out, the other closes in, the pelvis glides at a
    steady speed."""
    scene = rig.scene
    n, fps = scene.n, scene.fps
    speed = min(scene.rng.uniform(*STEP_SPEED), STEP_TRAVEL / ((n - 1) / fps))  # m/s
    width = scene.rng.uniform(*STANCE)  # half the distance between the feet
    x = np.zeros(n)
    feet = {s: np.tile(rig.rest_point(f"{s}_ankle"), (n, 1)) for s in SIDES}
    start = 0.0
    for tok, a, b in zip(answer, knots[:-1], knots[1:]):
        way = 1.0 if tok == "right" else -1.0  # image right is the world's +x
        steps = max(1, round((b - a) / fps / scene.rng.uniform(*STEP_TIME)))
        lead = "left" if way > 0 else "right"
        trail = "right" if way > 0 else "left"
        for k in range(steps):
            c0, c1 = a + (b - a) * k / steps, a + (b - a) * (k + 1) / steps
            p0 = start + way * speed * (c0 - a) / fps
            p1 = start + way * speed * (c1 - a) / fps
            # the leading foot moves in the step's first half, the trailing one in its second
            for foot, half in ((lead, (0.0, 0.5)), (trail, (0.5, 1.0))):
                seg = (scene.frames >= c0) & (scene.frames <= c1)
                u = np.clip(((scene.frames[seg] - c0) / (c1 - c0) - half[0]) / 0.5, 0, 1)
                ease = u * u * (3 - 2 * u)
                sign = way if foot == lead else -way
                feet[foot][seg, 0] = p0 + sign * width + (p1 - p0) * ease
                rest = rig.rest_point(f"{foot}_ankle")[1]
                feet[foot][seg, 1] = rest + STEP_LIFT * np.sin(np.pi * u)
        seg = (scene.frames >= a) & (scene.frames <= b)
        x[seg] = start + way * speed * (scene.frames[seg] - a) / fps
        start = x[seg][-1]
    rig.trans[:, 0] += x
    rig.trans[:, 1] -= STEP_SINK
    for s in SIDES:
        rig.leg_to(s, feet[s])
