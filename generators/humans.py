"""Simulated humans: a per-seed look, cameras, posing with IK, labels from the posed joints.

A human motion (``generators/patterns/human.py``) builds a pose sequence on a :class:`Rig`:
it picks a camera, moves limbs with inverse kinematics toward targets it designs in 3D, and
adds tracks. Every track is the projection, through the one :class:`Camera` the renderer
also uses, of joints that the *body model* posed (``BodyModel.pose``), so labels, pixels and
the 3D joints kept in ``labels.meta["joints3d"]`` all describe the same body.

World axes follow SMPL: metres, ``y`` up, the person stands at the origin facing ``+z`` with
the soles on ``y = 0``. The third-person camera stands in front (looking toward ``-z``), so
the person's right hand shows on the image's left; "left", "right" and "clockwise" in
questions are the viewer's. Each person gets a muted body colour and two bright, distinct
hand colours (gloves), so a colour read of the pixels finds each hand.
"""

from __future__ import annotations

import colorsys
import functools
import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tempogen.generators.camera import Camera, look_at
from tempogen.generators.decor3d import Decor
from tempogen.generators.kinematics import (
    LIMBS,
    PoseError,
    axis_angle,
    blend,
    flexion,
    forward_kinematics,
    limb_reach,
    set_global,
    solve_limb,
)
from tempogen.generators.motion import GenerationError, Motion, Scene
from tempogen.generators.poses import PoseSequence, rotvec_to_matrix
from tempogen.generators.skeleton import INDEX, JOINTS, NUM_JOINTS
from tempogen.labels import Track

RGB = tuple[int, int, int]
SIDES = ("left", "right")
SIDE_SIGN = {"left": 1.0, "right": -1.0}  # the person's left is +x in SMPL

# Bright glove colours (saturation >= 0.8) and muted clothes (saturation <= 0.3): a hue
# read of the pixels tells each hand from the body, the floor and the (grey-ish) sky.
HAND_COLORS: dict[str, RGB] = {
    "magenta": (232, 40, 200),
    "yellow": (245, 212, 30),
    "cyan": (20, 200, 235),
    "green": (45, 205, 70),
    "orange": (250, 125, 25),
    "red": (232, 32, 48),
}
BODY_COLORS: dict[str, RGB] = {
    "slate": (96, 110, 136),
    "beige": (196, 178, 150),
    "olive": (124, 128, 100),
    "charcoal": (72, 74, 82),
    "stone": (170, 168, 160),
    "taupe": (140, 122, 110),
    "sage": (140, 156, 140),
}
MIN_HAND_HUE_GAP = 60.0  # degrees of hue between the two gloves
MIN_SCENE_HUE_GAP = 40.0  # degrees between a glove and any other bright colour in the scene
HAND_RADIUS = 0.07  # metres: a hand's extent around its centre, for track sizes
FIRST_PERSON_P = 0.3  # share of hand motions filmed from the person's own eyes
COMPANION_P = 0.8  # share of whole-body motions with a second person in the scene
# joints a from-the-hips-up shot keeps in view (the arms come in through the hands)
UPPER_BODY = [
    i
    for i, name in enumerate(JOINTS)
    if i <= INDEX["right_shoulder"] and not name.endswith(("knee", "ankle", "foot"))
]


def hue(rgb: RGB) -> float:
    """Hue of an sRGB colour in degrees."""
    return 360.0 * colorsys.rgb_to_hsv(*(c / 255.0 for c in rgb))[0]


def hue_gap(a: RGB, b: RGB) -> float:
    """Degrees between two colours' hues (0..180)."""
    d = abs(hue(a) - hue(b)) % 360.0
    return min(d, 360.0 - d)


@dataclass(frozen=True)
class HumanLook:
    """One person's look: clothes colour, glove colour per side, body shape (betas)."""

    body: RGB
    hands: dict[str, tuple[str, RGB]]  # side -> (colour name, sRGB)
    betas: np.ndarray

    def to_json(self) -> dict[str, Any]:
        """The look as JSON (for ``labels.meta["look"]``)."""
        return {
            "body": list(self.body),
            "hands": {s: [n, list(c)] for s, (n, c) in self.hands.items()},
            "betas": [round(float(b), 3) for b in self.betas],
        }


