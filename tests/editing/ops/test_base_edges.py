"""Edges of the op base (``editing/ops/base.py``) the other edit tests leave open.

Each case pins what a user or a plugin author sees: the check that an op with its own
``apply`` moved the states with its frames (what it accepts, what it refuses, in which words),
the registry's refusals, and the JSON Schema each op publishes for its parameters. Mutation
testing (``make mutate MODULES=ops.base``) found each of these unchecked.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np
import pytest

from tempogen.editing import Clip, Crop, make_op
from tempogen.editing.algebra import move
from tempogen.editing.effects import FROM_STATES, Effect
from tempogen.editing.ops import OPS, Op, SpaceOp, TimeOp, base, register_op
from tempogen.editing.ops.base import compose
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
            "angle_half": sub.with_states(angle=sub.angle + np.where(np.arange(12) >= 6, 180, 0)),
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
    # and for an object turned 30 degrees to begin with
    turned = tiny.labels.subject.with_states(angle=np.full(12, 30.0))
    assert Tamper(how)(tiny.evolve(labels=tiny.labels.with_tracks((turned,)))).num_frames == 12


@pytest.mark.parametrize(
    ("how", "where"),
    [
        ("x_half", "object 'subject' x at frame 0"),  # half a pixel off
        ("scale", "object 'subject' scale at frame 0"),
        ("visible", "object 'subject' visible at frame 3"),
        ("lit", "object 'subject' lit at frame 2"),
        ("angle_2pi", "object 'subject' angle at frame 5"),  # 6.28 degrees, not a whole turn
        ("angle_small", "object 'subject' angle at frame 4"),
        ("angle_half", "object 'subject' angle at frame 6"),  # turned upside down
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


@dataclass(frozen=True)
class Shift(Op):
    """An op with its own ``apply`` that shifts the picture ``dx`` px right: moving the states
    with it (``honest``) or not."""

    dx: float = 3.0
    honest: bool = True
    name: ClassVar[str] = "shift_test"
    effects: ClassVar[dict[str, Effect]] = {"direction": FROM_STATES}

    def apply(self, clip: Clip) -> Clip:
        m = np.broadcast_to(np.array([[1.0, 0, self.dx], [0, 1, 0]]), (clip.num_frames, 2, 3))
        labels = move(clip.labels, m, clip.size, self.name) if self.honest else clip.labels
        return clip.evolve(affine=compose(m, clip.affine), labels=labels)


@pytest.mark.parametrize("dx", [3.0, 0.5])
def test_an_own_apply_that_moves_the_picture_and_its_states_is_accepted(tiny, dx) -> None:
    """Also on a clip already cropped (its frames already carry a map to undo)."""
    for clip in (tiny, Crop((4, 2, 60, 44))(tiny)):
        out = Shift(dx)(clip)
        np.testing.assert_allclose(out.labels.subject.x, clip.labels.subject.x + dx)


def test_an_own_apply_that_moves_the_picture_only_is_refused(tiny) -> None:
    with pytest.raises(EditError) as err:
        Shift(3.0, honest=False)(tiny)
    assert str(err.value).startswith(
        "shift_test(dx=3.0, honest=False): the output's labels do not follow its frames "
        "(object 'subject' x at frame 0)"
    )


def test_an_own_apply_whose_picture_loses_the_subject_is_refused_in_its_words(tiny) -> None:
    with pytest.raises(EditError) as err:
        Shift(100.0, honest=False)(tiny)
    assert str(err.value).startswith(
        "shift_test(dx=100.0, honest=False): object 'subject' (the square) leaves the output frame"
    )


def test_an_own_apply_that_drops_the_labels_is_refused(tiny) -> None:
    @dataclass(frozen=True)
    class Drop(Op):
        name: ClassVar[str] = "drop_test"
        effects: ClassVar[dict[str, Effect]] = {"direction": FROM_STATES}

        def apply(self, clip: Clip) -> Clip:
            return clip.evolve(labels=None)

    with pytest.raises(EditError) as err:
        Drop()(tiny)
    assert str(err.value) == "drop_test: the output lost the input's per-frame labels"


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
    monkeypatch.setattr(base, "OPS", OPS.copy())  # the registry stays as it was

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


def test_ops_that_could_move_frames_without_states_are_refused_in_full_words() -> None:
    """A TimeOp or SpaceOp may not replace apply (told which method to write instead); an op
    outside tempogen's editing package may not replace __call__; tempogen's own may."""
    with pytest.raises(TypeError) as err:

        class Backwards(TimeOp):
            def apply(self, clip: Clip) -> Clip:
                return clip

    assert str(err.value) == (
        "op Backwards: a TimeOp may not override apply (it moves frames and states together); "
        "say which frames it shows in select instead"
    )
    with pytest.raises(TypeError) as err:

        class Flat(SpaceOp):
            def apply(self, clip: Clip) -> Clip:
                return clip

    assert str(err.value) == (
        "op Flat: a SpaceOp may not override apply (it moves frames and states together); "
        "say which frames it shows in maps instead"
    )
    with pytest.raises(TypeError) as err:

        class Unchecked(Op):
            def __call__(self, clip: Clip) -> Clip:
                return clip

    assert str(err.value) == (
        "op Unchecked: may not override __call__, which checks every edit's labels; subclass "
        "TimeOp or SpaceOp, or implement apply"
    )

    class Joined(Op):  # like concat and composite, which check their own joins
        __module__ = "tempogen.editing.ops.joined_test"

        def __call__(self, clip: Clip) -> Clip:
            return clip

    assert Joined()(None) is None


# -- parameters checked against their annotations --------------------------------------------
@dataclass(frozen=True)
class Knobs(Op):
    """A plugin op with one parameter of each annotation kind a plugin may use."""

    need: int
    flag: bool = False
    steps: list[int] = field(default_factory=list)
    rates: tuple[float, ...] = ()
    label: str | None = None
    count: int | None = None
    slots: tuple[int | None, ...] = ()
    pair: tuple[int, str] = (0, "")
    raw: list = field(default_factory=list)
    name: ClassVar[str] = "knobs_test"


@pytest.fixture
def knobs(monkeypatch) -> None:
    monkeypatch.setattr(base, "OPS", OPS.copy())  # the registry stays as it was
    register_op(Knobs)


BAD_PARAMS = [
    ("crop", [0, 0, "a", 24], "crop: box[2]: expected a number, got 'a'"),
    ("crop", [0, 0, float("nan"), 24], "crop: box[2]: must be a finite number, got nan"),
    ("crop", [0, 0, 24], "crop: box: expected 4 values, got 3: [0, 0, 24]"),
    ("crop", {"box": 5}, "crop: box: expected a list of 4 values, got 5"),
    ({"size": [2.5, 2]}, None, "crop: size[0]: expected a whole number, got 2.5"),
    ({"size": [True, 2]}, None, "crop: size[0]: expected a whole number, got True"),
    ({"size": "big"}, None, "crop: size: expected a list of 2 values or null, got 'big'"),
    ("zoom_in", {"subject": 3}, "zoom_in: subject: expected a string, got 3"),
    ("zoom_in", {"margin": None}, "zoom_in: margin: expected a number, got None"),
    ("trim", {"start": True}, "trim: start: expected a number, got True"),
    ("trim", {"end": "x"}, "trim: end: expected a number or null, got 'x'"),
    ("trim", {"end": float("inf")}, "trim: end: must be a finite number, got inf"),
    ("rotate", 90.0, "rotate: degrees: expected a whole number, got 90.0"),
    ("knobs_test", {"need": "1"}, "knobs_test: need: expected a whole number, got '1'"),
    ("knobs_test", {"need": 1, "flag": 1}, "knobs_test: flag: expected true or false, got 1"),
    ("knobs_test", {"need": 1, "steps": 3}, "knobs_test: steps: expected a list, got 3"),
    (
        "knobs_test",
        {"need": 1, "steps": [1, 2.5]},
        "knobs_test: steps[1]: expected a whole number, got 2.5",
    ),
    ("knobs_test", {"need": 1, "rates": "ab"}, "knobs_test: rates: expected a list, got 'ab'"),
    (
        "knobs_test",
        {"need": 1, "rates": [1.0, "x"]},
        "knobs_test: rates[1]: expected a number, got 'x'",
    ),
    ("knobs_test", {"need": 1, "label": 3}, "knobs_test: label: expected a string or null, got 3"),
    (
        "knobs_test",
        {"need": 1, "count": 1.5},
        "knobs_test: count: expected a whole number or null, got 1.5",
    ),
    (
        "knobs_test",
        {"need": 1, "slots": [1, "x"]},
        "knobs_test: slots[1]: expected a whole number or null, got 'x'",
    ),
    ("knobs_test", {"need": 1, "pair": [1, 2]}, "knobs_test: pair[1]: expected a string, got 2"),
    (
        "trim",
        {"start": 10**400},
        f"trim: start: must be a finite number, got {10**400!r}",
    ),  # past any float
    ("trim", {"bogus": 1}, "trim: unknown parameter(s) ['bogus']; parameters: start, end"),
    ("reverse", {"x": 1}, "reverse: unknown parameter(s) ['x']; parameters: none"),
    ("zoom_in", {"margin": 11.0}, "zoom_in: margin: must be from 0 to 10, got 11.0"),
]


@pytest.mark.parametrize(("op", "params", "words"), BAD_PARAMS, ids=[b[2] for b in BAD_PARAMS])
def test_a_parameter_of_the_wrong_kind_is_named_with_what_was_expected(
    knobs, op, params, words
) -> None:
    if isinstance(op, dict):  # a crop size: with a good box
        op, params = "crop", {"box": [0, 0, 32, 24], **op}
    with pytest.raises(EditError) as err:
        make_op(op, params)
    assert str(err.value) == words


def test_parameters_of_every_kind_that_fit_are_taken(knobs) -> None:
    op = make_op(
        "knobs_test", {"need": 1, "flag": True, "steps": [1, 2], "rates": [0.5, 2], "label": None}
    )
    assert (op.need, op.flag, op.steps, op.rates, op.label) == (1, True, [1, 2], [0.5, 2], None)
    op = make_op(
        "knobs_test",
        {"need": 1, "count": None, "slots": [1, None], "pair": [1, "a"], "raw": [1, "a"]},
    )
    assert (op.slots, op.pair, op.raw) == ([1, None], [1, "a"], [1, "a"])
    schema = base.OPS["knobs_test"].schema
    props = OPS_SCHEMA_KNOBS["properties"]
    assert {k: schema["properties"][k] for k in props} == props
    assert schema["required"] == ["need"] and schema["type"] == "object"
    assert schema["additionalProperties"] is False


OPS_SCHEMA_KNOBS = {
    "type": "object",
    "properties": {
        "need": {"type": "integer"},
        "flag": {"type": "boolean"},
        "steps": {"type": "array"},
        "rates": {"type": "array"},
        "label": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
    "required": ["need"],  # no default, no default factory
    "additionalProperties": False,
}


# -- time ops ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pick(TimeOp):
    """A time op showing the frames ``frames`` gives for a clip of n frames (or, with
    ``fickle``, the clip forwards on a first call and backwards on the next)."""

    frames: str = "none"
    name: ClassVar[str] = "pick_test"
    effects: ClassVar[dict[str, Effect]] = {"direction": FROM_STATES}
    calls: ClassVar[list[int]] = []

    def select(self, clip: Clip) -> np.ndarray:
        n = clip.num_frames
        if self.frames == "fickle":
            self.calls.append(1)
            return np.arange(n) if len(self.calls) % 2 else np.arange(n)[::-1]
        return {"none": np.arange(0), "past": np.arange(n + 1)}[self.frames]


def test_time_op_refusals_in_full_words(tiny) -> None:
    with pytest.raises(EditError) as err:
        Pick("none")(tiny)
    assert str(err.value) == "pick_test: the edit leaves no frames"
    with pytest.raises(EditError) as err:
        Pick("past")(tiny)
    assert (
        str(err.value)
        == "pick_test: select() must give frame numbers 0..11, got int64 from 0 to 12"
    )
    Pick.calls.clear()
    with pytest.raises(EditError) as err:
        Pick("fickle")(tiny)
    assert str(err.value) == "pick_test: select() gave another time map on a second call"


def test_an_edit_past_the_cost_limit_is_refused_with_the_estimate() -> None:
    """200 frames slowed 1000 times: 199,001 frames, past the 144,000 a clip may have."""
    from tempogen.editing import Speed

    clip = Clip.from_array(np.zeros((200, 8, 8, 3), np.uint8), 10.0)
    with pytest.raises(EditError) as err:
        Speed(0.001)(clip)
    assert str(err.value).startswith("speed(factor=0.001): about 199,001 frames of 8x8 (")
    assert "is longer than 144,000 (600 s at 240 fps)" in str(err.value)
    assert "roughly 37 s of one core's time" in str(err.value)  # an edit's cost, not a render's


def test_a_vinoground_pairs_segments_ride_through_a_picture_edit() -> None:
    """A pair's ``segments`` (which frames show which caption) are no fact to map: a mirror
    keeps them as they are."""
    from tempogen.editing import Mirror, pair_with_black_gap

    clip = Clip.from_array(np.zeros((4, 8, 8, 3), np.uint8), 4.0)
    pair = pair_with_black_gap(clip, clip, 0.5)
    assert Mirror("horizontal")(pair).facts == pair.facts


def _pair() -> Clip:
    """A Vinoground pair: 4 frames of a positive clip, 2 of black, 4 of a negative one."""
    from tempogen.editing import pair_with_black_gap

    pos = Clip.from_array(np.full((4, 8, 8, 3), 50, np.uint8), 4.0)
    neg = Clip.from_array(np.full((4, 8, 8, 3), 200, np.uint8), 4.0)
    return pair_with_black_gap(pos, neg, 0.5)


def test_a_pairs_segments_move_with_the_frames_of_a_time_edit() -> None:
    """Reversed, the negative clip comes first: its frames 6-9 are now 0-3 (they were kept
    as 0-3 = positive, the wrong caption's frames)."""
    from tempogen.editing import Reverse, Speed

    pair = _pair()
    assert pair.facts["segments"] == {"pos": [0, 3], "gap": [4, 5], "neg": [6, 9]}
    out = Reverse()(pair)
    assert out.facts["segments"] == {"pos": [6, 9], "gap": [4, 5], "neg": [0, 3]}
    frames = out.to_array()
    assert (frames[0:4] == 200).all() and (frames[6:10] == 50).all()
    slow = Speed(0.5)(pair)  # every frame twice (the last once): the runs double
    assert slow.facts["segments"] == {"pos": [0, 7], "gap": [8, 11], "neg": [12, 18]}


@pytest.mark.parametrize(
    ("pipeline", "words"),
    [
        ({"trim": {"start": 0.0, "end": 1.0}}, "drops the pair's 'gap' frames (4-5)"),
        ({"loop": {"times": 2}}, "the pair's 'pos' frames (0-3) would no longer be one run"),
    ],
)
def test_an_edit_that_loses_or_splits_a_pairs_segment_is_refused(pipeline, words) -> None:
    ((name, params),) = pipeline.items()
    with pytest.raises(EditError) as err:
        make_op(name, params)(_pair())
    assert words in str(err.value)
