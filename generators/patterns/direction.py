"""Direction: a subject slides in one straight leg, or two legs with a turn mid-clip."""

from __future__ import annotations

import numpy as np

from tempogen.generators.motion import Motion, register_motion
from tempogen.generators.paths import UNIT, fit_start, through
from tempogen.generators.scene import Scene

SINGLE = [(d,) for d in UNIT]  # the answers of one straight leg
PAIRS = [(a, b) for a in UNIT for b in UNIT if a != b]  # the answers of two legs, a turn between
SHRINK = (1.0, 0.8, 0.6, 0.45, 0.3)  # path scales tried until the path fits the canvas
SPEED = (0.5, 0.8)  # canvas heights a full-length path covers over the clip
MARGIN = 1.3  # subject sizes kept between its centre and the canvas's edge


def slide_path(
    scene: Scene, answer: tuple[str, ...], margin: float
) -> tuple[np.ndarray, np.ndarray]:
    """Per-frame pixel positions moving in one straight leg, or two with the turn on a sampled
    frame, ``margin`` inside the canvas; shared by the 2D and the 3D sliders."""
    n = scene.n
    knots = (
        [0, n - 1] if len(answer) == 1 else [0, scene.sample_frame(scene.switch_sample()), n - 1]
    )
    for shrink in SHRINK:
        speed = scene.rng.uniform(*SPEED) * scene.height * shrink / (n - 1)
        pts = [np.zeros(2)]
        for tok, (a, b) in zip(answer, zip(knots[:-1], knots[1:])):
            pts.append(pts[-1] + np.array(UNIT[tok]) * speed * (b - a))
        try:
            path = fit_start(np.array(pts), scene.width, scene.height, margin, scene.rng)
            break
        except ValueError:
            continue
    else:
        raise ValueError(f"slide {answer}: no path fits the canvas")
    x, y = through(path, np.array(knots, float), scene.frames)
    return x, y


@register_motion
class Slide(Motion):
    """Left, right, up, down, first X then Y, or no movement."""

    name = "slide"
    temporal_noise = True
    task = "direction"
    fact = "direction"
    answers = tuple(SINGLE + PAIRS + [()])
    question = "In which direction(s) does {subject} move?"

    def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
        look = scene.subject_look()
        margin = look.size * MARGIN
        if not answer:
            px, py = scene.place(margin)
            scene.add("subject", look, px, py, angle=scene.rng.uniform(0, 360))
            scene.ask(["subject"])
            return
        x, y = slide_path(scene, answer, margin)
        scene.add("subject", look, x, y, angle=scene.rng.uniform(0, 360))
        scene.ask(["subject"])
