"""Declared-facts algebra: what each op does to an external clip's declared answers.

Table-driven tests per kernel, refusals that name the label, the ops applying the kernels
to clips with facts, and a consistency property: on generated clips the kernel applied to
the facts derived before an edit equals the facts derived from the edited states.
"""

from __future__ import annotations

import numpy as np
import pytest

from tempogen import observe
from tempogen.editing import (
    Clip,
    Crop,
    EditError,
    Loop,
    Mirror,
    Reverse,
    Rotate,
    Speed,
    SpeedRamp,
    Trim,
)
from tempogen.editing import algebra as A


def _ok(kernel, facts, expected) -> None:
    snapshot = {k: (list(v) if isinstance(v, list) else v) for k, v in facts.items()}
    assert kernel(facts) == expected
    assert facts == snapshot  # kernels are pure


REVERSE = [
    ({"direction": ["left"]}, {"direction": ["right"]}),
    ({"direction": ["left", "up"]}, {"direction": ["down", "right"]}),
    ({"direction": []}, {"direction": []}),
    ({"rotation": ["cw"]}, {"rotation": ["ccw"]}),
    ({"rotation": ["cw", "ccw"]}, {"rotation": ["cw", "ccw"]}),
    ({"speed": "accelerating"}, {"speed": "decelerating"}),
    ({"speed": "constant"}, {"speed": "constant"}),
    ({"speed": "none"}, {"speed": "none"}),
    ({"frequency": "increasing"}, {"frequency": "decreasing"}),
    ({"frequency": "decreasing"}, {"frequency": "increasing"}),
    ({"count": 3}, {"count": 3}),
    ({"trajectory": "star"}, {"trajectory": "star"}),
    ({"order": []}, {"order": []}),
    (
        {"direction": ["up"], "rotation": ["ccw", "cw"], "count": 2},
        {"direction": ["down"], "rotation": ["ccw", "cw"], "count": 2},
    ),
]

MIRROR = [
    ("horizontal", {"direction": ["left", "up"]}, {"direction": ["right", "up"]}),
    ("vertical", {"direction": ["left", "up"]}, {"direction": ["left", "down"]}),
    ("horizontal", {"rotation": ["cw", "ccw"]}, {"rotation": ["ccw", "cw"]}),
    ("vertical", {"rotation": ["cw"]}, {"rotation": ["ccw"]}),
    ("horizontal", {"speed": "accelerating"}, {"speed": "accelerating"}),
    ("vertical", {"count": 4, "frequency": "increasing"}, {"count": 4, "frequency": "increasing"}),
    ("horizontal", {"order": [["a"], ["b"]]}, {"order": [["a"], ["b"]]}),
]

ROTATE = [
    (90, {"direction": ["left"]}, {"direction": ["up"]}),
    (90, {"direction": ["right", "down"]}, {"direction": ["down", "left"]}),
    (180, {"direction": ["left", "up"]}, {"direction": ["right", "down"]}),
    (270, {"direction": ["left"]}, {"direction": ["down"]}),
    (90, {"rotation": ["cw", "ccw"]}, {"rotation": ["cw", "ccw"]}),
    (270, {"speed": "decelerating", "count": 1}, {"speed": "decelerating", "count": 1}),
]

RAMP = [
    (0.5, 2.0, {"speed": "constant"}, {"speed": "accelerating"}),
    (0.5, 2.0, {"speed": "accelerating"}, {"speed": "accelerating"}),
    (0.5, 2.0, {"speed": "none"}, {"speed": "none"}),
    (2.0, 0.5, {"speed": "constant"}, {"speed": "decelerating"}),
    (2.0, 0.5, {"speed": "decelerating"}, {"speed": "decelerating"}),
    (0.5, 2.0, {"frequency": "constant"}, {"frequency": "increasing"}),
    (2.0, 0.5, {"frequency": "decreasing"}, {"frequency": "decreasing"}),
    (0.5, 2.0, {"direction": ["left"], "count": 3}, {"direction": ["left"], "count": 3}),
    (1.5, 1.5, {"speed": "decelerating"}, {"speed": "decelerating"}),  # a flat ramp
]

LOOP = [
    (2, {"count": 3}, {"count": 6}),
    (3, {"count": 1, "speed": "constant"}, {"count": 3, "speed": "constant"}),
    (2, {"frequency": "none"}, {"frequency": "none"}),
    (
        1,
        {"direction": ["left"], "speed": "accelerating"},
        {"direction": ["left"], "speed": "accelerating"},
    ),
]

CONCAT = [
    ({"direction": ["left"]}, {"direction": ["right"]}, {"direction": ["left", "right"]}),
    ({"direction": ["left"]}, {"direction": ["left", "up"]}, {"direction": ["left", "up"]}),
    ({"rotation": ["cw"]}, {"rotation": ["ccw"]}, {"rotation": ["cw", "ccw"]}),
    ({"count": 2}, {"count": 3}, {"count": 5}),
    ({"speed": "constant"}, {"speed": "constant"}, {"speed": "constant"}),
]


