"""Declared-facts kernels of editing/algebra.py: the approach fact and every refusal's words.

Found by mutation testing (`make mutate MODULES=algebra`): these mutants of the kernels passed
test_edit_facts.py; BENCHMARKS.md ("Mutation testing") lists them. A refusal must name the op,
the label and the reason, so the messages are asserted in full.
"""

from __future__ import annotations

import numpy as np
import pytest

from tempogen.editing import EditError
from tempogen.editing import algebra as A
from tempogen.labels import Labels, Query, Track


@pytest.mark.parametrize(
    ("kernel", "facts", "expected"),
    [
        (A.facts_reverse, {"approach": ["towards"]}, {"approach": ["away"]}),
        (A.facts_reverse, {"approach": ["towards", "away"]}, {"approach": ["towards", "away"]}),
        (lambda f: A.facts_mirror(f, "horizontal"), {"approach": ["away"]}, {"approach": ["away"]}),
        (
            lambda f: A.facts_mirror(f, "vertical"),
            {"trajectory": "circle"},
            {"trajectory": "circle"},
        ),
        (lambda f: A.facts_rotate(f, 90), {"approach": ["towards"]}, {"approach": ["towards"]}),
        (
            lambda f: A.facts_rotate(f, 270),
            {"frequency": "increasing", "trajectory": "line", "order": [["a"], ["b"]]},
            {"frequency": "increasing", "trajectory": "line", "order": [["a"], ["b"]]},
        ),
        (lambda f: A.facts_speed(f, 1.0), {"count": 3, "rotation": ["cw"]}, None),
        (
            lambda f: A.facts_concat(f, {"approach": ["towards", "away"]}),
            {"approach": ["towards"]},
            {"approach": ["towards", "away"]},
        ),
        (
            lambda f: A.facts_concat(f, {"approach": ["away"]}),
            {"approach": ["towards", "away"]},
            {"approach": ["towards", "away"]},
        ),
        (
            lambda f: A.facts_concat(f, {"approach": ["away", "towards"]}),
            {"approach": ["towards"]},
            {"approach": ["towards", "away", "towards"]},
        ),
        (
            lambda f: A.facts_concat(f, {"frequency": "none", "speed": "constant"}),
            {"frequency": "none", "speed": "constant"},
            {"frequency": "none", "speed": "constant"},
        ),
        (
            lambda f: A.facts_concat(f, {"frequency": "constant"}),
            {"frequency": "constant"},
            {"frequency": "constant"},
        ),
    ],
)
def test_kernels_keep_or_map_facts(kernel, facts, expected):
    assert kernel(facts) == (facts if expected is None else expected)


@pytest.mark.parametrize(
    ("kernel", "facts", "message"),
    [
        (
            A.facts_reverse,
            {"approach": ["closer"]},
            "label 'approach': expected a list of tokens from ['away', 'towards'], got ['closer']",
        ),
        (A.facts_reverse, {"approach": "towards"}, "label 'approach': expected a list"),
        (
            A.facts_reverse,
            {"order": [["a"], ["b"]]},
            "reverse: cannot transform label 'order' soundly: "
            "who starts first in reverse depends on when each action ends",
        ),
        (
            A.facts_reverse,
            {"colour": "red"},
            "reverse: cannot transform label 'colour' soundly: no rule for this label",
        ),
        (
            lambda f: A.facts_mirror(f, "horizontal"),
            {"direction": "left"},
            "label 'direction': expected a list of tokens",
        ),
        (lambda f: A.facts_mirror(f, "vertical"), {"rotation": ["left", 1]}, "label 'rotation'"),
        (lambda f: A.facts_mirror(f, "vertical"), {"approach": [None]}, "label 'approach'"),
        (
            lambda f: A.facts_mirror(f, "horizontal"),
            {"colour": "red"},
            "mirror horizontal: cannot transform label 'colour' soundly: no rule for this label",
        ),
        (lambda f: A.facts_rotate(f, 180), {"direction": ["west"]}, "label 'direction'"),
        (lambda f: A.facts_rotate(f, 90), {"approach": ["west"]}, "label 'approach'"),
        (
            lambda f: A.facts_rotate(f, 90),
            {"colour": "red"},
            "rotate 90: cannot transform label 'colour' soundly: no rule for this label",
        ),
        (
            lambda f: A.facts_speed(f, 2.0),
            {"colour": "red"},
            "speed x2: cannot transform label 'colour' soundly: no rule for this label",
        ),
        *(
            (
                lambda f: A.facts_speed(f, 1.5),
                {fact: value},
                f"speed x1.5: cannot transform label '{fact}' soundly: "
                "dropped frames may hide events or alias a turn",
            )
            for fact, value in (("count", 2), ("frequency", "constant"), ("rotation", ["cw"]))
        ),
        (
            lambda f: A.facts_loop(f, 2),
            {"direction": ["left"]},
            "loop 2: cannot transform label 'direction' soundly: the clip restarts at each seam",
        ),
        (
            lambda f: A.facts_concat(f, {"direction": ["west"]}),
            {"direction": ["left"]},
            "label 'direction'",
        ),
        (
            lambda f: A.facts_concat(f, {"direction": ["left"]}),
            {"direction": ["west"]},
            "label 'direction'",
        ),
        (
            lambda f: A.facts_concat(f, {"approach": ["west"]}),
            {"approach": ["away"]},
            "label 'approach'",
        ),
        (
            lambda f: A.facts_concat(f, {"approach": ["away"]}),
            {"approach": ["west"]},
            "label 'approach'",
        ),
        (
            lambda f: A.facts_concat(f, {"speed": "accelerating"}),
            {"speed": "accelerating"},
            "concat: cannot transform label 'speed' soundly: "
            "joining 'accelerating' and 'accelerating'",
        ),
        (
            lambda f: A.facts_unchanged(f, "crop", ("direction",)),
            {"count": 1},
            "crop: cannot transform label 'count' soundly: no rule for this label",
        ),
    ],
)
def test_kernels_refuse_naming_op_label_and_reason(kernel, facts, message):
    with pytest.raises(EditError) as err:
        kernel(facts)
    assert message in str(err.value)


