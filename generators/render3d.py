"""Offscreen 3D rendering with pyrender: one GL setup, persistent contexts, in-place meshes.

``ensure_gl`` is the only place that chooses the OpenGL platform (EGL by default: the NVIDIA
driver on a GPU machine, Mesa llvmpipe on the CPU; ``TEMPOGEN_GL=egl|osmesa`` forces one) and
patches what pyrender 0.1.45 needs under NumPy 2. A :class:`Renderer` draws one scene through
a :class:`~tempogen.generators.camera.Camera`, so a point that ``camera.project`` maps to a
pixel is drawn on that pixel. Its offscreen context is created lazily, once per canvas size
and process, and reused by every clip that process renders. A forked child makes its own
context; llvmpipe runs without rasteriser threads (``LP_NUM_THREADS=0`` unless set), which
is what lets a fork pool render after its parent did (elsewhere that raises a clear error
instead of hanging). A deforming mesh (a body) keeps its GL vertex buffer and has its
vertices and normals rewritten in place each frame instead of building a new mesh; a static
floor is drawn once into the backdrop. Multisampling is off unless asked for (it costs
llvmpipe 2-4x); ``TEMPOGEN_GL_SAMPLES`` or ``Renderer(samples=)`` turns it on.

Shading is per vertex by default (``TEMPOGEN_GL_SHADING=vertex|pixel``): pyrender's ambient
plus diffuse light is evaluated on the CPU per vertex (only for meshes that moved or turned)
and the GPU draws flat, unlit colours, which is 2-3x faster on llvmpipe and within a few
levels of pyrender's per-pixel shader on our matte paints. Shadows need the pixel shader.

Colours are sRGB like the 2D renderer's. Lights are calibrated so a surface that faces the
camera shows its nominal colour, which is what lets a colour mask find an object in pixels.

Usage::

    r = Renderer(camera, background="grid", rng=rng, floor=0.0)
    ball = r.add_mesh(trimesh.creation.icosphere(3, 0.2), color=(220, 38, 38))
    body = r.add_dynamic_mesh(faces, vertex_colors)
    for pose, verts in states:
        r.set_pose(ball, pose)
        r.set_vertices(body, verts)
        frame = r.render()  # (H, W, 3) uint8, reused by the next call
    r.close()
"""

from __future__ import annotations

import ctypes
import math
import os
import sys
from typing import Any

import cv2
import numpy as np
import trimesh
from scipy import sparse

from tempogen.errors import ExternalServiceError
from tempogen.generators.camera import Camera
from tempogen.generators.render2d import BACKGROUNDS, make_background

GL_ENV = "TEMPOGEN_GL"
SAMPLES_ENV = "TEMPOGEN_GL_SAMPLES"
SHADING_ENV = "TEMPOGEN_GL_SHADING"
# "vertex": we light each vertex on the CPU (the same diffuse and ambient terms as pyrender's
# shader, no specular highlight) and pyrender draws with its flat shader, 2.5-3x faster on
# llvmpipe; "pixel": pyrender's own per-pixel PBR pass (always used with shadows).
SHADINGS = ("vertex", "pixel")
DEFAULT_SHADING = "vertex"
# Multisampling is free on a GPU but costs llvmpipe 2-4x per frame, too much for 30 frames/s on
# two cores; TEMPOGEN_GL_SAMPLES=4 gives smooth edges wherever that time is affordable.
DEFAULT_SAMPLES = 0
GL_BACKENDS = ("egl", "osmesa")
RGB = tuple[int, int, int]

AMBIENT = 0.3  # ambient light, as a fraction of a surface's colour
ZNEAR, ZFAR = 0.05, 200.0
_DIFFUSE = 0.96 * 0.96 / math.pi  # pyrender's dielectric diffuse term (1 - F0)(1 - F0)/pi

_STATE: dict[str, Any] = {
    "backend": None,
    "pyrender": None,
    "pid": None,  # the process that owns "contexts"
    "contexts": {},
    "gl_renderer": None,
    "fork_safe": False,
}


class RenderError(ExternalServiceError):
    """The 3D renderer cannot run here, or was given bad input; the message says why."""


