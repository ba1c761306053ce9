"""The ``object`` kind: two objects side by side, each doing its own event (Vinoground's
object category; spatial when one slides)."""

from __future__ import annotations

from tempogen.generators.pairs.common import PairSpec, ordered, register_kind
from tempogen.generators.pairs.twod import (
    Setup2D,
    base_scene,
    object_event,
    planner,
)

OBJECT_EVENTS = ("bounces", "spins", "flashes", "slides right")

SHAPES_FOR = {
    "bounces": ("circle", "square", "triangle", "star"),
    "spins": ("arrow",),  # no rotational symmetry: a full turn is visible
    "flashes": ("circle",),  # a lamp (role "cue"): dim when off, lit with a halo when on
    "slides right": ("circle", "square", "triangle", "star"),
}


def _setup_object(spec: PairSpec) -> Setup2D:
    """Two objects side by side, each doing its own event."""
    scene, rng, background = base_scene(spec)
    unit = scene.unit
    sizes = [float(s) for s in rng.permutation([1.4 * unit, 1.9 * unit])]
    looks = {n: scene.look(SHAPES_FOR[k], s) for n, k, s in zip("ab", spec.events, sizes)}
    xs = [0.3 * spec.width, 0.62 * spec.width]
    if rng.random() < 0.5:
        xs.reverse()
    y0 = float(rng.uniform(0.55, 0.65) * spec.height)
    rest = {
        n: {"x": x, "y": y0, "role": "cue" if k == "flashes" else "subject"}
        for n, x, k in zip("ab", xs, spec.events)
    }
    events = tuple(object_event(n, looks[n], k, unit) for n, k in zip("ab", spec.events))
    return Setup2D(scene, looks, rest, events, background)


register_kind("object", ("object", ()), ordered(OBJECT_EVENTS), planner(_setup_object))