def draw_look(
    rng: np.random.Generator,
    num_betas: int,
    avoid: Sequence[RGB] = (),
    bodies: Sequence[str] = tuple(BODY_COLORS),
) -> HumanLook:
    """A random look: muted clothes (one of ``bodies``), two bright gloves far apart in hue
    (and :data:`MIN_SCENE_HUE_GAP` from every colour in ``avoid``: other people's gloves, a
    held prop), betas in +-2 sd on the first two shape components (height, girth) and +-1 on
    the rest."""
    body = BODY_COLORS[str(rng.choice(list(bodies)))]
    names = [
        str(n)
        for n in rng.permutation(list(HAND_COLORS))
        if all(hue_gap(HAND_COLORS[str(n)], a) >= MIN_SCENE_HUE_GAP for a in avoid)
    ]
    pairs = [
        (a, b)
        for i, a in enumerate(names)
        for b in names[i + 1 :]
        if hue_gap(HAND_COLORS[a], HAND_COLORS[b]) >= MIN_HAND_HUE_GAP
    ]
    if not pairs:
        raise GenerationError("draw_look: no two glove colours clear of the scene's colours")
    left, right = pairs[0]
    betas = np.zeros(num_betas)
    k = min(2, num_betas)
    betas[:k] = np.clip(rng.normal(0.0, 0.8, k), -2.0, 2.0)
    betas[k:] = np.clip(rng.normal(0.0, 0.4, num_betas - k), -1.0, 1.0)
    return HumanLook(
        body, {"left": (left, HAND_COLORS[left]), "right": (right, HAND_COLORS[right])}, betas
    )


MIN_HEIGHT_BETA_GAP = 0.8  # first shape component (height, ~8.6 cm per unit) between two people


def draw_looks(
    rng: np.random.Generator, num_betas: int, k: int, given: Sequence[HumanLook] = ()
) -> list[HumanLook]:
    """Looks for ``k`` more people in a scene that has ``given`` ones: different clothes, every
    glove far in hue from every other (so each hand is found by its colour alone), and
    heights (first beta) at least :data:`MIN_HEIGHT_BETA_GAP` apart."""
    looks: list[HumanLook] = list(given)
    for _ in range(k):
        used = {lk.body for lk in looks}
        bodies = [n for n, c in BODY_COLORS.items() if c not in used]
        avoid = [c for lk in looks for _, c in lk.hands.values()]
        look = draw_look(rng, num_betas, avoid, bodies)
        b0 = float(look.betas[0])
        for other in looks:
            o = float(other.betas[0])
            if abs(b0 - o) < MIN_HEIGHT_BETA_GAP:
                b0 = o + MIN_HEIGHT_BETA_GAP if o < 0 else o - MIN_HEIGHT_BETA_GAP
        betas = look.betas.copy()
        betas[0] = b0
        looks.append(HumanLook(look.body, look.hands, betas))
    return looks[len(given) :]


def body_color_name(rgb: Sequence[int]) -> str:
    """The name of a clothes colour (as :data:`BODY_COLORS` lists it)."""
    return next(n for n, c in BODY_COLORS.items() if tuple(c) == tuple(rgb))


@functools.lru_cache(maxsize=4)
def body_for(path: str = "") -> Any:
    """The body model a style names ("" = the embedded mannequin), loaded once per process."""
    from tempogen.generators.body import load_body

    return load_body(path or None)


# cameras --------------------------------------------------------------------------------


