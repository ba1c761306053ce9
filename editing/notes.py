"""What an edit loses that no label shows: the source's sound, and, for a clip without
per-frame labels (a real video), the part of its motion that a crop or zoom leaves out.

A labelled clip needs neither: its ops move the labels and refuse when the subject leaves the
frame. A real video has only declared facts, so "the subject" is estimated as what moves:
the frame-to-frame change of a few frames spread over the clip, in the source's pixels.
"""

from __future__ import annotations

import cv2
import numpy as np

from tempogen.editing.clip import Clip

MOTION_KEPT_MIN = 0.5  # a crop that keeps less of the clip's motion than this is noted
SAMPLES = 16  # source frames read to estimate where the motion is
WIDTH = 160  # the motion map's width in pixels (the source is shrunk to it)


def _visible(affine: np.ndarray, size: tuple[int, int], scale: float, shape: tuple) -> np.ndarray:
    """Mask, on the shrunk source grid, of what the output frame shows (its rectangle mapped
    back through the frame's 2x3 source->output matrix)."""
    w, h = size
    m = np.vstack([affine, [0.0, 0.0, 1.0]])
    corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], dtype=np.float64)
    src = (np.linalg.inv(m) @ corners.T).T[:, :2] * scale
    mask = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(src).astype(np.int32), 1)
    return mask.astype(bool)


def motion_kept(clip: Clip) -> float | None:
    """Share (0..1) of the source's motion inside what the edited clip shows, averaged over
    its frames; ``None`` when the view is the whole frame or nothing moves."""
    sw, sh = clip.source_size
    scale = min(1.0, WIDTH / sw)
    shape = (max(1, round(sh * scale)), max(1, round(sw * scale)))
    picks = np.unique(np.linspace(0, clip.num_frames - 1, SAMPLES).round().astype(int))
    masks = [_visible(clip.affine[j], clip.size, scale, shape) for j in picks]
    if all(m.all() for m in masks):
        return None
    wanted = np.unique(clip.index[picks])
    energy = np.zeros(shape, np.float64)
    prev = None
    for _, f in clip._source_frames(wanted):
        g = cv2.resize(cv2.cvtColor(np.ascontiguousarray(f), cv2.COLOR_RGB2GRAY), shape[::-1],
                       interpolation=cv2.INTER_AREA).astype(np.float64)  # fmt: skip
        if prev is not None:
            energy += np.abs(g - prev)
        prev = g
    total = float(energy.sum())
    if total <= 1e-6 * energy.size:
        return None
    return float(np.mean([energy[m].sum() / total for m in masks]))


def edit_notes(clip: Clip) -> list[str]:
    """Notes on an edited clip: audio it drops; for a clip without per-frame labels, a crop
    or zoom that keeps under half of its motion (the subject may be cut off)."""
    notes = []
    if clip.audio:
        notes.append("the source has sound; the edited clip is silent")
    if clip.labels is None:
        kept = motion_kept(clip)
        if kept is not None and kept < MOTION_KEPT_MIN:
            notes.append(
                f"the view keeps {kept:.0%} of the source's motion: the subject may be cut off"
            )
    return notes
