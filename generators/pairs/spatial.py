"""The ``spatial`` kind: one shape moving one way, then another (Vinoground's action
category, spatial minor)."""

from __future__ import annotations

from tempogen.generators.pairs.common import PairSpec, ordered, register_kind
from tempogen.generators.pairs.twod import (
    Setup2D,
    base_scene,
    object_event,
    planner,
)

MOVES_H = ("moves left", "moves right")
MOVES_V = ("moves up", "moves down")


def _setup_spatial(spec: PairSpec) -> Setup2D:
    """One shape moving one way, then another."""
    scene, rng, background = base_scene(spec)
    look = scene.look(("circle", "square", "triangle", "star"), 1.5 * scene.unit)
    rest = {"a": {"x": 0.5 * spec.width, "y": 0.5 * spec.height}}
    events = tuple(object_event("a", look, k, scene.unit) for k in spec.events)
    return Setup2D(scene, {"a": look}, rest, events, background)


register_kind(
    "spatial", ("action", ("spatial",)), ordered(MOVES_H, MOVES_V), planner(_setup_spatial)
)
