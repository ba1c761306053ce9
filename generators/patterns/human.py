"""Simulated humans: procedural body motions for every TOMATO task, labelled from the posed
joints (see :mod:`tempogen.generators.humans`). Left, right and clockwise are the viewer's.

The patterns register in this module, in this order (the planner's order within a task); the
hand they move is in :mod:`.human_hand`, the whole-body poses in :mod:`.human_poses`."""

from __future__ import annotations

import numpy as np

from tempogen.generators.humans import (
    COMPANION_P,
    HAND_RADIUS,
    SIDE_SIGN,
    SIDES,
    HumanMotion,
    Rig,
    arm_forward,
)
from tempogen.generators.kinematics import axis_angle, blend
from tempogen.generators.motion import MAX_TURN_PER_SAMPLE, register_motion
from tempogen.generators.paths import UNIT, event_samples, signed_sweep, spaced_gaps, through
from tempogen.generators.patterns.human_hand import (
    eased,
    hand_circles,
    hand_start,
    hand_track,
    laps_turned,
    raise_hands,
    reach,
    side_line,
    wave,
)
from tempogen.generators.patterns.human_poses import (
    UPRIGHT_VIEW,
    clap,
    film_jumps,
    film_squats,
    jump,
    jump_peaks,
    rhythm_peaks,
    side_steps,
    squat,
)
from tempogen.generators.patterns.rotation import SENSES
from tempogen.generators.patterns.shape import knot_frames, outline
from tempogen.generators.patterns.velocity import PROFILES
from tempogen.generators.scene import Scene
from tempogen.generators.skeleton import INDEX

PERSON_RADIUS = 0.25  # metres: a whole person's track about the pelvis
AZIMUTH = (-8.0, 8.0)  # degrees a whole-body camera turns off straight ahead
TWIRL_STEP = (0.4, 0.75)  # a circling hand's turn per sample, as a share of the most
MOVE_VIEW = 0.3  # metres about a moving hand's start the camera keeps in view
MOVE_SIZE = (0.22, 0.4)  # metres a one-leg hand move covers (shorter legs for two)
MOVE_JITTER = 0.04  # metres the move's centre strays from the working point
COMPANION_ARMS = 45.0  # degrees below level a jumping companion's arms swing up to
COMPANION_JUMPS = (2, 5)  # a jumping companion's count: from 2 to 4
TURN_STEP = (0.35, 0.7)  # a turning body's turn per sample, as a share of the most
TURN_START = 30.0  # degrees either way a turning body starts from facing the camera
TURN_ARMS = 15.0  # most degrees the arms are held out from the sides as the body turns
TURN_ARMS_FORWARD = 0.15  # how far the held-out arms lean forward (0: out, 1: ahead)
TURN_VIEW = (32.0, 42.0)  # degrees above level the camera looks down at a turning body
STEP_RADIUS = 0.2  # metres: a side-stepping person's track about the pelvis
SWING_VIEW = 0.4  # metres about a swinging hand's arc the camera keeps in view
SWING_FORWARD = 0.28  # metres before the shoulder the arc's centre stands
SWING_SPAN = (120.0, 170.0)  # degrees of arc a swinging hand covers
SWING_RADIUS = (0.24, 0.3)  # metres: the arc's radius
DRAW_VIEW = 0.3  # metres about a drawing hand's shape the camera keeps in view
DRAW_SIZE = (0.13, 0.17)  # metres from the centre of a shape drawn in the air to its rim


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
            step = scene.rng.uniform(*TWIRL_STEP) * MAX_TURN_PER_SAMPLE
            return scene.rng.uniform(0, 360) + signed_sweep(scene, answer, step)

        hand_circles(scene, self.name, angles, "the circle's centre", "orbit")


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
        rig, side, centre = hand_start(scene, self.name, MOVE_VIEW)
        n = scene.n
        knots = (
            [0, n - 1] if len(answer) < 2 else [0, scene.sample_frame(scene.switch_sample()), n - 1]
        )
        frames = eased(scene.frames, knots)
        size = scene.rng.uniform(*MOVE_SIZE) / max(len(answer), 1) ** 0.5
        pts = np.cumsum([np.zeros(2)] + [np.array(UNIT[t]) * size for t in answer], axis=0)
        if not answer:
            pts = np.zeros((2, 2))
        pts = (
            pts - 0.5 * (pts.min(0) + pts.max(0)) + scene.rng.uniform(-MOVE_JITTER, MOVE_JITTER, 2)
        )
        uv = np.stack(through(pts, np.array(knots, float), frames), 1)
        targets = reach(rig, side, lambda s: rig.on_screen_plane(centre, uv * s))
        hand_track(rig, side, targets)
        scene.ask(["hand"])
        rig.finish()


