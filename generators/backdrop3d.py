"""What a 3D scene draws once behind its moving meshes: the tiled floor, and the compositing
of each frame's meshes (and of flat decals) over that backdrop."""

from __future__ import annotations

import math

import cv2
import numpy as np
import trimesh

# The floor is a square of tiles centred this far (metres) ahead of the camera, along the
# ground, and this wide; each tile's side is drawn from TILE_SIDES.
FLOOR_AHEAD = 8.0
FLOOR_SIZE = 24.0
TILE_SIDES = (0.45, 0.8)
FLOOR_GREY = (90, 200)  # the floor's base grey level is drawn from this range ...
FLOOR_TINT = 10  # ... and each channel shifted by up to this much either way
CHECKER_DARK = (0.6, 0.75)  # a grid floor's darker tiles: this fraction of the base colour
MOTTLE = 0.06  # a noise floor's tiles: relative brightness spread (standard deviation)


def floor_mesh(
    cam_pose: np.ndarray, y: float, background: str, rng: np.random.Generator
) -> tuple[trimesh.Trimesh, np.ndarray]:
    """A square of tiles around the point the camera looks at, ``y`` up, and its face
    colours (sRGB): plain, checkered (grid) or mottled (noise)."""
    pose = cam_pose
    eye = pose[:3, 3]
    fwd = -pose[:3, 2].copy()
    fwd[1] = 0.0
    fwd = fwd / max(np.linalg.norm(fwd), 1e-9)
    centre = eye + FLOOR_AHEAD * fwd
    tile = float(rng.uniform(*TILE_SIDES))
    k = int(math.ceil(FLOOR_SIZE / tile))
    base = np.clip(rng.uniform(*FLOOR_GREY) + rng.uniform(-FLOOR_TINT, FLOOR_TINT, 3), 0, 255)
    ii, jj = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    if background == "grid":
        shade = np.where((ii + jj) % 2 == 0, 1.0, float(rng.uniform(*CHECKER_DARK)))
    elif background == "noise":
        shade = 1.0 + rng.normal(0.0, MOTTLE, size=(k, k))
    else:
        shade = np.ones((k, k))
    colors = np.clip(base[None, None, :] * shade[..., None], 0, 255).reshape(-1, 3)
    x0 = centre[0] - k * tile / 2
    z0 = centre[2] - k * tile / 2
    gx = x0 + ii.ravel() * tile
    gz = z0 + jj.ravel() * tile
    corners = np.stack(
        [
            np.stack([gx, gz], 1),
            np.stack([gx, gz + tile], 1),
            np.stack([gx + tile, gz + tile], 1),
            np.stack([gx + tile, gz], 1),
        ],
        1,
    )  # (k*k, 4, 2), counter-clockwise seen from above (+y)
    verts = np.zeros((k * k, 4, 3))
    verts[..., 0], verts[..., 1], verts[..., 2] = corners[..., 0], y, corners[..., 1]
    base_idx = np.arange(k * k)[:, None] * 4
    faces = np.concatenate([base_idx + [0, 1, 2], base_idx + [0, 2, 3]])
    face_colors = np.concatenate([colors, colors])
    mesh = trimesh.Trimesh(verts.reshape(-1, 3), faces, process=False)
    return mesh, face_colors


def over(
    rgba: np.ndarray, backdrop: np.ndarray, out: np.ndarray, binary: bool = False
) -> np.ndarray:
    """Premultiplied RGBA (alpha = coverage over a transparent clear) over an RGB backdrop.

    ``binary``: coverage is all or nothing (no multisampling), so a masked copy suffices.
    """
    np.copyto(out, backdrop)
    alpha = rgba[..., 3]
    if binary:  # only the box the meshes cover
        x, y, w, h = cv2.boundingRect(np.ascontiguousarray(alpha))
        if w and h:
            box = rgba[y : y + h, x : x + w]
            rgb = cv2.cvtColor(box, cv2.COLOR_RGBA2RGB)
            cv2.copyTo(rgb, np.ascontiguousarray(box[..., 3]), out[y : y + h, x : x + w])
        return out
    rows = np.flatnonzero(alpha.any(axis=1))
    if not len(rows):
        return out
    cols = np.flatnonzero(alpha.any(axis=0))
    ys, xs = slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1)  # only where drawn
    fg = rgba[ys, xs, :3].astype(np.uint16)
    inv = 255 - rgba[ys, xs, 3:4].astype(np.uint16)
    fg += (backdrop[ys, xs].astype(np.uint16) * inv + 127) // 255
    np.minimum(fg, 255, out=fg)
    out[ys, xs] = fg
    return out


def paste(out: np.ndarray, image: np.ndarray, quad: np.ndarray) -> None:
    """Warp ``image`` (h, w, 3) onto the pixel quadrilateral ``quad`` (4, 2: the image's
    top-left, top-right, bottom-right, bottom-left corners) of ``out``, in place, with
    anti-aliased edges; only the quad's bounding box is touched."""
    h, w = image.shape[:2]
    H, W = out.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return
    # image pixel i spans [i, i + 1) like a label's; OpenCV puts pixel centres on integers
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32) - 0.5
    dst = (quad - [x0 + 0.5, y0 + 0.5]).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    size = (x1 - x0, y1 - y0)
    fg = cv2.warpPerspective(image, m, size, flags=cv2.INTER_LINEAR)
    cover = np.zeros(size[::-1], np.uint8)
    cv2.fillConvexPoly(cover, np.round(dst * 16).astype(np.int32), 255, cv2.LINE_AA, shift=4)
    a = cover[..., None].astype(np.uint16)
    roi = out[y0:y1, x0:x1]
    roi[:] = ((fg.astype(np.uint16) * a + roi.astype(np.uint16) * (255 - a) + 127) // 255).astype(
        np.uint8
    )
