"""An editable clip: a frame source seen through a time map and per-frame similarity transforms.

Edits never touch pixels until the clip is written. Every temporal op composes into one
index array (output frame ``j`` shows source frame ``index[j]``) and every spatial op into
one 2x3 matrix per output frame, so a chain of reverse, mirror, speed and zoom costs one
decode, one warp per frame and one encode. Labels follow the same maps exactly.

Writing keeps pixels in YUV 4:2:0 from decoder to encoder (the planes are warped with the map
expressed in each plane's sample grid), so no frame is converted to RGB and back; only the
frames the time map shows are kept, and an out-of-order map (reverse) holds them in one
preallocated arena, or beyond ``MEMORY_BUDGET`` in a temporary file.
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import av
import cv2
import numpy as np

from tempogen.errors import EditError
from tempogen.labels import Labels
from tempogen.video import VideoError, VideoWriter, probe

# Distinct source frames a non-sequential time map may hold in memory before spilling to a
# temporary file on disk (reverse of a long clip).
MEMORY_BUDGET = 512 * 1024 * 1024


@dataclass(frozen=True, eq=False)
class Stream:
    """Frames made on the fly from other clips (a join): each drawn as it is needed, never
    stacked, so joining two long clips holds a few frames, not both clips. ``make`` starts a
    fresh pass; a frame it yields is valid until the next one is drawn."""

    make: Callable[[], Iterator[np.ndarray]]
    num_frames: int
    size: tuple[int, int]
    # per frame, the picture of the joined clips it shows (see :meth:`Clip.content_ids`);
    # None: every frame its own
    content: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class Clip:
    """Frames (lazily, from a file or an array) plus fps, exact labels and edit history.

    ``index[j]`` is the source frame shown at output frame ``j``; ``affine[j]`` maps source
    pixel coordinates to output pixel coordinates; ``size`` is the output (width, height).
    ``labels`` are already in output coordinates and time; ``facts`` holds user-declared
    answers for clips without per-frame states (external videos).
    """

    source: str | np.ndarray | Stream
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
    audio: bool = False  # the source had sound, which edited clips do not carry

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
        """Open a video file (frames are decoded only when the clip is written).

        Its length is the frames a decoder gives, not what the container declares. A
        variable frame rate is refused: edits keep time as ``frame / fps``, so a file whose
        frame durations differ would be retimed silently. An audio track is noted
        (:attr:`audio`): edited clips are written silent."""
        path = str(path)
        info = probe(path)
        n, fps, w, h = info.num_frames, info.fps, info.width, info.height
        if n <= 0 or fps <= 0:
            raise VideoError(f"{path}: video has no frames")
        if info.variable_rate and info.durations is not None:
            short, long = (round(1000 * d, 1) for d in info.durations)
            raise VideoError(
                f"{path}: variable frame rate (frames last {short} to {long} ms); edits time "
                f"frames as index / fps, so convert it to a constant rate first, e.g. "
                f"ffmpeg -i {Path(path).name} -fps_mode cfr -r {round(fps)} cfr.mp4"
            )
        if labels is not None and labels.num_frames != n:
            n = min(n, labels.num_frames)
        return cls._new(path, (w, h), n, fps, labels, facts).evolve(audio=info.audio)

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
    def from_stream(
        cls,
        stream: Stream,
        fps: float,
        labels: Labels | None = None,
        facts: dict[str, Any] | None = None,
    ) -> Clip:
        """Wrap frames made on the fly (see :class:`Stream`)."""
        return cls._new(stream, stream.size, stream.num_frames, fps, labels, facts)

    @classmethod
    def _new(cls, source, size, n, fps, labels, facts) -> Clip:
        eye = np.zeros((n, 2, 3))
        eye[:, 0, 0] = eye[:, 1, 1] = 1.0
        return cls(source, size, n, float(fps), np.arange(n), eye, size, labels, dict(facts or {}))

    def evolve(self, **changes: Any) -> Clip:
        return replace(self, **changes)

    def content_ids(self) -> np.ndarray:
        """Per output frame, which source picture it shows: repeats of one source frame
        (slow motion, a freeze) share an id, however they are warped; -1 is a black gap frame.
        What an edit keeps of a clip's moments is counted on these ids."""
        src = self.source
        base = src.content if isinstance(src, Stream) and src.content is not None else None
        ids = base[self.index] if base is not None else self.index.copy()
        return np.where(self.black, -1, ids) if self.black is not None else ids

    # -- pixels ---------------------------------------------------------------------------
    def _source_frames(self, wanted: np.ndarray, yuv: bool = False) -> Iterator[tuple[int, Any]]:
        """Yield (source index, frame) for the wanted indices, in increasing order.

        A frame is an RGB array, or with ``yuv`` a (Y, U, V) tuple of I420 planes. Either
        may be a view into decoder memory or a reused buffer: it is valid only until the
        next item is drawn. Frames that are not wanted are decoded but never converted.
        """
        want = np.zeros(int(wanted.max()) + 1, bool)
        want[wanted] = True
        last = len(want) - 1
        w, h = self.source_size
        conv = _I420Buffer(w, h) if yuv else None
        if isinstance(self.source, np.ndarray):
            for i in np.flatnonzero(want):
                f = self.source[i]
                yield int(i), conv.from_rgb(f) if conv is not None else f
            return
        if isinstance(self.source, Stream):
            i = -1
            with contextlib.closing(self.source.make()) as frames:
                for i, f in enumerate(frames):
                    if want[i]:
                        yield i, conv.from_rgb(f) if conv is not None else f
                    if i >= last:
                        break
            if i < last:
                raise VideoError(f"a joined clip ended at frame {i}, edit needs frame {last}")
            return
        with av.open(self.source) as c:
            s = c.streams.video[0]
            s.thread_type = "AUTO"
            i = -1
            for frame in c.decode(s):
                i += 1
                if want[i]:
                    if conv is None:
                        yield i, frame.to_ndarray(format="rgb24")
                    else:
                        yield (
                            i,
                            _i420_planes(frame) or conv.from_rgb(frame.to_ndarray(format="rgb24")),
                        )
                if i >= last:
                    break
        if i < last:
            raise VideoError(f"{self.source}: ended at frame {i}, edit needs frame {last}")

    def frames(self) -> Iterator[np.ndarray]:
        """Output frames in order (RGB), each warped into a reused buffer."""
        w, h = self.size
        out = np.zeros((h, w, 3), np.uint8)
        black = self.black if self.black is not None else np.zeros(self.num_frames, bool)
        for j, src in self._ordered_sources():
            if black[j]:
                out[:] = 0
            else:
                _warp(src, self.affine[j], out)
            yield out

    def _i420_frames(self) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Output frames in order as I420 planes (what the encoder takes), never RGB.

        Decoded yuv420p frames are warped plane by plane: Y with the frame's map, U and V
        with the same map expressed in chroma-sample coordinates. This skips the YUV->RGB
        conversion after decoding and the RGB->YUV one before encoding. The planes yielded
        may be views of the source or reused buffers, valid until the next one is drawn.
        """
        w, h = self.size
        out = _I420Buffer(w, h)
        black = self.black if self.black is not None else np.zeros(self.num_frames, bool)
        blank = None
        for j, src in self._ordered_sources(yuv=True):
            if black[j]:
                if blank is None:
                    blank = _I420Buffer(w, h)
                    for p, v in zip(blank.planes, _BLACK_I420, strict=True):
                        p.fill(v)
                yield blank.planes
            else:
                yield _warp_i420(src, self.affine[j], out.planes)

    def _ordered_sources(self, yuv: bool = False) -> Iterator[tuple[int, Any]]:
        """(output index, source frame) in output order, holding or spilling what must wait.

        Only source frames the time map shows are kept; each is stored once however often
        it is shown.
        """
        index = self.index
        if np.all(np.diff(index) >= 0):
            it = self._source_frames(index, yuv)
            cur_i, cur = next(it)
            for j, i in enumerate(index):
                while cur_i < i:
                    cur_i, cur = next(it)
                yield j, cur
            return
        w, h = self.source_size
        shapes = [(h, w), (h // 2, w // 2), (h // 2, w // 2)] if yuv else [(h, w, 3)]
        needed = np.unique(index)
        store = _FrameStore(shapes, len(needed))
        try:
            for i, f in self._source_frames(needed, yuv):
                store.put(i, f if yuv else (f,))
            for j, i in enumerate(index):
                parts = store.get(int(i))
                yield j, parts if yuv else parts[0]
        finally:
            store.close()

    def _can_write_i420(self) -> bool:
        sw, sh = self.source_size
        w, h = self.size
        return sw % 2 == 0 and sh % 2 == 0 and w % 2 == 0 and h % 2 == 0

    def write(self, path: str | os.PathLike[str], **encode: Any) -> int:
        """Encode the edited clip to an mp4 (atomic); returns the frame count.

        ``encode`` goes to :class:`~tempogen.video.VideoWriter` (``crf``, ``preset``,
        ``threads``); ``threads`` defaults to 1, so the same edit gives the same bytes on any
        machine (x264's output depends on its thread count; auto was no faster here). Frames
        stay in YUV from decoder to encoder when the sizes allow it (even dimensions).
        """
        w, h = self.size
        encode.setdefault("threads", 1)
        with VideoWriter(path, self.fps, w, h, **encode) as vw:
            if self._can_write_i420():
                for planes in self._i420_frames():
                    vw.write_i420(planes)
            else:
                for f in self.frames():
                    vw.write(f)
        return vw.frames_written

    def to_array(self) -> np.ndarray:
        return np.stack([f.copy() for f in self.frames()])


# I420 (limited range) of RGB black, as cv2.COLOR_RGB2YUV_I420 (and so VideoWriter) makes it.
_BLACK_I420 = tuple(
    int(v) for v in cv2.cvtColor(np.zeros((2, 2, 3), np.uint8), cv2.COLOR_RGB2YUV_I420).ravel()[3:]
)


class _I420Buffer:
    """One reusable I420 frame: a contiguous (h * 3 / 2, w) array and its plane views."""

    def __init__(self, w: int, h: int) -> None:
        self.w, self.h = w, h
        self.data = np.empty((h * 3 // 2, w), np.uint8)
        flat = self.data.reshape(-1)
        n, q = w * h, (w // 2) * (h // 2)
        self.planes = (
            flat[:n].reshape(h, w),
            flat[n : n + q].reshape(h // 2, w // 2),
            flat[n + q : n + 2 * q].reshape(h // 2, w // 2),
        )

    def from_rgb(self, rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cv2.cvtColor(rgb, cv2.COLOR_RGB2YUV_I420, dst=self.data)
        return self.planes


def _i420_planes(frame: av.VideoFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Views of a decoded frame's planes when it is plain (limited-range) yuv420p, else None.

    Other formats (full range, 4:2:2, 10-bit, ...) go through RGB as before.
    """
    if frame.format.name != "yuv420p" or frame.color_range == 2:  # 2: AVCOL_RANGE_JPEG
        return None
    out = []
    for plane in frame.planes:
        step = plane.line_size
        if step < plane.width:
            return None
        a = np.frombuffer(plane, np.uint8).reshape(plane.height, step)
        out.append(a[:, : plane.width])
    return out[0], out[1], out[2]


def _chroma_map(m: np.ndarray) -> np.ndarray:
    """The luma-pixel map ``m`` as a map between chroma-sample coordinates of I420 planes.

    Chroma sample ``c`` covers luma pixels ``2c`` and ``2c + 1`` (centred at ``2c + 0.5``,
    as ``cv2.COLOR_RGB2YUV_I420`` averages them), so ``c' = A c + (t + A(0.5, 0.5) - 0.5) / 2``.
    Flips and 90-degree turns of even-sized frames come out as exact index maps.
    """
    mc = m.astype(np.float64, copy=True)
    mc[:, 2] = (m[:, 2] + m[:, :2] @ np.array([0.5, 0.5]) - 0.5) / 2
    return mc


def _warp_plane(src: np.ndarray, m: np.ndarray, out: np.ndarray, fill: int) -> np.ndarray:
    """Warp one 8-bit plane by the 2x3 map ``m`` into ``out``; returns the result, which for
    an exact crop is a view of ``src`` (no copy). Flips, quarter turns and integer shifts
    are exact copies; anything else is a bilinear ``cv2.warpAffine``."""
    h, w = out.shape
    sh, sw = src.shape
    lin = m[:, :2]
    if (
        abs(lin[0, 1]) < 1e-12
        and abs(lin[1, 0]) < 1e-12
        and abs(abs(lin[0, 0]) - 1) < 1e-12
        and abs(abs(lin[1, 1]) - 1) < 1e-12
    ):
        tx, ty = m[0, 2], m[1, 2]
        if abs(tx - round(tx)) < 1e-6 and abs(ty - round(ty)) < 1e-6:
            fx, fy = lin[0, 0] < 0, lin[1, 1] < 0
            # Output pixel (x, y) shows source (sx * (x - tx), sy * (y - ty)).
            x0 = int(round(tx)) - (w - 1) if fx else -int(round(tx))
            y0 = int(round(ty)) - (h - 1) if fy else -int(round(ty))
            if 0 <= x0 and 0 <= y0 and x0 + w <= sw and y0 + h <= sh:
                part = src[y0 : y0 + h, x0 : x0 + w]
                if fx and fy:
                    cv2.flip(part, -1, dst=out)
                elif fx:
                    cv2.flip(part, 1, dst=out)
                elif fy:
                    cv2.flip(part, 0, dst=out)
                else:
                    return part
                return out
    if (h, w) == (sw, sh):  # a quarter turn of the whole frame
        if np.allclose(m, [[0, -1, sh - 1], [1, 0, 0]], atol=1e-9):
            cv2.rotate(src, cv2.ROTATE_90_CLOCKWISE, dst=out)
            return out
        if np.allclose(m, [[0, 1, 0], [-1, 0, sw - 1]], atol=1e-9):
            cv2.rotate(src, cv2.ROTATE_90_COUNTERCLOCKWISE, dst=out)
            return out
    cv2.warpAffine(
        src,
        m,
        (w, h),
        dst=out,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=fill,
    )
    return out


def _warp_i420(
    src: tuple[np.ndarray, np.ndarray, np.ndarray],
    m: np.ndarray,
    out: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Apply a 2x3 luma map to I420 planes; returns the planes to encode (``out`` or views)."""
    mc = _chroma_map(m)
    return (
        _warp_plane(src[0], m, out[0], _BLACK_I420[0]),
        _warp_plane(src[1], mc, out[1], _BLACK_I420[1]),
        _warp_plane(src[2], mc, out[2], _BLACK_I420[2]),
    )


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
    in a temporary raw file, so reversing a long clip costs disk, not memory.

    A frame is a tuple of arrays of fixed ``shapes`` (one RGB array, or three I420 planes).
    In memory, all frames live in one arena allocated up front (touched only as it fills);
    on disk, each frame is one contiguous record, read back into one reused buffer.
    """

    def __init__(self, shapes: list[tuple[int, ...]], count: int) -> None:
        self.shapes = [tuple(s) for s in shapes]
        self.sizes = [math.prod(s) for s in self.shapes]
        self.nbytes = sum(self.sizes)
        self.slot: dict[int, int] = {}
        self.in_memory = count * self.nbytes <= MEMORY_BUDGET
        self.file = None if self.in_memory else tempfile.TemporaryFile(prefix="tempogen-")
        self.data = np.empty((count if self.in_memory else 1, self.nbytes), np.uint8)
        self.bytes_spilled = 0

    def _views(self, row: np.ndarray) -> tuple[np.ndarray, ...]:
        out, at = [], 0
        for shape, size in zip(self.shapes, self.sizes, strict=True):
            out.append(row[at : at + size].reshape(shape))
            at += size
        return tuple(out)

    def put(self, i: int, parts: tuple[np.ndarray, ...]) -> None:
        k = len(self.slot)
        self.slot[i] = k
        if self.in_memory:
            for dst, src in zip(self._views(self.data[k]), parts, strict=True):
                np.copyto(dst, src)
            return
        assert self.file is not None
        for src in parts:
            self.file.write(memoryview(np.ascontiguousarray(src)).cast("B"))
        self.bytes_spilled += self.nbytes

    def get(self, i: int) -> tuple[np.ndarray, ...]:
        k = self.slot[i]
        if self.in_memory:
            return self._views(self.data[k])
        assert self.file is not None
        self.file.seek(k * self.nbytes)
        self.file.readinto(memoryview(self.data[0]))
        return self._views(self.data[0])

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