class TestReverseFacts:
    @pytest.mark.parametrize("facts,expected", REVERSE)
    def test_table(self, facts, expected) -> None:
        _ok(A.facts_reverse, facts, expected)

    @pytest.mark.parametrize("facts", [{"direction": ["left"]}, {"rotation": ["cw", "ccw"]}])
    def test_involution(self, facts) -> None:
        assert A.facts_reverse(A.facts_reverse(facts)) == facts

    def test_refuses_order(self) -> None:
        with pytest.raises(EditError, match=r"^reverse: cannot transform label 'order' soundly"):
            A.facts_reverse({"order": [["a"], ["b"]]})

    def test_refuses_unknown_label(self) -> None:
        with pytest.raises(EditError, match=r"reverse: cannot transform label 'colour'.*no rule"):
            A.facts_reverse({"colour": "red"})

    @pytest.mark.parametrize("value", [["sideways"], "left", [1], None])
    def test_bad_tokens(self, value) -> None:
        with pytest.raises(EditError, match=r"label 'direction': expected a list of tokens"):
            A.facts_reverse({"direction": value})


class TestMirrorFacts:
    @pytest.mark.parametrize("axis,facts,expected", MIRROR)
    def test_table(self, axis, facts, expected) -> None:
        _ok(lambda f: A.facts_mirror(f, axis), facts, expected)

    @pytest.mark.parametrize("axis", ["horizontal", "vertical"])
    def test_involution(self, axis) -> None:
        facts = {"direction": ["left", "up"], "rotation": ["cw", "ccw"]}
        assert A.facts_mirror(A.facts_mirror(facts, axis), axis) == facts

    def test_refuses_unknown_label(self) -> None:
        with pytest.raises(EditError, match="mirror vertical: cannot transform label 'colour'"):
            A.facts_mirror({"colour": "red"}, "vertical")


class TestRotateFacts:
    @pytest.mark.parametrize("degrees,facts,expected", ROTATE)
    def test_table(self, degrees, facts, expected) -> None:
        _ok(lambda f: A.facts_rotate(f, degrees), facts, expected)

    def test_full_turn(self) -> None:
        facts = {"direction": ["left", "down"]}
        out = facts
        for _ in range(4):
            out = A.facts_rotate(out, 90)
        assert out == facts
        assert A.facts_rotate(A.facts_rotate(facts, 90), 270) == facts

    def test_refuses_unknown_label(self) -> None:
        with pytest.raises(EditError, match="rotate 90: cannot transform label 'colour'"):
            A.facts_rotate({"colour": "red"}, 90)


class TestRampFacts:
    @pytest.mark.parametrize("start,end,facts,expected", RAMP)
    def test_table(self, start, end, facts, expected) -> None:
        _ok(lambda f: A.facts_ramp(f, start, end), facts, expected)

    @pytest.mark.parametrize(
        "start,end,facts,why",
        [
            (0.5, 2.0, {"speed": "decelerating"}, "decelerating motion under a rising rate"),
            (2.0, 0.5, {"speed": "accelerating"}, "accelerating motion under a falling rate"),
            (0.5, 2.0, {"frequency": "decreasing"}, "decreasing motion under a rising rate"),
        ],
    )
    def test_refuses_trend_against_ramp(self, start, end, facts, why) -> None:
        (fact,) = facts
        with pytest.raises(EditError, match=f"speed_ramp: cannot transform label '{fact}'") as e:
            A.facts_ramp(facts, start, end)
        assert why in str(e.value)


class TestLoopFacts:
    @pytest.mark.parametrize("times,facts,expected", LOOP)
    def test_table(self, times, facts, expected) -> None:
        _ok(lambda f: A.facts_loop(f, times), facts, expected)

    @pytest.mark.parametrize(
        "facts",
        [{"direction": ["left"]}, {"rotation": ["cw"]}, {"speed": "accelerating"}],
        ids=["direction", "rotation", "speed"],
    )
    def test_refuses_sequences_and_trends(self, facts) -> None:
        (fact,) = facts
        with pytest.raises(EditError, match=f"loop 2: cannot transform label '{fact}'.*seam"):
            A.facts_loop(facts, 2)


class TestConcatFacts:
    @pytest.mark.parametrize("a,b,expected", CONCAT)
    def test_table(self, a, b, expected) -> None:
        assert A.facts_concat(a, b) == expected

    def test_refuses_different_labels(self) -> None:
        with pytest.raises(
            EditError, match=r"concat: clips declare different labels: \['count'\] vs \['speed'\]"
        ):
            A.facts_concat({"count": 1}, {"speed": "constant"})

    def test_refuses_trends(self) -> None:
        with pytest.raises(EditError, match="concat: cannot transform label 'speed'"):
            A.facts_concat({"speed": "accelerating"}, {"speed": "accelerating"})


