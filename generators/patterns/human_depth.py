"""Direction in depth, the whole body: a person walks straight towards the camera or away from
it (back turned), turns round once, or stands still; the label is the posed pelvis, whose
track's ``scale`` (pixels per metre) follows its distance from the camera."""

from __future__ import annotations

import numpy as np

from tempogen.generators.humans import SIDE_SIGN, SIDES, HumanMotion, Rig, arm_down, fit_camera
from tempogen.generators.kinematics import axis_angle, compose
from tempogen.generators.motion import register_motion
from tempogen.generators.patterns.human_walk import KNEES, PERSON_RADIUS, body_dirs, place_body
from tempogen.generators.scene import Scene
from tempogen.generators.skeleton import INDEX

SPEED = (1.1, 1.4)  # metres per second
LENGTH = (1.0, 2.6)  # metres one leg of the walk covers (the clip's length permitting)
STEP = (0.5, 0.6)  # metres the pelvis advances per step
LIFT, DIP, SWING = 0.08, 0.02, 14.0  # foot clearance, pelvis bob (m), arm swing (degrees)
TURN = 0.7  # seconds a turn on the spot takes
EASE = 0.35  # share of a leg's path walked at changing speed (starting and stopping)
LENS, ELEVATION, AZIMUTH = (46.0, 56.0), (5.0, 14.0), (8.0, 28.0)  # degrees
FILL = (0.86, 0.92)  # share of the frame the walk's room fills
TURN_AT = (6, 10)  # the sample a turn on the spot is centred on: from the 7th to the 10th
STILL_YAW = 15.0  # most degrees a person standing still turns off facing the camera
STILL_AT = 0.3  # most a person standing still stands off the middle, in walk lengths
SIDEWAYS = 0.2  # most metres the walk runs off the middle, to either side
SHUFFLE = 0.15  # seconds the feet take to come in beside the pelvis for a turn (and back)
FEET_APART = 0.8  # the feet's distance from the midline, as a share of the ankles' at rest
ROOM = (0.4, 1.9, 0.15)  # metres of room about the walk: to each side, up, and past each end


def _ease(u: np.ndarray) -> np.ndarray:
    """0..1 progress along a leg: steady walking, blended with a smooth start and stop."""
    u = np.clip(u, 0.0, 1.0)
    return (1 - EASE) * u + EASE * u * u * (3 - 2 * u)


def _smooth01(u: np.ndarray) -> np.ndarray:
    """Smoothstep of ``u`` clipped to 0..1."""
    u = np.clip(u, 0.0, 1.0)
    return u * u * (3 - 2 * u)


