"""The ``action`` kind: one arrow doing two things (Vinoground's action category)."""

from __future__ import annotations

from tempogen.generators.pairs.common import PairSpec, ordered, register_kind
from tempogen.generators.pairs.twod import (
    Setup2D,
    base_scene,
    object_event,
    planner,
)

ACTION_EVENTS = ("spins", "bounces", "grows")


def _setup_action(spec: PairSpec) -> Setup2D:
    """One arrow doing two things."""
    scene, rng, background = base_scene(spec)
    look = scene.look(("arrow",), float(rng.uniform(1.5, 1.9)) * scene.unit)
    rest = {"a": {"x": float(rng.uniform(0.4, 0.6)) * spec.width, "y": 0.6 * spec.height}}
    events = tuple(object_event("a", look, k, scene.unit) for k in spec.events)
    return Setup2D(scene, {"a": look}, rest, events, background)


register_kind("action", ("action", ()), ordered(ACTION_EVENTS), planner(_setup_action))
