"""The ``human`` kind: a simulated person making two gestures, in one order or the other
(3D, pyrender; Vinoground's action category)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.choices import BACKGROUNDS
from tempogen.generators.motion import Scene
from tempogen.generators.pairs.common import (
    PairScene,
    PairSpec,
    certify,
    ordered,
    register_kind,
)
from tempogen.labels import Labels

GESTURES = observe.GESTURES
HUMAN_STARTS = (2, 9)  # a gesture rises over one interval, is held over one, comes down


def _plan_human(spec: PairSpec) -> PairScene:
    """A simulated person making two gestures, in one order or the other (3D, pyrender)."""
    from tempogen.facts import NEXT_TEXT, gesture_words
    from tempogen.generators.patterns.human_actions import ActionOrder

    motion = ActionOrder()
    labels: dict[str, Labels] = {}
    worlds: dict[str, Any] = {}
    background = ""
    for side, seq in (("pos", list(spec.events)), ("neg", list(spec.events[::-1]))):
        rng = np.random.default_rng(spec.seed)
        background = str(rng.choice(BACKGROUNDS))
        scene = Scene(rng, spec.width, spec.height, spec.fps, spec.num_frames)
        scene.fact = "next"
        motion.perform(scene, seq, list(HUMAN_STARTS))
        scene.ask(list(motion.objects), kind=seq[0])
        labels[side], worlds[side] = scene.labels(), scene.world
    expected = {"pos": tuple(spec.events), "neg": tuple(spec.events[::-1])}
    cert = certify(spec, labels, expected, observe.gestures)
    person = str(labels["pos"].meta.get("person", "the person"))

    def words(g: str) -> str:
        text = gesture_words(NEXT_TEXT[g], labels["pos"])
        return text[0].lower() + text[1:].rstrip(".")

    a, b = (words(g) for g in spec.events)

    def draw(side: str) -> Iterator[np.ndarray]:
        return worlds[side].frames(background, np.random.default_rng(spec.seed + 1))

    return PairScene(
        spec,
        labels["pos"],
        labels["neg"],
        f"{person} {a} then {b}",
        f"{person} {b} then {a}",
        cert,
        {"pos": lambda: draw("pos"), "neg": lambda: draw("neg")},
    )


register_kind("human", ("action", ()), ordered(GESTURES), _plan_human)
