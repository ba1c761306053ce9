"""Contact sheets: TOMATO's 16 uniformly sampled frames in the 4x4 grid its annotators looked at.

A sheet shows exactly what a 16-frame evaluator sees, so a reviewer can check a question's
answer against the frames themselves.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from tempogen.io import write_bytes
from tempogen.observe import uniform_indices
from tempogen.video import VideoError, opencv_frames, read_video

GRID = 4  # tiles per row and per column
NUM_TILES = GRID * GRID
BACKGROUND = (24, 24, 24)  # RGB of the gaps between tiles


def gap_for(tile_width: int) -> int:
    """Pixels between tiles: thin, growing slowly with the tile size."""
    return max(2, tile_width // 80)


def tile_boxes(frame_hw: tuple[int, int], tile_width: int = 320) -> list[tuple[int, int, int, int]]:
    """Pixel box ``(y0, x0, y1, x1)`` of each tile, row-major, for frames of size ``frame_hw``."""
    h, w = frame_hw
    tile_h = max(1, round(h * tile_width / w))
    gap = gap_for(tile_width)
    boxes = []
    for k in range(NUM_TILES):
        r, c = divmod(k, GRID)
        y0, x0 = r * (tile_h + gap), c * (tile_width + gap)
        boxes.append((y0, x0, y0 + tile_h, x0 + tile_width))
    return boxes


def _label(tile: np.ndarray, text: str) -> None:
    """Draw ``text`` in the tile's top-left corner, white on a dark outline so it reads anywhere."""
    scale = max(0.3, tile.shape[1] / 480)
    thick = max(1, round(scale * 1.5))
    org = (max(3, round(6 * scale)), max(10, round(24 * scale)))
    font = cv2.FONT_HERSHEY_SIMPLEX
    cv2.putText(tile, text, org, font, scale, (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.putText(tile, text, org, font, scale, (255, 255, 255), thick, cv2.LINE_AA)


def contact_sheet(
    frames: np.ndarray | Sequence[np.ndarray],
    indices: list[int] | None = None,
    tile_width: int = 320,
) -> np.ndarray:
    """Lay 16 RGB frames out as one 4x4 RGB image, each tile labelled ``#k f=IDX``.

    Tiles keep the frames' aspect ratio at ``tile_width`` pixels wide; ``indices`` are the
    frames' positions in the clip, shown in the labels when given.
    """
    if len(frames) != NUM_TILES:
        raise ValueError(f"a contact sheet needs {NUM_TILES} frames, got {len(frames)}")
    if indices is not None and len(indices) != NUM_TILES:
        raise ValueError(f"got {len(indices)} frame indices for {NUM_TILES} frames")
    if tile_width < 8:
        raise ValueError(f"tile_width must be at least 8 pixels, got {tile_width}")
    first = np.asarray(frames[0])
    if first.ndim != 3 or first.shape[2] != 3:
        raise ValueError(f"frames must be (H, W, 3) RGB, got shape {first.shape}")
    boxes = tile_boxes(first.shape[:2], tile_width)
    tile_h = boxes[0][2] - boxes[0][0]
    gap = gap_for(tile_width)
    sheet = np.empty(
        (GRID * tile_h + (GRID - 1) * gap, GRID * tile_width + (GRID - 1) * gap, 3), np.uint8
    )
    sheet[:] = BACKGROUND
    interp = cv2.INTER_AREA if tile_width < first.shape[1] else cv2.INTER_LINEAR
    for k, (frame, (y0, x0, y1, x1)) in enumerate(zip(frames, boxes, strict=True)):
        frame = np.asarray(frame)
        if frame.shape != first.shape:
            raise ValueError(f"frame {k} is {frame.shape}, frame 0 is {first.shape}")
        tile = cv2.resize(
            np.ascontiguousarray(frame, np.uint8), (tile_width, tile_h), None, 0, 0, interp
        )
        text = f"#{k + 1}" if indices is None else f"#{k + 1} f={int(indices[k])}"
        _label(tile, text)
        sheet[y0:y1, x0:x1] = tile
    return sheet


def write_sheet(
    path: str | os.PathLike[str],
    frames: np.ndarray | Sequence[np.ndarray],
    indices: list[int] | None = None,
    tile_width: int = 320,
) -> None:
    """Render a contact sheet and write it as a PNG atomically."""
    sheet = contact_sheet(frames, indices, tile_width)
    ok, buf = cv2.imencode(".png", cv2.cvtColor(sheet, cv2.COLOR_RGB2BGR))
    if not ok:
        raise VideoError(f"{path}: PNG encoding failed")
    write_bytes(path, buf.tobytes())


def sheet_from_video(
    video_path: str | os.PathLike[str], path: str | os.PathLike[str], tile_width: int = 320
) -> None:
    """Write the contact sheet of the 16 frames TOMATO samples from a video.

    Decodes twice (count, then keep only the 16 sampled frames) so memory stays small.
    """
    video_path = Path(video_path)
    idx = uniform_indices(opencv_frames(video_path)[0], NUM_TILES)
    frames = read_video(video_path, idx)
    write_sheet(path, frames, [int(i) for i in idx], tile_width)
