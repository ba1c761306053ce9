"""Read a temporal-noise clip as a viewer must: from its motion signal, never from one frame.

Each sampled frame is paired with the next; the cells that keep their grey level between the
two are the still foreground (``generators/noise.py``). A simulated person is read from their
silhouette alone (:func:`silhouette_states`). Its connected regions are told apart
the way the question names them (by size or by place, ``labels.meta["encoding"]``), painted
in each object's own colour on grey, and handed to the ordinary pixel readers
(``pixels.py``, ``pixels3d.py``), which measure positions and turns from them as from any
clip. The single-frame test runs inside the recovered regions: a frame that shows them
(other levels, or smoother texture, than around them) fails the clip.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from tempogen.builders.audit.pixels import pixel_labels
from tempogen.builders.audit.pixels3d import pixel_states_3d
from tempogen.generators.noise import TEMPORAL_NOISE, certify_levels, level_cells, pair
from tempogen.labels import Labels
from tempogen.video import read_video

GREY = (128, 128, 128)
MIN_CELLS = 3  # a still region smaller than this is chance agreement of redrawn noise


def is_noise(labels_json: dict[str, Any]) -> bool:
    """Whether a row's labels describe a temporal-noise clip."""
    enc = (labels_json.get("meta") or {}).get("encoding") or {}
    return isinstance(enc, dict) and enc.get("style") == TEMPORAL_NOISE


def regions(still: np.ndarray, k: int, by: str) -> list[np.ndarray]:
    """Up to ``k`` still regions (cell masks), in the order the question names them: by
    size (smallest first) or by place (leftmost first); one object takes every region at
    least a fifth the largest's size (a thin part may split off)."""
    n, lab, stats, cents = cv2.connectedComponentsWithStats(still.astype(np.uint8), connectivity=8)
    ids = [j for j in range(1, n) if stats[j, cv2.CC_STAT_AREA] >= MIN_CELLS]
    if not ids:
        return []
    ids.sort(key=lambda j: -stats[j, cv2.CC_STAT_AREA])
    if by == "one":
        big = stats[ids[0], cv2.CC_STAT_AREA]
        keep = [j for j in ids if stats[j, cv2.CC_STAT_AREA] >= 0.2 * big]
        return [np.isin(lab, keep)]
    ids = ids[:k]
    if by == "size":
        ids.sort(key=lambda j: stats[j, cv2.CC_STAT_AREA])
    else:
        ids.sort(key=lambda j: cents[j][0])
    return [lab == j for j in ids]


def noise_states(
    video: Path, labels: Labels, idx: np.ndarray, renderer: str
) -> tuple[Labels, dict[str, Any]]:
    """States measured from a noise clip's motion signal at ``idx``, and its single-frame
    figures (``single_frame_blind`` among them)."""
    enc = labels.meta["encoding"]
    cell, by, order = int(enc["cell"]), str(enc["by"]), list(enc["order"])
    n = labels.num_frames
    read = sorted({f for i in idx for f in pair(int(i), n)})
    levels = {i: level_cells(f, cell) for i, f in zip(read, read_video(video, read))}
    cert, motion = certify_levels(levels, [int(i) for i in idx], n)
    if renderer == "human":
        measured = silhouette_states(motion, labels, idx, cell)
        return _dead_band(measured, idx, JITTER * cell), cert
    h, w = labels.height, labels.width
    painted = []
    for still in motion:
        frame = np.empty((h, w, 3), np.uint8)
        frame[:] = GREY
        for name, region in zip(order, regions(still, len(order), by)):
            px = np.repeat(np.repeat(region, cell, 0), cell, 1)[:h, :w]
            frame[px] = labels.track(name).color
        painted.append(frame)
    if renderer != "2d":
        measured = pixel_states_3d(painted, labels, idx)
    else:
        spin = labels.query.fact == "rotation" and labels.query.kind == "spin"
        measured = pixel_labels(painted, labels, idx, rotation=spin)
    return _dead_band(measured, idx, JITTER * cell), cert


def silhouette_states(
    motion: list[np.ndarray], labels: Labels, idx: np.ndarray, cell: int
) -> Labels:
    """States of a single simulated person read from their still silhouette (``motion``,
    cells per sample), which is all noise shows of them: for a ``raise`` question (jumps,
    squats) the silhouette's top edge carries the tracked part up and down; otherwise its
    centroid carries it (a side step). Each track starts at its labelled first position
    and moves as the silhouette does, as the glove reader carries a body part."""
    from tempogen.builders.audit.pixels3d import with_measured

    tops, cents = [], []
    for k, still in enumerate(motion):
        found = regions(still, 1, "one")
        if not found or found[0].sum() < MIN_BODY:
            raise ValueError(f"noise: no silhouette in the motion signal at frame {idx[k]}")
        rows, cols = np.nonzero(found[0])
        tops.append(float(rows.min()) * cell)
        cents.append(((cols.mean() + 0.5) * cell, (rows.mean() + 0.5) * cell))
    top, c = np.array(tops), np.array(cents)
    kind = labels.query.kind
    if kind not in ("raise", ""):
        raise ValueError(f"noise: a person's silhouette cannot show a {kind!r} question")
    states: dict[str, dict[str, np.ndarray]] = {}
    for name in labels.query.objects:
        t = labels.track(name)
        if t.role == "anchor":
            continue
        dy = top - top[0] if kind == "raise" else c[:, 1] - c[0, 1]
        states[name] = {"x": t.x[idx[0]] + c[:, 0] - c[0, 0], "y": t.y[idx[0]] + dy}
    return with_measured(labels, idx, states)


MIN_BODY = 20  # cells: a person framed whole covers hundreds; less is no silhouette
JITTER = 1.0  # cells a still region's centroid wanders (its rim gains or loses cells by chance)


def _dead_band(labels: Labels, idx: np.ndarray, jitter: float) -> Labels:
    """Positions through a dead band: a sampled position within ``jitter`` pixels of the last
    one kept is the last one kept, so an object at rest reads as at rest and one that moves
    lags by at most ``jitter``."""
    tracks = []
    for t in labels.tracks:
        if t.role == "anchor":
            tracks.append(t)
            continue
        x, y = t.x.copy(), t.y.copy()
        kx, ky = x[idx[0]], y[idx[0]]
        for i in idx[1:]:
            if np.hypot(x[i] - kx, y[i] - ky) <= jitter:
                x[i], y[i] = kx, ky
            else:
                kx, ky = x[i], y[i]
        tracks.append(t.with_states(x=x, y=y))
    return labels.with_tracks(tuple(tracks))
