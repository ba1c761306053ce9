"""Edges of the op parameter checks and of the per-frame meta moves, in-process.

The CLI tests cover the same refusals through a subprocess, which mutmut does not trace; here
each refusal's exact words and each range's boundary values are pinned directly: a value on a
boundary is accepted, the next one out is refused naming the op and the parameter. The meta
cases pin what ``algebra.retime`` / ``algebra.unprojected`` / ``_unmovable`` do to the 3D
joints, the camera and a temporal-noise clip."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tempogen.editing import Clip, EditError, algebra
from tempogen.editing.ops import make_op
from tempogen.labels import Labels

N = 12  # the tiny clip's frames (tests/editing/conftest.py)
CAMERA = {"yfov_deg": 40.0, "pose": [[1.0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 3], [0, 0, 0, 1]]}
NOISE = {"cell": 4, "tell": "place", "order": ["subject"]}
NOISE_REFUSAL = (
    ": a temporal-noise clip cannot be edited: its noise certificate and the "
    "order its objects are named in would not be re-checked"
)


def _refusal(name: str, params: object) -> str:
    """The words of make_op's refusal of ``params`` for op ``name``."""
    with pytest.raises(EditError) as exc:
        make_op(name, params)
    return str(exc.value)


def _labels(tiny: Clip, **meta: object) -> Labels:
    """The tiny clip's labels with ``meta`` added."""
    return replace(tiny.labels, meta={**tiny.labels.meta, **meta})


def _joints() -> dict[str, list[list[float]]]:
    """One 3D point per frame whose x is the frame number, so a retiming is readable."""
    return {"subject": [[float(t), 1.0, 2.0] for t in range(N)]}


# --- trim: start in [0, a day], end in (start, a day] -------------------------------------


def test_trim_accepts_its_boundaries():
    # a cut from the very first frame, and the largest start and end allowed, are valid
    # parameters (whether the clip holds a frame there is select's question, not validate's)
    assert make_op("trim", {"start": 0.0}).start == 0.0
    assert make_op("trim", {"start": 86_400.0}).start == 86_400.0
    assert make_op("trim", {"start": 0.0, "end": 86_400.0}).end == 86_400.0
    assert make_op("trim", {"start": 1.0, "end": 1.25}).end == 1.25  # just after start
    assert make_op("trim", {"start": 1.0}).end is None  # to the end: no end check


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"start": -0.5}, "trim: start: must be from 0 to 86400 s, got -0.5"),
        ({"start": 86_401.0}, "trim: start: must be from 0 to 86400 s, got 86401.0"),
        # an empty cut (end == start) and an end before start refuse, naming start
        (
            {"start": 2.0, "end": 2.0},
            "trim: end: must be after start (2 s) and at most 86400 s, got 2.0",
        ),
        (
            {"start": 2.0, "end": 1.0},
            "trim: end: must be after start (2 s) and at most 86400 s, got 1.0",
        ),
        (
            {"start": 0.0, "end": 86_400.5},
            "trim: end: must be after start (0 s) and at most 86400 s, got 86400.5",
        ),
    ],
)
def test_trim_refuses_out_of_range_with_its_words(params, words):
    assert _refusal("trim", params) == words


# --- loop: times at most 1000 -------------------------------------------------------------


def test_loop_times_boundary():
    assert make_op("loop", 1000).times == 1000  # the largest allowed
    assert _refusal("loop", 1001) == "loop: times: at most 1000, got 1001"


# --- speed and speed_ramp: rates from 1/1000 to 1000 --------------------------------------


@pytest.mark.parametrize("rate", [0.001, 0.0015, 1.0, 1000.0])
def test_rates_accept_the_whole_range(rate):
    # both ends are playable rates; 0.0015 sits inside the range near its lower end
    assert make_op("speed", rate).factor == rate
    ramp = make_op("speed_ramp", {"start": rate, "end": rate})
    assert (ramp.start, ramp.end) == (rate, rate)


@pytest.mark.parametrize(
    ("name", "params", "words"),
    [
        ("speed", 0.0009, "speed: factor: must be from 0.001 to 1000, got 0.0009"),
        ("speed", 1000.5, "speed: factor: must be from 0.001 to 1000, got 1000.5"),
        (
            "speed_ramp",
            {"start": 0.0005, "end": 2.0},
            "speed_ramp: start: must be from 0.001 to 1000, got 0.0005",
        ),
        (
            "speed_ramp",
            {"start": 2.0, "end": 2000.0},
            "speed_ramp: end: must be from 0.001 to 1000, got 2000.0",
        ),
    ],
)
def test_rates_refuse_out_of_range_naming_the_parameter(name, params, words):
    assert _refusal(name, params) == words


# --- per-frame meta: the 3D joints move with the frames ----------------------------------


def test_retime_takes_the_joints_at_the_selected_frames(tiny):
    labels = _labels(tiny, joints3d=_joints(), camera=CAMERA)
    sel = np.array([5, 3, 3, 0])
    out = algebra.retime(labels, sel, fps=2.0)
    # frame j of the result shows source frame sel[j]: its joints are that frame's
    assert [p[0] for p in out.meta["joints3d"]["subject"]] == [5.0, 3.0, 3.0, 0.0]
    assert out.fps == 2.0  # a new rate is kept (speed ops pass one)
    assert out.meta["camera"] == CAMERA and out.meta["nouns"] == labels.meta["nouns"]
    assert out.subject.x.tolist() == labels.subject.x[sel].tolist()
    assert algebra.retime(labels, sel).fps == labels.fps  # no rate given: the clip's


def test_unprojected_drops_joints_and_camera_only(tiny):
    labels = _labels(tiny, joints3d=_joints(), camera=CAMERA)
    out = algebra.unprojected(labels)
    assert "joints3d" not in out.meta and "camera" not in out.meta
    assert out.meta["nouns"] == labels.meta["nouns"]  # the rest of the meta stays
    assert out.subject.x.tolist() == labels.subject.x.tolist()
    # a camera alone is dropped too
    assert "camera" not in algebra.unprojected(_labels(tiny, camera=CAMERA)).meta
    plain = _labels(tiny)
    assert algebra.unprojected(plain) is plain  # nothing to drop: the same labels


def test_a_noise_clip_is_refused_naming_the_op(tiny):
    # the full refusal, led by the op that was asked for
    noisy = _labels(tiny, encoding=NOISE)
    with pytest.raises(EditError) as exc:
        algebra.retime(noisy, np.arange(N))
    assert str(exc.value) == "retime" + NOISE_REFUSAL
    clip = tiny.evolve(labels=noisy)
    for op, params in [("reverse", None), ("mirror", "horizontal")]:
        with pytest.raises(EditError) as exc:
            make_op(op, params)(clip)
        assert str(exc.value) == op + NOISE_REFUSAL


def test_speed_ramp_on_a_two_frame_clip_follows_the_rate_law(tiny):
    # the rate at a position is start + (end - start) * (position / last frame); on two frames
    # (last frame 1) a 0.1 -> 1 ramp steps 0, 0.1, 0.29, 0.651, then 1.337 is past the end:
    # source frames 0, 0, 0, 1 (a divisor of 2 there would hold frame 0 once more)
    two = make_op("trim", {"start": 0.0, "end": 0.5})(tiny)
    assert two.index.tolist() == [0, 1]
    out = make_op("speed_ramp", {"start": 0.1, "end": 1.0})(two)
    assert out.index.tolist() == [0, 0, 0, 1]
    assert out.labels.subject.x.tolist() == tiny.labels.subject.x[[0, 0, 0, 1]].tolist()
