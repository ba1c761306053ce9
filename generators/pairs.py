"""Natural synthetic caption pairs: one two-event scene rendered in both event orders.

Both clips show the same objects on the same background; only the order of the two events
differs (no reversal, no cut), so the captions "A x then B y" / "B y then A x" use exactly the
same words and only temporal order tells them apart (Vinoground's counterfactual pairs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tempogen.generators.motion import SAMPLES, Look, Scene
from tempogen.generators.render2d import BACKGROUNDS, Compositor, make_background
from tempogen.labels import Labels
from tempogen.video import VideoWriter

EVENTS = ("bounces", "spins", "flashes", "slides right")
# Ordered pairs of distinct events; plan_pairs cycles through them so every kind appears
# equally often first and second.
EVENT_PAIRS: tuple[tuple[str, str], ...] = tuple((a, b) for a in EVENTS for b in EVENTS if a != b)
# Each event lasts 5 of TOMATO's 16 sample intervals; the first sits in the first half, the
# second in the second half, 3 intervals of stillness between them.
WINDOWS = ((1.0, 6.0), (9.0, 14.0))
DEFAULT_SECONDS = 6.0
SHAPES_FOR = {
    "bounces": ("circle", "square", "triangle", "star"),
    "spins": ("arrow",),  # no rotational symmetry: a full turn is visible
    "flashes": ("circle",),  # a lamp (role "cue"): dim when off, lit with a halo when on
    "slides right": ("circle", "square", "triangle", "star"),
}


@dataclass(frozen=True)
class PairSpec:
    """Everything needed to render one pair; ``kinds`` are the events of objects A and B."""

    index: int
    seed: int
    width: int
    height: int
    fps: float
    seconds: float = DEFAULT_SECONDS
    kinds: tuple[str, str] = ("bounces", "spins")

    @property
    def num_frames(self) -> int:
        return int(round(self.seconds * self.fps))


@dataclass(frozen=True)
class PairScene:
    """Labels and captions of both orders of one pair, plus the shared background."""

    spec: PairSpec
    pos_labels: Labels
    neg_labels: Labels
    pos_caption: str
    neg_caption: str
    background: np.ndarray
    minor: str


def plan_pairs(n: int, seed: int, width: int, height: int, fps: float) -> list[PairSpec]:
    """``n`` pair specs; event pairs cycle through a seeded permutation of all ordered pairs."""
    rng = np.random.default_rng(seed)
    order: list[int] = []
    while len(order) < n:
        order.extend(int(i) for i in rng.permutation(len(EVENT_PAIRS)))
    return [
        PairSpec(
            index=i,
            seed=int(np.random.SeedSequence([seed, i]).generate_state(1)[0]),
            width=width,
            height=height,
            fps=fps,
            kinds=EVENT_PAIRS[order[i]],
        )
        for i in range(n)
    ]


def _progress(scene: Scene, window: tuple[float, float]) -> np.ndarray:
    """0 before the window, 1 after it, linear inside (window in sample intervals)."""
    f0, f1 = window[0] * scene.interval, window[1] * scene.interval
    return np.clip((scene.frames - f0) / (f1 - f0), 0.0, 1.0)


def _states(kind: str, u: np.ndarray, x0: float, y0: float, unit: float) -> dict[str, Any]:
    """Per-frame states of one object doing ``kind`` as its progress ``u`` goes 0 -> 1."""
    if kind == "bounces":
        return {"x": x0, "y": y0 - 3.0 * unit * np.sin(math.pi * u)}
    if kind == "spins":
        return {"x": x0, "y": y0, "angle": 360.0 * u}
    if kind == "flashes":
        return {"x": x0, "y": y0, "lit": (u > 0.2) & (u < 0.8)}
    if kind == "slides right":
        return {"x": x0 + 3.0 * unit * (3 * u**2 - 2 * u**3), "y": y0}
    raise ValueError(f"unknown event {kind!r}; known: {EVENTS}")


def _labels(
    spec: PairSpec, looks: tuple[Look, Look], xs: tuple[float, float], y0: float, first: int
) -> Labels:
    """Labels of the order in which object ``first`` (0 = A, 1 = B) acts first."""
    scene = Scene(np.random.default_rng(0), spec.width, spec.height, spec.fps, spec.num_frames)
    scene.fact = "order"
    for i, name in enumerate(("a", "b")):
        window = WINDOWS[0] if i == first else WINDOWS[1]
        kind = spec.kinds[i]
        states = _states(kind, _progress(scene, window), xs[i], y0, scene.unit)
        role = "cue" if kind == "flashes" else "subject"
        scene.add(name, looks[i], role=role, **states)
    scene.ask(("a", "b") if first == 0 else ("b", "a"), kind="event")
    return scene.labels()


def plan_scene(spec: PairSpec) -> PairScene:
    """Looks, places, both orders' labels, captions and background of one pair."""
    if spec.num_frames < SAMPLES:
        raise ValueError(f"pair {spec.index}: {spec.num_frames} frames is fewer than {SAMPLES}")
    rng = np.random.default_rng(spec.seed)
    base = Scene(rng, spec.width, spec.height, spec.fps, spec.num_frames)
    unit = base.unit
    size_a, size_b = (float(s) for s in rng.permutation([1.4 * unit, 1.9 * unit]))
    looks = (
        base.look(SHAPES_FOR[spec.kinds[0]], size_a),
        base.look(SHAPES_FOR[spec.kinds[1]], size_b),
    )
    left, right = 0.3 * spec.width, 0.62 * spec.width
    xs = (left, right) if rng.random() < 0.5 else (right, left)
    y0 = float(rng.uniform(0.55, 0.65) * spec.height)
    background = make_background(str(rng.choice(BACKGROUNDS)), spec.width, spec.height, rng)
    a = f"{looks[0].noun} {spec.kinds[0]}"
    b = f"{looks[1].noun} {spec.kinds[1]}"
    return PairScene(
        spec=spec,
        pos_labels=_labels(spec, looks, xs, y0, first=0),
        neg_labels=_labels(spec, looks, xs, y0, first=1),
        pos_caption=f"{a} then {b}",
        neg_caption=f"{b} then {a}",
        background=background,
        minor="spatial" if "slides right" in spec.kinds else "",
    )


def _render(labels: Labels, background: np.ndarray, path: Path) -> None:
    """Encode one clip (the writer renames the file into place only when complete)."""
    comp = Compositor(labels, background)
    with VideoWriter(path, labels.fps, labels.width, labels.height) as vw:
        for frame in comp.frames():
            vw.write(frame)


def render_pair(spec: PairSpec, out_dir: Path) -> dict[str, Any]:
    """Render both orders to ``out_dir/videos/pair{index}_{pos,neg}.mp4``; return the record."""
    out_dir = Path(out_dir)
    scene = plan_scene(spec)
    rel = {side: f"videos/pair{spec.index}_{side}.mp4" for side in ("pos", "neg")}
    _render(scene.pos_labels, scene.background, out_dir / rel["pos"])
    _render(scene.neg_labels, scene.background, out_dir / rel["neg"])
    return {
        "index": spec.index,
        "pos_caption": scene.pos_caption,
        "neg_caption": scene.neg_caption,
        "major": "action",
        "minor": scene.minor,
        "pos_video": rel["pos"],
        "neg_video": rel["neg"],
        "num_frames": spec.num_frames,
        "fps": spec.fps,
    }
