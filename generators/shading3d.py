"""How 3D meshes are lit and coloured: sRGB paints, vertex normals, the key and fill lights.

Shading is per vertex by default (``TEMPOGEN_GL_SHADING=vertex|pixel``): pyrender's ambient
plus diffuse light is evaluated on the CPU per vertex (only for meshes that moved or turned)
and the GPU draws flat, unlit colours, which is 2-3x faster on llvmpipe and within a few
levels of pyrender's per-pixel shader on our matte paints. Shadows need the pixel shader.

Colours are sRGB like the 2D renderer's. Lights are calibrated so a surface that faces the
camera shows its nominal colour, which is what lets a colour mask find an object in pixels.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
from scipy import sparse

from tempogen.generators.offscreen import RenderError

SHADING_ENV = "TEMPOGEN_GL_SHADING"
RGB = tuple[int, int, int]  # an sRGB colour, 0-255 per channel

# "vertex": we light each vertex on the CPU (the same diffuse and ambient terms as pyrender's
# shader, no specular highlight) and pyrender draws with its flat shader, 2.5-3x faster on
# llvmpipe; "pixel": pyrender's own per-pixel PBR pass (always used with shadows).
SHADINGS = ("vertex", "pixel")
DEFAULT_SHADING = "vertex"

AMBIENT = 0.3  # ambient light, as a fraction of a surface's colour
_DIFFUSE = 0.96 * 0.96 / math.pi  # pyrender's dielectric diffuse term (1 - F0)(1 - F0)/pi


def srgb_to_linear(rgb: Any) -> np.ndarray:
    """sRGB colours (..., 3) in 0-255 to linear floats in 0-1 (what the shader multiplies)."""
    c = np.asarray(rgb, dtype=np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_rgba(colors: np.ndarray | RGB, n: int, what: str) -> np.ndarray:
    """sRGB colours ((n, 3) or (3,)) as (n, 4) linear RGBA float32; ``what`` names the caller."""
    c = np.asarray(colors, dtype=np.float64)
    if c.ndim == 1:
        c = np.broadcast_to(c, (n, c.shape[0]))
    if c.shape != (n, 3):
        raise RenderError(f"{what}: expected ({n}, 3) sRGB colours, got shape {c.shape}")
    out = np.ones((n, 4), np.float32)
    out[:, :3] = srgb_to_linear(c)
    return out


class VertexNormals:
    """Area-weighted unit vertex normals of one triangle topology, for many vertex sets.

    The vertex-face incidence is a sparse matrix built once, so each frame of a deforming
    mesh costs one cross product and one sparse product.
    """

    def __init__(self, faces: np.ndarray, num_vertices: int) -> None:
        f = np.asarray(faces, dtype=np.int64)
        self.corners = [np.ascontiguousarray(f[:, k]) for k in range(3)]
        rows = f.ravel()
        cols = np.repeat(np.arange(len(f)), 3)
        ones = np.ones(len(rows), np.float32)
        self.incidence = sparse.csr_matrix((ones, (rows, cols)), shape=(num_vertices, len(f)))

    def __call__(self, vertices: np.ndarray) -> np.ndarray:
        v = np.asarray(vertices, dtype=np.float32)
        a, b, c = (v[k] for k in self.corners)
        n = np.asarray(self.incidence @ np.cross(b - a, c - a), dtype=np.float32)
        norm = np.sqrt(np.einsum("ij,ij->i", n, n))[:, None]
        n /= np.maximum(norm, 1e-12)
        return n


def vertex_normals(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Area-weighted unit vertex normals (V, 3) float32 of a triangle mesh."""
    return VertexNormals(faces, len(vertices))(vertices)