@register_motion
class WalkDepth(HumanMotion):
    """The person walks straight towards the camera, or away from it with the back turned, or
    one then the other with a turn on the spot at a sampled frame mid-clip, or stands still.
    The camera stands in front and a little to one side, slightly above, framing the whole
    walk: only the person's apparent size tells which way they go."""

    name = "walk_depth"
    task = "direction"
    fact = "approach"
    answers = (("towards",), ("away",), ("towards", "away"), ("away", "towards"), ())
    question = "Does {subject} walk towards the camera or away from it?"

    def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
        rig, rng, n, fps = Rig.start(scene, self.name), scene.rng, scene.n, scene.fps
        frames = scene.frames
        if len(answer) == 2:  # the turn, centred on a sampled frame in the middle of the clip
            mid = scene.sample_frame(int(rng.integers(*TURN_AT)))
            half = 0.5 * TURN * fps
            legs = [(0.0, mid - half), (mid + half, n - 1.0)]
        else:
            legs = [(0.0, n - 1.0)] if answer else []
        span = min((b - a for a, b in legs), default=n - 1.0) / fps
        length = float(np.clip(rng.uniform(*SPEED) * span, *LENGTH))
        # z along the walk: +z is towards the camera, which stands in front of the person
        sign = {"towards": 1.0, "away": -1.0}
        start = (
            -0.5 * length * sign[answer[0]] if answer else rng.uniform(-STILL_AT, STILL_AT) * length
        )
        z = np.full(n, start)
        heading = np.full(n, sign[answer[0]] if answer else 1.0)
        at = start
        for (a, b), tok in zip(legs, answer):
            u = _ease((frames - a) / (b - a))
            z = np.where(frames >= a, at + sign[tok] * length * u, z)
            at += sign[tok] * length
        yaw = np.where(heading > 0, 0.0, np.pi)
        if answer == ():
            yaw = np.full(n, np.radians(rng.uniform(-STILL_YAW, STILL_YAW)))
        elif len(answer) == 2:  # turning round on the spot, either way
            (_, a), (b, _) = legs
            first = 0.0 if answer[0] == "towards" else np.pi
            way = rng.choice([-1.0, 1.0])
            yaw = first + way * np.pi * _smooth01((frames - a) / (b - a))
        x = np.full(n, rng.uniform(-SIDEWAYS, SIDEWAYS))
        ground = np.c_[x, z]
        # steps: the distance walked, in whole pairs of steps per clip
        arc = np.r_[0.0, np.cumsum(np.abs(np.diff(z)))]
        step = rng.uniform(*STEP)
        if arc[-1] > 0:
            step = arc[-1] / (2 * max(1, round(arc[-1] / (2 * step))))
        phase = arc / step
        h0 = rig.rest_point("pelvis")[1] - KNEES
        height = h0 - DIP * np.cos(2 * np.pi * phase) * (arc[-1] > 0)
        # turning on the spot, the feet come in beside the pelvis (a shuffle, no stride)
        walking = np.ones(n)
        if len(answer) == 2:
            (_, a), (b, _) = legs
            ramp = SHUFFLE * fps
            walking = 1.0 - _smooth01((frames - a + ramp) / ramp) * _smooth01(
                (b + ramp - frames) / ramp
            )
        feet = {}
        for p, s in enumerate(SIDES):  # each foot swings two steps ahead every other step
            q = (phase - p) / 2
            u = np.clip(2 * (q - np.floor(q)), 0.0, 1.0)
            walk = step * (2 * np.floor(q) + p - 0.5 + 2 * u * u * (3 - 2 * u))
            walk = np.clip(walk, 0.0, arc[-1])
            g = np.stack([np.interp(walk, arc, ground[:, k]) for k in (0, 1)], 1)
            if arc[-1] > 0:
                g = walking[:, None] * g + (1 - walking[:, None]) * ground
            else:
                g = ground.copy()
            ankle = rig.rest_point(f"{s}_ankle")
            wide = FEET_APART * (ankle[0] - rig.rest_point("pelvis")[0])
            feet[s] = np.c_[g[:, 0], np.full(n, ankle[1]), g[:, 1]] + body_dirs(yaw, 0.0, wide)
            feet[s][:, 1] += LIFT * np.sin(np.pi * u) * walking * (arc[-1] > 0)
        place_body(rig, ground, yaw, height, feet)
        for s in SIDES:
            rig.leg_to(s, feet[s], pole=body_dirs(yaw, 1.0, 0.1 * SIDE_SIGN[s]))
            # each arm swings against its leg while walking
            swing = -SIDE_SIGN[s] * SWING * np.cos(np.pi * phase) * walking * (arc[-1] > 0)
            down = arm_down(s)
            rig.poses[:, INDEX[f"{s}_shoulder"]] = compose(axis_angle((1.0, 0.0, 0.0), swing), down)
        # the camera frames the posed body and a body's room at both ends of the walk (the same
        # room whatever the answer, so a still person is framed like a walking one)
        side, up, past = ROOM
        room = np.array(
            [
                [sx * side + x[0], y, sz * (0.5 * length + past)]
                for sx in (-1, 1)
                for y in (0.0, up)
                for sz in (-1, 1)
            ]
        )
        rig.camera = fit_camera(
            np.concatenate([rig.frame_points(), room]),
            scene.width,
            scene.height,
            yfov_deg=rng.uniform(*LENS),
            elevation_deg=rng.uniform(*ELEVATION),
            azimuth_deg=rng.choice([-1.0, 1.0]) * rng.uniform(*AZIMUTH),
            fill=rng.uniform(*FILL),
        )
        pelvis = rig.joints[:, INDEX["pelvis"]]
        rig.track("person", pelvis, rig.who, rig.look.body, PERSON_RADIUS, shape="human")
        scene.ask(["person"])
        rig.finish()
