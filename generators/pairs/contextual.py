"""The ``contextual`` kind: the background darkens or brightens while one object moves
(Vinoground's object category, contextual minor)."""

from __future__ import annotations

import numpy as np

from tempogen.generators.pairs.common import PairSpec, ordered, register_kind
from tempogen.generators.pairs.twod import (
    Event,
    Setup2D,
    base_scene,
    ease,
    object_event,
    planner,
    step,
)

BACKDROPS = ("darkens", "brightens")
CONTEXT_MOVES = ("slides right", "slides left", "bounces")
DARK = 0.35  # the darkened background's brightness, as a share of the light one's


def _setup_contextual(spec: PairSpec) -> Setup2D:
    """The background darkens (or brightens) while one object slides or bounces."""
    scene, rng, background = base_scene(spec)
    unit = scene.unit
    look = scene.look(("circle", "square", "triangle", "star"), 1.5 * unit)
    rest = {"a": {"x": float(rng.uniform(0.4, 0.5)) * spec.width, "y": 0.6 * spec.height}}
    dark = (background.astype(np.float32) * DARK).astype(np.uint8)
    events = []
    base = {}
    for ev in spec.events:
        if ev in BACKDROPS:
            sign = 1 if ev == "darkens" else -1
            base[("scene", "dark")] = 0.0 if sign > 0 else 1.0
            effect = lambda u, s=sign: {("scene", "dark"): s * ease(u)}  # noqa: E731
            events.append(Event("the background", ev, effect, [step(("scene", "dark", sign))]))
        else:
            events.append(object_event("a", look, ev, unit))
    return Setup2D(
        scene,
        {"a": look},
        rest,
        tuple(events),
        background,
        backdrop=dark,
        base=base,
    )


register_kind(
    "contextual",
    ("object", ("contextual",)),
    ordered(BACKDROPS, CONTEXT_MOVES),
    planner(_setup_contextual),
)
