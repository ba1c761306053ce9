"""Recorded motion as questions: the base of every mocap pattern.

A mocap pattern's clip is a window of a motion file (``generators/mocap``): the spec's
``source`` names the file, its sha256, the window and the camera's view; the body is posed by
the window's poses and path, with the seed's clothes and gloves on the mean body shape the
loaders retarget onto (another shape would slide the recorded feet). Nothing about the
motion is drawn at random, so the answer is a function of the window alone: the catalogue
(:mod:`tempogen.generators.mocap.catalogue`) records it once, the planner asks for it, and
:func:`~tempogen.generators.motion.make_scene` certifies it as it does every clip's.

The camera is fixed for the window and keeps the person readable: the whole path in view and
the person at least :data:`MIN_HEIGHT` of the frame's height in every frame, else the window
is refused (:class:`Unreadable`, counted by the catalogue). A window is refused as well where
the gloves, which the pixel audit reads, would give another answer than the body.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from tempogen.errors import GenerationError
from tempogen.facts import answer_of
from tempogen.generators.camera import Camera
from tempogen.generators.humans import SIDES, HumanMotion, Rig, fit_camera
from tempogen.generators.humans.look import RGB, draw_look
from tempogen.generators.mocap.belt import (
    belt_states,
    collar_states,
    mark_colors,
    mark_parts,
    paint_marks,
)
from tempogen.generators.mocap.source import Source, window
from tempogen.generators.poses import PoseSequence
from tempogen.generators.scene import SAMPLES, Scene
from tempogen.generators.skeleton import INDEX
from tempogen.labels import Labels
from tempogen.observe import uniform_indices

MIN_HEIGHT = 0.4  # share of the frame's height the person spans in every frame, at least
YFOV = 40.0  # degrees: the fixed camera's vertical field of view
FILL = 0.9  # share of the frame the framed points may span
HEAD_TOP = 0.14  # metres from the head joint up to the top of the head
PERSON_RADIUS = 0.25  # metres: a whole person's track about the pelvis
SAMPLINGS = (SAMPLES,)  # the samples the pixel audit reads: the gloves must agree there


class Unreadable(GenerationError):
    """A window this pattern cannot film or label soundly: skipped and counted, not built."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass
class MocapRig(Rig):
    """A rig posed by a recording, wearing marks (:mod:`tempogen.generators.mocap.belt`)."""

    marks: dict[str, RGB] = field(default_factory=dict)

    def vertex_colors(self) -> np.ndarray:
        return paint_marks(super().vertex_colors(), np.asarray(self.body.parts), self.marks)

    def mark_px(self, mark: str) -> np.ndarray:
        """A mark's centre on screen per frame: its vertices' mean, projected."""
        on = np.isin(np.asarray(self.body.parts), mark_parts(mark))
        return self.project(np.asarray(self.posed().vertices)[:, on].mean(axis=1))


