"""Two simulated people compared: side by side, each repeats an action a different number
of times, and the question asks who does it more (fact ``more``)."""

from __future__ import annotations

import numpy as np

from tempogen.generators.humans import (
    SIDES,
    HumanMotion,
    Rig,
    finish_people,
    person_noun,
    share_camera,
    start_pair,
)
from tempogen.generators.motion import Scene, register_motion
from tempogen.generators.paths import event_samples, spaced_gaps
from tempogen.generators.patterns.human import jump
from tempogen.generators.skeleton import INDEX

MAX_COUNT = 5  # each person's count is drawn in 1..MAX_COUNT
PAIR_ARMS = 58.0  # degrees below the horizontal the arms swing to: two people's hands stay apart


def _counts(scene: Scene, more: str) -> dict[str, int]:
    """Unequal counts for the ``left`` and ``right`` person, the higher one for ``more``."""
    hi = int(scene.rng.integers(2, MAX_COUNT + 1))
    lo = int(scene.rng.integers(1, hi))
    return {side: hi if side == more else lo for side in ("left", "right")}


def _feet(rig: Rig, side: str) -> None:
    """Track the person's feet (named by the person) against a floor line under them."""
    feet = rig.joints[:, [INDEX[f"{s}_{j}"] for s in SIDES for j in ("ankle", "foot")]].mean(1)
    rig.track(side, feet, person_noun(side, rig), rig.look.body, 0.06, shape="feet")
    gx, gy = rig.project(np.array([rig.trans[0, 0], 0.0, rig.origin[2] + 0.05]))
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
        share_camera(list(rigs.values()), elevation=(2.0, 12.0), fill=(0.8, 0.88))
        for side, rig in rigs.items():
            _feet(rig, side)
        scene.meta["event_words"] = ["jumps", "jump", "jumps", "jump"]
        scene.ask(self.objects, kind="raise")
        finish_people(list(rigs.values()))
