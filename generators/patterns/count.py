"""Action count: N = 1..6 bounces, flashes, or loops around a post."""

from __future__ import annotations

import numpy as np

from tempogen.generators.motion import Motion, register_motion
from tempogen.generators.paths import event_samples, spaced_gaps
from tempogen.generators.patterns.velocity import (
    BALL_SIZE,
    BALL_X,
    CUE_MARGIN,
    FLASH,
    FLOOR_AT,
    bounce_heights,
)
from tempogen.generators.scene import SAMPLES, Scene


@register_motion
class BounceCount(Motion):
    """A ball bounces N times; every contact is on a sampled frame, with air between."""

    name = "bounce_count"
    temporal_noise = True
    task = "count"
    fact = "count"
    answers = (1, 2, 3, 4, 5, 6)
    question = "How many times does {subject} bounce on the floor?"

    def animate(self, scene: Scene, answer: int) -> None:
        look = scene.subject_look(("circle",), size=scene.unit * scene.rng.uniform(*BALL_SIZE))
        floor = scene.height * scene.rng.uniform(*FLOOR_AT)
        contacts = [scene.sample_frame(k) for k in event_samples(scene, spaced_gaps(scene, answer))]
        x = scene.rng.uniform(*BALL_X) * scene.width
        scene.add_floor(floor)
        scene.add("subject", look, x, bounce_heights(scene, contacts, floor, look.size))
        scene.ask(["subject", "floor"], kind="bounce")


@register_motion
class FlashCount(Motion):
    """A light flashes N times, each flash seen on one sampled frame."""

    name = "flash_count"
    task = "count"
    fact = "count"
    answers = (1, 2, 3, 4, 5, 6)
    question = "How many times does {subject} flash?"

    def animate(self, scene: Scene, answer: int) -> None:
        look = scene.subject_look(("circle", "star", "square"))
        x, y = scene.place(look.size * CUE_MARGIN)
        lit = np.zeros(scene.n, bool)
        for k in event_samples(scene, spaced_gaps(scene, answer)):
            f = scene.sample_frame(k)
            lit[f : f + max(1, int(FLASH * scene.interval))] = True
        scene.add("subject", look, x, y, role="cue", lit=lit)
        scene.ask(["subject"], kind="flash")


LOOP_EXTRA = (20.0, 40.0)  # degrees past the N-th lap: centroid noise cannot drop a lap
POST_SIZE = 1.2  # the post's radius, in scene units
LOOPER_SIZE = 0.9  # the looping subject's radius, in scene units
LOOP_RADIUS = (0.28, 0.38)  # the loop's radius, as a share of the canvas's height
LOOP_SHIFT = 0.2  # most the post strays from the middle, as a share of the width


@register_motion
class LoopCount(Motion):
    """A subject circles a post N whole times and a little more (N <= 3 keeps each sampled
    step under 90°); ending exactly on the N-th lap, a read of the pixels a degree short
    would count one lap fewer."""

    name = "loop_count"
    temporal_noise = True
    task = "count"
    fact = "count"
    answers = (1, 2, 3)
    question = "How many full loops does {subject} make around {o1}?"

    def animate(self, scene: Scene, answer: int) -> None:
        post = scene.look(("square", "circle"), size=scene.unit * POST_SIZE)
        look = scene.subject_look(("circle", "star", "triangle"), size=scene.unit * LOOPER_SIZE)
        radius = scene.rng.uniform(*LOOP_RADIUS) * scene.height
        cx = scene.width / 2 + scene.rng.uniform(-LOOP_SHIFT, LOOP_SHIFT) * scene.width
        cy = scene.height / 2
        sense = scene.rng.choice([-1.0, 1.0])
        total = 360.0 * answer + scene.rng.uniform(*LOOP_EXTRA)
        # linear in sample position: every sampled step turns total / 15 (under 80 degrees)
        # even where sampled frames are 3 or 4 apart
        at = np.interp(scene.frames, scene.samples, np.arange(SAMPLES, dtype=np.float64))
        theta = np.radians(scene.rng.uniform(0, 360) + sense * total * at / (SAMPLES - 1))
        scene.add("post", post, cx, cy, role="prop")
        scene.add("subject", look, cx + radius * np.cos(theta), cy + radius * np.sin(theta))
        scene.ask(["subject", "post"], kind="loop")
