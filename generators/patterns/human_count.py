"""Simulated humans, more COUNT motions: steps marched on the spot and big arm circles,
labelled from the posed joints like the count motions in :mod:`.human`."""

from __future__ import annotations

import math

import numpy as np

from tempogen.errors import GenerationError
from tempogen.generators.humans import SIDE_SIGN, SIDES, HumanMotion, Rig, arm_down, bumps
from tempogen.generators.kinematics import LIMBS, axis_angle, compose, limb_reach
from tempogen.generators.motion import register_motion
from tempogen.generators.paths import event_samples, spaced_gaps
from tempogen.generators.patterns.human_hand import hand_track, laps_turned
from tempogen.generators.patterns.human_poses import BODY_FILL, FLOOR_AHEAD, HEAD_RADIUS, LOW_VIEW
from tempogen.generators.scene import Scene
from tempogen.generators.skeleton import INDEX

KNEE_UP = (0.26, 0.32)  # metres a stepping ankle rises (the thigh near level)
STEP_DIP = (0.2, 0.25)  # metres the pelvis sinks between steps, knees bent: the head bobs
ARM_SWING = (30.0, 40.0)  # degrees each arm swings, forward against the lifted knee
STEP_HALF = 0.4  # seconds from feet down to a knee at its highest (a sample interval at most)
STEP_SINK = 0.02  # metres the pelvis stands lower than at rest, even at a step's top
KNEE_AHEAD = 0.12  # metres a stepping ankle moves forward as it rises
KNEE_OUT = 0.15  # the knees' pole: this far out to the side for one forward
CIRCLE_AHEAD = (0.18, 0.24)  # metres before the shoulder the arm circle's plane stands
ARM_SLACK = 0.04  # metres short of a straight arm's reach the hand circles at
ARM_START = 30.0  # most degrees the arm starts off hanging straight down
REACH_MARGIN = 0.02  # metres the circling hand stays within the arm's reach


@register_motion
class StepCount(HumanMotion):
    """The person marches on the spot N times, feet taking turns: each step lifts a knee high
    on a sampled frame, both feet down (knees bent) on the sampled frames between."""

    name = "step_count"
    task = "count"
    fact = "count"
    answers = (1, 2, 3, 4, 5, 6)
    question = "How many steps does {person} take on the spot?"

    def animate(self, scene: Scene, answer: int) -> None:
        rig, rng = Rig.start(scene, self.name), scene.rng
        peaks = [scene.sample_frame(k) for k in event_samples(scene, spaced_gaps(scene, answer))]
        half = min(scene.interval, STEP_HALF * scene.fps)
        first = int(rng.integers(2))  # which foot steps first
        lift = {
            s: bumps(scene.frames, peaks[(i + first) % 2 :: 2], half) for i, s in enumerate(SIDES)
        }
        up = np.maximum(*lift.values())  # 1 at each step's top, 0 with both feet down
        rig.trans[:, 1] -= STEP_SINK + rng.uniform(*STEP_DIP) * (1.0 - up)
        knee, swing = rng.uniform(*KNEE_UP), rng.uniform(*ARM_SWING)
        for s in SIDES:
            ankle = rig.rest_point(f"{s}_ankle") + np.zeros((scene.n, 3))
            ankle += lift[s][:, None] * [0.0, knee, KNEE_AHEAD]
            rig.leg_to(s, ankle, pole=np.array([KNEE_OUT * SIDE_SIGN[s], 0.0, 1.0]))
            # the arm swings forward as the other knee rises, back as its own does: both
            # hands rise at every step
            other = lift[SIDES[1] if s == SIDES[0] else SIDES[0]]
            tilt = axis_angle((1.0, 0.0, 0.0), swing * (lift[s] - other))
            rig.poses[:, INDEX[f"{s}_shoulder"]] = compose(tilt, arm_down(s))
        rig.maybe_companion()
        rig.third_person(rig.frame_points(), elevation=LOW_VIEW, fill=BODY_FILL)
        head = rig.joints[:, INDEX["head"]]
        rig.track("head", head, rig.part_noun("head"), rig.look.body, HEAD_RADIUS, shape="head")
        gx, gy = rig.project(np.array([rig.trans[0, 0], 0.0, FLOOR_AHEAD]))
        rig.line("floor", gx, gy, -90.0, "the floor")
        scene.meta["event_words"] = ["steps", "step", "steps", "step"]
        scene.meta["actor"] = rig.who
        scene.ask(["head", "floor"], kind="raise")
        rig.finish()


@register_motion
class ArmCircles(HumanMotion):
    """One straight arm swings N full big circles about its shoulder in a plane facing the
    camera, at the same angle per sample interval (under 90 degrees); it stops a little past
    the N-th lap so no lap is cut short."""

    name = "arm_circles"
    task = "count"
    fact = "count"
    answers = (1, 2, 3)  # 15 sample intervals of at most 90 degrees hold under 4 laps
    question = "How many big circles does {subject} swing?"

    def animate(self, scene: Scene, answer: int) -> None:
        rig, rng = Rig.start(scene, self.name), scene.rng
        side = str(rng.choice(SIDES))
        shoulder = rig.rest_point(f"{side}_shoulder")
        reach = limb_reach(LIMBS[f"{side}_arm"], rig.rest, rig.hand_rest(side))[1] - ARM_SLACK
        ahead = rng.uniform(*CIRCLE_AHEAD)  # the circle's plane stands this far before the shoulder
        radius = math.sqrt(reach**2 - ahead**2)  # the arm near straight all the way round
        box = np.array([[x, y, ahead] for x in (-radius, radius) for y in (-radius, radius)])
        rig.maybe_companion()
        rig.third_person(rig.frame_points([shoulder + box], upper=True))
        toward = rig.chosen_camera().pose[:3, 3] - shoulder
        centre = shoulder + ahead * toward / np.linalg.norm(toward)
        turned = laps_turned(scene, answer)
        start = 90.0 + rng.uniform(
            -ARM_START, ARM_START
        )  # the arm hangs about down (image y is down)
        theta = np.radians(start + float(rng.choice([-1.0, 1.0])) * turned)
        # the plane square to the line of sight through the centre: the hand keeps its
        # distance from the shoulder exactly, and the circle shows as a circle
        axis = toward / np.linalg.norm(toward)
        right, down = rig.screen_axes()
        right = right - (right @ axis) * axis
        right /= np.linalg.norm(right)
        down = np.cross(axis, right) * np.sign(np.cross(axis, right) @ down)
        circle = np.cos(theta)[:, None] * right + np.sin(theta)[:, None] * down
        targets = centre + radius * circle
        if not rig.reachable(side, targets, margin=REACH_MARGIN):
            raise GenerationError(f"motion {self.name!r}: the arm circle is out of reach")
        hand_track(rig, side, targets)
        cx, cy = rig.project(centre)
        rig.line("centre", cx, cy, 0.0, rig.part_noun("shoulder"), shape="anchor")
        scene.ask(["hand", "centre"], kind="loop")
        rig.finish()
