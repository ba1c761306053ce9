"""Per-frame meta moves with the frames: 3D joints are retimed by time ops and dropped (with
the camera) by picture transforms; a temporal-noise clip is refused by every op."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tempogen.editing import Clip, EditError, concat
from tempogen.editing.ops import make_op

N = 12  # the tiny clip's frames (tests/editing/conftest.py)


def _with(tiny: Clip, **meta) -> Clip:
    """The tiny clip with ``meta`` added to its labels."""
    labels = tiny.labels
    return tiny.evolve(labels=replace(labels, meta={**labels.meta, **meta}))


def _joints() -> dict[str, list[list[float]]]:
    """One 3D point per frame whose x is the frame number, so a retiming is readable."""
    return {"subject": [[float(t), 1.0, 2.0] for t in range(N)]}


CAMERA = {"yfov_deg": 40.0, "pose": [[1.0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 3], [0, 0, 0, 1]]}


@pytest.mark.parametrize(
    ("op", "params", "shown"),
    [
        ("reverse", None, list(range(N - 1, -1, -1))),
        ("trim", {"start": 1.0}, list(range(4, N))),
        ("speed", 2.0, None),
    ],
)
def test_time_ops_retime_the_3d_joints(tiny, op, params, shown):
    clip = _with(tiny, joints3d=_joints(), camera=CAMERA)
    out = make_op(op, params)(clip)
    joints = out.labels.meta["joints3d"]["subject"]
    if shown is None:
        shown = out.index.tolist()  # the source frame each output frame shows
    assert out.index.tolist() == shown
    assert [p[0] for p in joints] == [float(t) for t in shown]
    assert len(joints) == out.labels.num_frames
    assert out.labels.meta["camera"] == CAMERA  # the camera did not move: the frames did
    assert out.labels.meta["nouns"] == {"subject": "the square"}


@pytest.mark.parametrize(
    ("op", "params"), [("mirror", "horizontal"), ("rotate", 180), ("crop", [8, 4, 48, 40])]
)
def test_picture_transforms_drop_the_joints_and_camera(tiny, op, params):
    clip = _with(tiny, joints3d=_joints(), camera=CAMERA)
    out = make_op(op, params)(clip)
    assert "joints3d" not in out.labels.meta and "camera" not in out.labels.meta
    assert out.labels.meta["nouns"] == {"subject": "the square"}


@pytest.mark.parametrize(
    ("op", "params"), [("reverse", None), ("mirror", "horizontal"), ("speed", 0.5)]
)
def test_a_noise_clip_is_refused_by_every_op(tiny, op, params):
    noise = {"cell": 4, "tell": "place", "order": ["subject"]}
    clip = _with(tiny, encoding=noise)
    with pytest.raises(EditError, match="temporal-noise clip cannot be edited"):
        make_op(op, params)(clip)


def test_a_join_keeps_no_stale_joints(tiny):
    clip = _with(tiny, joints3d=_joints(), camera=CAMERA)
    out = concat(clip, make_op("reverse")(clip))
    joints = out.labels.meta.get("joints3d")
    assert joints is None or len(joints["subject"]) == out.labels.num_frames
    assert np.isfinite(out.labels.subject.x).all()
