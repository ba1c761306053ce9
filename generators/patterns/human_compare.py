"""Two simulated people compared: side by side, each repeats an action a different number
of times, and the question asks who does it more (fact ``more``); or each turns on the spot,
and the question asks who starts first (fact ``order``)."""

from __future__ import annotations

import numpy as np

from tempogen.generators.humans import (
    HAND_RADIUS,
    SIDE_SIGN,
    SIDES,
    HumanMotion,
    Rig,
    arm_down,
    finish_people,
    person_noun,
    share_camera,
    start_pair,
)
from tempogen.generators.kinematics import axis_angle, compose
from tempogen.generators.motion import register_motion
from tempogen.generators.paths import event_samples, spaced_gaps
from tempogen.generators.patterns.human_poses import (
    BODY_FILL,
    FEET_RADIUS,
    FLOOR_AHEAD,
    LOW_VIEW,
    jump,
)
from tempogen.generators.patterns.visual_cues import end_samples, start_samples
from tempogen.generators.scene import Scene
from tempogen.generators.skeleton import INDEX

MAX_COUNT = 5  # each person's count is drawn in 1..MAX_COUNT
PAIR_ARMS = 58.0  # degrees below the horizontal the arms swing to: two people's hands stay apart
TURN = (50.0, 75.0)  # degrees a person turns, outer glove forward
TURN_VIEW = (8.0, 18.0)  # degrees above level the camera looks from at two people turning


def _counts(scene: Scene, more: str) -> dict[str, int]:
    """Unequal counts for the ``left`` and ``right`` person, the higher one for ``more``."""
    hi = int(scene.rng.integers(2, MAX_COUNT + 1))
    lo = int(scene.rng.integers(1, hi))
    return {side: hi if side == more else lo for side in ("left", "right")}


def _feet(rig: Rig, side: str) -> None:
    """Track the person's feet (named by the person) against a floor line under them."""
    feet = rig.joints[:, [INDEX[f"{s}_{j}"] for s in SIDES for j in ("ankle", "foot")]].mean(1)
    rig.track(side, feet, person_noun(side, rig), rig.look.body, FEET_RADIUS, shape="feet")
    gx, gy = rig.project(np.array([rig.trans[0, 0], 0.0, rig.origin[2] + FLOOR_AHEAD]))
    rig.line(f"{side}_floor", gx, gy, -90.0, "the floor")


@register_motion
class JumpCompare(HumanMotion):
    """Two people side by side each jump a different number of times (1..5); which of them
    jumps more is the answer, so counting both people's jumps is needed."""

    name = "jump_compare"
    task = "count"
    fact = "more"
    answers = ("left", "right")
    objects = ("left", "left_floor", "right", "right_floor")
    question = "Which of the two people jumps more times?"

    def animate(self, scene: Scene, answer: str) -> None:
        rigs = start_pair(scene, self.name)
        for side, n in _counts(scene, answer).items():
            gaps = spaced_gaps(scene, n)
            jump(rigs[side], [scene.sample_frame(k) for k in event_samples(scene, gaps)], PAIR_ARMS)
        share_camera(list(rigs.values()), elevation=LOW_VIEW, fill=BODY_FILL)
        for side, rig in rigs.items():
            _feet(rig, side)
        scene.meta["event_words"] = ["jumps", "jump", "jumps", "jump"]
        scene.ask(self.objects, kind="raise")
        finish_people(list(rigs.values()))


@register_motion
class TurnFirst(HumanMotion):
    """Two people side by side, arms out and down, each turn on the spot toward the other;
    one starts first, both at once, or neither turns. Each is read from their outer glove."""

    name = "turn_first"
    task = "visual_cues"
    fact = "order"
    answers = ((("left",), ("right",)), (("right",), ("left",)), (("left", "right"),), ())
    objects = ("left", "right")
    question = "Which of the two people starts turning first?"

    def animate(self, scene: Scene, answer: tuple) -> None:
        rigs = start_pair(scene, self.name)
        starts = start_samples(scene, list(self.objects), answer)
        ends = end_samples(scene, starts)
        for side, rig in rigs.items():
            u = np.zeros(scene.n)
            if side in starts:  # off at once (eased out), so both starts read alike
                a, b = scene.sample_frame(starts[side]), scene.sample_frame(ends[side])
                u = 1.0 - (1.0 - np.clip((scene.frames - a) / (b - a), 0.0, 1.0)) ** 2
            inward = 1.0 if side == "left" else -1.0  # the outer glove comes forward
            turn = scene.rng.uniform(*TURN)
            rig.poses[:, 0] = axis_angle((0.0, 1.0, 0.0), inward * turn * u)
            for s in SIDES:  # palms twisted to face the camera halfway through the turn
                twist = axis_angle((1.0, 0.0, 0.0), inward * SIDE_SIGN[s] * (90.0 - turn / 2))
                rig.poses[:, INDEX[f"{s}_shoulder"]] = compose(arm_down(s, PAIR_ARMS), twist)
        share_camera(list(rigs.values()), elevation=TURN_VIEW, fill=BODY_FILL)
        for side, rig in rigs.items():  # the outer glove (facing us, the viewer's left is
            outer = "right" if side == "left" else "left"  # their right): never hidden
            glove = rig.look.hands[outer][1]
            rig.track(side, rig.hand(outer), person_noun(side, rig), glove, HAND_RADIUS)
        scene.ask(self.objects, kind="move")
        finish_people(list(rigs.values()))
