"""The numbers the docs give about the default build (docs/default-build.json, filled into
pages as ``{{ default.NAME }}``) come from a build of today's default config: the file names
the config it counted, and a plan of that config gives the same clip counts."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NUMBERS = ROOT / "docs" / "default-build.json"


def _script(name: str):  # noqa: ANN202 - a module loaded from scripts/
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


numbers_script = _script("default_numbers")
hooks = _script("docs_hooks")


def test_the_numbers_were_counted_from_todays_default_config() -> None:
    numbers = json.loads(NUMBERS.read_text())
    assert numbers["config_sha256"] == numbers_script.config_sha256(), (
        "configs/default.yaml changed since docs/default-build.json was counted: rerun "
        "`python scripts/default_numbers.py --build`"
    )


def test_a_plan_of_the_default_config_gives_the_counted_clips() -> None:
    """Everything a plan decides (clips, twins, noise clips, humans and 3D objects per task)
    is what the build counted: a code change that moves any of them fails here."""
    from tempogen.config import load_config
    from tempogen.generators.build import plan

    specs = plan(load_config(numbers_script.CONFIG), cache=None)
    planned = numbers_script.count_clips([{**s.to_json(), "pair": s.pair} for s in specs])
    numbers = json.loads(NUMBERS.read_text())
    assert {k: numbers[k] for k in planned} == planned
    assert numbers["rows"] == numbers["clips"] + numbers["variants"]


def test_count_clips_tells_twins_noise_and_kinds_apart() -> None:
    clips = [
        {"id": "a-0", "task": "count", "motion": "claps", "pair": "a-0"},
        {"id": "a-0~twin", "task": "count", "motion": "claps", "pair": "a-0"},
        {"id": "b-0", "task": "direction", "motion": "ball_bounce3d", "encoding": {"cell": 4}},
    ]
    n = numbers_script.count_clips(clips)
    assert (n["clips"], n["questions_rendered"], n["twins"], n["noise"]) == (3, 2, 1, 1)
    assert (n["tasks"], n["per_task"]) == (2, 1)


def test_pages_get_the_numbers_and_an_unknown_name_fails() -> None:
    text = "{{ default.rows }} questions from {{default.clips}} clips"
    assert hooks.default_numbers(text, "p.md", {"rows": 478, "clips": 393}) == (
        "478 questions from 393 clips"
    )
    with pytest.raises(KeyError, match=r"p\.md: \{\{ default\.rowz \}\}: not a number"):
        hooks.default_numbers("{{ default.rowz }}", "p.md", {"rows": 478})


def test_a_build_of_another_config_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"seed": 1}))
    with pytest.raises(SystemExit, match="not a build of configs/default.yaml"):
        numbers_script.main(["--dataset", str(tmp_path), "--out", str(tmp_path / "n.json")])
    assert not (tmp_path / "n.json").exists()
