"""Fixtures for edit tests: tiny colour-coded clips, generated pattern clips, ``check_edit``.

The tiny clip is 12 frames of 64x48 at 4 fps: frame ``t`` has its own solid background
colour, a fixed white marker in the top-left corner (so every flip and turn shows) and a
yellow 8x8 square whose top-left pixel is at ``(12 + 2t, 8)``; its labels track that square.
Generated clips are real motion patterns rendered with the 2D compositor at 160x90, 15 fps.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from dataclasses import FrozenInstanceError
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tempogen import observe
from tempogen.builders.audit.pixels import color_mask, pixel_labels
from tempogen.editing import Clip
from tempogen.editing.ops import COMPOSITE, COUNTERFACTUAL, ZOOM, Op
from tempogen.facts import answer_of
from tempogen.generators.motion import SAMPLES, Style, get_motion, make_labels
from tempogen.generators.render2d import Compositor, make_background
from tempogen.labels import Labels, Query, Track
from tempogen.questions import answer_key
from tempogen.video import probe, read_video

W, H, N, FPS = 64, 48, 12, 4.0
SQUARE = (255, 255, 0)
SIDE = 8  # the square's side in pixels
GEN_SIZE, GEN_FPS, GEN_FRAMES = (160, 90), 15.0, 46  # 45 = 3 * 15: samples fall on whole frames

# The variation flag each op must set (TOMATO's counterfactual / zoom / composite).
EXPECTED_FLAG = {
    "reverse": COUNTERFACTUAL,
    "speed": COUNTERFACTUAL,
    "speed_ramp": COUNTERFACTUAL,
    "trim": None,  # a cut is not one of TOMATO's edit kinds: no flag
    "mirror": COUNTERFACTUAL,
    "rotate": COUNTERFACTUAL,
    "loop": COMPOSITE,
    "crop": ZOOM,
    "zoom_in": ZOOM,
}


def tiny_frames() -> np.ndarray:
    """The tiny clip's frames (a fresh array each call)."""
    frames = np.empty((N, H, W, 3), np.uint8)
    for t in range(N):
        frames[t] = (10 + 20 * t, 220 - 15 * t, (40 + 37 * t) % 256)
        frames[t, 1:5, 1:4] = 255
        x = 12 + 2 * t
        frames[t, 8 : 8 + SIDE, x : x + SIDE] = SQUARE
    return frames


def square_centres() -> tuple[np.ndarray, np.ndarray]:
    """Pixel-centre coordinates of the square in each frame (pixel ``i`` has centre ``i``)."""
    t = np.arange(N)
    return 12 + 2 * t + (SIDE - 1) / 2, np.full(N, 8 + (SIDE - 1) / 2)


def tiny_labels() -> Labels:
    x, y = square_centres()
    track = Track.build("subject", N, x=x, y=y, shape="square", color=SQUARE, size=SIDE / 2 * 1.5)
    return Labels(
        W, H, FPS, (track,), Query("direction", ("subject",)), {"nouns": {"subject": "the square"}}
    )


@pytest.fixture
def tiny() -> Clip:
    """The tiny clip with labels for its square."""
    return Clip.from_array(tiny_frames(), FPS, tiny_labels())


@pytest.fixture
def tiny_frames_ref() -> np.ndarray:
    """The frames the tiny clip was made from (a separate copy)."""
    return tiny_frames()


def render(labels: Labels, seed: int = 0) -> np.ndarray:
    bg = make_background("solid", labels.width, labels.height, np.random.default_rng(seed + 100))
    return np.stack([f.copy() for f in Compositor(labels, bg).frames()])


_GENERATED: dict[tuple[str, str, int], Clip] = {}


def generated_clip(name: str, key: str, seed: int = 0) -> Clip:
    """A pattern's clip (labels from ``make_labels``, frames from the compositor), cached."""
    k = (name, key, seed)
    if k not in _GENERATED:
        w, h = GEN_SIZE
        labels = make_labels(
            get_motion(name),
            key,
            np.random.default_rng(seed),
            width=w,
            height=h,
            fps=GEN_FPS,
            num_frames=GEN_FRAMES,
            style=Style(),
        )
        _GENERATED[k] = Clip.from_array(render(labels, seed), GEN_FPS, labels)
    return _GENERATED[k]


@pytest.fixture(scope="session")
def generated() -> Callable[..., Clip]:
    """``generated(name, key, seed=0)``: a rendered pattern clip with its labels."""
    return generated_clip


def labels_key(clip: Clip, idx: np.ndarray | None = None) -> str | None:
    """The answer key the clip's labels give (all frames, or the frames at ``idx``)."""
    assert clip.labels is not None
    value = answer_of(clip.labels, idx)
    return None if value is None else answer_key(clip.labels.query.fact, value)