class MocapMotion(HumanMotion):
    """Base of the patterns cut from recorded motion; subclasses set the question, the views
    worth trying on a window (:meth:`views`) and the tracks (:meth:`label`)."""

    needs_source = True
    note = "motion capture"
    elevation: ClassVar[float] = 15.0  # degrees the camera looks down

    def views(self, seq: PoseSequence) -> list[float]:
        """Camera azimuths (degrees round the vertical, 0 = in front of ``+z``) to try on a
        window: each may give another answer (a walk seen from its left or its right)."""
        return [0.0]

    def label(self, scene: Scene, rig: MocapRig) -> None:
        """Add the tracks and ask the question (the camera is chosen)."""
        raise NotImplementedError

    def pixel_states(
        self, frames: Sequence[np.ndarray], labels: Labels, idx: np.ndarray
    ) -> Labels | None:
        """A whole person's position is read from the belt, a body's turn from the collars."""
        if labels.query.kind == "spin":
            return collar_states(frames, labels, idx)
        return belt_states(frames, labels, idx)

    def animate(self, scene: Scene, answer: Any) -> None:
        if not scene.style.source:
            raise GenerationError(f"motion {self.name!r} is cut from a motion file: no source")
        src = Source.from_json(scene.style.source)
        seq, applied = window(src)
        if seq.num_frames != scene.n:
            raise GenerationError(
                f"motion {self.name!r}: window of {seq.num_frames} frames, clip of {scene.n}"
            )
        rig = pose_window(scene, self.name, seq)
        rig.camera = self.film(rig, src.view)
        rig.first_person = False
        self.label(scene, rig)
        scene.meta["mocap"] = src.provenance(applied)
        scene.meta["marks"] = {k: list(c) for k, c in rig.marks.items()}
        scene.meta["paints"] = [list(c) for c in rig.marks.values()]  # scenery keeps clear
        rig.finish()

    def film(self, rig: Rig, view: float) -> Camera:
        """The fixed camera at ``view`` degrees round, :attr:`elevation` down, framing every
        frame's body; refused where the person would span less than :data:`MIN_HEIGHT` of
        the frame's height in some frame (their longer side on screen: head to feet from the
        side, shoulders or arms from above)."""
        scene = rig.scene
        pts = rig.frame_points()
        cam = fit_camera(
            pts, scene.width, scene.height, yfov_deg=YFOV, elevation_deg=self.elevation,
            azimuth_deg=view, fill=FILL,
        )  # fmt: skip
        j = rig.fk()[0]
        body = np.concatenate([j, j[:, [INDEX["head"]]] + [0.0, HEAD_TOP, 0.0]], axis=1)
        px = cam.project(body.reshape(-1, 3)).reshape(len(j), -1, 2)
        extent = np.maximum(np.ptp(px[..., 0], axis=1), np.ptp(px[..., 1], axis=1))
        tall = extent / scene.height
        if tall.min() < MIN_HEIGHT:
            raise Unreadable("too small", f"{tall.min():.2f} of the frame's height")
        return cam


def pose_window(scene: Scene, motion: str, seq: PoseSequence) -> MocapRig:
    """A rig posed by a window: the seed's clothes and gloves on the mean body shape, and its
    marks (a belt, the collars) in colours far from the gloves and each other."""
    from tempogen.generators.humans.look import body_for

    body = body_for(scene.style.body)
    look = draw_look(scene.look_rng, int(body.num_betas))
    rig = MocapRig.start(scene, motion, replace(look, betas=np.zeros_like(look.betas)))
    assert isinstance(rig, MocapRig)
    rig.marks = mark_colors([c for _, c in look.hands.values()])
    rig.poses[:] = seq.poses
    rig.trans[:] = seq.trans + [0.0, rig.ground, 0.0]
    # posed as recorded: the joint limits guard procedural posing, and a recorded knee
    # straightened a few degrees past them is what the person did
    rig._frames = rig.body.pose(rig.sequence())
    return rig


def gloves_px(rig: Rig) -> dict[str, np.ndarray]:
    """Each glove's pixel position per frame (what the pixel audit reads of a person)."""
    return {s: rig.project(rig.hand(s)) for s in SIDES}


def check_readable(scene: Scene, name: str, **states: np.ndarray) -> None:
    """Refuse the window (:class:`Unreadable`) unless the labels with track ``name``'s states
    replaced by ``states`` (as read from the gloves) give the labels' own answer at the
    samples the pixel audit reads."""
    labels = scene.labels()
    tracks = tuple(t.with_states(**states) if t.name == name else t for t in labels.tracks)
    read = labels.with_tracks(tracks)
    n = labels.num_frames
    for idx in [uniform_indices(n, min(k, n)) for k in SAMPLINGS]:
        if _answer(labels, idx) != _answer(read, idx):
            raise Unreadable(
                "pixel read disagrees",
                f"at {len(idx)} frames: {_answer(labels, idx)} {_answer(read, idx)}",
            )


def _answer(labels: Labels, idx: np.ndarray) -> Any:
    return answer_of(labels, idx)