def fit_camera(
    points: np.ndarray,
    width: int,
    height: int,
    *,
    yfov_deg: float,
    elevation_deg: float,
    azimuth_deg: float,
    fill: float,
) -> Camera:
    """A camera looking at the centre of ``points`` from the given direction (degrees above
    the horizon, and round from the front, positive toward the person's left), as close as
    keeps every point inside the central ``fill`` share of the frame."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    target = 0.5 * (pts.min(0) + pts.max(0))
    el, az = math.radians(elevation_deg), math.radians(azimuth_deg)
    direction = np.array([math.sin(az) * math.cos(el), math.sin(el), math.cos(az) * math.cos(el)])
    yfov = math.radians(yfov_deg)

    def camera(d: float) -> Camera:
        return Camera(width, height, yfov, look_at(target + d * direction, target))

    def fits(d: float) -> bool:
        cam = camera(d)
        if np.any(cam.depth(pts) < 0.2):
            return False
        uv = cam.project(pts)
        return bool(
            np.all(np.abs(uv[:, 0] - width / 2) <= fill * width / 2)
            and np.all(np.abs(uv[:, 1] - height / 2) <= fill * height / 2)
        )

    lo, hi = 0.3, 60.0
    if not fits(hi):
        raise GenerationError("camera: the body does not fit the frame from any distance")
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if fits(mid) else (mid, hi)
    return camera(hi)


def camera_json(cam: Camera) -> dict[str, Any]:
    """The camera as JSON (vertical field of view in degrees, 4x4 camera-to-world pose)."""
    return {
        "yfov_deg": round(math.degrees(cam.yfov), 4),
        "pose": [[round(float(v), 5) for v in row] for row in cam.pose],
    }


# the rig --------------------------------------------------------------------------------


@dataclass
class Rig:
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
            rig.poses[:, INDEX[f"{side}_elbow"]] = axis_angle(LIMBS[f"{side}_arm"].hinge, 12.0)
        return rig

    @property
    def n(self) -> int:
        """Frames in the clip."""
        return self.scene.n

    # geometry of the current poses ----------------------------------------------------
    def fk(self) -> tuple[np.ndarray, np.ndarray]:
        """Joints (T, 24, 3) and world rotations of the poses as they stand now."""
        return forward_kinematics(self.poses, self.rest, self.trans)

    def joint(self, name: str) -> np.ndarray:
        """One joint's world positions (T, 3) under the current poses (numpy kinematics)."""
        return self.fk()[0][:, INDEX[name]]

    def rest_point(self, name: str) -> np.ndarray:
        """A joint's position standing at the origin in the rest pose (soles on the floor)."""
        return self.rest[INDEX[name]] + [0.0, self.ground, 0.0] + self.origin

    # limbs -----------------------------------------------------------------------------
    def reachable(self, side: str, targets: np.ndarray, margin: float = 0.05) -> bool:
        """Whether a hand can reach every target with ``margin`` metres to spare."""
        lo, hi = limb_reach(LIMBS[f"{side}_arm"], self.rest, self.hand_rest(side))
        d = np.linalg.norm(np.asarray(targets) - self.joint(f"{side}_shoulder"), axis=-1)
        return bool(np.all(d <= hi - margin) and np.all(d >= lo + margin))

    def hand_rest(self, side: str) -> np.ndarray:
        """A hand's centre in the rest pose: the centroid of its glove's vertices."""
        return self.gloves[side]

    def _palm_twist(self, side: str, toward: np.ndarray) -> np.ndarray:
        """Per-frame twist (radians, within +-90 degrees, as a forearm turns) of the hand
        about its own axis that turns its flat side to face ``toward`` ((3,) or (T, 3))."""
        wrist, hand = INDEX[f"{side}_wrist"], INDEX[f"{side}_hand"]
        g = self.fk()[1][:, INDEX[f"{side}_elbow"]]
        axis = self.rest[hand] - self.rest[wrist]
        axis = axis / np.linalg.norm(axis)
        a = g @ axis
        n0 = g @ np.array([0.0, -1.0, 0.0])  # SMPL's T-pose palms face down
        c = np.broadcast_to(np.asarray(toward, dtype=np.float64), a.shape)
        psi = np.arctan2(np.sum(np.cross(a, n0) * c, axis=1), np.sum(n0 * c, axis=1))
        return (psi + np.pi / 2) % np.pi - np.pi / 2  # either flat side will do

    def arm_to(
        self,
        side: str,
        targets: np.ndarray,
        pole: np.ndarray | None = None,
        palm_toward: np.ndarray | None = None,
    ) -> None:
        """Move a hand's centre onto ``targets`` (T, 3): a small shrug of the collar as the
        hand rises above the shoulder, then two-bone IK on shoulder and elbow. ``pole`` is
        where the elbow points (default out, down and back); ``palm_toward`` ((3,) or (T, 3)
        world directions) twists the hand so its flat side faces that way, else it stays in
        line with the forearm. The twist moves the hand's centre (it is off the hand's axis),
        so IK and twist are solved together, the centre landing on the target exactly."""
        sign = SIDE_SIGN[side]
        wrist, hand, collar = (INDEX[f"{side}_{j}"] for j in ("wrist", "hand", "collar"))
        tgt = np.asarray(targets, dtype=np.float64)
        rise = np.clip((tgt[:, 1] - self.joint(f"{side}_shoulder")[:, 1]) / 0.35, 0.0, 1.0)
        self.poses[:, collar] = axis_angle((0.0, 0.0, 1.0), sign * 12.0 * rise)
        if pole is None:
            pole = np.array([0.6 * sign, -1.0, -0.5])
        axis = self.rest[hand] - self.rest[wrist]
        axis = axis / np.linalg.norm(axis)
        offset = self.hand_rest(side) - self.rest[wrist]
        psi = np.zeros(self.n)
        rounds = 1 if palm_toward is None else 4
        for k in range(rounds):
            twisted = axis_angle(axis, np.degrees(psi))  # (T, 3)
            effector = self.rest[wrist] + _rotate(twisted, offset)
            self.poses[:, wrist] = 0.0
            self.poses = solve_limb(
                self.poses, self.rest, f"{side}_arm", tgt, pole,
                trans=self.trans, effector=effector, what=f"motion {self.motion!r}",
            )  # fmt: skip
            if k < rounds - 1:
                psi = self._palm_twist(side, palm_toward)
        self.poses[:, wrist] = axis_angle(axis, np.degrees(psi))

    def leg_to(self, side: str, ankles: np.ndarray, pole: np.ndarray | None = None) -> None:
        """Put an ankle on ``ankles`` (T, 3) with the knee toward ``pole`` (default: ahead)
        and keep the foot flat, pointing where the pelvis points."""
        pole = np.array([0.1 * SIDE_SIGN[side], 0.0, 1.0]) if pole is None else pole
        self.poses = solve_limb(
            self.poses, self.rest, f"{side}_leg", ankles, pole,
            trans=self.trans, what=f"motion {self.motion!r}",
        )  # fmt: skip
        _, rot = self.fk()
        self.poses = set_global(
            self.poses, self.rest, INDEX[f"{side}_ankle"], rot[:, 0], self.trans
        )

    def check_limits(self) -> None:
        """Raise :class:`PoseError` where an elbow or knee bends backwards or folds too far."""
        for name, limb in LIMBS.items():
            f = flexion(self.poses, limb)
            bad = np.flatnonzero((f < -1e-6) | (f > limb.max_flex + 1e-6))
            if len(bad):
                raise PoseError(
                    f"motion {self.motion!r}: frame {int(bad[0])}: {name} flexes "
                    f"{f[bad[0]]:.1f} degrees, outside 0..{limb.max_flex:.0f}"
                )

    # cameras ---------------------------------------------------------------------------
    def frame_points(self, extra: Sequence[np.ndarray] = (), upper: bool = False) -> np.ndarray:
        """Points a third-person camera must keep in view: every posed joint (``upper``:
        from the hips up), the head's top and the soles, plus ``extra`` (e.g. the corners
        of a hand's workspace)."""
        j = self.fk()[0]
        head = j[:, INDEX["head"]] + [0.0, 0.14, 0.0]
        hands = j[:, [INDEX["left_hand"], INDEX["right_hand"]]].reshape(-1, 3)
        pts = [head, hands + [0.0, 0.0, 0.05]]
        if upper:
            pts.append(j[:, UPPER_BODY].reshape(-1, 3))
        else:
            feet = j[:, [INDEX["left_foot"], INDEX["right_foot"]]].reshape(-1, 3) * [1, 0, 1]
            pts += [j.reshape(-1, 3), feet]
        pts += [np.asarray(e, dtype=np.float64).reshape(-1, 3) for e in extra]
        if self.companion is not None:
            pts.append(self.companion.frame_points(upper=upper))
        return np.concatenate(pts)

    def hand_camera(
        self, centre: np.ndarray, half: float, first_person_p: float = FIRST_PERSON_P
    ) -> Camera:
        """The camera for a hand motion about ``centre`` (within ``half`` metres): first
        person with probability ``first_person_p``, else third person from the hips up."""
        if self.maybe_first_person(first_person_p, centre):
            return self.camera
        box = np.array([[x, y, 0.0] for x in (-half, half) for y in (-half, half)])
        return self.third_person(self.frame_points([np.asarray(centre) + box], upper=True))

    def third_person(
        self,
        points: np.ndarray,
        elevation: tuple[float, float] = (6.0, 16.0),
        azimuth: tuple[float, float] = (-12.0, 12.0),
        fill: tuple[float, float] = (0.72, 0.84),
    ) -> Camera:
        """The default camera: in front, a little above, the person facing it, framing
        ``points`` (see :meth:`frame_points`); angles in degrees, drawn per seed."""
        rng = self.scene.look_rng
        self.camera = fit_camera(
            points, self.scene.width, self.scene.height,
            yfov_deg=float(rng.uniform(36.0, 48.0)), elevation_deg=float(rng.uniform(*elevation)),
            azimuth_deg=float(rng.uniform(*azimuth)), fill=float(rng.uniform(*fill)),
        )  # fmt: skip
        self.first_person = False
        return self.camera

    def first_person_camera(self, target: np.ndarray | None = None) -> Camera:
        """The person's own view: from the forehead, looking down at ``target`` (default:
        the space before the chest), as a head-mounted camera films the hands."""
        rng = self.scene.look_rng
        head = self.rest_point("head")
        eye = head + [0.0, 0.07, 0.16]  # just before the face
        if target is None:
            target = np.array([0.0, head[1] - 0.6, head[2] + 0.5])
        aim = np.asarray(target, dtype=np.float64) + rng.uniform(-0.03, 0.03, 3)
        yfov = math.radians(rng.uniform(68.0, 78.0))
        self.camera = Camera(self.scene.width, self.scene.height, yfov, look_at(eye, aim))
        self.first_person = True
        self.scene.meta["variation"] = {"first_person": 1}
        return self.camera

    def maybe_first_person(
        self, p: float = FIRST_PERSON_P, target: np.ndarray | None = None
    ) -> bool:
        """Switch to the first-person camera with probability ``p``; whether it did."""
        if self.scene.look_rng.random() < p:
            self.first_person_camera(target)
            return True
        return False

    def screen_axes(self) -> tuple[np.ndarray, np.ndarray]:
        """World directions of the image's right and down: a path drawn in the plane they
        span faces the camera, so its projection keeps its shape exactly."""
        if self.camera is None:
            raise GenerationError(f"motion {self.motion!r}: choose a camera first")
        return self.camera.pose[:3, 0].copy(), -self.camera.pose[:3, 1].copy()

    def on_screen_plane(self, centre: np.ndarray, uv: np.ndarray) -> np.ndarray:
        """3D points (T, 3) at ``centre`` + ``uv`` (T, 2) metres along the image's right and
        down directions."""
        right, down = self.screen_axes()
        uv = np.asarray(uv, dtype=np.float64)
        return np.asarray(centre, dtype=np.float64) + uv[:, :1] * right + uv[:, 1:2] * down

    # labels ----------------------------------------------------------------------------
    def posed(self) -> Any:
        """The body model's frames (vertices, joints) for the current poses; computed once,
        after which the poses are final."""
        if self._frames is None:
            self.check_limits()
            self._frames = self.body.pose(self.sequence())
        return self._frames

    def sequence(self) -> PoseSequence:
        """The poses as a :class:`PoseSequence` (with the look's betas)."""
        return PoseSequence(self.poses, self.trans, self.scene.fps, self.look.betas, self.motion)

    @property
    def joints(self) -> np.ndarray:
        """Posed joints (T, 24, 3) from the body model."""
        return np.asarray(self.posed().joints, dtype=np.float64)

    def hand(self, side: str) -> np.ndarray:
        """World centre (T, 3) of a hand: the glove's rest centroid carried by the posed
        wrist (its position from the body model, its orientation from the same poses)."""
        wrist = INDEX[f"{side}_wrist"]
        g = self.fk()[1][:, wrist]
        return self.joints[:, wrist] + g @ (self.hand_rest(side) - self.rest[wrist])

    def project(self, points: np.ndarray) -> np.ndarray:
        """Pixel positions (..., 2) of world points through the clip's camera."""
        if self.camera is None:
            raise GenerationError(f"motion {self.motion!r}: choose a camera first")
        return self.camera.project(points)

    def track(
        self,
        name: str,
        points: np.ndarray,
        noun: str,
        color: RGB,
        radius: float,
        *,
        role: str = "subject",
        shape: str = "hand",
        angle: Any = 0.0,
        lit: Any = False,
    ) -> Track:
        """A track at the projection of ``points`` (T, 3): size = ``radius`` metres in
        pixels at frame 0, scale following the distance to the camera, lit on ``lit``
        frames; the 3D points go into ``meta["joints3d"]`` (millimetres)."""
        pts = np.asarray(points, dtype=np.float64)
        uv = self.project(pts)
        ppm = np.array([self.camera.pixels_per_metre(p) for p in pts])
        tr = Track.build(
            name, self.n, x=uv[:, 0], y=uv[:, 1], role=role, shape=shape, color=color,
            size=radius * ppm[0], scale=ppm / ppm[0], angle=angle, lit=lit,
        )  # fmt: skip
        self.scene.tracks.append(tr)
        self.scene.nouns[name] = noun
        if role == "subject":
            self.joints3d[name] = np.round(pts, 3).tolist()
        self.owned.append(name)
        return tr

    def line(
        self, name: str, x: float, y: float, angle: float, noun: str, shape: str = "floor"
    ) -> Track:
        """An invisible anchor line through pixel (x, y) with its normal at ``angle`` image
        degrees (-90 up, 90 down, 0 right): what a "raise" event is measured from (or, with
        ``shape="anchor"``, a point such as the centre a hand circles)."""
        tr = Track.build(
            name, self.n, x=x, y=y, role="anchor", shape=shape, color=(60, 60, 60),
            size=0.0, angle=angle,
        )  # fmt: skip
        self.scene.tracks.append(tr)
        self.scene.nouns[name] = noun
        return tr

    def hand_noun(self, side: str) -> str:
        """How a question names a hand: by its glove's colour (sides are ambiguous)."""
        return self.part_noun(f"{self.look.hands[side][0]} hand")

    def finish(self) -> None:
        """Hand the posed body (and a companion) to the renderer; record the 3D truth in meta."""
        finish_people([self] if self.companion is None else [self, self.companion])
        self.scene.meta["person"] = self.who

    # a second person ---------------------------------------------------------------------
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
        at = (side * scene.look_rng.uniform(0.95, 1.3), 0.0, -scene.look_rng.uniform(0.8, 1.2))
        other = Rig.start(scene, self.motion, look, at)
        t = scene.frames / scene.fps
        for s in SIDES:
            period = scene.look_rng.uniform(1.4, 2.6)
            swing = 0.5 - 0.5 * np.cos(
                2 * np.pi * t / period + scene.look_rng.uniform(0, 2 * np.pi)
            )
            raised = arm_down(s, 72.0 - float(scene.look_rng.uniform(20.0, 45.0)))
            other.poses[:, INDEX[f"{s}_shoulder"]] = blend(arm_down(s), raised, swing)
        yaw = scene.look_rng.uniform(8.0, 18.0) * np.sin(
            2 * np.pi * t / scene.look_rng.uniform(2.0, 3.5)
        )
        other.poses[:, INDEX["pelvis"]] = axis_angle((0.0, 1.0, 0.0), yaw)
        self.companion = other
        return other

    @property
    def who(self) -> str:
        """How a question names this person: "the person", or by clothes beside a companion."""
        if self.companion is None:
            return "the person"
        return f"the person in {body_color_name(self.look.body)}"

    def part_noun(self, part: str) -> str:
        """How a question names a body part: "the person's feet", "the feet of the person in
        blue" beside a companion."""
        if self.companion is None:
            return f"the person's {part}"
        return f"the {part} of {self.who}"

    def vertex_colors(self) -> np.ndarray:
        """Per-vertex sRGB of this person (see :func:`look_colors`)."""
        return look_colors(self.body, self.look)


