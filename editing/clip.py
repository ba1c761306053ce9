"""An editable clip: a frame source seen through a time map and per-frame similarity transforms.

Edits never touch pixels until the clip is written. Every temporal op composes into one
index array (output frame ``j`` shows source frame ``index[j]``) and every spatial op into
one 2x3 matrix per output frame, so a chain of reverse, mirror, speed and zoom costs one
decode, one warp per frame and one encode. Labels follow the same maps exactly.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import av
import cv2
import numpy as np

from tempogen.labels import Labels
from tempogen.video import VideoError, VideoWriter

# Distinct source frames a non-sequential time map may hold in memory before spilling to a
# temporary file on disk (reverse of a long clip).
MEMORY_BUDGET = 512 * 1024 * 1024


class EditError(ValueError):
    """An op cannot be applied (bad parameter, or a label it cannot transform soundly)."""


@dataclass(frozen=True, eq=False)
class Clip:
    """Frames (lazily, from a file or an array) plus fps, exact labels and edit history.

    ``index[j]`` is the source frame shown at output frame ``j``; ``affine[j]`` maps source
    pixel coordinates to output pixel coordinates; ``size`` is the output (width, height).
    ``labels`` are already in output coordinates and time; ``facts`` holds user-declared
    answers for clips without per-frame states (external videos).
    """

    source: str | np.ndarray
    source_size: tuple[int, int]
    source_frames: int
    fps: float
    index: np.ndarray
    affine: np.ndarray
    size: tuple[int, int]
    labels: Labels | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    edits: tuple[dict[str, Any], ...] = ()
    variation: tuple[str, ...] = ()
    black: np.ndarray | None = None  # output frames forced to black (gaps)

    @property
    def num_frames(self) -> int:
        return int(len(self.index))

    @classmethod
    def from_video(
        cls,
        path: str | os.PathLike[str],
        labels: Labels | None = None,
        facts: dict[str, Any] | None = None,
    ) -> Clip:
        """Open a video file (frames are decoded only when the clip is written)."""
        path = str(path)
        if not Path(path).is_file():
            raise VideoError(f"{path}: no such video file")
        try:
            with av.open(path) as c:
                s = c.streams.video[0]
                fps = float(s.average_rate or s.base_rate or 0)
                w, h = s.codec_context.width, s.codec_context.height
                n = s.frames or sum(1 for _ in c.decode(s))
        except (av.error.FFmpegError, IndexError) as exc:
            raise VideoError(f"{path}: not a readable video: {exc}") from exc
        if n <= 0 or fps <= 0:
            raise VideoError(f"{path}: video has no frames")
        if labels is not None and labels.num_frames != n:
            n = min(n, labels.num_frames)
        return cls._new(path, (w, h), n, fps, labels, facts)

    @classmethod
    def from_array(
        cls,
        frames: np.ndarray,
        fps: float,
        labels: Labels | None = None,
        facts: dict[str, Any] | None = None,
    ) -> Clip:
        """Wrap an in-memory (T, H, W, 3) uint8 array."""
        if frames.ndim != 4 or frames.shape[0] == 0 or frames.shape[3] != 3:
            raise EditError(f"frames must be (T, H, W, 3) with T > 0, got {frames.shape}")
        return cls._new(
            frames, (frames.shape[2], frames.shape[1]), frames.shape[0], fps, labels, facts
        )

    @classmethod
    def _new(cls, source, size, n, fps, labels, facts) -> Clip:
        eye = np.zeros((n, 2, 3))
        eye[:, 0, 0] = eye[:, 1, 1] = 1.0
        return cls(source, size, n, float(fps), np.arange(n), eye, size, labels, dict(facts or {}))

    def evolve(self, **changes: Any) -> Clip:
        return replace(self, **changes)

    # -- pixels ---------------------------------------------------------------------------
    def _source_frames(self, wanted: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
        """Yield (source index, RGB frame) for the wanted indices, in increasing order."""
        want = set(int(i) for i in wanted)
        last = max(want)
        if isinstance(self.source, np.ndarray):
            for i in sorted(want):
                yield i, self.source[i]
            return
        with av.open(self.source) as c:
            s = c.streams.video[0]
            s.thread_type = "AUTO"
            i = -1
            for frame in c.decode(s):
                i += 1
                if i in want:
                    yield i, frame.to_ndarray(format="rgb24")
                if i >= last:
                    break
        if i < last:
            raise VideoError(f"{self.source}: ended at frame {i}, edit needs frame {last}")

    def frames(self) -> Iterator[np.ndarray]:
        """Output frames in order, each warped into a reused buffer."""
        w, h = self.size
        out = np.zeros((h, w, 3), np.uint8)
        black = self.black if self.black is not None else np.zeros(self.num_frames, bool)
        for j, src in self._ordered_sources():
            if black[j]:
                out[:] = 0
            else:
                _warp(src, self.affine[j], out)
            yield out

    def _ordered_sources(self) -> Iterator[tuple[int, np.ndarray]]:
        """(output index, source frame) in output order, holding or spilling what must wait."""
        index = self.index
        if np.all(np.diff(index) >= 0):
            it = self._source_frames(index)
            cur_i, cur = next(it)
            for j, i in enumerate(index):
                while cur_i < i:
                    cur_i, cur = next(it)
                yield j, cur
            return
        store = _FrameStore(self.source_size, len(set(index.tolist())))
        try:
            for i, f in self._source_frames(index):
                store.put(i, f)
            for j, i in enumerate(index):
                yield j, store.get(int(i))
        finally:
            store.close()

    def write(self, path: str | os.PathLike[str], **encode: Any) -> int:
        """Encode the edited clip to an mp4 (atomic); returns the frame count."""
        w, h = self.size
        with VideoWriter(path, self.fps, w, h, **encode) as vw:
            for f in self.frames():
                vw.write(f)
        return vw.frames_written

    def to_array(self) -> np.ndarray:
        return np.stack([f.copy() for f in self.frames()])


def _warp(src: np.ndarray, m: np.ndarray, out: np.ndarray) -> None:
    """Apply a 2x3 map into ``out``, with fast paths for identity and flips."""
    h, w = out.shape[:2]
    sh, sw = src.shape[:2]
    if (sw, sh) == (w, h):
        if np.allclose(m, [[1, 0, 0], [0, 1, 0]]):
            out[:] = src
            return
        if np.allclose(m, [[-1, 0, w - 1], [0, 1, 0]]):
            cv2.flip(src, 1, dst=out)
            return
        if np.allclose(m, [[1, 0, 0], [0, -1, h - 1]]):
            cv2.flip(src, 0, dst=out)
            return
    a, b = m[0, 0], m[0, 1]
    if abs(b) < 1e-12 and abs(m[1, 0]) < 1e-12 and a > 0 and abs(m[1, 1] - a) < 1e-12:
        # Pure zoom/crop: resize the covered region only (much cheaper than a full warp).
        x0, y0 = -m[0, 2] / a, -m[1, 2] / a
        x1, y1 = x0 + w / a, y0 + h / a
        if 0 <= x0 and 0 <= y0 and x1 <= sw + 1e-6 and y1 <= sh + 1e-6:
            if abs(x0 - round(x0)) < 1e-6 and abs(y0 - round(y0)) < 1e-6 and abs(a - 1) < 1e-12:
                out[:] = src[
                    int(round(y0)) : int(round(y0)) + h, int(round(x0)) : int(round(x0)) + w
                ]
                return
    cv2.warpAffine(src, m, (w, h), dst=out, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


class _FrameStore:
    """Source frames kept for an out-of-order time map: in memory up to the budget, else
    in a temporary raw file, so reversing a long clip costs disk, not memory."""

    def __init__(self, size: tuple[int, int], count: int) -> None:
        w, h = size
        self.shape = (h, w, 3)
        self.nbytes = h * w * 3
        self.mem: dict[int, np.ndarray] | None = (
            {} if count * self.nbytes <= MEMORY_BUDGET else None
        )
        self.offsets: dict[int, int] = {}
        self.file = None if self.mem is not None else tempfile.TemporaryFile(prefix="tempogen-")
        self.buf = np.empty(self.shape, np.uint8)

    def put(self, i: int, frame: np.ndarray) -> None:
        if self.mem is not None:
            self.mem[i] = frame.copy()
            return
        assert self.file is not None
        self.offsets[i] = len(self.offsets) * self.nbytes
        self.file.write(np.ascontiguousarray(frame).tobytes())

    def get(self, i: int) -> np.ndarray:
        if self.mem is not None:
            return self.mem[i]
        assert self.file is not None
        self.file.seek(self.offsets[i])
        self.file.readinto(memoryview(self.buf).cast("B"))
        return self.buf

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def similarity_parts(m: np.ndarray) -> tuple[float, float, bool]:
    """(scale, rotation or reflection-axis angle in degrees, reflected) of a similarity map.

    Raises :class:`EditError` for maps that shear or stretch, which no angle label survives.
    """
    lin = m[:, :2]
    det = float(np.linalg.det(lin))
    s = math.sqrt(abs(det))
    if s == 0:
        raise EditError("transform collapses the frame")
    q = lin / s
    if not np.allclose(q @ q.T, np.eye(2), atol=1e-6):
        raise EditError(
            "transform is not a similarity (it shears or stretches); angles would be wrong"
        )
    reflected = det < 0
    return s, math.degrees(math.atan2(q[1, 0], q[0, 0])), reflected
