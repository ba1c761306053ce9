"""A new motion pattern in one file: the subject goes one way, then turns back."""

import numpy as np

from tempogen.generators.motion import Motion, Scene, register_motion


@register_motion
class Zigzag(Motion):
    """The subject goes right then back left, or left then back right: TOMATO's 'first X
    then Y'. Two answers, so a question shows two options."""

    name = "zigzag"
    task = "direction"
    fact = "direction"
    answers = (("right", "left"), ("left", "right"))
    question = "In which direction(s) does {subject} move?"

    def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
        look = scene.subject_look()  # seeded shape, colour, size
        turn = scene.sample_frame(scene.switch_sample())  # a sampled frame mid-clip
        f = scene.frames  # 0, 1, ..., n - 1
        out = 0.5 * np.minimum(f, turn) / turn  # half the width out by the turn...
        back = 0.3 * np.maximum(f - turn, 0) / (scene.n - 1 - turn)  # ...then 0.3 back
        sign = 1.0 if answer[0] == "right" else -1.0
        x = scene.width * (0.5 + sign * (out - back - 0.25))
        scene.add("subject", look, x, scene.height / 2)
        scene.ask(["subject"])  # the question reads the subject