def ensure_gl(backend: str | None = None) -> str:
    """Choose the OpenGL platform before pyrender is imported, then import it; returns it.

    ``backend`` (or env ``TEMPOGEN_GL``) is ``egl``, ``osmesa`` or ``auto`` (= ``egl``).
    """
    want = (backend or os.environ.get(GL_ENV) or "auto").strip().lower()
    if want == "auto":
        want = "egl"
    if want not in GL_BACKENDS:
        raise RenderError(f"{GL_ENV}={want!r}: the OpenGL backend must be one of {GL_BACKENDS}")
    if _STATE["backend"] is not None:
        if want != _STATE["backend"]:
            raise RenderError(
                f"OpenGL already runs on {_STATE['backend']!r} in this process; "
                f"cannot switch to {want!r} (set {GL_ENV} before the first render)"
            )
        return want
    current = os.environ.get("PYOPENGL_PLATFORM")
    if "OpenGL" in sys.modules and current != want:
        raise RenderError(
            f"PyOpenGL was imported before tempogen chose a platform (PYOPENGL_PLATFORM="
            f"{current!r}); import tempogen.generators.render3d first or set {GL_ENV}"
        )
    os.environ["PYOPENGL_PLATFORM"] = want
    # llvmpipe's rasteriser threads do not survive fork(): without them a forked worker (the
    # dataset build's pool) can use GL even if its parent rendered first. Only llvmpipe reads it.
    os.environ.setdefault("LP_NUM_THREADS", "0")
    if want == "egl":
        # pyrender imports its pyglet viewer, and pyglet loads Xlib unless headless: a GPU
        # server with no X libraries (seen on an H100 node) fails at the import otherwise.
        os.environ.setdefault("PYGLET_HEADLESS", "1")
    if not hasattr(np, "infty"):  # pyrender 0.1.45 still uses the alias NumPy 2 removed
        np.infty = np.inf  # type: ignore[attr-defined]
    try:
        import pyrender
    except Exception as exc:  # a missing libEGL/libOSMesa surfaces here as various errors
        raise RenderError(_no_gl_message(want, exc)) from exc
    _STATE["backend"], _STATE["pyrender"] = want, pyrender
    return want


def _no_gl_message(backend: str, exc: BaseException) -> str:
    other = "osmesa" if backend == "egl" else "egl"
    return (
        f"cannot start offscreen OpenGL through {backend} ({type(exc).__name__}: {exc}); "
        f"install Mesa's {backend.upper()} library or set {GL_ENV}={other}"
    )


class _Target:
    """Framebuffers of one canvas size and sample count, and the buffer pixels are read into.

    With ``samples`` > 0 pyrender draws into a multisampled buffer that is resolved (blitted)
    into a single-sampled one before reading; with 0 it draws straight into the latter.
    """

    def __init__(self, width: int, height: int, samples: int) -> None:
        from OpenGL import GL

        self.width, self.height, self.samples = width, height, samples
        self.pixels = np.empty((height, width, 4), np.uint8)  # bottom row first, as GL reads
        self.read_fb = self._framebuffer(GL, 0, depth=samples == 0)
        self.draw_fb = self._framebuffer(GL, samples, depth=True) if samples else self.read_fb

    def _framebuffer(self, GL: Any, samples: int, depth: bool) -> int:
        fb = int(GL.glGenFramebuffers(1))
        GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, fb)
        formats = [(GL.GL_RGBA8, GL.GL_COLOR_ATTACHMENT0)]
        if depth:
            formats.append((GL.GL_DEPTH_COMPONENT24, GL.GL_DEPTH_ATTACHMENT))
        for fmt, attachment in formats:
            rb = int(GL.glGenRenderbuffers(1))
            GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, rb)
            if samples:
                GL.glRenderbufferStorageMultisample(
                    GL.GL_RENDERBUFFER, samples, fmt, self.width, self.height
                )
            else:
                GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, fmt, self.width, self.height)
            GL.glFramebufferRenderbuffer(GL.GL_DRAW_FRAMEBUFFER, attachment, GL.GL_RENDERBUFFER, rb)
        status = GL.glCheckFramebufferStatus(GL.GL_DRAW_FRAMEBUFFER)
        if status != GL.GL_FRAMEBUFFER_COMPLETE:
            raise RenderError(f"offscreen framebuffer ({samples} samples) incomplete: {status}")
        return fb

    def read(self) -> np.ndarray:
        """Resolve and read the last frame: RGBA uint8 (H, W, 4), top row first (a view)."""
        from OpenGL import GL
        from OpenGL.raw.GL.VERSION.GL_1_0 import glReadPixels

        if self.samples:
            GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, self.draw_fb)
            GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, self.read_fb)
            w, h = self.width, self.height
            GL.glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL.GL_COLOR_BUFFER_BIT, GL.GL_NEAREST)
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, self.read_fb)
        glReadPixels(
            0,
            0,
            self.width,
            self.height,
            GL.GL_RGBA,
            GL.GL_UNSIGNED_BYTE,
            self.pixels.ctypes.data_as(ctypes.c_void_p),
        )
        return self.pixels[::-1]


