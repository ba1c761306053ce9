"""Video I/O: H.264 yuv420p constant-frame-rate mp4, written atomically, read frame by frame.

Encoding runs in-process through PyAV (libx264). RGB frames are converted to I420 with OpenCV,
which is faster than PyAV's own conversion and matches what ``cv2.VideoCapture`` decodes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, cast

import av
import cv2
import numpy as np

from tempogen.errors import InputFileError
from tempogen.io import atomic_path

DEFAULT_PRESET = "ultrafast"
DEFAULT_CRF = 18


class VideoError(InputFileError, RuntimeError):
    """A video could not be written or read; the message names the file."""


@dataclass(frozen=True)
class VideoInfo:
    """What a decoder reports about a file."""

    num_frames: int
    fps: float
    width: int
    height: int
    audio: bool = False  # the file also holds an audio stream
    durations: tuple[float, float] | None = None  # shortest, longest frame duration (s)

    @property
    def variable_rate(self) -> bool:
        """Frame durations differ by more than half a frame: time is not ``index / fps``."""
        if self.durations is None:
            return False
        short, long = self.durations
        return long - short > 0.5 * (1.0 / self.fps if self.fps > 0 else long)


def _fps_fraction(fps: float) -> Fraction:
    return Fraction(fps).limit_denominator(1001)


class VideoWriter:
    """Stream RGB frames into an mp4; the file appears under its name only when complete.

    Use as a context manager. On an exception, or if ``close`` is never reached, the partial
    file is removed and nothing is left at ``path``. ``background``: encode on a second thread
    (libx264 runs without the GIL), so making the next frame overlaps encoding this one; the
    file is byte-identical either way.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        fps: float,
        width: int,
        height: int,
        *,
        crf: int = DEFAULT_CRF,
        preset: str = DEFAULT_PRESET,
        threads: int = 1,
        background: bool = False,
    ) -> None:
        if width % 2 or height % 2:
            raise VideoError(f"{path}: yuv420p needs even dimensions, got {width}x{height}")
        if fps <= 0:
            raise VideoError(f"{path}: fps must be positive, got {fps}")
        self.path = Path(path)
        self.width, self.height = int(width), int(height)
        self._atomic = atomic_path(self.path)
        self._tmp = self._atomic.__enter__()
        try:
            self._container = av.open(str(self._tmp), mode="w", format="mp4")
            self._stream = self._container.add_stream("libx264", rate=_fps_fraction(fps))
            self._stream.width, self._stream.height = self.width, self.height
            self._stream.pix_fmt = "yuv420p"
            self._stream.thread_count = threads
            self._stream.options = {"preset": preset, "crf": str(crf)}
        except Exception as exc:
            self._atomic.__exit__(type(exc), exc, None)
            raise VideoError(f"{path}: cannot open for writing: {exc}") from exc
        self.frames_written = 0
        self._yuv: np.ndarray | None = None
        # background: frame i encodes on a thread while the caller makes frame i + 1; two
        # encoder frames take turns, and frame i waits for frame i - 1 before it is sent
        self._frames: list[av.VideoFrame] = []
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="encode") if background else None
        self._pending: Future[None] | None = None

    def write(self, frame: np.ndarray) -> None:
        """Append one RGB uint8 frame of the writer's size."""
        if frame.shape != (self.height, self.width, 3) or frame.dtype != np.uint8:
            raise VideoError(
                f"{self.path}: frame {self.frames_written} is {frame.shape} {frame.dtype}, "
                f"expected ({self.height}, {self.width}, 3) uint8"
            )
        # One I420 buffer and one encoder frame serve the whole clip: memory touched for the
        # first time is slow here, and x264 copies each picture it is given.
        if self._yuv is None:
            self._yuv = np.empty((self.height * 3 // 2, self.width), np.uint8)
        cv2.cvtColor(frame, cv2.COLOR_RGB2YUV_I420, dst=self._yuv)
        flat = self._yuv.reshape(-1)
        n, q = self.width * self.height, self.width * self.height // 4
        h, w = self.height, self.width
        self._encode_planes(
            (
                flat[:n].reshape(h, w),
                flat[n : n + q].reshape(h // 2, w // 2),
                flat[n + q :].reshape(h // 2, w // 2),
            )
        )

    def _encode_planes(self, planes: tuple[np.ndarray, ...]) -> None:
        """Copy Y, U, V planes into a reused encoder frame and encode it (on the encode
        thread when the writer has one)."""
        turns = 2 if self._pool is not None else 1
        while len(self._frames) < turns:
            self._frames.append(av.VideoFrame(self.width, self.height, "yuv420p"))
        index = self.frames_written
        vf = self._frames[index % turns]  # frame index - 2, its last user, is encoded
        for plane, src in zip(vf.planes, planes, strict=True):
            ph, pw = src.shape
            np.copyto(
                np.frombuffer(cast(Any, plane), np.uint8).reshape(-1, plane.line_size)[:ph, :pw],
                src,
            )
        if self._pool is None:
            self._encode(vf, index)
        else:
            self._wait()
            self._pending = self._pool.submit(self._encode, vf, index)
        self.frames_written += 1

    def _wait(self) -> None:
        """Wait for the frame on the encode thread; its failure is raised here."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def _encode(self, vf: av.VideoFrame, index: int) -> None:
        """Encode and mux frame ``index``; a failing write (a full disk) becomes a VideoError."""
        vf.pts = index
        try:
            for packet in self._stream.encode(vf):
                self._container.mux(packet)
        except (av.error.FFmpegError, OSError) as exc:
            raise VideoError(f"{self.path}: write failed at frame {index}: {exc}") from exc

    def write_i420(self, frame: np.ndarray | tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        """Append one frame already in I420 (yuv420p, limited range, as ``write`` produces).

        ``frame`` is either a ``(height * 3 // 2, width)`` uint8 array laid out as
        ``cv2.COLOR_RGB2YUV_I420`` makes it (Y, then U, then V), or a ``(Y, U, V)`` tuple of
        ``(height, width)``, ``(height // 2, width // 2)`` and ``(height // 2, width // 2)``
        uint8 arrays (views with row strides are fine). The planes are copied once, into a
        fresh encoder frame, so the caller may reuse its buffers as soon as this returns.
        This skips ``write``'s RGB to YUV conversion for callers that work in YUV.
        """
        w, h = self.width, self.height
        if isinstance(frame, np.ndarray):
            if frame.shape != (h * 3 // 2, w) or frame.dtype != np.uint8:
                raise VideoError(
                    f"{self.path}: I420 frame {self.frames_written} is {frame.shape} "
                    f"{frame.dtype}, expected ({h * 3 // 2}, {w}) uint8"
                )
            flat = frame.reshape(-1)
            n, q = w * h, w * h // 4
            planes: tuple[np.ndarray, ...] = (
                flat[:n].reshape(h, w),
                flat[n : n + q].reshape(h // 2, w // 2),
                flat[n + q :].reshape(h // 2, w // 2),
            )
        else:
            planes = tuple(frame)
            want = ((h, w), (h // 2, w // 2), (h // 2, w // 2))
            if len(planes) != 3 or any(
                p.shape != s or p.dtype != np.uint8 for p, s in zip(planes, want, strict=False)
            ):
                got = [(p.shape, str(p.dtype)) for p in planes]
                raise VideoError(
                    f"{self.path}: I420 frame {self.frames_written} has planes {got}, "
                    f"expected uint8 {list(want)}"
                )
        self._encode_planes(planes)

    def close(self) -> None:
        """Flush the encoder and move the finished file into place."""
        if self.frames_written == 0:
            self.abort()
            raise VideoError(f"{self.path}: refusing to write a video with no frames")
        try:
            self._wait()
            self._stop()
            for packet in self._stream.encode():
                self._container.mux(packet)
            self._container.close()
        except VideoError as exc:
            self.abort(exc)
            raise
        except Exception as exc:
            self.abort(exc)
            raise VideoError(f"{self.path}: write failed: {exc}") from exc
        self._atomic.__exit__(None, None, None)

    def abort(self, exc: BaseException | None = None) -> None:
        """Drop the partial file."""
        try:
            self._wait()
        except Exception:
            pass
        self._stop()
        try:
            self._container.close()
        except Exception:
            pass
        err = exc or RuntimeError("aborted")
        self._atomic.__exit__(type(err), err, None)

    def _stop(self) -> None:
        """Let the encode thread go (it has nothing left to do)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort(exc)


def write_video(
    path: str | os.PathLike[str], frames: Iterable[np.ndarray], fps: float, **kwargs: Any
) -> int:
    """Encode an iterable of RGB frames; returns how many were written."""
    it = iter(frames)
    try:
        first = next(it)
    except StopIteration:
        raise VideoError(f"{path}: refusing to write a video with no frames") from None
    h, w = first.shape[:2]
    with VideoWriter(path, fps, w, h, **kwargs) as vw:
        vw.write(first)
        for f in it:
            vw.write(f)
    return vw.frames_written


def read_frames(path: str | os.PathLike[str]) -> Iterator[np.ndarray]:
    """Decode RGB frames one at a time with OpenCV, as TOMATO's evaluator does."""
    if not Path(path).is_file():
        raise VideoError(f"{path}: no such video file")
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise VideoError(f"{path}: OpenCV cannot open this file as a video")
    try:
        n = 0
        while True:
            ok, bgr = cap.read()
            if not ok:
                break
            n += 1
            yield cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
        if n == 0:
            raise VideoError(f"{path}: decoded no frames (corrupt or empty video)")
    finally:
        cap.release()


def read_video(path: str | os.PathLike[str], indices: Iterable[int] | None = None) -> np.ndarray:
    """Decode a whole clip, or only the frames at ``indices``, as a (T, H, W, 3) array."""
    order = None if indices is None else [int(i) for i in indices]
    want = None if order is None else set(order)
    out: dict[int, np.ndarray] = {}
    frames = []
    for i, f in enumerate(read_frames(path)):
        if want is None:
            frames.append(f)
        elif i in want:
            out[i] = f
    if want is None:
        return np.stack(frames)
    missing = sorted(i for i in want if i not in out)
    if missing:
        raise VideoError(f"{path}: frames {missing[:5]} are past the end of the video")
    return np.stack([out[i] for i in order])  # type: ignore[union-attr]


def opencv_frames(path: str | os.PathLike[str]) -> tuple[int, float]:
    """Frames and fps as OpenCV reads the file, by decoding (headers can lie), as TOMATO's
    and Vinoground's own scripts read videos; a missing, unreadable or empty file is a
    :class:`VideoError` naming it."""
    path = Path(path)
    if not path.is_file():
        raise VideoError(f"{path}: no such video file")
    cap = cv2.VideoCapture(str(path))
    try:
        if not cap.isOpened():
            raise VideoError(f"{path}: OpenCV cannot open this file as a video")
        fps = float(cap.get(cv2.CAP_PROP_FPS))
        n = 0
        while cap.grab():
            n += 1
    finally:
        cap.release()
    if n == 0:
        raise VideoError(f"{path}: decoded no frames (corrupt or empty video)")
    return n, fps


_PROBED: dict[tuple[str, int, int, int], VideoInfo] = {}  # (file, inode, size, mtime): info
_PROBED_MAX = 512


def probe(path: str | os.PathLike[str]) -> VideoInfo:
    """Count frames by decoding (container headers can lie: OpenCV's own ``vtest.avi``
    declares more frames than it holds), and read fps, size, whether there is audio and the
    spread of frame durations (from the decoded frames' timestamps). The answer is kept for
    the same unchanged file (same inode, size and modification time), so opening one source
    for several edits decodes it once."""
    try:
        st = os.stat(path)
    except OSError:
        st = None
    if st is None or not Path(path).is_file():
        raise VideoError(f"{path}: no such video file")
    key = (os.path.realpath(path), st.st_ino, st.st_size, st.st_mtime_ns)
    if key not in _PROBED:
        if len(_PROBED) >= _PROBED_MAX:
            _PROBED.pop(next(iter(_PROBED)))
        _PROBED[key] = _probe(path)
    return _PROBED[key]


def _probe(path: str | os.PathLike[str]) -> VideoInfo:
    """What :func:`probe` reports, decoded afresh."""
    try:
        with av.open(str(path)) as c:
            s = c.streams.video[0]
            fps = float(s.average_rate or s.base_rate or 0)
            stamps = [f.pts for f in c.decode(s)]
            base = float(s.time_base) if s.time_base else 0.0
            audio = bool(c.streams.audio)
            size = (s.codec_context.width, s.codec_context.height)
    except (av.error.FFmpegError, IndexError) as exc:
        raise VideoError(f"{path}: not a readable video: {exc}") from exc
    durations = None
    if len(stamps) > 2 and base > 0 and None not in stamps:
        d = np.diff(np.sort(np.asarray(stamps, dtype=np.int64))) * base
        tick = base  # timestamps are whole ticks: a tick of jitter is rounding, not a rate
        durations = (float(d.min()) + tick, float(d.max()) - tick)
        if durations[0] > durations[1]:
            durations = (float(np.median(d)),) * 2
    return VideoInfo(len(stamps), fps, size[0], size[1], audio, durations)


def sha256_file(path: str | os.PathLike[str], chunk: int = 1 << 20) -> str:
    """Content hash of a file, streamed."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def _same_video(src: Path, dst: Path, sha256: str | None) -> bool:
    """True when ``dst`` already holds the video: same inode, or same size and content hash."""
    try:
        if os.path.samefile(src, dst):
            return True
        if dst.stat().st_size != src.stat().st_size:
            return False
    except FileNotFoundError:
        return False
    return sha256_file(dst) == (sha256 or sha256_file(src))


def place_video(src: Path, dst: Path, sha256: str | None) -> None:
    """Put a video into an export: hard-link ``src`` to ``dst`` (copy if linking fails), replacing a stale file atomically."""
    if _same_video(src, dst, sha256):
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    # A link gets its own temp name (not atomic_path, whose chmod would touch the shared inode).
    tmp = dst.parent / f".{dst.name}.{secrets.token_hex(8)}.lnk"
    try:
        os.link(src, tmp)
    except OSError:
        with atomic_path(dst) as copy_tmp:
            shutil.copyfile(src, copy_tmp)
            with open(copy_tmp, "rb+") as f:
                os.fsync(f.fileno())
        return
    try:
        os.replace(tmp, dst)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
