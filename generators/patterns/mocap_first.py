"""Mocap: which hand of a recorded person starts moving first (task ``visual_cues``, fact
``order``, as :class:`~tempogen.generators.patterns.human.FirstHand` asks it).

A window is filmed only where the joint events (:func:`~tempogen.generators.mocap.events.
first_mover`) show a clear first hand: both hands still for the window's first half second,
the second starting at least half a second after the first (or never). A recorded body is
never perfectly still: its hands drift by millimetres, which the labels (exact to a
twentieth of a pixel) would read as both hands starting at once. So the body is shown still,
as it stood in the window's first frame, until each hand starts: the whole body but the
first hand's arm until the second hand starts, and that arm until its own start; each held
part eases into the recorded motion over :data:`EASE` seconds just before it starts. What is
held moved less than :data:`~tempogen.generators.mocap.events.MOVE_ON` before its start.

The answer comes from the projected gloves' tracks, certified as every clip's; the window is
refused where the pixel audit's glove reading (still within its jitter, then measured) would
give another answer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tempogen.facts import answer_of
from tempogen.generators.humans import HAND_RADIUS, SIDES, Rig
from tempogen.generators.kinematics import blend
from tempogen.generators.mocap import events as ev
from tempogen.generators.motion import register_motion
from tempogen.generators.patterns.mocap import SAMPLINGS, MocapMotion, MocapRig, Unreadable
from tempogen.generators.patterns.mocap_counts import GloveRead, facing, posed_joints
from tempogen.generators.poses import PoseSequence
from tempogen.generators.scene import Scene
from tempogen.generators.skeleton import INDEX, JOINTS
from tempogen.labels import Labels
from tempogen.observe import uniform_indices

EASE = 0.2  # seconds a held part takes to ease into its recorded motion, before its start
GLOVE_JITTER = 3.0  # px a still glove's centroid wanders in the pixel audit (pixels3d.py)
ARM = ("collar", "shoulder", "elbow", "wrist", "hand")
NAMES = {"left": "obj1", "right": "obj2"}  # obj1 is always the person's left hand


def arm_joints(side: str) -> list[int]:
    """The joints that move one hand and nothing else: collar to hand."""
    return [INDEX[f"{side}_{p}"] for p in ARM]


def ease(n: int, start: int | None, frames: int) -> np.ndarray:
    """Per frame, how far (0..1) a part held until ``start`` has eased into its recorded
    motion: 0 before ``start - frames``, 1 from ``start`` on (0 throughout for None)."""
    if start is None:
        return np.zeros(n)
    u = (np.arange(n) - (start - frames)) / max(frames, 1)
    return np.asarray(np.clip(u, 0.0, 1.0))


def settle(rig: Rig, first: str, onsets: dict[str, int | None]) -> None:
    """Hold the rig still as in its first frame until each hand starts (see the module's
    docstring), then pose the body model afresh."""
    n, frames = rig.n, max(1, int(round(EASE * rig.scene.fps)))
    second = next(s for s in SIDES if s != first)
    w_first = ease(n, onsets[f"{first}_wrist"], frames)
    w_rest = ease(n, onsets[f"{second}_wrist"], frames)
    mine = set(arm_joints(first))
    held = rig.poses[:1].copy()
    for i in range(len(JOINTS)):
        w = w_first if i in mine else w_rest
        rig.poses[:, i] = blend(held[:, i], rig.poses[:, i], w)
    rig.trans[:] = rig.trans[:1] + w_rest[:, None] * (rig.trans - rig.trans[:1])
    rig._frames = rig.body.pose(rig.sequence())  # as recorded: no joint limits (mocap.py)


def glove_read(labels: Labels) -> Labels:
    """The labels as the pixel audit reads the gloves of an order question: a glove stays at
    its first place until it is ``GLOVE_JITTER`` pixels from it, and onsets are measured."""
    tracks = []
    for t in labels.tracks:
        if t.name not in labels.query.objects:
            tracks.append(t)
            continue
        x, y = t.x.copy(), t.y.copy()
        still = np.hypot(x - x[0], y - y[0]) <= GLOVE_JITTER
        hold = still & (np.cumsum(~still) == 0)
        x[hold], y[hold] = x[0], y[0]
        tracks.append(t.with_states(x=x, y=y))
    return labels.with_tracks(tuple(tracks), meta={**labels.meta, "measured": True})


@register_motion
class MocapFirstHand(GloveRead, MocapMotion):
    """A recorded person starts moving one hand, the other later or not at all: which hand
    starts first. obj1 is the person's left hand, obj2 the right, each named by its glove."""

    name = "mocap_first_hand"
    task = "visual_cues"
    fact = "order"
    objects = ("obj1", "obj2")
    answers = ((("obj1",), ("obj2",)), (("obj2",), ("obj1",)))
    question = "Which hand of {person} starts moving first?"

    def views(self, seq: PoseSequence) -> list[float]:
        """From the front and from behind: the first hand shows on either side of the
        screen, so where it shows says nothing of the answer."""
        joints = posed_joints(seq)
        if not ev.first_mover(joints, seq.fps):
            return []
        front = facing(joints)
        return [round(front, 1), round(front + 180.0, 1)]

    def label(self, scene: Scene, rig: MocapRig) -> None:
        found = ev.first_mover(rig.joints, scene.fps)
        if found is None:
            raise Unreadable("no clear first hand")
        first = found.first.split("_")[0]
        settle(rig, first, found.onsets)
        for side in SIDES:
            rig.track(
                NAMES[side], rig.hand(side), rig.hand_noun(side), rig.look.hands[side][1],
                HAND_RADIUS,
            )  # fmt: skip
        scene.meta["actor"] = "the person"
        scene.ask(list(self.objects), kind="move")
        labels = scene.labels()
        read = glove_read(labels)
        n = labels.num_frames
        for idx in [np.arange(n)] + [uniform_indices(n, min(k, n)) for k in SAMPLINGS]:
            mine: Any = answer_of(labels, idx)
            seen: Any = answer_of(read, idx)
            if mine != seen:
                raise Unreadable("gloves disagree", f"at {len(idx)} frames: {mine} {seen}")
