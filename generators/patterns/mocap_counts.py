"""Mocap: how many times a recorded person jumps, does jumping jacks, squats or waves (task
``count``).

The joint events of :mod:`tempogen.generators.mocap.events` only choose which windows are
worth filming (one with no jump is not asked how many jumps it holds) and from where; the
answer is the count the projected track shows, certified like every clip's (16 frames, one
frame blind, Video-TT's 80). A window is refused where that count is not the number of joint
events (one unclear on screen, or something else moving the track), and where what the pixel
audit reads (the belt for a body part, the glove for a hand) would count otherwise
(:func:`~tempogen.generators.patterns.mocap.check_readable`). Each question reads one track against an invisible line, as the procedural counts do
(:mod:`.human_poses`): the feet above the floor (jumps), the head below a line above it
(squats), a hand away from a line beside it (waves), a hand up from the floor (jumping jacks).

Steps are not asked: the pixel audit reads a foot as the belt (or the gloves) carries it, and
neither the hips' sway nor a walk's arm swing is a foot's lift (where they agreed on a window,
they did by chance, and the pixels did not). :func:`~tempogen.generators.mocap.
events.steps` is still there to tell walks apart.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from tempogen.facts import answer_of
from tempogen.generators.humans import HAND_RADIUS, SIDES, Rig
from tempogen.generators.mocap import events as ev
from tempogen.generators.motion import register_motion
from tempogen.generators.patterns.human_poses import FEET_RADIUS, HEAD_LINE, HEAD_RADIUS
from tempogen.generators.patterns.mocap import MocapMotion, MocapRig, Unreadable, check_readable
from tempogen.generators.poses import PoseSequence
from tempogen.generators.scene import Scene
from tempogen.generators.skeleton import INDEX
from tempogen.labels import Labels

FEET = ("left_ankle", "right_ankle", "left_foot", "right_foot")
LINE_OFFSET = 0.08  # share of the frame's width a wave's line stands beside the hand's path


def posed_joints(seq: PoseSequence) -> np.ndarray:
    """Joints (T, 24, 3) of a window posed on the mean body shape (as the clip poses it)."""
    from tempogen.generators.humans.look import body_for

    body = body_for("")
    bare = PoseSequence(seq.poses, seq.trans, seq.fps)
    return np.asarray(body.pose(bare).joints, dtype=np.float64)


def facing(joints: np.ndarray) -> float:
    """Degrees round the vertical the body faces on average (0: ``+z``, positive toward
    ``+x``), from the line through the hips: the camera azimuth of a front view."""
    left = (joints[:, INDEX["left_hip"]] - joints[:, INDEX["right_hip"]]).mean(0)
    fwd = np.cross(left, [0.0, 1.0, 0.0])
    return math.degrees(math.atan2(float(fwd[0]), float(fwd[2])))


def carried(rig: MocapRig, name: str) -> dict[str, np.ndarray]:
    """Track ``name``'s states as the pixel audit reads a body part that is not a hand
    (:meth:`MocapMotion.pixel_states`): its first position moved as the belt moves."""
    t = next(tr for tr in rig.scene.tracks if tr.name == name)
    belt = rig.mark_px("belt")
    return {"x": t.x[0] + belt[:, 0] - belt[0, 0], "y": t.y[0] + belt[:, 1] - belt[0, 1]}


class GloveRead:
    """A pattern whose question reads hands only: the pixel audit reads them from the gloves
    (as every simulated human's), not the belt."""

    def pixel_states(
        self, frames: Sequence[np.ndarray], labels: Labels, idx: np.ndarray
    ) -> Labels | None:
        return None


class _Count(MocapMotion):
    """A count of the joint events :meth:`found` lists, filmed from the front of the body;
    the windows with none of them are not filmed."""

    task = "count"
    fact = "count"
    answers = (1, 2, 3, 4, 5, 6)
    words: ClassVar[tuple[str, str, str, str]] = ("", "", "", "")

    def found(self, joints: np.ndarray, fps: float) -> list[ev.Event]:
        """The events this pattern counts in posed joints (T, 24, 3)."""
        raise NotImplementedError

    def views(self, seq: PoseSequence) -> list[float]:
        joints = posed_joints(seq)
        return [round(facing(joints), 1)] if self.found(joints, seq.fps) else []

    def finish_label(self, scene: Scene, rig: Rig, names: list[str]) -> None:
        """Ask about ``names`` (a track and its line); refuse the window where the track's
        count, from every frame, is not the number of joint events (one of them unclear on
        screen, or something else raising the track)."""
        scene.meta["event_words"] = list(self.words)
        scene.meta["actor"] = rig.who
        scene.ask(names, kind="raise")
        seen, found = answer_of(scene.labels()), len(self.found(rig.joints, scene.fps))
        if seen != found:
            raise Unreadable("count differs from the joint events", f"{seen} on screen, {found}")


def floor_line(rig: Rig) -> None:
    """The invisible floor line below the pelvis's first position, its normal up."""
    p = rig.joints[0, INDEX["pelvis"]]
    gx, gy = rig.project(np.array([p[0], 0.0, p[2]]))
    rig.line("floor", gx, gy, -90.0, "the floor")


@register_motion
class MocapJumps(_Count):
    """A recorded person jumps N times: the feet (their joints' mean) above the floor."""

    name = "mocap_jumps"
    question = "How many times does {person} jump?"
    words = ("jumps", "jump", "jumps", "jump")

    def found(self, joints: np.ndarray, fps: float) -> list[ev.Event]:
        return ev.jumps(joints, fps)

    def label(self, scene: Scene, rig: MocapRig) -> None:
        feet = rig.joints[:, [INDEX[n] for n in FEET]].mean(1)
        rig.track("feet", feet, rig.part_noun("feet"), rig.look.body, FEET_RADIUS, shape="feet")
        floor_line(rig)
        self.finish_label(scene, rig, ["feet", "floor"])
        check_readable(scene, "feet", **carried(rig, "feet"))


@register_motion
class MocapJacks(GloveRead, _Count):
    """A recorded person does N jumping jacks: one hand (its glove, which the pixel audit
    reads itself) up from the floor, over the head once per jack. Their hops are a few
    centimetres: too small to count as jumps on screen, where the arms are not."""

    name = "mocap_jacks"
    question = "How many jumping jacks does {person} do?"
    words = ("jumping jacks", "jumping jack", "jumping jacks", "jumping jack")

    def found(self, joints: np.ndarray, fps: float) -> list[ev.Event]:
        return ev.jacks(joints, fps)

    def label(self, scene: Scene, rig: MocapRig) -> None:
        side = SIDES[0]  # not drawn: the answer is the window's alone (mocap.py)
        hand = rig.hand(side)
        rig.track("hand", hand, rig.hand_noun(side), rig.look.hands[side][1], HAND_RADIUS)
        floor_line(rig)
        self.finish_label(scene, rig, ["hand", "floor"])


@register_motion
class MocapSquats(_Count):
    """A recorded person squats N times: the head down from a line above its first place."""

    name = "mocap_squats"
    question = "How many squats does {person} do?"
    words = ("squats", "squat", "squats", "squat")

    def found(self, joints: np.ndarray, fps: float) -> list[ev.Event]:
        return ev.squats(joints, fps)

    def label(self, scene: Scene, rig: MocapRig) -> None:
        head = rig.joints[:, INDEX["head"]]
        rig.track("head", head, rig.part_noun("head"), rig.look.body, HEAD_RADIUS, shape="head")
        hx, hy = rig.project(head[0] + [0.0, HEAD_LINE, 0.0])
        rig.line("ceiling", hx, hy, 90.0, "a line above the head")
        self.finish_label(scene, rig, ["head", "ceiling"])
        check_readable(scene, "head", **carried(rig, "head"))


@register_motion
class MocapWaves(GloveRead, _Count):
    """A recorded person waves one raised hand N times (out and back, :func:`~tempogen.
    generators.mocap.events.waving`): the hand (its glove, which the pixel audit reads
    itself) away from a line beside its path on the body's side, facing out."""

    name = "mocap_waves"
    question = "How many times does {person} wave?"
    words = ("waves", "wave", "waves", "wave")

    def found(self, joints: np.ndarray, fps: float) -> list[ev.Event]:
        return ev.waving(joints, fps)

    def label(self, scene: Scene, rig: MocapRig) -> None:
        found = ev.waving(rig.joints, scene.fps)
        if not found:
            raise Unreadable("no clear wave")
        side = found[0].part
        hand = rig.hand(side)
        rig.track("hand", hand, rig.hand_noun(side), rig.look.hands[side][1], HAND_RADIUS)
        # the line stands on the body's side of the hand's path, facing out: the hand swung
        # out reads as raised, so each out-and-back is one run
        x = rig.project(hand)[:, 0]
        y0 = float(rig.project(hand[0])[1])
        mid = float(rig.project(rig.joints[0, INDEX["pelvis"]])[0])
        outward_left = float(np.mean(x)) < mid
        edge = (
            float(x.max()) + LINE_OFFSET * scene.width
            if outward_left
            else float(x.min()) - LINE_OFFSET * scene.width
        )
        rig.line("side", edge, y0, 180.0 if outward_left else 0.0, "a line beside the hand")
        self.finish_label(scene, rig, ["hand", "side"])