def test_unchanged_kernel() -> None:
    facts = {"count": 2, "direction": ["up"]}
    assert A.facts_unchanged(facts, "crop", ("count", "direction")) == facts
    with pytest.raises(EditError, match="speed: cannot transform label 'direction'"):
        A.facts_unchanged(facts, "speed", ("count",))


# -- ops on clips that carry declared facts ----------------------------------------------------
def _external(facts) -> Clip:
    return Clip.from_array(np.zeros((8, 16, 16, 3), np.uint8), 4.0, facts=facts)


@pytest.mark.parametrize(
    "op,facts,expected",
    [
        (Reverse(), {"rotation": ["cw"]}, {"rotation": ["ccw"]}),
        (Mirror("horizontal"), {"direction": ["left"]}, {"direction": ["right"]}),
        (Rotate(90), {"direction": ["left"]}, {"direction": ["up"]}),
        (Speed(0.5), {"rotation": ["cw"], "count": 2}, {"rotation": ["cw"], "count": 2}),
        (
            Speed(2),
            {"direction": ["left"], "speed": "constant"},
            {"direction": ["left"], "speed": "constant"},
        ),
        (SpeedRamp(0.5, 2), {"speed": "constant"}, {"speed": "accelerating"}),
        (Loop(2), {"count": 2}, {"count": 4}),
        (Crop((0, 0, 8, 8)), {"direction": ["left"]}, {"direction": ["left"]}),
    ],
    ids=lambda v: getattr(v, "name", None),
)
def test_ops_apply_kernels_to_declared_facts(op, facts, expected) -> None:
    clip = _external(facts)
    out = op(clip)
    assert out.facts == expected
    assert clip.facts == facts
    assert out.labels is None


@pytest.mark.parametrize(
    "op,facts,match",
    [
        (Reverse(), {"order": [["a"], ["b"]]}, "reverse: cannot transform label 'order'"),
        (Loop(2), {"direction": ["left"]}, "loop 2: cannot transform label 'direction'"),
        (
            SpeedRamp(0.5, 2.0),
            {"speed": "decelerating"},
            "speed_ramp: cannot transform label 'speed'",
        ),
        (
            Trim(0.5),
            {"rotation": ["cw"]},
            r"trim\(start=0.5, end=None\): cannot transform label 'rotation' soundly: its answer "
            "is read from per-frame states",
        ),
        (
            Speed(2),
            {"colour": "red"},
            r"speed\(factor=2\): cannot transform label 'colour' soundly: the op does not declare",
        ),
        (
            Speed(2),
            {"count": 3},
            r"speed\(factor=2\): cannot transform label 'count' soundly: its answer is read from "
            "per-frame states",
        ),
        (
            SpeedRamp(0.5, 2.0),
            {"rotation": ["cw"]},
            r"speed_ramp\(start=0.5, end=2.0\): cannot transform label 'rotation'",
        ),
    ],
    ids=[
        "reverse-order",
        "loop-direction",
        "ramp-decelerating",
        "trim",
        "speed-unknown",
        "speed-drops-count",
        "ramp-drops-rotation",
    ],
)
def test_ops_refuse_facts_they_cannot_transform(op, facts, match) -> None:
    with pytest.raises(EditError, match=match):
        op(_external(facts))


# -- consistency: kernels on derived facts == facts derived after the edit -------------------
KERNELS = {
    "reverse": (Reverse(), A.facts_reverse),
    "mirror_h": (Mirror("horizontal"), lambda f: A.facts_mirror(f, "horizontal")),
    "mirror_v": (Mirror("vertical"), lambda f: A.facts_mirror(f, "vertical")),
    "rotate90": (Rotate(90), lambda f: A.facts_rotate(f, 90)),
    "rotate180": (Rotate(180), lambda f: A.facts_rotate(f, 180)),
    "rotate270": (Rotate(270), lambda f: A.facts_rotate(f, 270)),
}
CLIPS = [
    ("slide", "left"),
    ("slide", "left-up"),
    ("slide", "down-right"),
    ("spin", "cw"),
    ("spin", "ccw-cw"),
    ("orbit", "cw-ccw"),
    ("orbit", "ccw"),
]


def _derived(labels) -> dict:
    facts = observe.observe(labels)
    return {k: list(facts[k]) for k in ("direction", "rotation") if facts.get(k) is not None}


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("name,key", CLIPS, ids=[f"{n}:{k}" for n, k in CLIPS])
def test_kernel_agrees_with_states(generated, name, key, kernel) -> None:
    op, facts_kernel = KERNELS[kernel]
    clip = generated(name, key)
    before = _derived(clip.labels)
    assert before, "the clip shows a direction or rotation"
    assert facts_kernel(before) == _derived(op(clip).labels)
