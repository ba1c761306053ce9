"""The worked example of docs/extend/motion-pattern.md: a new motion pattern is one
registered class, ``examples/zigzag.py`` (the page includes that file, so the class tested
here is the class the page shows)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from tempogen.generators.motion import MOTIONS, Motion, Scene, Style, make_labels, register_motion

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "zigzag.py"
CLIP = {"width": 320, "height": 180, "fps": 15, "num_frames": 60, "style": Style()}


@pytest.fixture
def zigzag():
    spec = importlib.util.spec_from_file_location("zigzag", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["zigzag"] = mod
    try:
        spec.loader.exec_module(mod)
        yield mod.Zigzag
    finally:
        MOTIONS.pop("zigzag", None)
        sys.modules.pop("zigzag", None)


def test_the_pages_zigzag_certifies_both_answers(zigzag) -> None:
    assert MOTIONS["zigzag"].keys() == ["right-left", "left-right"]
    for key, seed in (("right-left", 0), ("left-right", 1)):
        labels = make_labels(MOTIONS["zigzag"], key, np.random.default_rng(seed), **CLIP)
        x = labels.subject.x
        turn = int(np.argmax(x) if key == "right-left" else np.argmin(x))
        assert 0 < turn < len(x) - 1  # out one way, then back
    with pytest.raises(ValueError, match="registered twice"):
        register_motion(zigzag)


def test_a_pattern_with_one_answer_is_refused_when_registered() -> None:
    """Its questions would offer one option (a pattern's answers are its options), which
    the manifest schema refuses only after a whole build; registration says so at once."""

    class OneWay(Motion):
        name = "one_way_test"
        task = "direction"
        fact = "direction"
        answers = (("right", "left"),)
        question = "In which direction(s) does {subject} move?"

    with pytest.raises(ValueError, match=r"OneWay: a pattern needs at least two answers.*"
                       r"\['right-left'\]"):  # fmt: skip
        register_motion(OneWay)
    assert "one_way_test" not in MOTIONS


def test_a_pattern_whose_states_contradict_its_answer_is_refused() -> None:
    from tempogen.generators.motion import GenerationError

    @register_motion
    class Liar(Motion):
        name = "liar_test"
        task = "direction"
        fact = "direction"
        answers = (("left",), ("right",))
        question = "?"

        def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
            look = scene.subject_look()
            scene.add("subject", look, np.linspace(50, 250, scene.n), 90)  # moves right
            scene.ask(["subject"])

    try:
        with pytest.raises(GenerationError, match="asked for 'left' but its states show"):
            make_labels(MOTIONS["liar_test"], "left", np.random.default_rng(0), **CLIP)
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
