"""Offscreen 3D rendering with pyrender: one scene drawn through a camera, in-place meshes.

A :class:`Renderer` draws one scene through a :class:`~tempogen.generators.camera.Camera`, so
a point that ``camera.project`` maps to a pixel is drawn on that pixel. The GL platform and
the per-process contexts it draws in are ``generators/offscreen.py``'s; lights and paints are
``generators/shading3d.py``'s; the floor and the compositing over the backdrop are
``generators/backdrop3d.py``'s. A deforming mesh (a body) keeps its GL vertex buffer and has
its vertices and normals rewritten in place each frame instead of building a new mesh; a
static floor is drawn once into the backdrop.

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

from typing import Any

import numpy as np
import trimesh

from tempogen.choices import BACKGROUNDS
from tempogen.generators.backdrop3d import floor_mesh, over, paste
from tempogen.generators.camera import Camera
from tempogen.generators.offscreen import (
    DEFAULT_SAMPLES,
    GL_BACKENDS,
    GL_ENV,
    SAMPLES_ENV,
    GLContext,
    RenderError,
    context,
    default_samples,
    ensure_gl,
    gl_info,
    open_context,
    pyrender_module,
)
from tempogen.generators.render2d import make_background
from tempogen.generators.shading3d import (
    AMBIENT,
    DEFAULT_SHADING,
    RGB,
    SHADING_ENV,
    SHADINGS,
    OwnedMesh,
    default_shading,
    key_fill_lights,
    linear_rgba,
    lit_colors,
    srgb_to_linear,
    vertex_normals,
)

__all__ = [
    "AMBIENT",
    "DEFAULT_SAMPLES",
    "DEFAULT_SHADING",
    "GL_BACKENDS",
    "GL_ENV",
    "RGB",
    "SAMPLES_ENV",
    "SHADINGS",
    "SHADING_ENV",
    "ZFAR",
    "ZNEAR",
    "RenderError",
    "Renderer",
    "default_samples",
    "default_shading",
    "ensure_gl",
    "gl_info",
    "lit_colors",
    "srgb_to_linear",
    "vertex_normals",
]

ZNEAR, ZFAR = 0.05, 200.0  # the camera's near and far clipping planes, metres


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
        pr = pyrender_module()
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
        self._owned: dict[int, OwnedMesh] = {}
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
        """The key and fill lights (:func:`key_fill_lights`), in the scene and for vertex
        shading."""
        for pose, i in key_fill_lights(rng, self.camera.pose):
            self.scene.add(self._pr.DirectionalLight(color=np.ones(3), intensity=i), pose=pose)
            self._lights.append((-pose[:3, 2], i))

    def _add_floor(self, y: float, background: str, rng: np.random.Generator) -> int:
        """A square of tiles around the point the camera looks at, ``y`` up."""
        mesh, face_colors = floor_mesh(self.camera.pose, y, background, rng)
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
            paint = color if color is not None else vertex_colors
            assert paint is not None  # exactly one colour argument, and it is not face_colors
            col = linear_rgba(paint, len(verts), "add_mesh")
        else:  # one vertex per face corner, so each face keeps its own normal and colour
            pos = verts[faces].reshape(-1, 3)
            idx = np.arange(len(pos)).reshape(-1, 3)
            fn = np.asarray(mesh.face_normals, dtype=np.float64)
            normals = np.repeat(fn, 3, axis=0)
            if face_colors is not None:
                col = np.repeat(linear_rgba(face_colors, len(faces), "add_mesh face_colors"), 3, 0)
            else:
                c = color if color is not None else np.asarray(vertex_colors)[faces].reshape(-1, 3)
                col = linear_rgba(c, len(pos), "add_mesh")
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
        data[:, 6:10] = linear_rgba(vertex_colors, nv, "add_dynamic_mesh vertex_colors")
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
        self._owned[handle] = OwnedMesh(prim, faces, data, dynamic)
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
        if dyn is None or dyn.normals is None:  # only a dynamic mesh keeps a normals solver
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
        rgba = linear_rgba(colors, len(owned.data), "set_colors colors")
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
    def _upload(self) -> None:
        """Bring changed meshes up to date on the GPU: vertex buffers rewritten in place."""
        from OpenGL.GL import GL_ARRAY_BUFFER, glBindBuffer, glBufferSubData

        for owned in self._owned.values():
            if not owned.dirty:
                continue
            if self.shading == "vertex":
                owned.relight(self._lights)
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

    def _draw_backdrop(self, ctx: GLContext) -> np.ndarray:
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
            over(rgba, sky, out)
        for image, corners in self._decals:
            paste(out, image, self.camera.project(corners))
        return out

    def render(self) -> np.ndarray:
        """The current scene as RGB uint8 (H, W, 3); the array is reused by the next call."""
        if self._closed:
            raise RenderError("render: this Renderer is closed")
        ctx = context(self.width, self.height)
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
        return over(rgba, self._backdrop, self._out, binary=self.samples == 0)

    def close(self) -> None:
        """Free this scene's GPU buffers; the shared context stays for the next scene."""
        if self._closed:
            return
        self._closed = True
        ctx = open_context(self.width, self.height)
        if ctx is not None:
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
