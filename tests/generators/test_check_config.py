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
