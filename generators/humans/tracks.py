"""Label tracks of a simulated person: the body model poses the rig once, and every track is
the projection, through the clip's camera, of points on that posed body.

So labels, pixels and the 3D joints kept in ``labels.meta["joints3d"]`` all describe the same
body.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tempogen.generators.humans.camera import Framing
from tempogen.generators.humans.look import RGB, HumanLook
from tempogen.generators.poses import PoseSequence
from tempogen.generators.skeleton import INDEX
from tempogen.labels import Track

HAND_RADIUS = 0.07  # metres: a hand's extent around its centre, for track sizes
ANCHOR_COLOR: RGB = (60, 60, 60)  # colour of an invisible anchor line (never drawn)


class Tracking(Framing):
    """The label methods of a rig: the posed body, points on it, and the tracks they make."""

    body: Any
    look: HumanLook
    _frames: Any
    joints3d: dict[str, list[list[float]]]
    owned: list[str]

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
        return self.chosen_camera().project(points)

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
        camera = self.chosen_camera()
        ppm = np.array([camera.pixels_per_metre(p) for p in pts])
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
            name, self.n, x=x, y=y, role="anchor", shape=shape, color=ANCHOR_COLOR,
            size=0.0, angle=angle,
        )  # fmt: skip
        self.scene.tracks.append(tr)
        self.scene.nouns[name] = noun
        return tr