# -- move(): per-frame states through a map, and the frame's edges --------------------------
W, H, N = 40, 30, 8
IDENTITY = np.tile(np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), (N, 1, 1))


def _labels(*tracks: Track, meta: dict | None = None) -> Labels:
    return Labels(W, H, 4.0, tracks, Query("direction", ("subject",)), meta or {})


def _subject(x0: float, y0: float, r: float = 2.0) -> Track:
    """A queried object whose box's top-left corner is (x0, y0) in every frame."""
    return Track.build("subject", N, x=x0 + r, y=y0 + r, size=r)


@pytest.mark.parametrize(
    ("x0", "y0", "inside"),
    [
        (-0.5, 10, True),  # half a pixel past an edge is still inside (pixel centres at 0..w-1)
        (-1.0, 10, False),
        (10, -0.5, True),
        (10, -1.0, False),
        (W + 0.5 - 4, 10, True),  # the box is 4 wide: right edge at w + 0.5
        (W + 1.0 - 4, 10, False),
        (10, H + 0.5 - 4, True),
        (10, H + 1.0 - 4, False),
    ],
)
def test_move_queried_object_must_stay_inside(x0, y0, inside):
    labels = _labels(_subject(x0, y0))
    if inside:
        out = A.move(labels, IDENTITY, (W, H), "crop")
        assert out.track("subject").visible.all()
    else:
        with pytest.raises(EditError, match="leaves the output frame"):
            A.move(labels, IDENTITY, (W, H), "crop")


@pytest.mark.parametrize(
    ("frames_out", "meta", "message"),
    [
        (
            6,
            {"nouns": {"subject": "the square"}},
            "crop: object 'subject' (the square) leaves the output frame at frames "
            "[0, 1, 2, 3, 4]...; its labels would not be visible",
        ),
        (
            5,
            {},
            "crop: object 'subject' (subject) leaves the output frame at frames "
            "[0, 1, 2, 3, 4]; its labels would not be visible",
        ),
    ],
)
def test_move_refusal_names_object_and_first_frames(frames_out, meta, message):
    x = np.where(np.arange(N) < frames_out, -10.0, 10.0)
    track = Track.build("subject", N, x=x, y=10.0, size=2.0)
    with pytest.raises(EditError) as err:
        A.move(_labels(track, meta=meta), IDENTITY, (W, H), "crop")
    assert str(err.value) == message


@pytest.mark.parametrize(
    ("x0", "y0", "visible"),
    [
        (-4.0, 10.0, False),  # right edge on x = 0: off the frame
        (-3.5, 10.0, True),
        (10.0, -4.0, False),  # bottom edge on y = 0
        (10.0, -3.5, True),
        (-8.0, 24.0, False),  # left of the frame, below its top
        (W, 2.0, False),  # left edge on x = w
        (W + 1.0, 2.0, False),  # right of the frame, near its top
        (2.0, H, False),  # top edge on y = h
    ],
)
def test_move_other_objects_off_the_frame_become_invisible(x0, y0, visible):
    other = Track.build("other", N, x=x0 + 2.0, y=y0 + 2.0, size=2.0, role="distractor")
    out = A.move(_labels(_subject(10, 10), other), IDENTITY, (W, H), "crop")
    assert out.track("other").visible.tolist() == [visible] * N


def test_move_anchor_off_the_frame_keeps_its_visibility():
    anchor = Track.build("floor", N, x=-20.0, y=-20.0, size=2.0, role="anchor")
    out = A.move(_labels(_subject(10, 10), anchor), IDENTITY, (W, H), "crop")
    assert out.track("floor").visible.all()


def _wrapped(a: np.ndarray) -> np.ndarray:
    return (a + 180.0) % 360.0 - 180.0


@pytest.mark.parametrize("reflected", [False, True])
def test_keep_turns_undoes_the_maps_wrap_of_a_turning_object(reflected):
    # an object turning 100 degrees a frame through a map that turns it by 170 degrees (and
    # mirrors it): the mapped angle wraps into [-180, 180), the kept one turns on smoothly
    before = np.array([0.0, 100.0, 200.0, 300.0, 400.0])
    smooth = 170.0 - before if reflected else 170.0 + before
    refl = np.full(len(before), reflected)
    out = A._keep_turns(before, _wrapped(smooth), refl)
    assert out.tolist() == smooth.tolist()
