"""Mocap: which way a recorded person's body turns, seen from above (the rotation fact, as the
procedural ``body_turn`` asks it). The body's yaw is the pelvis's heading over a stride; the
camera looks down from the front of the window's first heading, where the collars (which the
pixel audit reads) show the turn."""

from __future__ import annotations

import numpy as np
from scipy.ndimage import gaussian_filter1d

from tempogen.generators.motion import register_motion
from tempogen.generators.patterns.mocap import (
    PERSON_RADIUS,
    MocapMotion,
    MocapRig,
    check_readable,
)
from tempogen.generators.patterns.rotation import SENSES
from tempogen.generators.poses import PoseSequence, rotvec_to_matrix
from tempogen.generators.scene import Scene
from tempogen.generators.skeleton import INDEX

GAIT = 0.5  # seconds: the heading is smoothed over about a stride (the pelvis sways each step)


def heading(seq: PoseSequence) -> np.ndarray:
    """Degrees round the vertical the body faces per frame (unwrapped; 0 = facing ``+z``,
    positive toward ``+x``: counter-clockwise seen from above), over about a stride: the
    pelvis's sway with each step is not the body turning."""
    fwd = rotvec_to_matrix(seq.poses[:, 0]) @ np.array([0.0, 0.0, 1.0])
    yaw = np.degrees(np.unwrap(np.arctan2(fwd[:, 0], fwd[:, 2])))
    # the line through the ends is kept out of the smoothing, so a steady turn stays steady
    # up to the first and last frame
    line = np.linspace(yaw[0], yaw[-1], len(yaw))
    return np.asarray(line + gaussian_filter1d(yaw - line, GAIT * seq.fps, mode="nearest"))


@register_motion
class MocapTurn(MocapMotion):
    """A recorded person turns (or not) as they move; the sense is read from above."""

    name = "mocap_turn"
    task = "rotation"
    fact = "rotation"
    answers = SENSES
    question = "Seen from above, which direction(s) does {subject} turn in?"
    elevation = 70.0  # degrees: from high above, both collars show past the head

    def views(self, seq: PoseSequence) -> list[float]:
        start = float(heading(seq)[0])
        return [start, start + 90.0]  # the person starts facing the camera, or side on

    def label(self, scene: Scene, rig: MocapRig) -> None:
        yaw = heading(rig.sequence())
        pelvis = rig.joints[:, INDEX["pelvis"]]
        rig.track(
            "person", pelvis, rig.who, rig.look.body, PERSON_RADIUS, shape="human", angle=-yaw
        )  # clockwise seen from above is positive, as body_turn labels it
        scene.ask(["person"], kind="spin")
        scene.meta["viewpoint"] = "above"
        d = rig.mark_px("left_collar") - rig.mark_px("right_collar")
        steps = np.degrees(np.diff(np.arctan2(d[:, 1], d[:, 0])))
        steps = (steps + 180.0) % 360.0 - 180.0
        check_readable(scene, "person", angle=np.concatenate([[0.0], np.cumsum(steps)]))
