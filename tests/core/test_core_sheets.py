"""Contact sheets: 4x4 geometry, tile k shows sampled frame k, PNG written from a video."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tempogen.observe import uniform_indices
from tempogen.sheets import (
    contact_sheet,
    gap_for,
    sheet_from_video,
    tile_boxes,
    write_sheet,
)

TILE = 128


def _tile_means(sheet, boxes):
    """Mean RGB of the lower half of each tile (the label sits top-left)."""
    return np.array(
        [sheet[(y0 + y1) // 2 : y1, x0:x1].reshape(-1, 3).mean(0) for y0, x0, y1, x1 in boxes]
    )


def _frame_means(frames):
    """Mean RGB of the lower half of each frame, as the tiles show it."""
    h = frames.shape[1]
    return frames[:, h // 2 :].reshape(len(frames), -1, 3).mean(1)


def _assert_tiles_show(sheet, frames, boxes):
    """Each tile's colour is closest to the frame it should show."""
    tiles, want = _tile_means(sheet, boxes), _frame_means(frames.astype(float))
    for k, t in enumerate(tiles):
        dist = np.abs(want - t).sum(1)
        assert np.abs(t - want[k]).max() < 4, (k, t, want[k])
        assert dist[k] == dist.min()


def test_geometry_and_tiles(frames_of):
    frames = frames_of(0)[uniform_indices(20, 16)]
    sheet = contact_sheet(frames, list(uniform_indices(20, 16)), tile_width=TILE)
    tile_h, gap = 96, gap_for(TILE)
    assert sheet.shape == (4 * tile_h + 3 * gap, 4 * TILE + 3 * gap, 3)
    assert sheet.dtype == np.uint8
    boxes = tile_boxes((48, 64), TILE)
    assert len(boxes) == 16 and boxes[5] == (
        tile_h + gap,
        TILE + gap,
        2 * tile_h + gap,
        2 * TILE + gap,
    )
    _assert_tiles_show(sheet, frames, boxes)
    # Gaps are background, and the label changed pixels in each tile's top-left corner.
    assert (sheet[tile_h : tile_h + gap] == sheet[tile_h, 0]).all()
    resized = cv2.resize(frames[0], (TILE, tile_h), interpolation=cv2.INTER_LINEAR)
    assert not np.array_equal(sheet[:20, :60], resized[:20, :60])


def test_wrong_frame_count():
    with pytest.raises(ValueError, match="16 frames"):
        contact_sheet(np.zeros((15, 8, 8, 3), np.uint8))
    with pytest.raises(ValueError, match="indices"):
        contact_sheet(np.zeros((16, 8, 8, 3), np.uint8), [0, 1])


def test_write_sheet_png(tmp_path, frames_of):
    frames = list(frames_of(1)[:16])
    path = tmp_path / "s" / "x.png"
    write_sheet(path, frames, tile_width=TILE)
    back = cv2.cvtColor(cv2.imread(str(path)), cv2.COLOR_BGR2RGB)
    assert np.array_equal(back, contact_sheet(frames, tile_width=TILE))
    assert [p.name for p in path.parent.iterdir()] == ["x.png"]


def test_sheet_from_video(manifest, tmp_path, frames_of):
    root, rows = manifest
    out = tmp_path / "sheet.png"
    sheet_from_video(root / rows[2]["video"], out, tile_width=TILE)
    sheet = cv2.cvtColor(cv2.imread(str(out)), cv2.COLOR_BGR2RGB)
    frames = frames_of(2)[uniform_indices(20, 16)]
    _assert_tiles_show(sheet, frames, tile_boxes((48, 64), TILE))
