"""The ``cyclical`` kind: a lamp flashes and a ball bounces in turn, twice (Vinoground's
action category, cyclical minor)."""

from __future__ import annotations

from tempogen.generators.pairs.common import PairSpec, ordered, register_kind
from tempogen.generators.pairs.twod import (
    Setup2D,
    base_scene,
    object_event,
    planner,
)

CYCLE = ("flashes", "bounces")


def _setup_cyclical(spec: PairSpec) -> Setup2D:
    """A lamp flashes and a ball bounces in turn, twice: the procedure in one order or the
    other."""
    scene, rng, background = base_scene(spec)
    unit = scene.unit
    names = {"flashes": "lamp", "bounces": "ball"}
    looks = {
        "lamp": scene.look(("circle",), 1.5 * unit),
        "ball": scene.look(("circle", "square", "star"), 1.5 * unit),
    }
    xs = [0.3 * spec.width, 0.65 * spec.width]
    if rng.random() < 0.5:
        xs.reverse()
    rest: dict[str, dict[str, float | str]] = {
        "lamp": {"x": xs[0], "y": 0.6 * spec.height, "role": "cue"},
        "ball": {"x": xs[1], "y": 0.6 * spec.height},
    }
    events = tuple(object_event(names[k], looks[names[k]], k, unit) for k in spec.events)
    return Setup2D(scene, looks, rest, events, background, repeats=2)


register_kind("cyclical", ("action", ("cyclical",)), ordered(CYCLE), planner(_setup_cyclical))
