"""A simulated person holding props: a ball on each palm, each lighting up at its own moment,
and the question asks which lights up first (fact ``order``)."""

from __future__ import annotations

import numpy as np

from tempogen.errors import GenerationError
from tempogen.generators.humans import (
    HAND_COLORS,
    RGB,
    SIDE_SIGN,
    SIDES,
    HumanMotion,
    Prop,
    Rig,
    body_for,
    draw_look,
    hue_gap,
)
from tempogen.generators.motion import register_motion
from tempogen.generators.scene import Scene

# bright lit paints (a glove's hue read finds them); a dim ball is the same paint greyed
LIGHTS = {**HAND_COLORS, "blue": (40, 90, 250), "violet": (150, 50, 245)}
DIM = (112, 112, 112)
GAP = 90.0  # degrees of hue between the two balls' lit paints (gloves keep clear of both)
DIM_TINT = 0.15  # share of the lit paint left in a dim ball: too unsaturated for a hue mask
BALL_RADIUS = (0.055, 0.07)  # metres: a held ball
HOLD_OUT = (0.1, 0.16)  # metres out from its hip a hand holding a ball stands
HOLD_AT = (0.3, 0.32)  # metres above and ahead of its hip a hand holding a ball stands
PALM_GAP = 0.035  # metres between the hand's centre and the bottom of the ball on its palm


def holder(scene: Scene, motion: str) -> tuple[Rig, list[str], list[RGB]]:
    """A person to hold two balls: two lit paints far apart in hue (gloves keep clear of
    both), the rig, and which hand holds obj1 first in ``sides`` (drawn per seed)."""
    rng = scene.rng
    pairs = [(a, b) for a in LIGHTS for b in LIGHTS if hue_gap(LIGHTS[a], LIGHTS[b]) >= GAP]
    paints = [LIGHTS[c] for c in pairs[int(rng.integers(len(pairs)))]]
    look = draw_look(rng, int(body_for(scene.style.body).num_betas), avoid=paints)
    rig = Rig.start(scene, motion, look)
    sides = list(SIDES) if rng.random() < 0.5 else list(SIDES)[::-1]
    return rig, sides, paints


@register_motion
class HeldLights(HumanMotion):
    """A person holds a ball on each palm; the balls light up one after the other, at once,
    or neither does. Which hand holds obj1 is drawn per seed, so the answer is not a side."""

    name = "held_lights"
    task = "visual_cues"
    fact = "order"
    answers = ((("obj1",), ("obj2",)), (("obj2",), ("obj1",)), (("obj1", "obj2"),), ())
    question = "Which of the two balls the person holds lights up first?"
    objects = ("obj1", "obj2")

    def animate(self, scene: Scene, answer: tuple) -> None:
        from tempogen.generators.patterns.visual_cues import end_samples, start_samples

        rng, names = scene.rng, list(self.objects)
        rig, sides, paints = holder(scene, self.name)
        for side in sides:  # forearms forward, palms up
            out = SIDE_SIGN[side] * rng.uniform(*HOLD_OUT)
            at = rig.rest_point(f"{side}_hip") + [out, *HOLD_AT]
            if not rig.reachable(side, at[None]):
                raise GenerationError(f"motion {self.name!r}: the held ball is out of reach")
            rig.arm_to(side, np.tile(at, (scene.n, 1)), palm_toward=np.array([0.0, 1.0, 0.0]))
        radius = float(rng.uniform(*BALL_RADIUS))
        centres = {s: rig.hand(s) + [0.0, radius + PALM_GAP, 0.0] for s in sides}
        tops = [c + [0.0, radius, 0.0] for c in centres.values()]
        rig.third_person(rig.frame_points(tops, upper=True))
        onsets = start_samples(scene, names, answer)
        offsets = end_samples(scene, onsets)
        for name, side, paint in zip(names, sides, paints):
            lit = np.zeros(scene.n, bool)
            if name in onsets:
                lit[scene.sample_frame(onsets[name]) : scene.sample_frame(offsets[name])] = True
            dim = np.round(DIM_TINT * np.array(paint) + (1 - DIM_TINT) * np.array(DIM))
            colors = np.where(lit[:, None], np.array(paint), dim)
            rig.props.append(Prop.ball(radius, paint, centres[side], colors))
            noun = f"the ball in {rig.hand_noun(side)}"
            rig.track(name, centres[side], noun, paint, radius, shape="ball", lit=lit)
        scene.ask(names, kind="lit")
        rig.finish()
