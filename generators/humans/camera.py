"""Cameras for simulated people: fitted third-person views, the person's own (first-person)
view, and the image-plane directions a motion draws paths in.

The third-person camera stands in front (looking toward ``-z``), so the person's right hand
shows on the image's left. Every camera is the one :class:`~tempogen.generators.camera.Camera`
both the labels and the renderer use.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tempogen.generators.camera import Camera, look_at
from tempogen.generators.humans.posing import Posing
from tempogen.generators.motion import GenerationError
from tempogen.generators.skeleton import INDEX, JOINTS

if TYPE_CHECKING:
    from tempogen.generators.humans.rig import Rig

FIRST_PERSON_P = 0.3  # share of hand motions filmed from the person's own eyes
# joints a from-the-hips-up shot keeps in view (the arms come in through the hands)
UPPER_BODY = [
    i
    for i, name in enumerate(JOINTS)
    if i <= INDEX["right_shoulder"] and not name.endswith(("knee", "ankle", "foot"))
]
MIN_CAMERA_DEPTH = 0.2  # metres every framed point stays in front of a fitted camera
FIT_DISTANCES = (0.3, 60.0)  # metres: the range a fitted camera's distance is searched in
FIT_STEPS = 40  # bisection steps of that search
HEAD_TOP = 0.14  # metres from the head joint up to the top of the head
HAND_FRONT = 0.05  # metres a framed hand reaches ahead of its joint
# Third-person draws per seed (degrees; fill = share of the frame the framed points span).
THIRD_PERSON_YFOV = (36.0, 48.0)
THIRD_PERSON_ELEVATION = (6.0, 16.0)
THIRD_PERSON_AZIMUTH = (-12.0, 12.0)
THIRD_PERSON_FILL = (0.72, 0.84)
SHARED_AZIMUTH = (-8.0, 8.0)  # degrees: a camera framing two people turns less
# First-person view: the eye before the forehead, looking down at the space before the chest.
EYE_OFFSET = (0.0, 0.07, 0.16)  # metres from the rest head joint
FIRST_PERSON_DROP = 0.6  # metres the default target lies below the head
FIRST_PERSON_AHEAD = 0.5  # metres the default target lies before the head
AIM_JITTER = 0.03  # metres the aim moves per seed, on each axis
FIRST_PERSON_YFOV = (68.0, 78.0)  # degrees


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
        if np.any(cam.depth(pts) < MIN_CAMERA_DEPTH):
            return False
        uv = cam.project(pts)
        return bool(
            np.all(np.abs(uv[:, 0] - width / 2) <= fill * width / 2)
            and np.all(np.abs(uv[:, 1] - height / 2) <= fill * height / 2)
        )

    lo, hi = FIT_DISTANCES
    if not fits(hi):
        raise GenerationError("camera: the body does not fit the frame from any distance")
    for _ in range(FIT_STEPS):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if fits(mid) else (mid, hi)
    return camera(hi)


def camera_json(cam: Camera) -> dict[str, Any]:
    """The camera as JSON (vertical field of view in degrees, 4x4 camera-to-world pose)."""
    return {
        "yfov_deg": round(math.degrees(cam.yfov), 4),
        "pose": [[round(float(v), 5) for v in row] for row in cam.pose],
    }


class Framing(Posing):
    """The camera methods of a rig: what to frame, from where, and the image plane's axes."""

    camera: Camera | None
    first_person: bool
    companion: Rig | None

    def frame_points(self, extra: Sequence[np.ndarray] = (), upper: bool = False) -> np.ndarray:
        """Points a third-person camera must keep in view: every posed joint (``upper``:
        from the hips up), the head's top and the soles, plus ``extra`` (e.g. the corners
        of a hand's workspace)."""
        j = self.fk()[0]
        head = j[:, INDEX["head"]] + [0.0, HEAD_TOP, 0.0]
        hands = j[:, [INDEX["left_hand"], INDEX["right_hand"]]].reshape(-1, 3)
        pts = [head, hands + [0.0, 0.0, HAND_FRONT]]
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
            return self.chosen_camera()
        box = np.array([[x, y, 0.0] for x in (-half, half) for y in (-half, half)])
        return self.third_person(self.frame_points([np.asarray(centre) + box], upper=True))

    def third_person(
        self,
        points: np.ndarray,
        elevation: tuple[float, float] = THIRD_PERSON_ELEVATION,
        azimuth: tuple[float, float] = THIRD_PERSON_AZIMUTH,
        fill: tuple[float, float] = THIRD_PERSON_FILL,
    ) -> Camera:
        """The default camera: in front, a little above, the person facing it, framing
        ``points`` (see :meth:`frame_points`); angles in degrees, drawn per seed."""
        rng = self.scene.look_rng
        self.camera = fit_camera(
            points, self.scene.width, self.scene.height,
            yfov_deg=float(rng.uniform(*THIRD_PERSON_YFOV)),
            elevation_deg=float(rng.uniform(*elevation)),
            azimuth_deg=float(rng.uniform(*azimuth)), fill=float(rng.uniform(*fill)),
        )  # fmt: skip
        self.first_person = False
        return self.camera

    def first_person_camera(self, target: np.ndarray | None = None) -> Camera:
        """The person's own view: from the forehead, looking down at ``target`` (default:
        the space before the chest), as a head-mounted camera films the hands."""
        rng = self.scene.look_rng
        head = self.rest_point("head")
        eye = head + EYE_OFFSET  # just before the face
        if target is None:
            target = np.array([0.0, head[1] - FIRST_PERSON_DROP, head[2] + FIRST_PERSON_AHEAD])
        aim = np.asarray(target, dtype=np.float64) + rng.uniform(-AIM_JITTER, AIM_JITTER, 3)
        yfov = math.radians(rng.uniform(*FIRST_PERSON_YFOV))
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

    def chosen_camera(self) -> Camera:
        """The clip's camera; asking before a motion has chosen one is an error naming it."""
        if self.camera is None:
            raise GenerationError(f"motion {self.motion!r}: choose a camera first")
        return self.camera

    def screen_axes(self) -> tuple[np.ndarray, np.ndarray]:
        """World directions of the image's right and down: a path drawn in the plane they
        span faces the camera, so its projection keeps its shape exactly."""
        camera = self.chosen_camera()
        return camera.pose[:3, 0].copy(), -camera.pose[:3, 1].copy()

    def on_screen_plane(self, centre: np.ndarray, uv: np.ndarray) -> np.ndarray:
        """3D points (T, 3) at ``centre`` + ``uv`` (T, 2) metres along the image's right and
        down directions."""
        right, down = self.screen_axes()
        uv = np.asarray(uv, dtype=np.float64)
        return np.asarray(centre, dtype=np.float64) + uv[:, :1] * right + uv[:, 1:2] * down


def share_camera(rigs: Sequence[Rig], upper: bool = False, **kw: Any) -> Camera:
    """One third-person camera (see :meth:`Rig.third_person`, ``kw`` its angle ranges)
    framing every person's posed joints, given to every rig."""
    pts = np.concatenate([r.frame_points(upper=upper) for r in rigs])
    kw.setdefault("azimuth", SHARED_AZIMUTH)
    cam = rigs[0].third_person(pts, **kw)
    for r in rigs[1:]:
        r.camera, r.first_person = cam, False
    return cam