# count ----------------------------------------------------------------------------------


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
        jump(rig, jump_peaks(scene, answer))
        other = rig.maybe_companion()
        if answer == 0 and other is not None:
            count = int(scene.rng.integers(*COMPANION_JUMPS))
            jump(other, jump_peaks(scene, count), arms=COMPANION_ARMS)
        film_jumps(rig)
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
        squat(
            rig, [scene.sample_frame(k) for k in event_samples(scene, spaced_gaps(scene, answer))]
        )
        rig.maybe_companion()
        film_squats(rig)
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
        centre = clap(
            rig, [scene.sample_frame(k) for k in event_samples(scene, spaced_gaps(scene, answer))]
        )
        side = str(scene.look_rng.choice(SIDES))
        hand = rig.hand(side)
        rig.track("hand", hand, rig.hand_noun(side), rig.look.hands[side][1], HAND_RADIUS)
        side_line(rig, "side", hand, centre)
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
        step = scene.rng.uniform(*TURN_STEP) * MAX_TURN_PER_SAMPLE
        yaw = scene.rng.uniform(-TURN_START, TURN_START) + signed_sweep(scene, answer, step)
        rig.poses[:, 0] = axis_angle((0.0, 1.0, 0.0), -yaw)  # +y turns counter-clockwise
        lift = scene.rng.uniform(0.0, TURN_ARMS)
        for s in SIDES:
            out = axis_angle((0.0, 0.0, 1.0), SIDE_SIGN[s] * lift)
            rig.poses[:, INDEX[f"{s}_shoulder"]] = blend(out, arm_forward(s), TURN_ARMS_FORWARD)
        rig.maybe_companion()
        rig.third_person(rig.frame_points(), elevation=TURN_VIEW, azimuth=AZIMUTH)
        pelvis = rig.joints[:, INDEX["pelvis"]]
        rig.track("person", pelvis, rig.who, rig.look.body, PERSON_RADIUS, shape="human", angle=yaw)
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
        n = scene.n
        knots = (
            [0, n - 1] if len(answer) < 2 else [0, scene.sample_frame(scene.switch_sample()), n - 1]
        )
        side_steps(rig, answer, knots)
        rig.maybe_companion()
        rig.third_person(rig.frame_points(), elevation=UPRIGHT_VIEW, azimuth=AZIMUTH)
        pelvis = rig.joints[:, INDEX["pelvis"]]
        rig.track("person", pelvis, rig.who, rig.look.body, STEP_RADIUS, shape="human")
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
        rig, side, centre = hand_start(scene, self.name, SWING_VIEW, forward=SWING_FORWARD)
        # the arc bulges away from the body's midline: up and out on the image
        outward = 180.0 if rig.project(centre)[0] < scene.width / 2 else 0.0
        mid = -45.0 if outward == 0.0 else 225.0  # image y points down: -45 is up and right
        span = scene.rng.uniform(*SWING_SPAN) * scene.rng.choice([-1.0, 1.0])
        u = scene.frames / (scene.n - 1)
        s = np.zeros(scene.n) + 0.5 if answer == "none" else PROFILES[answer](u)
        theta = np.radians(mid - span / 2 + span * s)
        arc = np.stack([np.cos(theta), np.sin(theta)], 1) * scene.rng.uniform(*SWING_RADIUS)
        targets = reach(rig, side, lambda k: rig.on_screen_plane(centre, arc * k))
        hand_track(rig, side, targets)
        scene.ask(["hand"], kind="position")
        rig.finish()


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
        jump(rig, rhythm_peaks(scene, answer))
        rig.maybe_companion()
        film_jumps(rig)
        rig.finish()


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
        wave(rig, lambda: rhythm_peaks(scene, answer))
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
            turned = laps_turned(scene, answer)
            sense = float(scene.rng.choice([-1.0, 1.0]))
            return scene.rng.uniform(0, 360) + sense * turned

        hand_circles(scene, self.name, angles, "the centre of the circles", "loop")


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
        rig, side, centre = hand_start(scene, self.name, DRAW_VIEW, companion=COMPANION_P)
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
            size = scene.rng.uniform(*DRAW_SIZE)
            uv = np.stack(through(verts * size, knots, scene.frames), 1)
        targets = reach(rig, side, lambda k: rig.on_screen_plane(centre, uv * k))
        hand_track(rig, side, targets)
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
        paths = raise_hands(rig, dict(zip(names, sides)), starts, end_samples(scene, starts))
        box = np.concatenate(list(paths.values()))
        rig.maybe_companion()
        rig.third_person(rig.frame_points([box], upper=True))
        for name, side in zip(names, sides):  # pose both arms before reading either hand
            targets = paths[name]
            rig.arm_to(side, targets, palm_toward=rig.chosen_camera().pose[:3, 3] - targets)
        for name, side in zip(names, sides):
            rig.track(
                name, rig.hand(side), rig.hand_noun(side), rig.look.hands[side][1], HAND_RADIUS
            )
        scene.meta["actor"] = "the person"
        scene.ask(names, kind="move")
        rig.finish()
