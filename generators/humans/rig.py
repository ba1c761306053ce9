"""The rig: one simulated person being posed for a clip, and the base class of human motions.

A human motion (``generators/patterns/human.py``) builds a pose sequence on a :class:`Rig`:
it picks a camera, moves limbs with inverse kinematics toward targets it designs in 3D, and
adds tracks. The rig's roles live in their own modules (:mod:`.posing`, :mod:`.camera`,
:mod:`.tracks`, :mod:`.nouns`); this one holds its state, how a person (or a pair, or a
companion in the background) starts, and how a finished clip is handed to the renderer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tempogen.generators.camera import Camera
from tempogen.generators.humans.look import (
    SIDES,
    HumanLook,
    body_for,
    draw_look,
    draw_looks,
    glove_centres,
    look_colors,
)
from tempogen.generators.humans.nouns import Naming
from tempogen.generators.humans.posing import ARM_DOWN_DEGREES, arm_down
from tempogen.generators.humans.tracks import Tracking
from tempogen.generators.humans.world import Prop, finish_people
from tempogen.generators.kinematics import LIMBS, axis_angle, blend
from tempogen.generators.motion import Motion, Scene
from tempogen.generators.poses import PoseSequence
from tempogen.generators.skeleton import INDEX, NUM_JOINTS

REST_ELBOW_BEND = 12.0  # degrees a standing person's elbows bend
COMPANION_P = 0.8  # share of whole-body motions with a second person in the scene
# Where a companion stands (metres to one side, and behind) and how they move, drawn per seed.
COMPANION_SIDEWAYS = (0.95, 1.3)
COMPANION_BEHIND = (0.8, 1.2)
COMPANION_SWING_PERIOD = (1.4, 2.6)  # seconds per arm swing
COMPANION_SWING_LIFT = (20.0, 45.0)  # degrees an arm rises at the top of its swing
COMPANION_SWAY_DEGREES = (8.0, 18.0)  # pelvis yaw amplitude
COMPANION_SWAY_PERIOD = (2.0, 3.5)  # seconds
PAIR_SPACING = (1.2, 1.45)  # metres between two people standing side by side
PAIR_DEPTH_JITTER = 0.1  # metres either person may stand ahead of or behind the line


@dataclass
class Rig(Tracking, Naming):
    """A person being posed for one clip: body model, look, per-frame poses and camera.

    Poses start standing with the arms down; a motion changes ``poses`` / ``trans``
    directly or through :meth:`arm_to` and :meth:`leg_to`, chooses a camera, then adds
    tracks with :meth:`track` (which poses the body model) and calls :meth:`finish`.
    """

    scene: Scene
    motion: str
    body: Any
    look: HumanLook
    rest: np.ndarray
    poses: np.ndarray
    trans: np.ndarray
    ground: float = 0.0  # root height that puts the rest pose's soles on y = 0
    gloves: dict[str, np.ndarray] = field(default_factory=dict)  # rest centre of each hand
    camera: Camera | None = None
    first_person: bool = False
    _frames: Any = None
    joints3d: dict[str, list[list[float]]] = field(default_factory=dict)
    origin: np.ndarray = field(default_factory=lambda: np.zeros(3))  # where the person stands
    companion: Rig | None = None  # a second person in the scene, behind and to one side
    owned: list[str] = field(default_factory=list)  # names of the tracks this person carries
    props: list[Prop] = field(default_factory=list)  # rigid things it handles, drawn with it

    @classmethod
    def start(
        cls,
        scene: Scene,
        motion: str,
        look: HumanLook | None = None,
        origin: Sequence[float] = (0.0, 0.0, 0.0),
    ) -> Rig:
        """A standing person at ``origin`` (on the floor, facing ``+z``) with ``look``, or a
        fresh look drawn from the scene's generator."""
        body = body_for(scene.style.body)
        look = draw_look(scene.look_rng, int(body.num_betas)) if look is None else look
        rest = np.asarray(body.rest_joints(look.betas), dtype=np.float64)
        one = body.pose(
            PoseSequence(np.zeros((1, NUM_JOINTS, 3)), np.zeros((1, 3)), scene.fps, look.betas)
        )
        ground = -float(np.min(one.vertices[0][:, 1]))  # soles on y = 0 whatever the shape
        at = np.asarray(origin, dtype=np.float64)
        trans = np.tile(at + [0.0, ground, 0.0], (scene.n, 1))
        rig = cls(scene, motion, body, look, rest, np.zeros((scene.n, NUM_JOINTS, 3)), trans)
        rig.gloves = glove_centres(body, one.vertices[0])
        rig.ground = ground
        rig.origin = at
        for side in SIDES:
            rig.poses[:, INDEX[f"{side}_shoulder"]] = arm_down(side)
            rig.poses[:, INDEX[f"{side}_elbow"]] = axis_angle(
                LIMBS[f"{side}_arm"].hinge, REST_ELBOW_BEND
            )
        return rig

    def finish(self) -> None:
        """Hand the posed body (and a companion) to the renderer; record the 3D truth in meta."""
        finish_people([self] if self.companion is None else [self, self.companion])
        self.scene.meta["person"] = self.who

    def maybe_companion(self, p: float = COMPANION_P) -> Rig | None:
        """With probability ``p``, a second person (another look, shape and height) standing
        behind and to one side, swaying and swinging their arms at their own pace: what a
        question must tell apart from the subject, who is then named by their clothes
        (:attr:`who`). Call before choosing the camera, which then frames both."""
        scene = self.scene
        # a noise clip shows one silhouette: a second one would be unnamed (no clothes show)
        if scene.look_rng.random() >= p or scene.style.encoding:
            return None
        (look,) = draw_looks(scene.look_rng, int(self.body.num_betas), 1, given=[self.look])
        side = float(scene.look_rng.choice([-1.0, 1.0]))
        at = (
            side * scene.look_rng.uniform(*COMPANION_SIDEWAYS),
            0.0,
            -scene.look_rng.uniform(*COMPANION_BEHIND),
        )
        other = Rig.start(scene, self.motion, look, at)
        t = scene.frames / scene.fps
        for s in SIDES:
            period = scene.look_rng.uniform(*COMPANION_SWING_PERIOD)
            swing = 0.5 - 0.5 * np.cos(
                2 * np.pi * t / period + scene.look_rng.uniform(0, 2 * np.pi)
            )
            lift = float(scene.look_rng.uniform(*COMPANION_SWING_LIFT))
            raised = arm_down(s, ARM_DOWN_DEGREES - lift)
            other.poses[:, INDEX[f"{s}_shoulder"]] = blend(arm_down(s), raised, swing)
        yaw = scene.look_rng.uniform(*COMPANION_SWAY_DEGREES) * np.sin(
            2 * np.pi * t / scene.look_rng.uniform(*COMPANION_SWAY_PERIOD)
        )
        other.poses[:, INDEX["pelvis"]] = axis_angle((0.0, 1.0, 0.0), yaw)
        self.companion = other
        return other

    def vertex_colors(self) -> np.ndarray:
        """Per-vertex sRGB of this person (see :func:`look_colors`)."""
        return look_colors(self.body, self.look)


def start_pair(scene: Scene, motion: str) -> dict[str, Rig]:
    """Two people side by side facing the camera, keyed by where the viewer sees them
    (``left``, ``right``), with different looks, shapes and heights (:func:`draw_looks`)."""
    body = body_for(scene.style.body)
    looks = draw_looks(scene.look_rng, int(body.num_betas), 2)
    half = 0.5 * float(scene.look_rng.uniform(*PAIR_SPACING))
    # the camera looks toward -z, so the viewer's right is the world's +x
    return {
        side: Rig.start(
            scene,
            motion,
            look,
            (
                sign * half,
                0.0,
                float(scene.look_rng.uniform(-PAIR_DEPTH_JITTER, PAIR_DEPTH_JITTER)),
            ),
        )
        for side, sign, look in (("left", -1.0, looks[0]), ("right", 1.0, looks[1]))
    }


class HumanMotion(Motion):
    """Base of the simulated-human motions: rendered in 3D, noted as simulated humans."""

    renderer = "human"
    note = "simulated human"
