"""The offscreen 3D renderer: geometry matches the camera, in-place meshes, looks, contexts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import trimesh

from tempogen.generators.camera import Camera, look_at
from tempogen.generators.render3d import Renderer, RenderError, ensure_gl, gl_info

W, H = 320, 180
GREEN = (0, 255, 0)


def _camera(eye, target=(0.0, 0.5, 0.0), fov=50.0, size=(W, H)) -> Camera:
    return Camera(size[0], size[1], np.radians(fov), look_at(np.array(eye), np.array(target)))


def _translate(p) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = p
    return m


def _green(img: np.ndarray) -> np.ndarray:
    """Pixels of a saturated green object (backgrounds are low-saturation)."""
    c = img.astype(np.int32)
    return (c[..., 1] > c[..., 0] + 90) & (c[..., 1] > c[..., 2] + 90)


def _centroid(mask: np.ndarray) -> np.ndarray:
    """Centroid in label coordinates: pixel (i, j) covers [j, j+1] x [i, i+1]."""
    yy, xx = np.nonzero(mask)
    assert len(xx) > 10, "object not found in the frame"
    return np.array([xx.mean() + 0.5, yy.mean() + 0.5])


def test_gl_info_names_the_implementation():
    info = gl_info()
    assert info["backend"] == "egl"
    assert info["renderer"] and info["vendor"]
    assert isinstance(info["gpu"], bool)


@pytest.mark.parametrize("samples", [0, 4])
@pytest.mark.parametrize(
    "eye,point",
    [
        ((0.0, 0.5, 3.0), (0.4, 0.7, 0.1)),
        ((1.8, 2.2, 2.6), (-0.5, 0.2, 0.4)),
        ((-2.5, 0.9, 1.5), (0.3, 0.9, -0.6)),
    ],
)
def test_sphere_is_drawn_where_the_camera_projects_it(eye, point, samples):
    cam = _camera(eye)
    r = Renderer(cam, background="gradient", rng=np.random.default_rng(3), samples=samples)
    radius = 0.05
    r.add_mesh(trimesh.creation.icosphere(3, radius), color=GREEN, pose=_translate(point))
    mask = _green(r.render())
    r.close()
    expected = cam.project(np.array(point))
    assert np.abs(_centroid(mask) - expected).max() < 1.0
    # its size follows the same focal length: area of a disc of the projected radius
    px_radius = radius * cam.pixels_per_metre(np.array(point))
    assert mask.sum() == pytest.approx(np.pi * px_radius**2, rel=0.15)


def test_camera_facing_surface_shows_its_nominal_colour():
    cam = _camera((0.0, 0.5, 3.0))
    quad = trimesh.creation.box((0.6, 0.6, 0.01))
    colours = [(220, 38, 38), (37, 99, 235), (250, 204, 21), (22, 163, 74)]
    for seed in (0, 1, 2):
        r = Renderer(cam, rng=np.random.default_rng(seed))
        handles = [
            r.add_mesh(quad, color=c, pose=_translate((0.8 * i - 1.2, 0.5, 0.0)))
            for i, c in enumerate(colours)
        ]
        img = r.render()
        for h, c in zip(handles, colours):
            x, y = cam.project(np.array([0.8 * h - 1.2, 0.5, 0.005])).astype(int)
            assert np.abs(img[y, x].astype(int) - c).max() <= 8, (seed, c, img[y, x])
        r.close()


def test_dynamic_mesh_moves_in_place_and_matches_a_fresh_mesh():
    cam = _camera((0.3, 1.0, 3.0))
    sphere = trimesh.creation.icosphere(3, 0.25)
    faces, v0 = np.asarray(sphere.faces), np.asarray(sphere.vertices) + [0.0, 0.5, 0.0]
    shift = np.array([0.45, 0.1, -0.2])
    v1 = (v0 + shift) * [1.0, 1.3, 1.0]  # moved and stretched: normals must follow

    r = Renderer(cam, background="noise", rng=np.random.default_rng(5), floor=0.0)
    h = r.add_dynamic_mesh(faces, GREEN, v0)
    before = _centroid(_green(r.render()))
    prim = r.scene.meshes.copy().pop().primitives[0]  # any mesh: check none is rebuilt
    meshes, vaids = set(r.scene.meshes), {m: m.primitives[0]._vaid for m in r.scene.meshes}
    r.set_vertices(h, v1)
    moved = r.render().copy()
    assert set(r.scene.meshes) == meshes
    assert {m: m.primitives[0]._vaid for m in r.scene.meshes} == vaids and prim._vaid
    r.close()
    after = _centroid(_green(moved))
    expected = cam.project(v1.mean(0)) - cam.project(v0.mean(0))
    assert np.abs((after - before) - expected).max() < 1.0

    fresh = Renderer(cam, background="noise", rng=np.random.default_rng(5), floor=0.0)
    fresh.add_mesh(
        trimesh.Trimesh(v1, faces, process=False), vertex_colors=np.tile(GREEN, (len(v1), 1))
    )
    assert np.array_equal(fresh.render(), moved)
    fresh.close()


def _scene_frames(seed: int, background: str, n: int = 3) -> list[np.ndarray]:
    cam = _camera((0.0, 1.2, 3.0))
    r = Renderer(cam, background=background, rng=np.random.default_rng(seed), floor=0.0)
    ball = r.add_mesh(trimesh.creation.icosphere(2, 0.2), color=(37, 99, 235))
    out = []
    for i in range(n):
        r.set_pose(ball, _translate((0.3 * i - 0.3, 0.2, 0.0)))
        out.append(r.render().copy())
    r.close()
    return out


@pytest.mark.parametrize("background", ["solid", "gradient", "grid", "noise"])
def test_backgrounds_are_deterministic_per_rng(background):
    a, b, c = (_scene_frames(s, background) for s in (11, 11, 12))
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], c[0])
    assert not np.array_equal(a[0], a[1])  # the ball moved over the same backdrop


def test_background_styles_differ():
    firsts = [_scene_frames(4, bg, n=1)[0] for bg in ("solid", "gradient", "grid", "noise")]
    for i in range(len(firsts)):
        for j in range(i + 1, len(firsts)):
            assert np.abs(firsts[i].astype(int) - firsts[j]).mean() > 2.0
    # the grid floor is a checkerboard: far more edges than the plain floor
    solid, grid = firsts[0], firsts[2]
    low = slice(H * 3 // 4, H)
    assert (
        np.abs(np.diff(grid[low].astype(int), axis=1)).mean()
        > 3 * np.abs(np.diff(solid[low].astype(int), axis=1)).mean()
    )


def test_set_camera_redraws_the_floor_and_objects():
    cam1, cam2 = _camera((0.0, 1.2, 3.0)), _camera((1.5, 2.0, 2.0))
    point = (0.2, 0.3, 0.1)

    def make() -> Renderer:
        r = Renderer(cam1, background="grid", rng=np.random.default_rng(8), floor=0.0)
        r.add_mesh(trimesh.creation.icosphere(3, 0.05), color=GREEN, pose=_translate(point))
        return r

    r = make()
    first = r.render().copy()
    r.set_camera(cam2)
    moved = r.render().copy()
    r.close()
    assert np.abs(_centroid(_green(moved)) - cam2.project(np.array(point))).max() < 1.0
    # the floor was redrawn for the new view: same pixels as moving the camera before drawing
    fresh = make()
    fresh.set_camera(cam2)
    assert np.array_equal(fresh.render(), moved)
    fresh.close()
    assert not np.array_equal(first, moved)


def test_renderers_of_one_size_share_a_context_in_turn():
    cam = _camera((0.0, 0.8, 3.0))
    sphere = trimesh.creation.icosphere(2, 0.3)
    faces, verts = np.asarray(sphere.faces), np.asarray(sphere.vertices)

    def make(seed):
        r = Renderer(cam, background="gradient", rng=np.random.default_rng(seed), floor=0.0)
        return r, r.add_dynamic_mesh(faces, (200, 120, 60), verts + [0, 0.5, 0])

    def frames(pairs, steps):
        out = {k: [] for k in range(len(pairs))}
        for i in steps:
            for k, (r, h) in enumerate(pairs):
                r.set_vertices(h, verts + [0.1 * i * (1 - 2 * k), 0.5, 0])
                out[k].append(r.render().copy())
        return out

    alone = [frames([make(s)], range(3))[0] for s in (1, 2)]
    pairs = [make(1), make(2)]
    together = frames(pairs, range(3))
    for r, _ in pairs:
        r.close()
    assert all(np.array_equal(x, y) for x, y in zip(alone[0], together[0]))
    # the second renderer's motion was mirrored in the shared run
    assert not np.array_equal(alone[1][2], together[1][2])
    assert np.array_equal(alone[1][0], together[1][0])


def _child_render(x: float) -> np.ndarray:
    cam = _camera((0.0, 0.5, 3.0))
    r = Renderer(cam, rng=np.random.default_rng(0))
    r.add_mesh(trimesh.creation.icosphere(3, 0.08), color=GREEN, pose=_translate((x, 0.5, 0.0)))
    img = r.render().copy()
    r.close()
    return img


# Mesa's llvmpipe, whichever GL this machine would pick (a GPU's driver is never fork-safe):
# the fork tests are about llvmpipe, so they force it in a child process rather than skip.
LLVMPIPE = {
    "LIBGL_ALWAYS_SOFTWARE": "1",
    "GALLIUM_DRIVER": "llvmpipe",
    "__EGL_VENDOR_LIBRARY_FILENAMES": "/usr/share/glvnd/egl_vendor.d/50_mesa.json",
}

FORK_AFTER_PARENT = """
import multiprocessing as mp, sys
import numpy as np
sys.path.insert(0, {here!r})
from test_render3d import _child_render
from tempogen.generators.render3d import gl_info
parent = _child_render(0.3)
with mp.get_context("fork").Pool(1) as pool:
    child = pool.map(_child_render, [0.3])[0]
