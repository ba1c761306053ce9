"""Mocap: where a recorded person walks on screen (direction), and how their pace changes
(speed trend). The camera stands square to the walk's main line, on either side, so the walk
crosses the screen; a walk that turns back reads as a sequence ("left then right")."""

from __future__ import annotations

import numpy as np

from tempogen.generators.motion import register_motion
from tempogen.generators.paths import UNIT
from tempogen.generators.patterns.mocap import (
    PERSON_RADIUS,
    MocapMotion,
    MocapRig,
    check_readable,
)
from tempogen.generators.poses import PoseSequence
from tempogen.generators.scene import Scene
from tempogen.generators.skeleton import INDEX

MIN_TRAVEL = 0.5  # metres the pelvis must cover for a walk's line to be seen


def walk_line(seq: PoseSequence) -> float | None:
    """Degrees round the vertical of the walk's main line on the floor (the pelvis path's
    principal axis), or None when the pelvis covers under :data:`MIN_TRAVEL` metres."""
    xz = seq.trans[:, [0, 2]]
    if float(np.linalg.norm(np.diff(xz, axis=0), axis=1).sum()) < MIN_TRAVEL:
        return None
    centred = xz - xz.mean(0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return float(np.degrees(np.arctan2(vt[0, 0], vt[0, 1])))


class _Walk(MocapMotion):
    """A walk filmed from the side: the person's track is where they stand, the floor point
    under the pelvis (a walk's bob is no travel); the belt, which the pixel audit reads, must
    give the same answer."""

    kind = ""
    elevation = 40.0  # degrees: from high enough, the far glove shows past the body

    def views(self, seq: PoseSequence) -> list[float]:
        line = walk_line(seq)
        return [] if line is None else [line + 90.0, line - 90.0]

    def label(self, scene: Scene, rig: MocapRig) -> None:
        floor = rig.joints[:, INDEX["pelvis"]] * [1.0, 0.0, 1.0]
        t = rig.track("person", floor, rig.who, rig.look.body, PERSON_RADIUS, shape="human")
        scene.ask(["person"], kind=self.kind)
        belt = rig.mark_px("belt")
        x, y = t.x[0] + belt[:, 0] - belt[0, 0], t.y[0] + belt[:, 1] - belt[0, 1]
        check_readable(scene, "person", x=x, y=y)


@register_motion
class MocapTravel(_Walk):
    """A recorded person walks across the screen: which way(s), from the viewer's view."""

    name = "mocap_travel"
    task = "direction"
    fact = "direction"
    answers = tuple([(d,) for d in UNIT] + [(a, b) for a in UNIT for b in UNIT if a != b] + [()])
    question = "In which direction(s) does {subject} walk, from the viewer's perspective?"


@register_motion
class MocapPace(_Walk):
    """A recorded person walks across the screen, speeding up, slowing down or steadily."""

    name = "mocap_pace"
    task = "velocity&frequency"
    fact = "speed"
    kind = "position"
    answers = ("accelerating", "decelerating", "constant", "none")
    question = "What is the speed pattern of {subject}?"