class _Context:
    """The process's offscreen GL context for one canvas size, shared by every Renderer.

    pyrender keeps drawing (meshes on the GPU, shaders, lights); the framebuffers are ours,
    so the sample count is a choice and a frame is read once, as RGBA, with no depth read.
    """

    def __init__(self, width: int, height: int) -> None:
        try:
            self.off = _STATE["pyrender"].OffscreenRenderer(width, height)
        except Exception as exc:
            raise RenderError(_no_gl_message(_STATE["backend"], exc)) from exc
        self.width, self.height = width, height
        self.fbo = bool(self.off._platform.supports_framebuffers())
        self.targets: dict[int, _Target] = {}
        if self.fbo:
            # the frame is read by _Target.read after pyrender has drawn it
            self.off._renderer._read_main_framebuffer = lambda scene, flags: (None, None)
        self.off._renderer._sorted_mesh_nodes = _draw_order

    def make_current(self) -> None:
        self.off._platform.make_current()

    def draw(self, scene: Any, flags: int, samples: int) -> np.ndarray:
        """Render ``scene``; RGBA uint8 (H, W, 4) top row first (alpha 0 where nothing drew)."""
        self.make_current()
        if not self.fbo:  # OSMesa: pyrender reads RGB and depth; depth > 0 marks coverage
            color, depth = self.off.render(scene, flags=flags)
            return np.dstack([color, np.where(depth > 0, 255, 0).astype(np.uint8)])
        target = self.targets.get(samples)
        if target is None:
            target = self.targets[samples] = _Target(self.width, self.height, samples)
        r = self.off._renderer
        r._main_fb, r._main_fb_ms = target.read_fb, target.draw_fb
        r._main_fb_dims = (self.width, self.height)
        self.off.render(scene, flags=flags)
        return target.read()


def _draw_order(scene: Any) -> list[Any]:
    """pyrender's draw order (opaque meshes, then transparent ones, each far to near) with
    ties broken by the order the meshes were added. pyrender keeps them in a set, so meshes at
    one distance (most sit at the identity pose) drew in an order that changed from run to
    run, and where two surfaces touch (an object set down on another) so did the pixels."""
    cam = scene.get_pose(scene.main_camera_node)[:3, 3]

    def key(node: Any) -> tuple[float, int]:
        far = float(np.linalg.norm(scene.get_pose(node)[:3, 3] - cam))
        return -far, getattr(node, "tempogen_order", 0)

    nodes = sorted(scene.mesh_nodes, key=key)
    return [n for n in nodes if not n.mesh.is_transparent] + [
        n for n in nodes if n.mesh.is_transparent
    ]


def _context(width: int, height: int) -> _Context:
    """The process's GL context for this canvas size, created on first use."""
    ensure_gl()
    if _STATE["pid"] != os.getpid():  # after a fork the parent's contexts are not ours
        if _STATE["contexts"] and not _STATE["fork_safe"]:
            raise RenderError(
                "this process was forked after its parent started OpenGL on "
                f"{_STATE['gl_renderer']!r}, which does not survive fork(); render only in "
                "the workers, use a spawn pool, or leave LP_NUM_THREADS=0 (llvmpipe)"
            )
        _STATE["pid"], _STATE["contexts"] = os.getpid(), {}
    contexts: dict[tuple[int, int], _Context] = _STATE["contexts"]
    key = (int(width), int(height))
    if key not in contexts:
        contexts[key] = _Context(*key)
        if _STATE["gl_renderer"] is None:
            from OpenGL.GL import GL_RENDERER, glGetString

            name = glGetString(GL_RENDERER)
            name = name.decode() if isinstance(name, bytes) else str(name)
            threads = os.environ.get("LP_NUM_THREADS", "")
            _STATE["gl_renderer"] = name
            _STATE["fork_safe"] = "llvmpipe" in name and threads == "0"
    return contexts[key]


