"""The README's worked example: a new motion pattern is one registered class."""

from __future__ import annotations

import numpy as np
import pytest

from tempogen.generators.motion import MOTIONS, Motion, Scene, Style, make_labels, register_motion


def test_register_a_zigzag_and_generate_it() -> None:
    @register_motion
    class Zigzag(Motion):
        """The subject goes right, then left: TOMATO's 'first X then Y'."""

        name = "zigzag_test"
        task = "direction"
        fact = "direction"
        answers = (("right", "left"),)
        question = "In which direction(s) does {subject} move?"

        def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
            look = scene.subject_look()
            turn = scene.sample_frame(scene.switch_sample())
            f = scene.frames
            x = scene.width * (
                0.2
                + 0.5 * np.minimum(f, turn) / turn
                - 0.3 * np.maximum(f - turn, 0) / (scene.n - turn)
            )
            scene.add("subject", look, x, scene.height / 2)
            scene.ask(["subject"])

    try:
        labels = make_labels(
            MOTIONS["zigzag_test"],
            "right-left",
            np.random.default_rng(0),
            width=320,
            height=180,
            fps=15,
            num_frames=60,
            style=Style(),
        )
        assert labels.subject.x[0] < labels.subject.x[30]
        with pytest.raises(ValueError, match="registered twice"):
            register_motion(Zigzag)
    finally:
        MOTIONS.pop("zigzag_test", None)


def test_a_pattern_whose_states_contradict_its_answer_is_refused() -> None:
    from tempogen.generators.motion import GenerationError

    @register_motion
    class Liar(Motion):
        name = "liar_test"
        task = "direction"
        fact = "direction"
        answers = (("left",),)
        question = "?"

        def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
            look = scene.subject_look()
            scene.add("subject", look, np.linspace(50, 250, scene.n), 90)  # moves right
            scene.ask(["subject"])

    try:
        with pytest.raises(GenerationError, match="asked for 'left' but its states show"):
            make_labels(
                MOTIONS["liar_test"],
                "left",
                np.random.default_rng(0),
                width=320,
                height=180,
                fps=15,
                num_frames=60,
                style=Style(),
            )
    finally:
        MOTIONS.pop("liar_test", None)
