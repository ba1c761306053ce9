"""Shape & trend: the subject's path draws a shape once, its corners on sampled frames."""

from __future__ import annotations

import numpy as np

from tempogen.generators.motion import Motion, register_motion
from tempogen.generators.paths import fit_start, through
from tempogen.generators.scene import SAMPLES, Scene

# the outlines' proportions (a unit size: the farthest vertex about 1 from the centre)
INFINITY = (1.4, 0.8)  # the infinity sign's width and height scales
SQUARE_HEIGHT = (0.65, 1.0)  # a "square"'s height over its width: a rectangle, not too flat
DIAMOND_WIDTH = (0.85, 1.0)  # a diamond's width over its height
TRAPEZOID_TOP = (0.35, 0.6)  # a trapezoid's short side over its long one
TRAPEZOID_HEIGHT = 0.7  # half a trapezoid's height
PATH_SIZE = (0.25, 0.34)  # a drawn shape's unit, as a share of the canvas's height
DRAWER_SIZE = 1.1  # the drawing subject's radius, in scene units
MARGIN = 1.3  # subject sizes kept between its path and the canvas's edge


def outline(shape: str, rng: np.random.Generator) -> np.ndarray:
    """Closed polygon (first vertex repeated last) of unit size, or a dense curve."""
    if shape == "circle":
        a = np.radians(np.linspace(0, 360, 61))
        return np.stack([np.cos(a), np.sin(a)], 1)
    if shape == "infinity":
        a = np.linspace(0, 2 * np.pi, 61) + np.pi / 2  # start at a lobe tip, not the crossing
        return np.stack([INFINITY[0] * np.sin(a), INFINITY[1] * np.sin(a) * np.cos(a)], 1)
    if shape == "triangle":
        a = np.radians(rng.choice([-90, 90]) + np.array([0, 120, 240, 360]))
        v = np.stack([np.cos(a), np.sin(a)], 1)
    elif shape == "square":
        w, h = 1.0, rng.uniform(*SQUARE_HEIGHT)
        v = np.array([[-w, -h], [w, -h], [w, h], [-w, h], [-w, -h]])
    elif shape == "diamond":
        w, h = rng.uniform(*DIAMOND_WIDTH), 1.0
        v = np.array([[0, -h], [w, 0], [0, h], [-w, 0], [0, -h]])
    elif shape == "trapezoid":
        top, half = rng.uniform(*TRAPEZOID_TOP), TRAPEZOID_HEIGHT
        v = np.array([[-1, half], [1, half], [top, -half], [-top, -half], [-1, half]])
        if rng.random() < 0.5:
            v[:, 1] *= -1
    elif shape == "star":
        a = np.radians(-90 + 144 * np.arange(6))
        v = np.stack([np.cos(a), np.sin(a)], 1)
    else:
        raise ValueError(f"unknown trajectory {shape!r}")
    return v


def knot_frames(scene: Scene, verts: np.ndarray) -> np.ndarray:
    """Frames where each vertex is reached: whole sample intervals, shared by edge length."""
    lengths = np.linalg.norm(np.diff(verts, axis=0), axis=1)
    share = lengths / lengths.sum() * (SAMPLES - 1)
    counts = np.maximum(1, np.floor(share)).astype(int)
    while counts.sum() < SAMPLES - 1:
        counts[np.argmax(share - counts)] += 1
    while counts.sum() > SAMPLES - 1:
        counts[np.argmax(counts)] -= 1
    ks = np.concatenate([[0], np.cumsum(counts)])
    return np.array([scene.sample_frame(int(k)) for k in ks], dtype=float)


def screen_path(scene: Scene, shape: str, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-frame pixel positions drawing ``shape`` once (either way round), ``margin`` inside
    the canvas, its corners on sampled frames; shared by the 2D and the 3D drawers."""
    verts = outline(shape, scene.rng)
    if scene.rng.random() < 0.5:
        verts = verts[::-1].copy()
    scale = scene.rng.uniform(*PATH_SIZE) * scene.height
    path = fit_start(verts * scale, scene.width, scene.height, margin, scene.rng)
    if shape in ("circle", "infinity"):
        knots = np.linspace(0, scene.n - 1, len(path))
    else:
        knots = knot_frames(scene, path)
    return through(path, knots, scene.frames)


@register_motion
class Draw(Motion):
    """The subject traces a circle, polygon, infinity sign or star, or stays put."""

    name = "draw"
    temporal_noise = True
    task = "shape&trend"
    fact = "trajectory"
    answers = ("circle", "triangle", "square", "trapezoid", "diamond", "infinity", "star", "none")
    question = "What shape does the trajectory of {subject} form as it moves?"

    def animate(self, scene: Scene, answer: str) -> None:
        look = scene.subject_look(
            ("circle", "star", "square", "triangle", "block"), size=scene.unit * DRAWER_SIZE
        )
        margin = look.size * MARGIN
        if answer == "none":
            px, py = scene.place(margin)
            scene.add("subject", look, px, py)
            scene.ask(["subject"])
            return
        x, y = screen_path(scene, answer, margin)
        scene.add("subject", look, x, y)
        scene.ask(["subject"])