def _light_pose(direction_cam: np.ndarray, cam_pose: np.ndarray) -> np.ndarray:
    """Pose of a directional light shining along ``direction_cam`` (camera frame)."""
    d = cam_pose[:3, :3] @ (direction_cam / np.linalg.norm(direction_cam))
    z = -d  # pyrender lights shine down their node's -z
    helper = np.array([0.0, 1.0, 0.0]) if abs(z[1]) < 0.9 else np.array([1.0, 0.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    pose = np.eye(4)
    pose[:3, 0], pose[:3, 1], pose[:3, 2] = x, np.cross(z, x), z
    return pose


def default_shading() -> str:
    """How meshes are lit when a Renderer is not told: env ``TEMPOGEN_GL_SHADING`` or vertex."""
    raw = os.environ.get(SHADING_ENV, "").strip() or DEFAULT_SHADING
    if raw not in SHADINGS:
        raise RenderError(f"{SHADING_ENV}={raw!r}: expected one of {SHADINGS}")
    return raw


def lit_colors(
    base: np.ndarray, normals: np.ndarray, lights: list[tuple[np.ndarray, float]]
) -> np.ndarray:
    """sRGB colours (V, 3) in 0-1 of linear ``base`` colours lit at unit world ``normals``.

    The diffuse and ambient terms of pyrender's shader: ambient plus, per directional light
    (unit direction it shines along, intensity), the dielectric diffuse lobe times n.l, then
    pyrender's 1/2.2 output gamma. Only the faint specular lobe of a rough surface is left out.
    """
    shade = np.full(len(normals), AMBIENT, np.float32)
    for direction, intensity in lights:
        nl = normals @ (-direction).astype(np.float32)
        shade += np.float32(_DIFFUSE * intensity) * np.clip(nl, 0.001, 1.0)
    lin = np.clip(base * shade[:, None], 0.0, 1.0)
    return lin ** np.float32(1 / 2.2)


# The key light shines from above the camera to one side: its sideways and downward slopes
# (per unit towards the scene) are drawn from these ranges; the fill comes from the other side.
KEY_SIDEWAYS = (0.3, 0.6)
KEY_DOWNWARDS = (0.4, 0.8)
FILL_SLOPE = (0.5, 0.2)  # the fill light's fixed sideways and downward slopes
FILL_INTENSITY = 0.6


def key_fill_lights(
    rng: np.random.Generator, cam_pose: np.ndarray
) -> list[tuple[np.ndarray, float]]:
    """(pose, intensity) of a key light from above the camera to one side and a dim fill
    from the other, scaled so a surface facing the camera gets exactly its own colour."""
    side = float(rng.choice([-1.0, 1.0]))
    key = np.array([side * rng.uniform(*KEY_SIDEWAYS), -rng.uniform(*KEY_DOWNWARDS), -1.0])
    fill = np.array([-side * FILL_SLOPE[0], -FILL_SLOPE[1], -1.0])
    key, fill = key / np.linalg.norm(key), fill / np.linalg.norm(fill)
    fill_i = FILL_INTENSITY
    # camera-facing normal is +z in the camera frame; light arrives along -d
    cos_key, cos_fill = -key[2], -fill[2]
    key_i = (1.0 - AMBIENT - _DIFFUSE * fill_i * cos_fill) / (_DIFFUSE * cos_key)
    return [(_light_pose(d, cam_pose), float(i)) for d, i in ((key, key_i), (fill, fill_i))]


class OwnedMesh:
    """A mesh whose interleaved vertex data (pyrender's layout) we keep and re-upload in place.

    ``data`` is (V, 10) float32: position, normal, RGBA; the RGBA columns hold the linear base
    colour for pixel shading, or the lit sRGB colour for vertex shading. ``rotation`` turns
    the model-space normals into the world's, for lighting a rigid mesh that was moved.
    """

    def __init__(self, primitive: Any, faces: np.ndarray, data: np.ndarray, dynamic: bool) -> None:
        self.primitive = primitive
        self.faces = faces
        self.data = data
        self.base = data[:, 6:9].copy()  # linear RGB, what the light multiplies
        self.normals = VertexNormals(faces, len(data)) if dynamic else None
        self.dynamic = dynamic
        self.rotation = np.eye(3)
        self.dirty = True

    def relight(self, lights: list[tuple[np.ndarray, float]]) -> None:
        """Write the lit sRGB colours into ``data`` (vertex shading) under ``lights``."""
        normals = self.data[:, 3:6]
        if not np.array_equal(self.rotation, np.eye(3)):
            normals = normals @ np.linalg.inv(self.rotation).astype(np.float32)
            normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
        self.data[:, 6:9] = lit_colors(self.base, normals, lights)
