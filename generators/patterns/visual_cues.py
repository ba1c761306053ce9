"""Visual cues: which object starts moving, or which light turns on, first."""

from __future__ import annotations

import numpy as np

from tempogen.generators.motion import Motion, register_motion
from tempogen.generators.paths import UNIT
from tempogen.generators.scene import Scene


def start_samples(scene: Scene, names: list[str], answer: tuple) -> dict[str, int]:
    """Sample index at which each object starts; the first is at least 2 samples ahead."""
    if not answer:
        return {}
    k0 = int(scene.rng.integers(2, 6))
    if len(answer[0]) > 1:
        return {n: k0 for n in names}
    first = answer[0][0]
    out = {first: k0}
    for n in names:
        if n != first:
            out[n] = k0 + int(scene.rng.integers(2, 5))
    return out


def end_samples(scene: Scene, onsets: dict[str, int]) -> dict[str, int]:
    """Sample index where each action ends: before the end, with ends 2+ samples apart, so
    that a reversed clip still has a clear order."""
    names = sorted(onsets, key=lambda n: onsets[n])
    ends = sorted(scene.rng.choice(np.arange(10, 15), size=len(names), replace=False))
    while any(b - a < 2 for a, b in zip(ends[:-1], ends[1:])):
        ends = sorted(scene.rng.choice(np.arange(8, 15), size=len(names), replace=False))
    perm = scene.rng.permutation(len(names))
    return {n: int(max(ends[p], onsets[n] + 3)) for n, p in zip(names, perm)}


def _row(scene: Scene, k: int, size: float) -> list[tuple[float, float]]:
    xs = np.linspace(0.25, 0.75, k) * scene.width if k > 1 else [scene.width / 2]
    y = scene.rng.uniform(0.35, 0.65) * scene.height
    return [(float(x), float(y + scene.rng.uniform(-0.1, 0.1) * scene.height)) for x in xs]


@register_motion
class FirstMover(Motion):
    """Two objects at rest; one starts moving first, both at once, or neither moves."""

    name = "first_mover"
    temporal_noise = True
    task = "visual_cues"
    fact = "order"
    answers = ((("obj1",), ("obj2",)), (("obj2",), ("obj1",)), (("obj1", "obj2"),), ())
    question = "Which object starts moving first?"
    objects = ("obj1", "obj2")

    def animate(self, scene: Scene, answer: tuple) -> None:
        names = list(self.objects)
        onsets = start_samples(scene, names, answer)
        offsets = end_samples(scene, onsets)
        for name, (x0, y0) in zip(names, _row(scene, 2, scene.unit * 1.5)):
            look = scene.look(size=scene.unit * 1.4)
            x, y = np.full(scene.n, x0), np.full(scene.n, y0)
            if name in onsets:
                a, b = scene.sample_frame(onsets[name]), scene.sample_frame(offsets[name])
                u = np.clip((scene.frames - a) / (b - a), 0, 1)
                dx, dy = UNIT["up" if y0 > scene.height / 2 else "down"]  # towards the middle
                dist = scene.rng.uniform(0.15, 0.25) * scene.height
                x, y = x0 + dx * dist * u, y0 + dy * dist * u
            scene.add(name, look, x, y, role="prop")
        scene.ask(names, kind="move")


@register_motion
class FirstLight(Motion):
    """Three lamps in a row; one lights up first, all at once, or none does."""

    name = "first_light"
    task = "visual_cues"
    fact = "order"
    answers = (
        (("obj1",), ("obj2", "obj3")),
        (("obj2",), ("obj1", "obj3")),
        (("obj3",), ("obj1", "obj2")),
        (("obj1", "obj2", "obj3"),),
        (),
    )
    question = "Which light turns on first?"
    objects = ("obj1", "obj2", "obj3")

    def animate(self, scene: Scene, answer: tuple) -> None:
        names = list(self.objects)
        onsets = start_samples(scene, names, answer)
        offsets = end_samples(scene, onsets)
        shape = str(scene.rng.choice(["circle", "square", "star"]))
        for name, (x, y) in zip(names, _row(scene, 3, scene.unit * 1.5)):
            look = scene.look((shape,), size=scene.unit * 1.4)
            lit = np.zeros(scene.n, bool)
            if name in onsets:
                lit[scene.sample_frame(onsets[name]) : scene.sample_frame(offsets[name])] = True
            scene.add(name, look, x, y, role="cue", lit=lit)
        scene.ask(names, kind="lit")