def look_colors(body: Any, look: HumanLook) -> np.ndarray:
    """Per-vertex sRGB: clothes everywhere, each hand (wrist and hand parts) its glove."""
    parts = np.asarray(body.parts)
    colors = np.tile(np.asarray(look.body, dtype=np.uint8), (len(parts), 1))
    for side in SIDES:
        on = np.isin(parts, [INDEX[f"{side}_wrist"], INDEX[f"{side}_hand"]])
        colors[on] = look.hands[side][1]
    return colors


def glove_centres(body: Any, vertices: np.ndarray) -> dict[str, np.ndarray]:
    """Rest centre of each hand's glove (its wrist and hand parts) per side: the centroid of
    its surface, area-weighted so a finely meshed thumb does not pull it aside."""
    parts = np.asarray(body.parts)
    faces = np.asarray(body.faces)
    v = np.asarray(vertices, dtype=np.float64)
    out = {}
    for side in SIDES:
        glove = np.isin(parts, [INDEX[f"{side}_wrist"], INDEX[f"{side}_hand"]])
        tri = v[faces[glove[faces].all(axis=1)]]
        if not len(tri):
            raise GenerationError(f"body model {body!r}: no faces on the {side} hand")
        area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
        out[side] = (tri.mean(axis=1) * area[:, None]).sum(0) / area.sum()
    return out


