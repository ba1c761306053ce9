"""TOMATO's "misleading text" and "distractor objects" variations for 3D clips.

A sign standing on the floor (or, without one, hung on an unseen back wall) behind every
moving mesh states a wrong answer in words; distractors are muted boxes, cones and cylinders
standing still. Both are placed per seed where, projected through the clip's camera, they
never overlap any moving mesh in any frame, so they cannot hide or be mistaken for a tracked
object: labels stay as they were and the pixel audit (hue masks of saturated paints) never
sees them, their colours being unsaturated and far in hue from every paint. Both are drawn
once into the renderer's backdrop (:meth:`Renderer.add_decal`, ``add_mesh(backdrop=True)``),
so a frame costs nothing more. ``labels.meta["variation"]`` records ``misleading_text`` and
``distractors`` (how many), ``labels.meta["decor"]`` the sign's text and where things stand.
"""

from __future__ import annotations

import colorsys
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
import trimesh

from tempogen.generators.camera import Camera
from tempogen.generators.placement3d import (
    fits,
    flat_board,
    floor_hit,
    floor_point,
    floor_usable,
    footprint,
    hull_mask,
    unproject,
    view_axes,
)
from tempogen.generators.scene import MISLEADING, Scene

if TYPE_CHECKING:
    from tempogen.generators.motion import Motion

RGB = tuple[int, int, int]
BOARD: RGB = (238, 234, 222)  # the sign's face: off-white
INK: RGB = (30, 30, 34)  # its letters
EDGE: RGB = (96, 90, 82)  # its frame
SHAPES = ("box", "cone", "cylinder")
SATURATION = 0.28  # distractor paint: under the pixel audits' floors (110/255 and 120/255)
MIN_HUE_GAP = 40.0  # degrees between a distractor's hue and any bright paint of the scene
TRIES = 80  # candidate places per sign or distractor


