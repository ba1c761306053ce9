"""The offscreen OpenGL context: one GL setup per process, contexts reused by every scene.

``ensure_gl`` is the only place that chooses the OpenGL platform (EGL by default: the NVIDIA
driver on a GPU machine, Mesa llvmpipe on the CPU; ``TEMPOGEN_GL=egl|osmesa`` forces one) and
patches what pyrender 0.1.45 needs under NumPy 2. A process's offscreen context is created
lazily, once per canvas size, and reused by every clip that process renders. A forked child
makes its own context; llvmpipe runs without rasteriser threads (``LP_NUM_THREADS=0`` unless
set), which is what lets a fork pool render after its parent did (elsewhere that raises a
clear error instead of hanging). Multisampling is off unless asked for (it costs llvmpipe
2-4x); ``TEMPOGEN_GL_SAMPLES`` or ``Renderer(samples=)`` turns it on.
"""

from __future__ import annotations

import ctypes
import os
import sys
from typing import Any

import numpy as np

from tempogen.errors import ExternalServiceError

GL_ENV = "TEMPOGEN_GL"
SAMPLES_ENV = "TEMPOGEN_GL_SAMPLES"

# Multisampling is free on a GPU but costs llvmpipe 2-4x per frame, too much for 30 frames/s on
# two cores; TEMPOGEN_GL_SAMPLES=4 gives smooth edges wherever that time is affordable.
DEFAULT_SAMPLES = 0
GL_BACKENDS = ("egl", "osmesa")

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


class GLContext:
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


def context(width: int, height: int) -> GLContext:
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
    contexts: dict[tuple[int, int], GLContext] = _STATE["contexts"]
    key = (int(width), int(height))
    if key not in contexts:
        contexts[key] = GLContext(*key)
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
    ctx = context(16, 16)
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


def default_samples() -> int:
    """Multisample count when a Renderer is not given one: env ``TEMPOGEN_GL_SAMPLES`` or 0."""
    raw = os.environ.get(SAMPLES_ENV, "").strip()
    if not raw:
        return DEFAULT_SAMPLES
    try:
        return int(raw)
    except ValueError:
        raise RenderError(f"{SAMPLES_ENV}={raw!r}: expected 0, 2, 4 or 8") from None


def pyrender_module() -> Any:
    """The pyrender module :func:`ensure_gl` imported (None before it ran)."""
    return _STATE["pyrender"]


def open_context(width: int, height: int) -> GLContext | None:
    """This process's context for the canvas size if it has one (None after a fork)."""
    ctx = _STATE["contexts"].get((width, height))
    if ctx is not None and _STATE["pid"] == os.getpid():
        return ctx
    return None
