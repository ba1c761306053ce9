"""Velocity & frequency: speeding up or slowing down, and repeated actions whose rate changes."""

from __future__ import annotations

import numpy as np

from tempogen.generators.motion import Motion, register_motion
from tempogen.generators.paths import event_samples, fit_start
from tempogen.generators.scene import Scene

# Distance covered as a function of normalised time: speeds in the last third are five
# times (or a fifth of) those in the first, far from the observer's 1.6 threshold.
PROFILES = {
    "accelerating": lambda u: u**2,
    "decelerating": lambda u: 1 - (1 - u) ** 2,
    "constant": lambda u: u,
}
# Gaps between onsets, in sample intervals: shrinking gaps mean rising frequency.
GAPS = {
    "increasing": [[4, 3, 2, 2], [5, 3, 2, 2], [4, 3, 3, 2]],
    "decreasing": [[2, 2, 3, 4], [2, 2, 3, 5], [2, 3, 3, 4]],
    "constant": [[3, 3, 3, 3], [2, 2, 2, 2, 2], [2, 2, 2, 2]],
}
MARGIN = 1.3  # subject sizes kept between a moving subject's centre and the canvas's edge
CUE_MARGIN = 1.6  # sizes kept between a still subject's centre and the canvas's edge
GLIDE_LENGTH = (0.6, 0.9)  # share of the room along its heading a glide covers...
GLIDE_MOST = 0.9  # ...and at most this many canvas heights
FLASH = 0.5  # a flash's length, in sample intervals (a frame at least)
# a bouncing ball
BALL_SIZE = (1.0, 1.4)  # its radius, in scene units
FLOOR_AT = (0.82, 0.9)  # the floor's height on the canvas, as a share from the top
BALL_X = (0.2, 0.8)  # where it bounces across the canvas, as a share of the width
TOP_GAP = 2.5  # ball radii kept between the highest apex and the canvas's top
LOW_ARC = 0.3  # least height of an arc between two contacts, as a share of the highest


@register_motion
class Glide(Motion):
    """A subject moves along a straight line, speeding up, slowing down or steadily."""

    name = "glide"
    temporal_noise = True
    task = "velocity&frequency"
    fact = "speed"
    answers = ("accelerating", "decelerating", "constant", "none")
    question = "What is the speed pattern of {subject}?"

    def animate(self, scene: Scene, answer: str) -> None:
        look = scene.subject_look()
        margin = look.size * MARGIN
        if answer == "none":
            x, y = scene.place(margin)
            scene.add("subject", look, x, y, angle=scene.rng.uniform(0, 360))
            scene.ask(["subject"], kind="position")
            return
        heading = np.radians(scene.rng.choice([0, 45, 90, 135, 180, 225, 270, 315]))
        d = np.array([np.cos(heading), np.sin(heading)])
        room = min(
            (extent - 2 * margin) / abs(c)
            for extent, c in ((scene.width, d[0]), (scene.height, d[1]))
            if abs(c) > 1e-9
        )
        length = scene.rng.uniform(*GLIDE_LENGTH) * min(room, GLIDE_MOST * scene.height)
        end = fit_start(
            np.array([[0, 0], d * length]), scene.width, scene.height, margin, scene.rng
        )
        s = PROFILES[answer](scene.frames / (scene.n - 1))[:, None]
        pos = end[0] + s * (end[1] - end[0])
        scene.add("subject", look, pos[:, 0], pos[:, 1], angle=scene.rng.uniform(0, 360))
        scene.ask(["subject"], kind="position")


@register_motion
class Blink(Motion):
    """A light flashes; the gaps between flashes shrink, grow or stay equal."""

    name = "blink"
    task = "velocity&frequency"
    fact = "frequency"
    answers = ("increasing", "decreasing", "constant", "none")
    question = "How does the flashing frequency of {subject} change over the video?"

    def animate(self, scene: Scene, answer: str) -> None:
        look = scene.subject_look(("circle", "star", "square"))
        x, y = scene.place(look.size * CUE_MARGIN)
        lit = np.zeros(scene.n, bool)
        if answer != "none":
            gaps = GAPS[answer][int(scene.rng.integers(len(GAPS[answer])))]
            for k in event_samples(scene, gaps):
                f = scene.sample_frame(k)
                lit[f : f + max(1, int(FLASH * scene.interval))] = True
        scene.add("subject", look, x, y, role="cue", lit=lit)
        scene.ask(["subject"], kind="flash")


def bounce_heights(scene: Scene, contacts: list[int], floor: float, radius: float) -> np.ndarray:
    """Centre heights of a ball touching ``floor`` at each contact frame, in parabolic arcs
    whose height grows with the square of their duration (as under gravity)."""
    f = scene.frames
    n = scene.n
    knots = [0] + contacts + [n - 1]
    spans = [b - a for a, b in zip(knots[:-1], knots[1:])]
    inner = spans[1:-1] or [1]
    top = max(inner)
    room = floor - radius - TOP_GAP * radius
    y = np.full(n, floor - radius)
    for i, (a, b) in enumerate(zip(knots[:-1], knots[1:])):
        if b <= a:
            continue
        edge = i == 0 or i == len(knots) - 2
        h = room if edge else room * max(LOW_ARC, (spans[i] / top) ** 2)
        seg = (f >= a) & (f <= b)
        s = (f[seg] - a) / (b - a)
        if i == 0:
            lift = 1 - s**2  # falling from an apex at the first frame
        elif i == len(knots) - 2:
            lift = 1 - (1 - s) ** 2  # rising to an apex at the last frame
        else:
            lift = 4 * s * (1 - s)
        y[seg] = floor - radius - h * lift
    return y


@register_motion
class Bounce(Motion):
    """A ball bounces on a floor; contacts land on sampled frames, gaps shrink or grow."""

    name = "bounce"
    temporal_noise = True
    task = "velocity&frequency"
    fact = "frequency"
    answers = ("increasing", "decreasing", "constant")
    question = "How does the bouncing frequency of {subject} change over the video?"

    def animate(self, scene: Scene, answer: str) -> None:
        look = scene.subject_look(("circle",), size=scene.unit * scene.rng.uniform(*BALL_SIZE))
        floor = scene.height * scene.rng.uniform(*FLOOR_AT)
        gaps = GAPS[answer][int(scene.rng.integers(len(GAPS[answer])))]
        contacts = [scene.sample_frame(k) for k in event_samples(scene, gaps)]
        x = scene.rng.uniform(*BALL_X) * scene.width
        scene.add_floor(floor)
        scene.add("subject", look, x, bounce_heights(scene, contacts, floor, look.size))
        scene.ask(["subject", "floor"], kind="bounce")
