"""The generators check the names a config gives against the motion registry."""

from __future__ import annotations

import pytest

from tempogen.config import ConfigError, load_config
from tempogen.generators.build import check_config, plan


def test_unknown_motion_names_file_and_field(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("samples_per_task: 1\nmotions: [spin, moonwalk]\n")
    cfg = load_config(p)  # the core parses; names are the registry's business
    with pytest.raises(ConfigError) as exc:
        plan(cfg)
    msg = str(exc.value)
    assert str(p) in msg and "motions[1]" in msg and "moonwalk" in msg and "spin" in msg


def test_known_motions_pass(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("samples_per_task: 1\nmotions: [spin]\n")
    check_config(load_config(p))


def test_a_config_that_plans_nothing_is_an_error() -> None:
    # issue 13 item 7: a motions filter matching none of the tasks is not an empty dataset
    from tempogen.config import config_from_dict

    cfg = config_from_dict({"tasks": ["count"], "motions": ["twirl"]}, "c.yaml")
    with pytest.raises(ConfigError, match=r"c\.yaml: motions: \['twirl'\] belong to none of"):
        plan(cfg)


def test_the_planner_never_asks_a_pattern_for_less_than_its_minimum() -> None:
    # walk_faster needs 3 s (a lap of its smallest circle); a 1 s config still plans 3 s
    from tempogen.config import config_from_dict
    from tempogen.generators.motion import get_motion

    cfg = config_from_dict(
        {
            "tasks": ["velocity&frequency"],
            "motions": ["walk_faster"],
            "samples_per_task": 2,
            "scenes3d": {"duration": [1.0, 1.0]},
        },  # fmt: skip
        "c.yaml",
    )
    need = get_motion("walk_faster").min_seconds * cfg.fps
    assert need >= 90
    assert all(s.num_frames >= need for s in plan(cfg))


def test_a_clip_shorter_than_a_patterns_minimum_is_a_clear_error() -> None:
    import numpy as np

    from tempogen.errors import GenerationError
    from tempogen.generators.motion import Style, get_motion, make_scene

    m = get_motion("walk_faster")
    with pytest.raises(GenerationError, match=r"walk_faster.*at least 3 s \(90 frames"):
        make_scene(m, m.keys()[0], np.random.default_rng(0), width=64, height=36, fps=30.0,
                   num_frames=60, style=Style())  # fmt: skip