def gl_info() -> dict[str, Any]:
    """Which OpenGL implementation renders here (vendor, renderer, version, GPU or not)."""
    ctx = _context(16, 16)
    ctx.make_current()
    from OpenGL.GL import GL_RENDERER, GL_VENDOR, GL_VERSION, glGetString

    def s(name: int) -> str:
        v = glGetString(name)
        return v.decode() if isinstance(v, bytes) else str(v)

    renderer = s(GL_RENDERER)
    soft = any(w in renderer.lower() for w in ("llvmpipe", "softpipe", "swrast", "software"))
    return {
        "backend": _STATE["backend"],
        "vendor": s(GL_VENDOR),
        "renderer": renderer,
        "version": s(GL_VERSION),
        "gpu": not soft,
    }


def srgb_to_linear(rgb: Any) -> np.ndarray:
    """sRGB colours (..., 3) in 0-255 to linear floats in 0-1 (what the shader multiplies)."""
    c = np.asarray(rgb, dtype=np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _rgba(colors: np.ndarray, n: int, what: str) -> np.ndarray:
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


def default_samples() -> int:
    """Multisample count when a Renderer is not given one: env ``TEMPOGEN_GL_SAMPLES`` or 0."""
    raw = os.environ.get(SAMPLES_ENV, "").strip()
    if not raw:
        return DEFAULT_SAMPLES
    try:
        return int(raw)
    except ValueError:
        raise RenderError(f"{SAMPLES_ENV}={raw!r}: expected 0, 2, 4 or 8") from None


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


def _over(
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


def _paste(out: np.ndarray, image: np.ndarray, quad: np.ndarray) -> None:
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
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]]) - 0.5
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


class _Owned:
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


