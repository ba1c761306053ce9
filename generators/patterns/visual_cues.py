"""Visual cues: which object starts moving, or which light turns on, first."""

from __future__ import annotations

import numpy as np

from tempogen.generators.motion import Motion, register_motion
from tempogen.generators.paths import UNIT
from tempogen.generators.scene import Scene

# when things start and end, in sample indices (0..15)
FIRST_START = (2, 6)  # the first start: from the 3rd sample to the 6th
LAG = (2, 5)  # samples a later start follows the first: 2 to 4
ENDS = (10, 15)  # where the actions end: from the 11th sample to the 15th...
ENDS_WIDE = (8, 15)  # ...or, where that leaves two ends too close, from the 9th
END_GAP = 2  # least samples between two ends: a reversed clip still has a clear order
LEAST_RUN = 3  # least samples an action lasts
# a row of objects
ROW = (0.25, 0.75)  # the row's ends, as shares of the width
ROW_HEIGHT = (0.35, 0.65)  # the row's height, as a share of the canvas's
ROW_JITTER = 0.1  # most an object strays up or down from the row, as a share of the height
OBJECT_SIZE = 1.4  # an object's radius, in scene units
MOVE = (0.15, 0.25)  # how far a mover goes, as a share of the canvas's height


def start_samples(scene: Scene, names: list[str], answer: tuple) -> dict[str, int]:
    """Sample index at which each object starts; the first is at least 2 samples ahead."""
    if not answer:
        return {}
    k0 = int(scene.rng.integers(*FIRST_START))
    if len(answer[0]) > 1:
        return {n: k0 for n in names}
    first = answer[0][0]
    out = {first: k0}
    for n in names:
        if n != first:
            out[n] = k0 + int(scene.rng.integers(*LAG))
    return out


def end_samples(scene: Scene, onsets: dict[str, int]) -> dict[str, int]:
    """Sample index where each action ends: before the end, with ends 2+ samples apart, so
    that a reversed clip still has a clear order."""
    names = sorted(onsets, key=lambda n: onsets[n])
    ends = sorted(scene.rng.choice(np.arange(*ENDS), size=len(names), replace=False))
    while any(b - a < END_GAP for a, b in zip(ends[:-1], ends[1:])):
        ends = sorted(scene.rng.choice(np.arange(*ENDS_WIDE), size=len(names), replace=False))
    perm = scene.rng.permutation(len(names))
    return {n: int(max(ends[p], onsets[n] + LEAST_RUN)) for n, p in zip(names, perm)}


def _row(scene: Scene, k: int, size: float) -> list[tuple[float, float]]:
    xs = np.linspace(*ROW, k) * scene.width if k > 1 else [scene.width / 2]
    y = scene.rng.uniform(*ROW_HEIGHT) * scene.height
    return [
        (float(x), float(y + scene.rng.uniform(-ROW_JITTER, ROW_JITTER) * scene.height)) for x in xs
    ]


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
            look = scene.look(size=scene.unit * OBJECT_SIZE)
            x, y = np.full(scene.n, x0), np.full(scene.n, y0)
            if name in onsets:
                a, b = scene.sample_frame(onsets[name]), scene.sample_frame(offsets[name])
                u = np.clip((scene.frames - a) / (b - a), 0, 1)
                dx, dy = UNIT["up" if y0 > scene.height / 2 else "down"]  # towards the middle
                dist = scene.rng.uniform(*MOVE) * scene.height
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
            look = scene.look((shape,), size=scene.unit * OBJECT_SIZE)
            lit = np.zeros(scene.n, bool)
            if name in onsets:
                lit[scene.sample_frame(onsets[name]) : scene.sample_frame(offsets[name])] = True
            scene.add(name, look, x, y, role="cue", lit=lit)
        scene.ask(names, kind="lit")
