"""Ops that compute their declared effects (``effect(fact)``), found by mutation testing
(`make mutate MODULES=ops.loop,ops.flip,ops.speed`): the kernel's name that messages show, and a
subclass's declared effect for a plugin fact, which the override must hand on to ``Op.effect``."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import pytest

from tempogen.editing import effects as E
from tempogen.editing.ops.flip import Mirror, Rotate
from tempogen.editing.ops.loop import Loop
from tempogen.editing.ops.speed import Speed, SpeedRamp


@pytest.mark.parametrize(
    ("op", "fact", "described"),
    [
        (Loop(times=3), "count", "mapped by repeat_3"),
        (Mirror(axis="vertical"), "direction", "mapped by mirror_vertical"),
        (Rotate(degrees=270), "direction", "mapped by rotate_270"),
        (SpeedRamp(start=1.0, end=2.0), "speed", "mapped by rate_ramp"),
    ],
)
def test_ops_name_their_kernel(op, fact, described):
    assert op.effect(fact).describe() == described


@pytest.mark.parametrize(
    "op",
    [
        Loop(times=2),
        Mirror(axis="horizontal"),
        Rotate(degrees=90),
        Speed(factor=2.0),
        SpeedRamp(start=0.5, end=2.0),
    ],
)
def test_ops_keep_a_declared_effect_for_a_plugin_fact(op):
    keeps_colour = type(
        f"KeepsColour{type(op).__name__}",
        (type(op),),
        {"__annotations__": {"effects": ClassVar}, "effects": {"colour": E.PRESERVED}},
    )
    fields = {f.name: getattr(op, f.name) for f in dataclasses.fields(op)}
    assert keeps_colour(**fields).effect("colour") is E.PRESERVED
    assert op.effect("colour") is E.UNKNOWN


@pytest.mark.parametrize(
    ("op", "fact", "effect"),
    [
        # a rate ramp maps speed, and frequency while no frame is dropped (rate at most 1)
        (SpeedRamp(start=0.5, end=1.0), "frequency", "mapped by rate_ramp"),
        (SpeedRamp(start=1.0, end=0.5), "speed", "mapped by rate_ramp"),
        (SpeedRamp(start=0.5, end=2.0), "frequency", "read again from the edited states"),
        (SpeedRamp(start=0.5, end=2.0), "count", "read again from the edited states"),
        (SpeedRamp(start=0.5, end=1.0), "count", "preserved"),
        (SpeedRamp(start=0.5, end=1.0), "rotation", "preserved"),
        (SpeedRamp(start=0.5, end=2.0), "direction", "preserved"),
        # a uniform rate drops frames only when faster than 1
        (Speed(factor=1.0), "count", "preserved"),
        (Speed(factor=1.5), "count", "read again from the edited states"),
    ],
)
def test_rate_ops_effects(op, fact, effect):
    assert op.effect(fact).describe() == effect


class _Frames:
    num_frames = 10


@pytest.mark.parametrize(
    ("op", "frames"),
    [
        (SpeedRamp(start=1.0, end=1.0), list(range(10))),  # the last frame is kept
        (SpeedRamp(start=0.5, end=2.0), [0, 0, 1, 2, 3, 3, 5, 6, 7]),
        (SpeedRamp(start=2.0, end=0.5), [0, 2, 4, 5, 6, 7, 8, 9]),
        (Speed(factor=0.75), [0, 0, 1, 2, 3, 3, 4, 5, 6, 6, 7, 8, 9]),
        (Speed(factor=1.0), list(range(10))),
    ],
)
def test_rate_ops_select_frames(op, frames):
    assert op.select(_Frames()).tolist() == frames