def _rotate(rotvecs: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``v`` (3,) turned by each axis-angle vector (T, 3): (T, 3)."""
    return rotvec_to_matrix(rotvecs) @ v


def arm_down(side: str, degrees: float = 72.0) -> np.ndarray:
    """Shoulder rotation lowering a T-pose arm ``degrees`` toward the side of the body."""
    return axis_angle((0.0, 0.0, 1.0), -SIDE_SIGN[side] * degrees)


def arm_forward(side: str) -> np.ndarray:
    """Shoulder rotation pointing a T-pose arm straight ahead."""
    return axis_angle((0.0, 1.0, 0.0), -SIDE_SIGN[side] * 90.0)


def bumps(frames: np.ndarray, centres: Sequence[float], half: float) -> np.ndarray:
    """A raised-cosine bump of half-width ``half`` frames at each centre (0..1, max-merged)."""
    out = np.zeros(len(frames))
    for c in centres:
        u = np.clip(np.abs(frames - c) / half, 0.0, 1.0)
        out = np.maximum(out, 0.5 + 0.5 * np.cos(np.pi * u))
    return out


@dataclass(frozen=True)
class Prop:
    """A rigid thing a person handles (a ball): a mesh, its paint and where it is each frame.

    Its paint is bright, like a glove, so the pixel audit finds it by hue; ``colors``
    (T, 3), if given, is its paint per frame (a ball that lights up), ``color`` the bright one."""

    faces: np.ndarray
    vertices: np.ndarray  # (V, 3) about the prop's centre
    color: RGB
    centres: np.ndarray  # (T, 3) world centre per frame
    colors: np.ndarray | None = None  # (T, 3) sRGB per frame, else ``color`` throughout

    @classmethod
    def ball(
        cls, radius: float, color: RGB, centres: np.ndarray, colors: np.ndarray | None = None
    ) -> Prop:
        """A ball of ``radius`` metres centred on ``centres`` (T, 3), painted ``colors``
        (T, 3) per frame if given."""
        import trimesh

        m = trimesh.creation.icosphere(subdivisions=2, radius=radius)
        paint = None if colors is None else np.asarray(colors, np.uint8)
        return cls(np.asarray(m.faces), np.asarray(m.vertices), color, np.asarray(centres), paint)

    def mesh(self) -> Mesh:
        """The prop as a mesh moving (and changing paint) through the clip."""
        verts = self.centres[:, None, :] + self.vertices[None]
        paint = np.tile(np.asarray(self.color, np.uint8), (len(self.vertices), 1))
        return Mesh(self.faces, verts, paint, self.colors)


@dataclass(frozen=True)
class Mesh:
    """A mesh whose vertices (T, V, 3) change per frame: another person, a prop."""

    faces: np.ndarray
    vertices: np.ndarray
    colors: np.ndarray  # (V, 3) sRGB
    frame_colors: np.ndarray | None = None  # (T, 3) sRGB of the whole mesh per frame


def finish_people(rigs: Sequence[Rig]) -> None:
    """Hand every posed person (and their props) to one renderer, seen by the first person's
    camera, and record the 3D ground truth in meta. With several people, meta also lists each
    one's look (``people``) and which person carries each track (``owners``), so the pixel
    audit reads each track from its own person's gloves."""
    main, scene = rigs[0], rigs[0].scene
    others = [Mesh(r.body.faces, r.posed().vertices, r.vertex_colors()) for r in rigs[1:]]
    others += [p.mesh() for r in rigs for p in r.props]
    scene.world = BodyWorld(
        main.body.faces, main.posed().vertices, main.vertex_colors(), main.camera, floor=0.0,
        sequence=main.sequence(), joints=main.joints, others=others,
    )  # fmt: skip
    joints3d = {k: v for r in rigs for k, v in r.joints3d.items()}
    scene.meta.update(
        {
            "joints3d": joints3d,
            "camera": camera_json(main.camera),
            "look": main.look.to_json(),
            "renderer": "human",
        }
    )
    if len(rigs) > 1:
        scene.meta["people"] = [r.look.to_json() for r in rigs]
        scene.meta["owners"] = {name: i for i, r in enumerate(rigs) for name in r.owned}
    if any(r.props for r in rigs):
        scene.meta["props"] = [list(p.color) for r in rigs for p in r.props]


PAIR_SPACING = (1.2, 1.45)  # metres between two people standing side by side


def start_pair(scene: Scene, motion: str) -> dict[str, Rig]:
    """Two people side by side facing the camera, keyed by where the viewer sees them
    (``left``, ``right``), with different looks, shapes and heights (:func:`draw_looks`)."""
    body = body_for(scene.style.body)
    looks = draw_looks(scene.look_rng, int(body.num_betas), 2)
    half = 0.5 * float(scene.look_rng.uniform(*PAIR_SPACING))
    # the camera looks toward -z, so the viewer's right is the world's +x
    return {
        side: Rig.start(
            scene, motion, look, (sign * half, 0.0, float(scene.look_rng.uniform(-0.1, 0.1)))
        )
        for side, sign, look in (("left", -1.0, looks[0]), ("right", 1.0, looks[1]))
    }


def share_camera(rigs: Sequence[Rig], upper: bool = False, **kw: Any) -> Camera:
    """One third-person camera (see :meth:`Rig.third_person`, ``kw`` its angle ranges)
    framing every person's posed joints, given to every rig."""
    pts = np.concatenate([r.frame_points(upper=upper) for r in rigs])
    kw.setdefault("azimuth", (-8.0, 8.0))
    cam = rigs[0].third_person(pts, **kw)
    for r in rigs[1:]:
        r.camera, r.first_person = cam, False
    return cam


def person_noun(side: str, rig: Rig) -> str:
    """How a question names one of two people: where the viewer sees them and their clothes."""
    return f"the person on the {side} (in {body_color_name(rig.look.body)})"


class BodyWorld:
    """The :class:`~tempogen.generators.motion.World` of a posed body: one dynamic mesh
    (plus one per other person or prop) updated in place each frame and drawn through the
    labels' camera."""

    def __init__(
        self,
        faces: np.ndarray,
        vertices: np.ndarray,
        vertex_colors: np.ndarray,
        camera: Camera,
        floor: float | None = 0.0,
        sequence: PoseSequence | None = None,
        joints: np.ndarray | None = None,
        others: Sequence[Mesh] = (),
    ) -> None:
        self.faces = np.asarray(faces)
        self.vertices = vertices
        self.vertex_colors = np.asarray(vertex_colors)
        self.camera = camera
        self.floor = floor
        self.sequence = sequence  # the poses that made ``vertices`` (for export and checks)
        self.joints = joints  # the posed joints (T, 24, 3) the labels were projected from
        self.others = list(others)  # more people and props, drawn in the same frames
        self.decor: Decor | None = None  # a sign and distractors (style variations)

    def solid_points(self) -> list[np.ndarray]:
        """World points (T, V, 3) of every mesh per frame: where scenery must not show."""
        return [self.vertices, *(m.vertices for m in self.others)]

    def frames(
        self,
        background: str,
        rng: np.random.Generator,
        indices: Sequence[int] | None = None,
    ) -> Iterator[np.ndarray]:
        """RGB frames (H, W, 3) uint8, one per pose (or only at ``indices``, in that order);
        the buffer is reused between frames."""
        return (f for f, _ in self._render(background, rng, indices, coverage=False))

    def frames_and_masks(
        self, background: str, rng: np.random.Generator
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """RGB frames and the coverage (uint8 alpha) of every person and prop, for a
        noise-encoded clip: the one render pass gives both (arrays reused between frames)."""
        return self._render(background, rng, None, coverage=True)  # type: ignore[return-value]

    def _render(
        self,
        background: str,
        rng: np.random.Generator,
        indices: Sequence[int] | None,
        coverage: bool,
    ) -> Iterator[tuple[np.ndarray, np.ndarray | None]]:
        from tempogen.generators.render3d import Renderer

        order = range(len(self.vertices)) if indices is None else [int(i) for i in indices]
        with Renderer(
            self.camera, background=background, rng=rng, floor=self.floor, coverage=coverage
        ) as r:
            handle = r.add_dynamic_mesh(self.faces, self.vertex_colors)
            extra = [r.add_dynamic_mesh(m.faces, m.colors) for m in self.others]
            if self.decor is not None:
                self.decor.install(r)
            for i in order:
                r.set_vertices(handle, self.vertices[i])
                for h, m in zip(extra, self.others):
                    r.set_vertices(h, m.vertices[i])
                    if m.frame_colors is not None:
                        r.set_colors(h, m.frame_colors[i])
                frame = r.render()
                yield frame, r.coverage


class HumanMotion(Motion):
    """Base of the simulated-human motions: rendered in 3D, noted as simulated humans."""

    renderer = "human"
    note = "simulated human"


# imported motions -----------------------------------------------------------------------


def render_motion_files(
    seq: PoseSequence, out: str | Path, joints: str | Path, **kw: Any
) -> dict[str, Any]:
    """:func:`render_motion` into ``out`` plus its ground truth as JSON in ``joints``, written
    as one unit: the video takes its name only after the joints file is written, and a failure
    (a full disk) leaves neither, so no clip is ever found without its labels."""
    from tempogen.io import dumps, write_text
    from tempogen.resume import discard_on_error, staging

    out, joints = Path(out), Path(joints)
    partial, partial_joints = staging(out), staging(joints)
    with discard_on_error(partial, partial_joints):  # an earlier pair stays as it was
        truth = render_motion(seq, partial, **kw)
        truth["video"] = str(out)
        write_text(partial_joints, dumps(truth) + "\n")
    os.replace(partial_joints, joints)  # renames only: no space needed, nothing can half-fail
    os.replace(partial, out)
    return truth


def render_motion(
    seq: PoseSequence,
    out: str | Path,
    *,
    width: int = 640,
    height: int = 360,
    body_path: str = "",
    background: str = "solid",
    seed: int = 0,
    crf: int = 18,
) -> dict[str, Any]:
    """Render a pose sequence (procedural or imported) as an mp4 seen by a third-person
    camera that keeps the whole motion in view, and return its ground truth: the camera and
    every joint per frame in 3D (metres) and projected (pixels), as JSON-ready lists.

    The video is written atomically; the joints are the body model's posed joints, the same
    ones the labels of generated clips are projected from.
    """
    from tempogen.video import VideoWriter

    body = body_for(body_path)
    rng = np.random.default_rng(seed)
    look = draw_look(rng, body.num_betas)
    betas = seq.betas if seq.betas is not None else look.betas
    posed = body.pose(PoseSequence(seq.poses, seq.trans, seq.fps, betas[: body.num_betas]))
    camera = fit_camera(
        posed.joints.reshape(-1, 3),
        width,
        height,
        yfov_deg=40.0,
        elevation_deg=12.0,
        azimuth_deg=0.0,
        fill=0.8,
    )
    colors = look_colors(body, look)
    world = BodyWorld(
        body.faces, posed.vertices, colors, camera, floor=float(posed.joints[..., 1].min()) - 0.1
    )
    with VideoWriter(out, seq.fps, width, height, crf=crf, background=True) as vw:
        for frame in world.frames(background, rng):
            vw.write(frame)
    return {
        "video": str(out),
        "fps": seq.fps,
        "num_frames": seq.num_frames,
        "width": width,
        "height": height,
        "body_model": body.name,
        "source": seq.source,
        "camera": camera_json(camera),
        "joint_names": list(JOINTS),
        "joints3d": np.round(posed.joints, 4).tolist(),
        "joints2d": np.round(camera.project(posed.joints), 2).tolist(),
    }
