"""The ``interaction`` kind: one object sliding into another and knocking it on
(Vinoground's object category, interaction minor)."""

from __future__ import annotations

from tempogen.generators.motion import Scene
from tempogen.generators.pairs.common import PairSpec, register_kind
from tempogen.generators.pairs.twod import (
    Event,
    Setup2D,
    base_scene,
    ease,
    planner,
    progress,
    step,
)


def _setup_interaction(spec: PairSpec) -> Setup2D:
    """Two rows; in each one object slides into another and knocks it on."""
    scene, rng, background = base_scene(spec)
    unit = scene.unit
    w, h = spec.width, spec.height
    looks, rest, events = {}, {}, []
    for row, y in (("1", 0.33 * h), ("2", 0.72 * h)):
        hitter, target = f"hitter{row}", f"target{row}"
        looks[hitter] = scene.look(("circle", "square"), 1.3 * unit)
        looks[target] = scene.look(("circle", "square"), 1.3 * unit)
        sign = 1 if rng.random() < 0.5 else -1
        x_t = w / 2 + sign * 0.12 * w
        x_h = x_t - sign * 0.42 * w
        rest[hitter], rest[target] = {"x": x_h, "y": y}, {"x": x_t, "y": y}
        travel = abs(x_t - x_h) - 2 * 1.3 * unit  # until the two touch

        def timed(sc: Scene, slot: tuple[int, int], hn=hitter, tn=target, s=sign, d=travel):
            # the hitter arrives on a sampled frame and the target starts from that frame
            touch = slot[0] + 3
            return {
                (hn, "x"): s * d * ease(progress(sc, (slot[0], touch))),
                (tn, "x"): s * 2.5 * unit * ease(progress(sc, (touch, slot[1]))),
            }

        signature = [step((hitter, "x", sign)), step((target, "x", sign))]
        events.append(
            Event(looks[hitter].noun, f"hits {looks[target].noun}", dict, signature, timed)
        )
    return Setup2D(scene, looks, rest, tuple(events), background)


register_kind(
    "interaction", ("object", ("interaction",)), (("hits", "hits"),), planner(_setup_interaction)
)
