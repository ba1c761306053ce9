"""One registry helper for everything a plugin adds (motion patterns, facts, edit ops, benchmark
formats, pair kinds): an unknown name is one error, a user's (exit 2), naming every known
name in the same words; a name registered twice is refused the same way; the CLI lists from it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import kit
import pytest

from tempogen.builders.exports import FORMATS, format_with
from tempogen.editing.ops import OPS, make_op
from tempogen.errors import TempogenError
from tempogen.facts import FACTS, get_fact
from tempogen.generators.motion import MOTIONS, get_motion
from tempogen.generators.pairs import KINDS, plan_pairs
from tempogen.registry import Registry, UnknownNameError

LOOKUPS: dict[str, tuple[Registry, Callable[[], object]]] = {
    "motion": (MOTIONS, lambda: get_motion("nope")),
    "fact": (FACTS, lambda: get_fact("nope")),
    "op": (OPS, lambda: make_op("nope")),
    "format": (FORMATS, lambda: FORMATS.lookup("nope")),
    "pair kind": (KINDS, lambda: plan_pairs(2, 0, 64, 48, 10.0, kinds=("action", "nope"))),
}


@pytest.mark.parametrize("kind", list(LOOKUPS))
def test_an_unknown_name_is_one_error_naming_every_known_one(kind) -> None:
    registry, look_up = LOOKUPS[kind]
    assert isinstance(registry, Registry) and registry.kind == kind
    with pytest.raises(TempogenError) as err:
        look_up()
    assert str(err.value) == f"unknown {kind} 'nope'; known: {', '.join(registry)}"
    assert len(registry) >= 5


@pytest.mark.parametrize("kind", list(LOOKUPS))
def test_a_name_registered_twice_is_refused(kind) -> None:
    registry, _ = LOOKUPS[kind]
    name = next(iter(registry))
    with pytest.raises(ValueError, match=rf"^{kind} '{name}' is registered twice$"):
        registry.add(name, registry[name])


def test_the_helper_itself() -> None:
    reg: Registry[int] = Registry("widget")
    reg.add("b", 2)
    reg.add("a", 1)
    assert list(reg) == ["b", "a"]  # registration order, the error's too
    assert reg.lookup("a") == 1 and reg.copy() == reg and reg.copy() is not reg
    assert reg.copy().kind == "widget" and reg.listing() == ["b", "a"]
    assert reg.listing(lambda v: f"{v} wheels") == ["b  2 wheels", "a  1 wheels"]
    with pytest.raises(UnknownNameError) as err:
        reg.lookup("c", "w.yaml:3")
    assert str(err.value) == "w.yaml:3: unknown widget 'c'; known: b, a"
    assert isinstance(err.value, KeyError)  # code that looked names up in a dict still works
    with pytest.raises(UnknownNameError, match=r"unknown widget \['x'\]; known: b, a"):
        reg.lookup(["x"])  # an unhashable name from a parsed file is an unknown name too
    assert reg.add("a", 1, same=lambda old, new: old == new) == 1  # the same entry again: kept
    with pytest.raises(ValueError, match="a widget needs a name"):
        reg.add("", 3)


def test_a_part_narrows_the_known_formats() -> None:
    with pytest.raises(UnknownNameError) as err:
        format_with("score", "hf", "eval", also=["run"])
    assert str(err.value) == "eval: unknown format 'hf'; known: tomato, vinoground, videott, run"
    assert format_with("write", "hf").folder == "hf"


def test_unknown_names_through_the_cli(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("samples_per_task: 1\nmotions: [spin, nope]\n")
    res = kit.tempogen("generate", "--config", tmp_path / "c.yaml", "--out", tmp_path / "o",
                       "--dry-run")  # fmt: skip
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert f"{tmp_path / 'c.yaml'}: motions[1]: unknown motion 'nope'; known: " in res.stderr
    res = kit.tempogen("eval", "run", "--dataset", tmp_path, "--set", "hf", "--endpoint",
                       "http://127.0.0.1:9", "--model", "m", fork=True)  # fmt: skip
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "eval run: --set: unknown format 'hf'; known: tomato, vinoground, videott, all" in (
        res.stderr
    )
