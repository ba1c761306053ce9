"""Rotation: a shape spinning in place, and a moon orbiting a planet."""

from __future__ import annotations

import numpy as np

from tempogen import observe
from tempogen.generators.motion import MAX_TURN_PER_SAMPLE, Motion, register_motion
from tempogen.generators.paths import signed_sweep
from tempogen.generators.scene import Scene

SENSES = (("cw",), ("ccw",), ("cw", "ccw"), ("ccw", "cw"), ())


@register_motion
class Spin(Motion):
    """A shape spins in place; each sampled step turns less than half its symmetry period."""

    name = "spin"
    temporal_noise = True
    task = "rotation"
    fact = "rotation"
    answers = SENSES
    question = "Which direction(s) does {subject} rotate in, from the viewer's perspective?"

    def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
        look = scene.subject_look(("arrow", "triangle", "star", "square", "block"))
        look.size = max(look.size, 2.2 * scene.unit)
        shape = "text_block" if look.text else look.shape
        limit = min(MAX_TURN_PER_SAMPLE, 0.4 * observe.period_of(shape))
        step = scene.rng.uniform(0.45, 0.9) * limit
        angle = scene.rng.uniform(0, 360) + signed_sweep(scene, answer, step)
        x, y = scene.place(look.size * 1.6)
        scene.add("subject", look, x, y, angle=angle)
        scene.ask(["subject"], kind="spin")


@register_motion
class Orbit(Motion):
    """A moon circles a planet (TOMATO's moon-and-earth), under 90 degrees per sample."""

    name = "orbit"
    temporal_noise = True
    task = "rotation"
    fact = "rotation"
    answers = SENSES
    question = "Which direction(s) does {subject} move around {o1}, from the viewer's perspective?"

    def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
        planet = scene.look(("circle",), size=scene.unit * scene.rng.uniform(1.8, 2.4))
        moon = scene.subject_look(("circle", "star", "square", "triangle"), size=scene.unit * 0.9)
        radius = scene.rng.uniform(0.3, 0.4) * scene.height
        cx, cy = scene.width / 2 + scene.rng.uniform(-0.15, 0.15) * scene.width, scene.height / 2
        step = scene.rng.uniform(0.4, 0.85) * MAX_TURN_PER_SAMPLE
        theta = np.radians(scene.rng.uniform(0, 360) + signed_sweep(scene, answer, step))
        scene.add("planet", planet, cx, cy, role="prop")
        scene.add("subject", moon, cx + radius * np.cos(theta), cy + radius * np.sin(theta))
        scene.ask(["subject", "planet"], kind="orbit")
