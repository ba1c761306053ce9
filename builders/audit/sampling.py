"""Frame sampling for every evaluation-facing path: which frames a model (or an observer) sees.

One module so that sheets, exports, audits and evaluators agree on the frames. Uniform
sampling is TOMATO's ``np.linspace(0, n - 1, m, dtype=int)``; the other schemes are the
controls TOMATO uses to measure what a benchmark really needs (shuffled order, one random
frame, one hand-picked frame) and Vinoground's pair-with-a-black-gap layout.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from tempogen.generators.motion import SAMPLES  # frames TOMATO's evaluator shows a model
from tempogen.io import write_bytes
from tempogen.labels import Labels
from tempogen.sheets import write_sheet
from tempogen.video import VideoError, read_video

SETTINGS = ("uniform16", "shuffled16", "random1", "handpicked1")
JPEG_QUALITY = 95


def uniform(n: int, m: int) -> np.ndarray:
    """TOMATO's ``m`` uniformly spaced frame indices of an ``n``-frame clip (first and last in)."""
    if n < 1 or m < 1:
        raise ValueError(f"need at least one frame and one sample, got n={n}, m={m}")
    return np.linspace(0, n - 1, m, dtype=int)


def shuffled(n: int, m: int, seed: int) -> np.ndarray:
    """The same ``m`` uniform indices in a seeded random order (TOMATO's order control)."""
    idx = uniform(n, m)
    return idx[np.random.default_rng(seed).permutation(m)]


def random_single(n: int, seed: int) -> np.ndarray:
    """One frame drawn uniformly at random with a seeded generator (TOMATO's 1-frame control)."""
    if n < 1:
        raise ValueError(f"need at least one frame, got n={n}")
    return np.array([int(np.random.default_rng(seed).integers(n))], dtype=int)


def handpicked_single(labels: Labels) -> np.ndarray:
    """The single frame that shows the most, chosen from the labels (TOMATO's hand-picked frame).

    Rule: for lamp queries (``flash`` counts and frequencies, ``lit`` order) the first frame in
    which any of the query's objects is lit and visible (the subject, for flashes); otherwise
    the frame where the subject is farthest from where it started, by position, or by angle
    when its position never changes (a spin). Ties go to the earliest frame.
    """
    q = labels.query
    n = labels.num_frames
    if n < 1:
        raise ValueError("labels have no frames")
    if q.kind in ("flash", "lit"):
        lit = np.zeros(n, dtype=bool)
        for name in q.objects:
            tr = labels.track(name)
            lit |= tr.lit & tr.visible
        hits = np.flatnonzero(lit)
        if len(hits):
            return np.array([int(hits[0])], dtype=int)
    subj = labels.subject
    moved = np.hypot(subj.x - subj.x[0], subj.y - subj.y[0])
    if moved.max() <= 1e-6:
        moved = np.abs(subj.angle - subj.angle[0])
    return np.array([int(np.argmax(moved))], dtype=int)


def setting_indices(setting: str, labels: Labels, seed: int = 0) -> np.ndarray:
    """Frame indices, in showing order, for one of :data:`SETTINGS`."""
    n = labels.num_frames
    if setting == "uniform16":
        return uniform(n, SAMPLES)
    if setting == "shuffled16":
        return shuffled(n, SAMPLES, seed)
    if setting == "random1":
        return random_single(n, seed)
    if setting == "handpicked1":
        return handpicked_single(labels)
    raise ValueError(f"unknown sampling setting {setting!r}; known: {SETTINGS}")


def vinoground(n_pos: int, n_gap: int, n_neg: int, m: int) -> np.ndarray:
    """``m`` uniform indices over a pair laid out as pos, black gap, neg (Vinoground's format).

    At least one sample always falls in the black gap, so a model sees where one clip ends:
    if none does, the sample nearest the gap's middle frame (never the first or last frame, so
    both clips stay in view) is moved onto it.
    """
    if min(n_pos, n_gap, n_neg) < 1:
        raise ValueError(f"each part needs a frame, got {n_pos}, {n_gap}, {n_neg}")
    if m < 3:
        raise ValueError(f"need at least 3 samples to show pos, gap and neg, got m={m}")
    idx = uniform(n_pos + n_gap + n_neg, m)
    lo, hi = n_pos, n_pos + n_gap - 1
    if np.any((idx >= lo) & (idx <= hi)):
        return idx
    mid = lo + (n_gap - 1) // 2
    inner = np.arange(1, m - 1)
    j = int(inner[np.argmin(np.abs(idx[inner] - mid))])
    idx[j] = mid
    return idx


def frames_at(
    video_path: str | os.PathLike[str], indices: Sequence[int] | np.ndarray
) -> np.ndarray:
    """Decode the RGB frames at ``indices``, in that order (repeats allowed), as (T, H, W, 3)."""
    return read_video(video_path, [int(i) for i in indices])


def write_frames(
    folder: str | os.PathLike[str], frames: np.ndarray | Sequence[np.ndarray], fmt: str = "png"
) -> list[Path]:
    """Write RGB frames as ``000.png``, ``001.png``... in showing order, each atomically."""
    ext = {"png": ".png", "jpg": ".jpg", "jpeg": ".jpg"}.get(fmt.lower())
    if ext is None:
        raise ValueError(f"unknown image format {fmt!r}; use 'png' or 'jpg'")
    params = [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY] if ext == ".jpg" else []
    folder = Path(folder)
    paths = []
    for k, frame in enumerate(frames):
        rgb = np.ascontiguousarray(frame, dtype=np.uint8)
        if rgb.ndim != 3 or rgb.shape[2] != 3:
            raise ValueError(f"frame {k} must be (H, W, 3) RGB, got shape {rgb.shape}")
        ok, buf = cv2.imencode(ext, cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), params)
        path = folder / f"{k:03d}{ext}"
        if not ok:
            raise VideoError(f"{path}: {fmt} encoding failed")
        write_bytes(path, buf.tobytes())
        paths.append(path)
    return paths


def write_grid(
    path: str | os.PathLike[str],
    frames: np.ndarray | Sequence[np.ndarray],
    indices: Sequence[int] | np.ndarray,
) -> None:
    """Write 16 frames as a labelled 4x4 contact sheet PNG (tile k shows frame ``indices[k]``)."""
    write_sheet(path, frames, [int(i) for i in indices])