print(gl_info()["renderer"], "same" if np.array_equal(parent, child) else "differ")
"""


@pytest.mark.slow  # fresh processes that render
def test_forked_worker_renders_after_the_parent_did():
    """llvmpipe without rasteriser threads (LP_NUM_THREADS=0, the default ensure_gl sets)
    survives fork: a forked worker renders what its parent rendered."""
    code = FORK_AFTER_PARENT.format(here=str(Path(__file__).parent))
    env = {**os.environ, **LLVMPIPE, "LP_NUM_THREADS": "0"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert "llvmpipe" in out.stdout and out.stdout.rstrip().endswith("same"), (
        out.stdout + out.stderr[-2000:]
    )


FORK_AFTER_THREADS = """
import multiprocessing as mp, sys
sys.path.insert(0, {here!r})
from test_render3d import _child_render
from tempogen.generators.render3d import gl_info
print(gl_info()["renderer"])
_child_render(0.0)
with mp.get_context("fork").Pool(1) as pool:
    try:
        pool.map(_child_render, [0.1])
    except Exception as exc:
        print(type(exc).__name__, exc)
"""


@pytest.mark.slow  # fresh processes that render
def test_forked_worker_after_threaded_llvmpipe_fails_clearly_not_hangs():
    code = FORK_AFTER_THREADS.format(here=str(Path(__file__).parent))
    env = {**os.environ, **LLVMPIPE, "LP_NUM_THREADS": "2"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert "llvmpipe" in out.stdout, out.stdout + out.stderr[-2000:]
    assert "RenderError" in out.stdout and "does not survive fork" in out.stdout, out.stderr


HEADLESS = """
import sys
from tempogen.generators.render3d import ensure_gl, gl_info
ensure_gl("egl")
gl_info()
import pyglet
print(pyglet.options.headless, "pyglet.libs.x11.xlib" in sys.modules)
"""


def test_egl_needs_no_x11_libraries():
    env = {k: v for k, v in os.environ.items() if k not in ("PYGLET_HEADLESS", "DISPLAY")}
    env["TEMPOGEN_GL"] = "egl"
    out = subprocess.run(
        [sys.executable, "-c", HEADLESS], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False"], out.stdout


def test_bad_input_is_a_clear_error():
    cam = _camera((0.0, 0.5, 3.0))
    with pytest.raises(RenderError, match="TEMPOGEN_GL"):
        ensure_gl("vulkan")
    with pytest.raises(RenderError, match="background"):
        Renderer(cam, background="sky")
    with pytest.raises(RenderError, match="samples"):
        Renderer(cam, samples=3)
    r = Renderer(cam)
    rigid = r.add_mesh(trimesh.creation.box((0.1, 0.1, 0.1)), color=GREEN)
    dyn = r.add_dynamic_mesh(np.array([[0, 1, 2]]), GREEN, np.eye(3))
    with pytest.raises(RenderError, match=r"expected \(3, 3\)"):
        r.set_vertices(dyn, np.zeros((4, 3)))
    with pytest.raises(RenderError, match="not a dynamic mesh"):
        r.set_vertices(rigid, np.zeros((8, 3)))
    with pytest.raises(RenderError, match="exactly one"):
        r.add_mesh(trimesh.creation.box(), color=GREEN, vertex_colors=np.zeros((8, 3)))
    with pytest.raises(RenderError, match="4x4"):
        r.set_pose(rigid, np.eye(3))
    with pytest.raises(RenderError, match="handle"):
        r.set_pose(99, np.eye(4))
    with pytest.raises(RenderError, match="face indices"):
        r.add_dynamic_mesh(np.array([[0, 1, 5]]), GREEN, np.eye(3))
    r.close()
    with pytest.raises(RenderError, match="closed"):
        r.render()


def _turning_scene(shading: str, samples: int = 0) -> list[np.ndarray]:
    """A lit box turning and a body-like sphere deforming, seen over a floor."""
    cam = _camera((0.6, 1.3, 3.0))
    r = Renderer(
        cam,
        background="grid",
        rng=np.random.default_rng(3),
        floor=0.0,
        samples=samples,
        shading=shading,
    )
    box = r.add_mesh(trimesh.creation.box((0.5, 0.4, 0.3)), color=(220, 38, 38))
    sphere = trimesh.creation.icosphere(3, 0.25)
    faces, v0 = np.asarray(sphere.faces), np.asarray(sphere.vertices)
    blob = r.add_dynamic_mesh(faces, (37, 99, 235), v0 + [0.6, 0.5, 0.0])
    out = []
    for i in range(4):
        pose = _translate((-0.4, 0.4, 0.0))
        a = 0.5 * i
        pose[:3, :3] = [[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]]
        r.set_pose(box, pose)
        r.set_vertices(blob, v0 * [1.0, 1.0 + 0.2 * i, 1.0] + [0.6, 0.5, 0.0])
        out.append(r.render().copy())
    r.close()
    return out


def test_vertex_shading_matches_pyrenders_pixel_shader():
    # the fast CPU-lit path must look like pyrender's own per-pixel lighting, frame by frame
    # (a turning mesh relit, a deforming one with fresh normals), or pixel audits would drift
    for fast, slow in zip(_turning_scene("vertex"), _turning_scene("pixel")):
        diff = np.abs(fast.astype(int) - slow.astype(int))
        assert diff.mean() < 1.5 and np.percentile(diff, 99) <= 12, (diff.mean(), diff.max())


def test_vertex_shading_is_the_default_and_env_overridable(monkeypatch):
    from tempogen.generators.render3d import SHADING_ENV, default_shading

    monkeypatch.delenv(SHADING_ENV, raising=False)
    assert default_shading() == "vertex"
    monkeypatch.setenv(SHADING_ENV, "pixel")
    assert default_shading() == "pixel"
    monkeypatch.setenv(SHADING_ENV, "phong")
    with pytest.raises(RenderError, match="TEMPOGEN_GL_SHADING"):
        default_shading()


def test_lit_colour_of_a_camera_facing_surface_is_its_paint():
    from tempogen.generators.render3d import lit_colors

    cam = _camera((0.0, 0.5, 3.0))
    r = Renderer(cam, rng=np.random.default_rng(0))
    paint = np.array([[220, 38, 38], [37, 99, 235]]) / 255.0
    linear = paint**2.2
    facing = np.array([[0.0, 0.0, 1.0]] * 2, np.float32)  # towards the camera
    away = -facing
    lit = lit_colors(linear.astype(np.float32), facing, r._lights)
    assert np.abs(lit * 255 - paint * 255).max() <= 8
    assert (lit_colors(linear.astype(np.float32), away, r._lights) < lit).all()
    r.close()


def test_vertex_normals_are_area_weighted_face_normals():
    from tempogen.generators.render3d import vertex_normals

    mesh = trimesh.creation.icosphere(2, 0.7)
    v, f = np.asarray(mesh.vertices) * [1.0, 2.0, 0.5], np.asarray(mesh.faces)
    cross = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
    want = np.zeros_like(v)
    for k in range(3):
        np.add.at(want, f[:, k], cross)
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    assert np.allclose(vertex_normals(v, f), want, atol=1e-5)


def test_binary_coverage_copy_equals_the_premultiplied_blend():
    from tempogen.generators.backdrop3d import over

    rng = np.random.default_rng(1)
    rgba = rng.integers(0, 256, (40, 60, 4), dtype=np.uint8)
    rgba[..., 3] = np.where(rng.random((40, 60)) < 0.4, 255, 0)
    rgba[rgba[..., 3] == 0, :3] = 0  # premultiplied: nothing where nothing was drawn
    back = rng.integers(0, 256, (40, 60, 3), dtype=np.uint8)
    blended = over(rgba, back, np.empty_like(back)).copy()
    copied = over(rgba, back, np.empty_like(back), binary=True)
    assert np.array_equal(blended, copied)


def test_touching_surfaces_draw_in_the_order_they_were_added():
    """Two coincident quads at the same pose: the one added first is drawn first and keeps
    the pixels (equal depth does not pass). pyrender keeps meshes in a set, so without our
    tie-break the winner changed from run to run: the same clip gave other pixels."""
    cam = _camera((0.0, 0.5, 3.0))
    quad = trimesh.creation.box((0.8, 0.8, 0.01))
    red, blue = (220, 38, 38), (37, 99, 235)
    x, y = cam.project(np.array([0.0, 0.5, 0.005])).astype(int)
    for trial in range(12):
        first, second = (red, blue) if trial % 2 else (blue, red)
        r = Renderer(cam, rng=np.random.default_rng(0))
        for _ in range(trial % 3):  # other meshes first: the set's order shifts with them
            r.add_mesh(quad, color=GREEN, pose=_translate((2.5, 3.0, 0.0)))
        for colour in (first, second):
            r.add_mesh(quad, color=colour, pose=_translate((0.0, 0.5, 0.0)))
        pixel = r.render()[y, x].astype(int)
        r.close()
        assert np.abs(pixel - first).max() <= 8, (trial, first, pixel)
