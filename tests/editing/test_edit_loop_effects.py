"""``loop``'s declared effects, found by mutation testing (`make mutate MODULES=ops.loop`): the
kernel's name shown in messages, and a subclass's declared effect for a plugin fact."""

from __future__ import annotations

from typing import ClassVar

from tempogen.editing import effects as E
from tempogen.editing.ops.loop import Loop


def test_loop_names_its_kernel_by_the_repeat_count():
    assert Loop(times=3).effect("count").describe() == "mapped by repeat_3"


class _KeepsColour(Loop):
    effects: ClassVar = {"colour": E.PRESERVED}


def test_loop_keeps_a_declared_effect_for_a_plugin_fact():
    assert _KeepsColour(times=2).effect("colour") is E.PRESERVED
    assert Loop(times=2).effect("colour") is E.UNKNOWN
