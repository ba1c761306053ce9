"""The ``viewpoint`` kind: two still objects, the camera zooming and panning (Vinoground's
viewpoint category)."""

from __future__ import annotations

import math

from tempogen.generators.pairs.common import PairSpec, ordered, register_kind
from tempogen.generators.pairs.twod import (
    Event,
    Setup2D,
    base_scene,
    ease,
    planner,
    step,
)

ZOOMS = ("zooms in", "zooms out")
PANS = ("pans to the left", "pans to the right")
NEAR_ZOOM, FAR_ZOOM = 1.75, 1.3  # the camera's zoom when close and when far
PAN_SHIFT = 0.11  # how far a pan moves the scene, as a share of the width


def _setup_viewpoint(spec: PairSpec) -> Setup2D:
    """Two still objects, the camera zooming about their midpoint and panning sideways."""
    scene, rng, background = base_scene(spec)
    unit = scene.unit
    w, h = spec.width, spec.height
    cx, cy = w / 2, float(rng.uniform(0.45, 0.55)) * h
    looks = {
        "a": scene.look(("circle", "square", "triangle", "star"), 1.2 * unit),
        "b": scene.look(("circle", "square", "triangle", "star"), 1.2 * unit),
    }
    rest = {"a": {"x": cx - 0.14 * w, "y": cy}, "b": {"x": cx + 0.14 * w, "y": cy}}
    near, far = math.log(NEAR_ZOOM), math.log(FAR_ZOOM)
    zoom_in = "zooms in" in spec.events
    base = {("scene", "logzoom"): far if zoom_in else near, ("scene", "pan"): 0.0}
    shift = PAN_SHIFT * w
    events = []
    for ev in spec.events:
        if ev in ZOOMS:
            sign = 1 if ev == "zooms in" else -1
            effect = lambda u, s=sign: {("scene", "logzoom"): s * (near - far) * ease(u)}  # noqa: E731
            sig = [
                step(
                    ("a", "x", -sign), ("b", "x", sign), ("a", "scale", sign), ("b", "scale", sign)
                )
            ]
        else:
            # the camera pans right: the scene slides left on screen
            sign = -1 if ev.endswith("right") else 1
            effect = lambda u, s=sign: {("scene", "pan"): s * shift * ease(u)}  # noqa: E731
            sig = [step(("a", "x", sign), ("b", "x", sign))]
        events.append(Event("the camera", ev, effect, sig))
    return Setup2D(
        scene,
        looks,
        rest,
        tuple(events),
        background,
        view=(cx, cy),
        base=base,
    )


register_kind("viewpoint", ("viewpoint", ()), ordered(ZOOMS, PANS), planner(_setup_viewpoint))
