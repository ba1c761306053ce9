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


PLUGIN = """
import numpy as np
from tempogen.generators.motion import Motion, Scene, register_motion

@register_motion
class Hop(Motion):
    name = "hop_plugin_test"
    task = "direction"
    fact = "direction"
    answers = (("up",), ("down",))
    question = "In which direction(s) does {subject} move?"

    def animate(self, scene: Scene, answer) -> None:
        look = scene.subject_look()
        sign = -1.0 if answer == ("up",) else 1.0
        y = scene.height / 2 + sign * 0.3 * scene.height * (scene.frames / (scene.n - 1) - 0.5)
        scene.add("subject", look, scene.width / 2, y)
        scene.ask(["subject"])
"""


def test_plugin_module_named_in_config_builds(tmp_path, monkeypatch) -> None:
    import sys

    from tempogen.config import ConfigError, config_from_dict
    from tempogen.generators.build import plan, render_spec

    (tmp_path / "hop_plugin.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        cfg = config_from_dict(
            {
                "plugins": ["hop_plugin"],
                "motions": ["hop_plugin_test"],
                "tasks": ["direction"],
                "samples_per_task": 2,
                "size": [160, 90],
                "fps": 10,
                "duration": [3, 3],
            }
        )
        specs = plan(cfg)
        assert [s.motion for s in specs] == ["hop_plugin_test"] * 2
        assert sorted(s.answer_key for s in specs) == ["down", "up"]
        row = render_spec(specs[0], tmp_path / "out")
        assert row["answer_text"] in ("Upwards.", "Downwards.")
        with pytest.raises(ConfigError, match=r"plugins\[0\]: cannot import 'no_such_mod'"):
            config_from_dict({"plugins": ["no_such_mod"]})
    finally:
        MOTIONS.pop("hop_plugin_test", None)
        sys.modules.pop("hop_plugin", None)
