"""An editable clip: a frame source seen through a time map and per-frame similarity transforms.

Edits never touch pixels until the clip is written. Every temporal op composes into one
index array (output frame ``j`` shows source frame ``index[j]``) and every spatial op into
one 2x3 matrix per output frame, so a chain of reverse, mirror, speed and zoom costs one
decode, one warp per frame and one encode. Labels follow the same maps exactly.

Writing keeps pixels in YUV 4:2:0 from decoder to encoder (the planes are warped with the map
expressed in each plane's sample grid), so no frame is converted to RGB and back; only the
frames the time map shows are kept, and an out-of-order map (reverse) holds them in one
preallocated arena, or beyond ``MEMORY_BUDGET`` in a temporary file. The warps live in
:mod:`tempogen.editing.warp`, the held frames in :mod:`tempogen.editing.framestore`.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import av
import numpy as np

from tempogen.editing.framestore import MEMORY_BUDGET, FrameStore
from tempogen.editing.warp import BLACK_I420, I420Buffer, i420_planes, warp_i420, warp_rgb
from tempogen.errors import EditError
from tempogen.labels import Labels
from tempogen.video import VideoError, VideoWriter, probe

__all__ = ["MEMORY_BUDGET", "Clip", "EditError", "Stream", "similarity_parts"]


@dataclass(frozen=True, eq=False)
class Stream:
    """Frames made on the fly from other clips (a join): each drawn as it is needed, never
    stacked, so joining two long clips holds a few frames, not both clips. ``make`` starts a
    fresh pass; a frame it yields is valid until the next one is drawn."""

    make: Callable[[], Generator[np.ndarray, None, None]]  # closed when a pass stops early
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
        conv = I420Buffer(w, h) if yuv else None
        if isinstance(self.source, np.ndarray):
            for k in np.flatnonzero(want):
                f = self.source[k]
                yield int(k), conv.from_rgb(f) if conv is not None else f
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
                            i420_planes(frame) or conv.from_rgb(frame.to_ndarray(format="rgb24")),
                        )
                if i >= last:
                    break
        if i < last:
            raise VideoError(f"{self.source}: ended at frame {i}, edit needs frame {last}")

    def frames(self) -> Generator[np.ndarray, None, None]:
        """Output frames in order (RGB), each warped into a reused buffer; close it to stop
        a pass early (its decoder is released)."""
        w, h = self.size
        out = np.zeros((h, w, 3), np.uint8)
        black = self.black if self.black is not None else np.zeros(self.num_frames, bool)
        for j, src in self._ordered_sources():
            if black[j]:
                out[:] = 0
            else:
                warp_rgb(src, self.affine[j], out)
            yield out

    def _i420_frames(self) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Output frames in order as I420 planes (what the encoder takes), never RGB.

        Decoded yuv420p frames are warped plane by plane: Y with the frame's map, U and V
        with the same map expressed in chroma-sample coordinates. This skips the YUV->RGB
        conversion after decoding and the RGB->YUV one before encoding. The planes yielded
        may be views of the source or reused buffers, valid until the next one is drawn.
        """
        w, h = self.size
        out = I420Buffer(w, h)
        black = self.black if self.black is not None else np.zeros(self.num_frames, bool)
        blank = None
        for j, src in self._ordered_sources(yuv=True):
            if black[j]:
                if blank is None:
                    blank = I420Buffer(w, h)
                    for p, v in zip(blank.planes, BLACK_I420, strict=True):
                        p.fill(v)
                yield blank.planes
            else:
                yield warp_i420(src, self.affine[j], out.planes)

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
        shapes: list[tuple[int, ...]] = (
            [(h, w), (h // 2, w // 2), (h // 2, w // 2)] if yuv else [(h, w, 3)]
        )
        needed = np.unique(index)
        store = FrameStore(shapes, len(needed))
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