def pixel_key(clip: Clip) -> str | None:
    """The answer key read from the clip's rendered pixels at TOMATO's 16 uniform frames."""
    labels = clip.labels
    assert labels is not None
    idx = observe.uniform_indices(clip.num_frames, SAMPLES)
    frames = clip.to_array()[idx]
    spin = labels.query.fact == "rotation" and labels.query.kind == "spin"
    value = answer_of(pixel_labels(frames, labels, idx, rotation=spin), idx)
    return None if value is None else answer_key(labels.query.fact, value)


@pytest.fixture(scope="session")
def keys() -> Any:
    """Answer-key readers: ``keys.labels(clip, idx=None)`` and ``keys.pixels(clip)``."""

    class Keys:
        labels = staticmethod(labels_key)
        pixels = staticmethod(pixel_key)

    return Keys


@pytest.fixture(scope="session")
def centroids() -> Callable[[np.ndarray], np.ndarray]:
    """``centroids(frames)``: (T, 2) centre of the yellow square's pixels per frame."""
    return square_centroids


def square_centroids(frames: np.ndarray) -> np.ndarray:
    """(T, 2) centroid of the yellow square's pixels in each frame."""
    out = []
    for f in frames:
        yy, xx = np.nonzero(color_mask(f, SQUARE))
        assert len(xx), "square not found"
        out.append((xx.mean(), yy.mean()))
    return np.array(out)


STATES = ("x", "y", "angle", "scale", "visible", "lit")


def _label_snapshot(labels: Labels) -> dict[str, Any]:
    """Every label value, with state arrays copied exactly (no rounding)."""
    out: dict[str, Any] = {
        "canvas": (labels.width, labels.height, labels.fps),
        "query": labels.query,
        "meta": copy.deepcopy(labels.meta),
    }
    for t in labels.tracks:
        out[t.name] = (t.role, t.shape, t.color, t.size, t.text)
        for k in STATES:
            out[f"{t.name}.{k}"] = getattr(t, k).copy()
    return out


def _snapshot(clip: Clip) -> dict[str, Any]:
    return {
        "index": clip.index.copy(),
        "affine": clip.affine.copy(),
        "labels": None if clip.labels is None else _label_snapshot(clip.labels),
        "facts": copy.deepcopy(clip.facts),
        "edits": copy.deepcopy(clip.edits),
        "variation": clip.variation,
        "size": clip.size,
        "black": None if clip.black is None else clip.black.copy(),
        "source": clip.source.copy() if isinstance(clip.source, np.ndarray) else clip.source,
    }


def _assert_same(before: dict[str, Any], after: dict[str, Any]) -> None:
    assert before.keys() == after.keys()
    for k in before:
        a, b = before[k], after[k]
        if isinstance(a, dict) and k == "labels":
            _assert_same(a, b)
        elif isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b, err_msg=k)
        else:
            assert a == b, k


def _check_edit(op: Op, clip: Clip, tmp_path: Path) -> Clip:
    # The op is a frozen value that survives pickling (workers receive ops by pickle).
    assert pickle.loads(pickle.dumps(op)) == op
    assert hash(pickle.loads(pickle.dumps(op))) == hash(op)
    field = next(iter(vars(op)), None)
    if field is not None:
        with pytest.raises(FrozenInstanceError):
            setattr(op, field, None)

    before = _snapshot(clip)
    frames_before = clip.to_array()
    out = op(clip)
    again = op(clip)
    # The input clip (time map, spatial maps, labels, frames) is unchanged.
    _assert_same(before, _snapshot(clip))
    np.testing.assert_array_equal(clip.to_array(), frames_before)

    # Deterministic: the same op on the same input gives the same frames and labels.
    frames = out.to_array()
    np.testing.assert_array_equal(frames, again.to_array())
    _assert_same(_snapshot(out), _snapshot(again))

    # Frames, labels and the written video agree on the length and size.
    w, h = out.size
    assert frames.shape == (out.num_frames, h, w, 3)
    if out.labels is not None:
        assert out.labels.num_frames == out.num_frames == len(frames)
        assert (out.labels.width, out.labels.height) == out.size
    path = tmp_path / f"{op.name}.mp4"
    assert out.write(path) == out.num_frames
    info = probe(path)
    assert (info.num_frames, info.width, info.height) == (out.num_frames, w, h)
    assert len(read_video(path)) == out.num_frames

    # History and TOMATO variation flag.
    assert out.edits == clip.edits + ({"op": op.name, **vars(op)},)
    flag = EXPECTED_FLAG[op.name]
    if flag is None:
        assert out.variation == clip.variation
    else:
        assert flag in out.variation
        assert out.variation.count(flag) == 1
    assert set(clip.variation) <= set(out.variation)
    return out


@pytest.fixture
def check_edit(tmp_path: Path) -> Callable[[Op, Clip], Clip]:
    """``check_edit(op, clip)``: the shared contract every op obeys; returns the edited clip."""
    return lambda op, clip: _check_edit(op, clip, tmp_path)
