"""Edges of the op base (``editing/ops/base.py``) the other edit tests leave open.

Each case pins what a user or a plugin author sees: the check that an op with its own
``apply`` moved the states with its frames (what it accepts, what it refuses, in which words),
the registry's refusals, and the JSON Schema each op publishes for its parameters. Mutation
testing (``make mutate MODULES=ops.base``) found each of these unchecked.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np
import pytest

from tempogen.editing import Clip
from tempogen.editing.effects import FROM_STATES, Effect
from tempogen.editing.ops import OPS, Op, base, register_op
from tempogen.errors import EditError


@dataclass(frozen=True)
class Tamper(Op):
    """An op with its own ``apply`` that shows the same frames and changes the states by
    ``how``: the follow check must accept float noise and a whole turn, and refuse the rest."""

    how: str = "none"
    name: ClassVar[str] = "tamper_test"
    effects: ClassVar[dict[str, Effect]] = {"direction": FROM_STATES}

    def apply(self, clip: Clip) -> Clip:
        sub = clip.labels.subject
        t = {
            "none": sub,
            "x_noise": sub.with_states(x=sub.x + 1e-9),
            "x_half": sub.with_states(x=sub.x + 0.5),
            "scale": sub.with_states(scale=sub.scale * 1.01),
            "visible": sub.with_states(visible=np.arange(sub.num_frames) != 3),
            "lit": sub.with_states(lit=np.arange(sub.num_frames) == 2),
            "angle_turn": sub.with_states(angle=sub.angle + 360.0),
            "angle_2pi": sub.with_states(
                angle=sub.angle + np.where(np.arange(12) >= 5, 2 * np.pi, 0)
            ),
            "angle_small": sub.with_states(angle=sub.angle + np.where(np.arange(12) >= 4, 0.5, 0)),
            "extra": sub,
        }[self.how]
        extra = (replace(sub, name="ball", role="distractor"),) if self.how == "extra" else ()
        return clip.evolve(labels=clip.labels.with_tracks((t, *extra)))


@pytest.mark.parametrize("how", ["none", "x_noise", "angle_turn"])
def test_states_that_follow_the_frames_are_accepted(tiny, how) -> None:
    """Float noise (1e-9 px) and a whole turn (the same orientation) are no mismatch."""
    out = Tamper(how)(tiny)
    assert out.num_frames == tiny.num_frames


@pytest.mark.parametrize(
    ("how", "where"),
    [
        ("x_half", "object 'subject' x at frame 0"),  # half a pixel off
        ("scale", "object 'subject' scale at frame 0"),
        ("visible", "object 'subject' visible at frame 3"),
        ("lit", "object 'subject' lit at frame 2"),
        ("angle_2pi", "object 'subject' angle at frame 5"),  # 6.28 degrees, not a whole turn
        ("angle_small", "object 'subject' angle at frame 4"),
        ("extra", "objects ['subject', 'ball'] for ['subject']"),
    ],
)
def test_states_that_do_not_follow_the_frames_are_refused(tiny, how, where) -> None:
    with pytest.raises(EditError) as err:
        Tamper(how)(tiny)
    assert str(err.value) == (
        f"tamper_test(how={how!r}): the output's labels do not follow its frames ({where}): "
        "the op moved frames without moving their states; write it as a TimeOp (select) or a "
        "SpaceOp (maps), which move both"
    )


def test_an_untraceable_op_is_refused_in_full_words(tiny) -> None:
    @dataclass(frozen=True)
    class Fresh(Op):
        name: ClassVar[str] = "fresh_test"
        effects: ClassVar[dict[str, Effect]] = {"direction": FROM_STATES}

        def apply(self, clip: Clip) -> Clip:
            return Clip.from_array(clip.to_array(), clip.fps, clip.labels)

    with pytest.raises(EditError) as err:
        Fresh()(tiny)
    assert str(err.value) == (
        "fresh_test: its output frames cannot be traced to the input's, so its labels cannot "
        "be checked; write it as a TimeOp (select) or a SpaceOp (maps)"
    )


# -- the registry -------------------------------------------------------------------------------
def test_register_op_refuses_a_nameless_or_second_op_and_allows_the_same_twice(monkeypatch) -> None:
    monkeypatch.setattr(base, "OPS", dict(OPS))  # the registry stays as it was

    @dataclass(frozen=True)
    class Nameless(Op):
        pass

    with pytest.raises(ValueError) as err:
        register_op(Nameless)
    assert str(err.value) == "Nameless: set a name"

    @dataclass(frozen=True)
    class Other(Op):
        name: ClassVar[str] = "reverse"

    with pytest.raises(ValueError) as err:
        register_op(Other)
    assert str(err.value) == "op 'reverse' is registered twice"
    assert register_op(OPS["reverse"]) is OPS["reverse"]  # registering it again is harmless


# -- each op's parameter schema -----------------------------------------------------------------
NUMBER = {"type": ["integer", "number"]}


def test_ops_publish_their_parameters_as_json_schema() -> None:
    def schema(props: dict, required: list) -> dict:
        return {
            "type": "object",
            "properties": props,
            "required": required,
            "additionalProperties": False,
        }

    assert OPS["concat"].schema == schema(
        {"other": {"type": "array"}, "gap": {"anyOf": [NUMBER, {"type": "null"}]}}, []
    )
    assert OPS["crop"].schema == schema(
        {"box": {"type": "array"}, "size": {"anyOf": [{"type": "array"}, {"type": "null"}]}},
        ["box"],
    )
    assert OPS["zoom_in"].schema == schema(
        {"subject": {"type": "string"}, "margin": NUMBER, "smooth": NUMBER}, []
    )
    assert OPS["loop"].schema["properties"]["times"] == {"type": "integer"}
    assert OPS["loop"].schema["required"] == []
