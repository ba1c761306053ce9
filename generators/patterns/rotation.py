"""Rotation: a shape spinning in place, and a moon orbiting a planet."""

from __future__ import annotations

import numpy as np

from tempogen import observe
from tempogen.generators.motion import MAX_TURN_PER_SAMPLE, Motion, register_motion
from tempogen.generators.paths import signed_sweep
from tempogen.generators.scene import Scene

SENSES = (("cw",), ("ccw",), ("cw", "ccw"), ("ccw", "cw"), ())
# a turn per sample stays under this share of the least turn that looks the same (a square's
# 90 degrees, an arrow's 360), so the sampled frames cannot alias
ALIAS_SHARE = 0.4
SPIN_SIZE = 2.2  # least radius of a spinning shape, in scene units: its turn must show
SPIN_STEP = (0.45, 0.9)  # a spin's turn per sample, as a share of the most that cannot alias
SPIN_MARGIN = 1.6  # sizes kept between the shape's centre and the canvas's edge
PLANET_SIZE = (1.8, 2.4)  # the planet's radius, in scene units
MOON_SIZE = 0.9  # the moon's radius, in scene units
ORBIT_RADIUS = (0.3, 0.4)  # the orbit's radius, as a share of the canvas's height
ORBIT_SHIFT = 0.15  # most the planet strays from the middle, as a share of the width
ORBIT_STEP = (0.4, 0.85)  # a moon's turn per sample, as a share of the most


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
        look.size = max(look.size, SPIN_SIZE * scene.unit)
        shape = "text_block" if look.text else look.shape
        limit = min(MAX_TURN_PER_SAMPLE, ALIAS_SHARE * observe.period_of(shape))
        step = scene.rng.uniform(*SPIN_STEP) * limit
        angle = scene.rng.uniform(0, 360) + signed_sweep(scene, answer, step)
        x, y = scene.place(look.size * SPIN_MARGIN)
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
        planet = scene.look(("circle",), size=scene.unit * scene.rng.uniform(*PLANET_SIZE))
        moon = scene.subject_look(
            ("circle", "star", "square", "triangle"), size=scene.unit * MOON_SIZE
        )
        radius = scene.rng.uniform(*ORBIT_RADIUS) * scene.height
        cx, cy = (
            scene.width / 2 + scene.rng.uniform(-ORBIT_SHIFT, ORBIT_SHIFT) * scene.width,
            scene.height / 2,
        )
        step = scene.rng.uniform(*ORBIT_STEP) * MAX_TURN_PER_SAMPLE
        theta = np.radians(scene.rng.uniform(0, 360) + signed_sweep(scene, answer, step))
        scene.add("planet", planet, cx, cy, role="prop")
        scene.add("subject", moon, cx + radius * np.cos(theta), cy + radius * np.sin(theta))
        scene.ask(["subject", "planet"], kind="orbit")