@dataclass(frozen=True)
class Sign:
    """A flat board with ``text``; ``corners`` (4, 3) world points: top-left, top-right,
    bottom-right, bottom-left; ``px`` the picture's height in pixels."""

    text: str
    corners: np.ndarray
    px: int

    def image(self) -> np.ndarray:
        """The board's face as RGB uint8: a framed off-white board with dark capitals."""
        h = max(int(self.px), 24)
        aspect = float(np.linalg.norm(self.corners[1] - self.corners[0])) / max(
            float(np.linalg.norm(self.corners[3] - self.corners[0])), 1e-9
        )
        w = max(int(round(h * aspect)), h)
        img = np.empty((h, w, 3), np.uint8)
        img[:] = EDGE
        rim = max(2, h // 14)
        img[rim:-rim, rim:-rim] = BOARD
        font, thick = cv2.FONT_HERSHEY_DUPLEX, max(1, h // 14)
        (tw, th), _ = cv2.getTextSize(self.text, font, 1.0, thick)
        scale = min(0.82 * w / max(tw, 1), 0.55 * h / max(th, 1))
        thick = max(1, int(round(thick * min(scale, 1.5))))
        (tw, th), _ = cv2.getTextSize(self.text, font, scale, thick)
        org = ((w - tw) // 2, (h + th) // 2)
        cv2.putText(img, self.text, org, font, scale, INK, thick, cv2.LINE_AA)
        return img


@dataclass(frozen=True)
class Distractor:
    """A static muted shape: ``size`` metres tall (and about as wide), at ``pose``."""

    shape: str
    color: RGB
    size: float
    pose: np.ndarray  # 4x4, the shape's base centre (its local origin) in the world

    def mesh(self) -> trimesh.Trimesh:
        """The shape in its own frame: base on ``y = 0``, ``y`` up."""
        s = self.size
        upright = trimesh.transformations.rotation_matrix(-math.pi / 2, [1.0, 0.0, 0.0])
        if self.shape == "box":
            m = trimesh.creation.box((0.8 * s, s, 0.8 * s))
            m.apply_translation((0.0, s / 2, 0.0))
        elif self.shape == "cone":
            m = trimesh.creation.cone(radius=0.45 * s, height=s, sections=24)
            m.apply_transform(upright)
        else:
            m = trimesh.creation.cylinder(radius=0.3 * s, height=s, sections=24)
            m.apply_transform(upright)
            m.apply_translation((0.0, s / 2, 0.0))
        return m

    def points(self) -> np.ndarray:
        """The shape's vertices in the world (V, 3)."""
        v = np.asarray(self.mesh().vertices, dtype=np.float64)
        return v @ self.pose[:3, :3].T + self.pose[:3, 3]


@dataclass(frozen=True)
class Decor:
    """What a 3D world draws besides its moving meshes: a sign and distractors."""

    sign: Sign | None = None
    distractors: tuple[Distractor, ...] = ()

    def install(self, renderer: Any) -> None:
        """Add everything to a :class:`~tempogen.generators.render3d.Renderer`'s backdrop."""
        for d in self.distractors:
            renderer.add_mesh(d.mesh(), color=d.color, pose=d.pose, smooth=False, backdrop=True)
        if self.sign is not None:
            renderer.add_decal(self.sign.image(), self.sign.corners)

    def to_json(self, camera: Camera) -> dict[str, Any]:
        """Where the sign and distractors show (pixels), their text and paints."""
        out: dict[str, Any] = {}
        if self.sign is not None:
            quad = camera.project(self.sign.corners)
            out["sign"] = {"text": self.sign.text, "corners": np.round(quad, 1).tolist()}
        if self.distractors:
            out["distractors"] = [
                {
                    "shape": d.shape,
                    "color": list(d.color),
                    "at": np.round(camera.project(d.pose[:3, 3]), 1).tolist(),
                }
                for d in self.distractors
            ]
        return out


# what the sign says -----------------------------------------------------------------------
def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Z0-9]+", text.upper()))


def wrong_text(motion: Motion, key: str, rng: np.random.Generator, twin_key: str = "") -> str:
    """Words stating a wrong answer: one of :data:`MISLEADING`'s for the fact that shares no
    word with the right answer's key (nor its minimal-pair twin's), else another answer's
    key; "" if there is none."""
    right = _words(key) | _words(twin_key)
    if "NONE" in right:  # no motion at all is what STOP says
        right.add("STOP")
    words = [w for w in MISLEADING.get(motion.fact, []) if not _words(w) & right]
    if not words:
        words = [
            " ".join(re.findall(r"[A-Z0-9]+", k.upper()))
            for k in motion.keys()
            if k not in (key, twin_key) and not _words(k) & right
        ]
        words = [w for w in words if w]
    return str(rng.choice(words)) if words else ""


# where things stand ------------------------------------------------------------------------
def place_sign(
    camera: Camera,
    floor: float | None,
    taken: np.ndarray,
    deep: float,
    text: str,
    rng: np.random.Generator,
    tracked: np.ndarray | None = None,
) -> Sign | None:
    """A board with ``text`` behind everything (its nearest point deeper than ``deep``),
    standing on the floor if it can, else facing the camera on a back wall; None if no
    candidate is clear of ``taken``. Where none is (a person filling the frame), a smaller
    board may hide up to a third behind a mesh but stays clear of ``tracked`` (every tracked
    object's labelled disc in every frame), so whatever the audit reads passes over no sign."""
    w, h = camera.width, camera.height
    edge = 0.03 * min(w, h) + 2.0
    aspect = max(1.7, 0.62 * len(text) + 0.9)
    on_floor = floor_usable(camera, floor)
    _, fwd, _, right = view_axes(camera)
    for i in range(2 * TRIES):
        soft = i >= TRIES and tracked is not None
        if i >= TRIES and not soft:
            break
        hpx = float(rng.uniform(0.09, 0.14) if soft else rng.uniform(0.12, 0.2)) * h
        wpx = min(hpx * aspect, 0.45 * w)
        hpx = wpx / aspect
        depth = deep + float(rng.uniform(0.3, 1.5)) * max(0.25 * deep, 0.5)
        ppm = camera.focal / depth
        bw, bh = wpx / ppm, hpx / ppm
        u = float(rng.uniform(edge + wpx / 2, max(w - edge - wpx / 2, edge + wpx / 2 + 1)))
        if floor is not None and not on_floor:  # seen from high above: lying on the floor
            v = float(rng.uniform(edge + hpx / 2, max(h - edge - hpx / 2, edge + hpx / 2 + 1)))
            centre = floor_hit(camera, float(floor), u, v)
            if centre is None:
                continue
            ppm = camera.pixels_per_metre(centre)
            corners = flat_board(camera, centre, wpx / ppm, hpx / ppm)
        elif on_floor and i % TRIES < 2 * TRIES // 3:
            depth_base = depth - min(0.0, bh * fwd[1])  # its nearest edge at ``depth``
            base = floor_point(camera, float(floor), u, depth_base)  # type: ignore[arg-type]
            up = np.array([0.0, bh, 0.0])
            half = right * bw / 2
            corners = np.stack([base - half + up, base + half + up, base + half, base - half])
        else:
            v = float(rng.uniform(edge + hpx / 2, max(h - edge - hpx / 2, edge + hpx / 2 + 1)))
            corners = np.stack(
                [
                    unproject(camera, u - wpx / 2, v - hpx / 2, depth),
                    unproject(camera, u + wpx / 2, v - hpx / 2, depth),
                    unproject(camera, u + wpx / 2, v + hpx / 2, depth),
                    unproject(camera, u - wpx / 2, v + hpx / 2, depth),
                ]
            )
            if floor is not None and corners[:, 1].min() < floor:
                continue  # it would sink into the floor
        if (
            soft
            and tracked is not None
            and fits(camera, corners, tracked, edge, taken, 0.34) is not None
        ):
            return Sign(text, corners, int(round(2 * hpx)))
        if not soft and fits(camera, corners, taken, edge) is not None:
            return Sign(text, corners, int(round(2 * hpx)))
    return None


def place_distractor(
    camera: Camera,
    floor: float | None,
    taken: np.ndarray,
    near: float,
    deep: float,
    color: RGB,
    rng: np.random.Generator,
) -> Distractor | None:
    """A random shape standing on the floor (floating behind everything without one) whose
    outline is clear of ``taken``; None if no candidate fits. ``near`` is unused by a floor
    scene (any floor point in view will do)."""
    w, h = camera.width, camera.height
    edge = 0.02 * min(w, h) + 2.0
    shape = str(rng.choice(SHAPES))
    yaw = trimesh.transformations.rotation_matrix(rng.uniform(0, 2 * math.pi), [0.0, 1.0, 0.0])
    for _ in range(TRIES):
        size_px = float(rng.uniform(0.12, 0.22)) * h
        u = float(rng.uniform(edge, w - edge))
        if floor is not None:
            hit = floor_hit(camera, floor, u, float(rng.uniform(edge, h - edge)))
            if hit is None or camera.depth(hit) > 3.0 * deep + 2.0:
                continue
            base, depth = hit, float(camera.depth(hit))
        else:
            depth = deep + float(rng.uniform(0.2, 1.2)) * max(0.25 * deep, 0.5)
            v = float(rng.uniform(edge, h - edge))
            base = unproject(camera, u, v, depth) - [0.0, 0.5 * size_px * depth / camera.focal, 0]
        pose = yaw.copy()
        pose[:3, 3] = base
        d = Distractor(shape, color, size_px * depth / camera.focal, pose)
        if fits(camera, d.points(), taken, edge) is not None:
            return d
    return None


def tracked_discs(scene: Scene) -> np.ndarray:
    """Pixels within a tracked object's labelled disc (grown by a quarter) in any frame."""
    mask = np.zeros((scene.height, scene.width), np.uint8)
    for t in scene.tracks:
        if t.role == "anchor":
            continue
        r = 1.25 * np.asarray(t.size * t.scale) * np.ones(len(t.x)) + 2.0
        for x, y, rr in zip(t.x, t.y, r):
            cv2.circle(mask, (int(round(x)), int(round(y))), int(math.ceil(rr)), 1, -1)
    return mask.astype(bool)


def _hue(rgb: Any) -> float:
    return 360.0 * colorsys.rgb_to_hsv(*(float(c) / 255.0 for c in rgb[:3]))[0]


def _saturation(rgb: Any) -> float:
    return colorsys.rgb_to_hsv(*(float(c) / 255.0 for c in rgb[:3]))[1]


def bright_colors(scene: Scene) -> list[RGB]:
    """Every saturated colour of a scene the pixel audit may look for: tracks, paints,
    gloves, props."""
    found: list[Any] = [t.color for t in scene.tracks if t.role != "anchor"]
    found += scene.meta.get("paints", []) + scene.meta.get("props", [])
    for person in [scene.meta.get("look", {}), *scene.meta.get("people", [])]:
        found += [c for _, c in person.get("hands", {}).values()]
    out = {tuple(int(v) for v in c[:3]) for c in found}
    return sorted(c for c in out if _saturation(c) > 0.2)  # type: ignore[misc]


def distractor_colors(rng: np.random.Generator, avoid: list[RGB], k: int) -> list[RGB]:
    """``k`` muted paints whose hues lie far from every colour in ``avoid`` (and apart)."""
    hues = [_hue(c) for c in avoid]
    out: list[RGB] = []
    for _ in range(k):
        cand = np.arange(0.0, 360.0, 5.0)
        gaps = np.full(len(cand), 180.0)
        for hh in hues:
            d = np.abs(cand - hh) % 360.0
            gaps = np.minimum(gaps, np.minimum(d, 360.0 - d))
        good = cand[gaps >= MIN_HUE_GAP]
        if not len(good):
            good = cand[gaps >= gaps.max() - 1e-9]
        hh = float(rng.choice(good))
        value = float(rng.uniform(0.55, 0.8))
        r, g, b = colorsys.hsv_to_rgb(hh / 360.0, SATURATION, value)
        out.append((int(round(r * 255)), int(round(g * 255)), int(round(b * 255))))
        hues.append(hh)
    return out


def decorate(scene: Scene, motion: Motion, key: str) -> None:
    """Give a certified 3D scene its style's sign and distractors (``scene.world.decor``)
    and record them in meta; labels are untouched. Draws from its own generator, seeded
    once from the scene's, so the same seed gives the same decor."""
    world = scene.world
    style = scene.style
    if world is None or not (style.misleading_text or style.distractors):
        return
    if not all(hasattr(world, a) for a in ("camera", "floor", "solid_points", "decor")):
        return  # a world that cannot take scenery (a test double) is left as it is
    rng = np.random.default_rng(int(scene.look_rng.integers(2**63)))
    camera: Camera = world.camera  # type: ignore[attr-defined]
    floor: float | None = world.floor  # type: ignore[attr-defined]
    solids = list(world.solid_points())  # type: ignore[attr-defined]
    taken = footprint(camera, solids, 0.025 * min(camera.width, camera.height) + 2.0)
    depths = np.concatenate([camera.depth(np.asarray(p).reshape(-1, 3)) for p in solids])
    depths = depths[depths > 0.02]
    near, deep = float(depths.min()), float(depths.max())
    # a minimal pair's scenery is painted before the sign is fitted, so its paints do not
    # depend on where each clip's motion leaves room (other clips keep the old order)
    paired = scene.looks is not scene.rng
    bright = bright_colors(scene)
    paints = distractor_colors(rng, bright, int(style.distractors)) if paired else None
    sign = None
    if style.misleading_text:
        text = wrong_text(motion, key, rng, scene.twin_key)
        if text:
            sign = place_sign(camera, floor, taken, deep, text, rng, tracked_discs(scene))
        if sign is not None:
            taken = taken | hull_mask(camera, camera.project(sign.corners))
    placed: list[Distractor] = []
    if paints is None:
        paints = distractor_colors(rng, bright, int(style.distractors))
    for color in paints:
        d = place_distractor(camera, floor, taken, near, deep, color, rng)
        if d is not None:
            placed.append(d)
            poly = hull_mask(camera, camera.project(d.points())).astype(np.uint8)
            grown = cv2.dilate(poly, None)  # type: ignore[call-overload]  # None: OpenCV's 3x3
            taken = taken | grown.astype(bool)
    decor = Decor(sign, tuple(placed))
    world.decor = decor  # type: ignore[attr-defined]
    variation = dict(scene.meta.get("variation", {}))
    if sign is not None:
        variation["misleading_text"] = 1
    if placed:
        variation["distractors"] = len(placed)
    if variation:
        scene.meta["variation"] = variation
    if sign is not None or placed:
        scene.meta["decor"] = decor.to_json(camera)