class Renderer:
    """One 3D scene drawn through a :class:`Camera`: lights, optional floor, background.

    ``background`` is a 2D style name (solid, gradient, grid, noise): the sky is that 2D
    background, and the floor (at height ``floor`` metres, ``y`` up; None = no floor) is
    plain, checkered (grid) or mottled (noise). ``rng`` draws the look, so the same rng
    state renders the same pixels. ``samples`` is the multisample anti-aliasing count (0 =
    off; default ``TEMPOGEN_GL_SAMPLES`` or 0). ``shading`` is "vertex" (lit per vertex on the
    CPU, drawn by pyrender's flat shader: the fast default) or "pixel" (pyrender's per-pixel
    pass; default ``TEMPOGEN_GL_SHADING``; shadows need it). Handles returned by ``add_*``
    name meshes.

    Without shadows the floor never occludes anything: it is drawn once with the sky into a
    backdrop (again after :meth:`set_camera`) and each frame draws only the meshes over it.
    """

    def __init__(
        self,
        camera: Camera,
        *,
        background: str = "solid",
        rng: np.random.Generator | None = None,
        floor: float | None = None,
        shadows: bool = False,
        samples: int | None = None,
        shading: str | None = None,
        coverage: bool = False,
    ) -> None:
        if background not in BACKGROUNDS:
            raise RenderError(f"unknown background {background!r}; known: {BACKGROUNDS}")
        ensure_gl()
        pr = _STATE["pyrender"]
        self._pr = pr
        self.camera = camera
        self.width, self.height = int(camera.width), int(camera.height)
        self.samples = default_samples() if samples is None else int(samples)
        if self.samples not in (0, 2, 4, 8):
            raise RenderError(f"samples must be 0, 2, 4 or 8, got {self.samples}")
        self.shading = "pixel" if shadows else (shading or default_shading())
        if self.shading not in SHADINGS:
            raise RenderError(f"shading must be one of {SHADINGS}, got {self.shading!r}")
        rng = rng if rng is not None else np.random.default_rng(0)
        self.sky = make_background(background, self.width, self.height, rng)
        self._clear = [0.0, 0.0, 0.0, 0.0]
        self.scene = pr.Scene(bg_color=self._clear, ambient_light=[AMBIENT] * 3)
        self._cam_node = self.scene.add(
            pr.PerspectiveCamera(
                yfov=camera.yfov, aspectRatio=camera.aspect, znear=ZNEAR, zfar=ZFAR
            ),
            pose=camera.pose,
        )
        self._lights: list[tuple[np.ndarray, float]] = []  # world direction, intensity
        self._add_lights(rng)
        self._nodes: list[Any] = []
        self._owned: dict[int, _Owned] = {}
        self._shadows = shadows
        self._flags = pr.RenderFlags.RGBA | (
            pr.RenderFlags.SHADOWS_DIRECTIONAL if shadows else pr.RenderFlags.NONE
        )
        if self.shading == "vertex":
            self._flags |= pr.RenderFlags.FLAT
        self._out = np.empty((self.height, self.width, 3), np.uint8)
        self._backdrop: np.ndarray | None = None  # sky (and floor) as the frames see it
        self.floor_handle: int | None = None
        self._static: list[int] = []  # meshes drawn once into the backdrop (scenery)
        self._decals: list[tuple[np.ndarray, np.ndarray]] = []  # (RGB image, 3D corners)
        if floor is not None:
            self.floor_handle = self._add_floor(float(floor), background, rng)
        # a plain sky with nothing in the backdrop is the clear colour: no compositing
        # (``coverage`` keeps the meshes on a transparent clear: :attr:`coverage` is their mask)
        self._direct = background == "solid" and (floor is None or shadows) and not coverage
        self.coverage: np.ndarray | None = None  # alpha of the last frame's meshes (a view)
        if self._direct:
            self.scene.bg_color = np.array([*(self.sky[0, 0] / 255.0), 1.0])
        self._closed = False

    # look -------------------------------------------------------------------------------
    def _add_lights(self, rng: np.random.Generator) -> None:
        """A key light from above the camera to one side and a dim fill from the other,
        scaled so a surface facing the camera gets exactly its own colour."""
        side = float(rng.choice([-1.0, 1.0]))
        key = np.array([side * rng.uniform(0.3, 0.6), -rng.uniform(0.4, 0.8), -1.0])
        fill = np.array([-side * 0.5, -0.2, -1.0])
        key, fill = key / np.linalg.norm(key), fill / np.linalg.norm(fill)
        fill_i = 0.6
        # camera-facing normal is +z in the camera frame; light arrives along -d
        cos_key, cos_fill = -key[2], -fill[2]
        key_i = (1.0 - AMBIENT - _DIFFUSE * fill_i * cos_fill) / (_DIFFUSE * cos_key)
        pr = self._pr
        for d, i in ((key, key_i), (fill, fill_i)):
            pose = _light_pose(d, self.camera.pose)
            self.scene.add(pr.DirectionalLight(color=np.ones(3), intensity=float(i)), pose=pose)
            self._lights.append((-pose[:3, 2], float(i)))

    def _add_floor(self, y: float, background: str, rng: np.random.Generator) -> int:
        """A square of tiles around the point the camera looks at, ``y`` up."""
        pose = self.camera.pose
        eye = pose[:3, 3]
        fwd = -pose[:3, 2].copy()
        fwd[1] = 0.0
        fwd = fwd / max(np.linalg.norm(fwd), 1e-9)
        centre = eye + 8.0 * fwd
        tile = float(rng.uniform(0.45, 0.8))
        k = int(math.ceil(24.0 / tile))
        base = np.clip(rng.uniform(90, 200) + rng.uniform(-10, 10, 3), 0, 255)
        ii, jj = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
        if background == "grid":
            shade = np.where((ii + jj) % 2 == 0, 1.0, float(rng.uniform(0.6, 0.75)))
        elif background == "noise":
            shade = 1.0 + rng.normal(0.0, 0.06, size=(k, k))
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
        return self.add_mesh(mesh, face_colors=face_colors, smooth=False)

    # meshes -----------------------------------------------------------------------------
    def _material(self) -> Any:
        return self._pr.MetallicRoughnessMaterial(
            baseColorFactor=[1.0, 1.0, 1.0, 1.0], metallicFactor=0.0, roughnessFactor=1.0
        )

    def add_mesh(
        self,
        mesh: trimesh.Trimesh,
        *,
        color: RGB | None = None,
        face_colors: np.ndarray | None = None,
        vertex_colors: np.ndarray | None = None,
        smooth: bool | None = None,
        pose: np.ndarray | None = None,
        backdrop: bool = False,
    ) -> int:
        """Add a rigid mesh (move it with :meth:`set_pose`); returns its handle.

        Give one of ``color`` (sRGB, whole mesh), ``face_colors`` (F, 3) or ``vertex_colors``
        (V, 3). ``smooth`` shades with vertex normals (default: unless face colours are given).
        ``backdrop``: scenery that never moves and never overlaps a moving mesh on screen
        (a distractor); it is drawn once into the backdrop with the floor, not every frame.
        """
        given = [c is not None for c in (color, face_colors, vertex_colors)]
        if sum(given) != 1:
            raise RenderError("add_mesh: give exactly one of color, face_colors, vertex_colors")
        faces = np.asarray(mesh.faces, dtype=np.int64)
        verts = np.asarray(mesh.vertices, dtype=np.float64)
        smooth = (face_colors is None) if smooth is None else smooth
        if smooth and face_colors is not None:
            raise RenderError("add_mesh: face colours need flat shading (smooth=False)")
        if smooth:
            pos, idx = verts, faces
            normals = vertex_normals(verts, faces)
            col = _rgba(color if color is not None else vertex_colors, len(verts), "add_mesh")
        else:  # one vertex per face corner, so each face keeps its own normal and colour
            pos = verts[faces].reshape(-1, 3)
            idx = np.arange(len(pos)).reshape(-1, 3)
            fn = np.asarray(mesh.face_normals, dtype=np.float64)
            normals = np.repeat(fn, 3, axis=0)
            if face_colors is not None:
                col = np.repeat(_rgba(face_colors, len(faces), "add_mesh face_colors"), 3, 0)
            else:
                c = color if color is not None else np.asarray(vertex_colors)[faces].reshape(-1, 3)
                col = _rgba(c, len(pos), "add_mesh")
        data = np.empty((len(pos), 10), np.float32)
        data[:, 0:3], data[:, 3:6], data[:, 6:10] = pos, normals, col
        handle = self._add_owned(idx, data, dynamic=False)
        if pose is not None:
            self.set_pose(handle, pose)
        if backdrop:
            self._static.append(handle)
            self._uses_backdrop()
        return handle

    def add_decal(self, image: np.ndarray, corners: np.ndarray) -> None:
        """Paste a flat picture (a sign's face) into the backdrop: ``image`` RGB uint8
        (h, w, 3) stretched over world ``corners`` (4, 3) in the order top-left, top-right,
        bottom-right, bottom-left of the image. It is drawn once per camera over the sky,
        floor and scenery, under every mesh: give it only where it lies behind them all."""
        img = np.ascontiguousarray(np.asarray(image, dtype=np.uint8)[..., :3])
        quad = np.asarray(corners, dtype=np.float64)
        if img.ndim != 3 or quad.shape != (4, 3):
            raise RenderError(
                f"add_decal: need an (h, w, 3) image and (4, 3) corners, got {quad.shape}"
            )
        self._decals.append((img, quad))
        self._uses_backdrop()

    def _uses_backdrop(self) -> None:
        """Scenery or a decal was added: frames are composited over a (re)drawn backdrop."""
        self._backdrop = None
        if self._direct:
            self._direct = False
            self.scene.bg_color = np.array(self._clear)

    def add_dynamic_mesh(
        self, faces: np.ndarray, vertex_colors: np.ndarray, vertices: np.ndarray | None = None
    ) -> int:
        """Add a deforming mesh whose vertices :meth:`set_vertices` rewrites every frame.

        ``faces`` (F, 3) int, ``vertex_colors`` (V, 3) or (3,) sRGB; smooth shading.
        """
        f = np.asarray(faces, dtype=np.int64)
        if f.ndim != 2 or f.shape[1] != 3 or f.size == 0:
            raise RenderError(f"add_dynamic_mesh: faces must be (F, 3) ints, got {f.shape}")
        nv = int(f.max()) + 1 if vertices is None else len(vertices)
        if f.min() < 0 or f.max() >= nv:
            raise RenderError(f"add_dynamic_mesh: face indices must lie in [0, {nv})")
        data = np.zeros((nv, 10), np.float32)
        data[:, 6:10] = _rgba(vertex_colors, nv, "add_dynamic_mesh vertex_colors")
        data[:, 4] = 1.0  # a placeholder normal until the first set_vertices
        handle = self._add_owned(f, data, dynamic=True)
        if vertices is not None:
            self.set_vertices(handle, vertices)
        return handle

    def _add_owned(self, faces: np.ndarray, data: np.ndarray, dynamic: bool) -> int:
        """A mesh node drawn from ``data``, which :meth:`_upload` keeps current on the GPU."""
        prim = self._pr.Primitive(
            positions=data[:, 0:3].copy(),
            normals=data[:, 3:6].copy(),
            color_0=data[:, 6:10].copy(),
            indices=faces.astype(np.uint32),
            material=self._material(),
        )
        handle = self._add_node(self._pr.Mesh([prim]), None)
        self._owned[handle] = _Owned(prim, faces, data, dynamic)
        return handle

    def _add_node(self, mesh: Any, pose: np.ndarray | None) -> int:
        node = self.scene.add(mesh, pose=np.eye(4) if pose is None else np.asarray(pose))
        node.tempogen_order = len(self._nodes)  # the draw order's tie-break (_draw_order)
        self._nodes.append(node)
        return len(self._nodes) - 1

    def _node(self, handle: int) -> Any:
        if not 0 <= handle < len(self._nodes) or self._nodes[handle] is None:
            raise RenderError(f"no mesh with handle {handle!r}")
        return self._nodes[handle]

    def set_vertices(self, handle: int, vertices: np.ndarray) -> None:
        """New vertex positions (V, 3) in metres for a dynamic mesh; normals follow."""
        dyn = self._owned.get(handle)
        if dyn is None or not dyn.dynamic:
            raise RenderError(f"mesh {handle!r} is not a dynamic mesh (use add_dynamic_mesh)")
        v = np.asarray(vertices, dtype=np.float32)
        if v.shape != (len(dyn.data), 3):
            raise RenderError(f"set_vertices: expected ({len(dyn.data)}, 3), got {v.shape}")
        dyn.data[:, 0:3] = v
        dyn.data[:, 3:6] = dyn.normals(v)
        # kept current for pyrender's bounds
        dyn.primitive.positions = dyn.data[:, 0:3]
        dyn.dirty = True

    def set_colors(self, handle: int, colors: np.ndarray) -> None:
        """New sRGB paint ((V, 3) or (3,)) for a mesh this renderer owns, e.g. a lamp lighting up."""
        owned = self._owned.get(handle)
        if owned is None:
            raise RenderError(f"mesh {handle!r} has no colours of its own to change")
        rgba = _rgba(colors, len(owned.data), "set_colors colors")
        owned.base = rgba[:, :3].copy()
        owned.data[:, 6:10] = rgba
        owned.dirty = True

    def set_pose(self, handle: int, pose: np.ndarray) -> None:
        """Move a mesh: its 4x4 model-to-world pose."""
        p = np.asarray(pose, dtype=np.float64)
        if p.shape != (4, 4):
            raise RenderError(f"set_pose: expected a 4x4 pose, got shape {p.shape}")
        self.scene.set_pose(self._node(handle), p)
        owned = self._owned.get(handle)
        if owned is not None and self.shading == "vertex":
            rot = p[:3, :3]
            if not np.array_equal(rot, owned.rotation):  # a turned mesh is lit anew
                owned.rotation = rot.copy()
                owned.dirty = True

    def set_camera(self, camera: Camera) -> None:
        """Move the camera (same canvas size), e.g. a first-person view that follows a head."""
        if (camera.width, camera.height) != (self.width, self.height):
            raise RenderError("set_camera: the canvas size cannot change")
        self.camera = camera
        self._cam_node.camera.yfov = camera.yfov
        self.scene.set_pose(self._cam_node, camera.pose)
        self._backdrop = None

    # drawing ----------------------------------------------------------------------------
    def _light(self, owned: _Owned) -> None:
        """Write ``owned``'s lit sRGB colours into its data (vertex shading)."""
        normals = owned.data[:, 3:6]
        if not np.array_equal(owned.rotation, np.eye(3)):
            normals = normals @ np.linalg.inv(owned.rotation).astype(np.float32)
            normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
        owned.data[:, 6:9] = lit_colors(owned.base, normals, self._lights)

    def _upload(self) -> None:
        """Bring changed meshes up to date on the GPU: vertex buffers rewritten in place."""
        from OpenGL.GL import GL_ARRAY_BUFFER, glBindBuffer, glBufferSubData

        for owned in self._owned.values():
            if not owned.dirty:
                continue
            if self.shading == "vertex":
                self._light(owned)
            prim = owned.primitive
            if prim._vaid is None:  # not on the GPU yet: pyrender uploads these arrays whole
                prim.positions = owned.data[:, 0:3].copy()
                prim.normals = owned.data[:, 3:6].copy()
                prim.color_0 = owned.data[:, 6:10].copy()
            else:
                glBindBuffer(GL_ARRAY_BUFFER, prim._buffers[0])
                glBufferSubData(GL_ARRAY_BUFFER, 0, owned.data.nbytes, owned.data)
                glBindBuffer(GL_ARRAY_BUFFER, 0)
            owned.dirty = False

    def _scenery(self) -> list[Any]:
        """Meshes drawn into the backdrop rather than every frame: floor and static scenery
        (with shadows, none: the floor must catch the moving meshes' shadows each frame)."""
        if self._shadows:
            return []
        handles = ([] if self.floor_handle is None else [self.floor_handle]) + self._static
        return [self._nodes[h].mesh for h in handles]

    def _draw_backdrop(self, ctx: _Context) -> np.ndarray:
        """The sky with the floor, scenery and decals drawn over it (once per camera)."""
        sky = self.sky
        keep = self._scenery()
        if not keep and not self._decals:
            return sky
        out = sky.copy()
        if keep:
            others = [n.mesh for n in self._nodes if n is not None and n.mesh not in keep]
            for m in others:
                m.is_visible = False
            try:
                rgba = ctx.draw(self.scene, self._flags, self.samples)
            finally:
                for m in others:
                    m.is_visible = True
            _over(rgba, sky, out)
        for image, corners in self._decals:
            _paste(out, image, self.camera.project(corners))
        return out

    def render(self) -> np.ndarray:
        """The current scene as RGB uint8 (H, W, 3); the array is reused by the next call."""
        if self._closed:
            raise RenderError("render: this Renderer is closed")
        ctx = _context(self.width, self.height)
        ctx.make_current()
        self._upload()
        if self._direct:
            rgba = ctx.draw(self.scene, self._flags, self.samples)
            np.copyto(self._out, rgba[..., :3])
            return self._out
        if self._backdrop is None:
            self._backdrop = self._draw_backdrop(ctx)
        scenery = self._scenery()
        for m in scenery:
            m.is_visible = False
        try:
            rgba = ctx.draw(self.scene, self._flags, self.samples)
        finally:
            for m in scenery:
                m.is_visible = True
        self.coverage = rgba[..., 3]
        return _over(rgba, self._backdrop, self._out, binary=self.samples == 0)

    def close(self) -> None:
        """Free this scene's GPU buffers; the shared context stays for the next scene."""
        if self._closed:
            return
        self._closed = True
        ctx = _STATE["contexts"].get((self.width, self.height))
        if ctx is not None and _STATE["pid"] == os.getpid():
            ctx.make_current()
            for node in self._nodes:
                for prim in node.mesh.primitives:
                    prim.delete()
        self._nodes.clear()
        self._owned.clear()

    def __enter__(self) -> Renderer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
