"""The 3D world of a human clip: posed bodies and the props they handle as per-frame meshes,
drawn through the labels' camera, and the 3D ground truth recorded beside them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tempogen.generators.camera import Camera
from tempogen.generators.decor3d import Decor
from tempogen.generators.humans.camera import camera_json
from tempogen.generators.humans.look import RGB
from tempogen.generators.poses import PoseSequence

if TYPE_CHECKING:
    from tempogen.generators.humans.rig import Rig

BALL_SUBDIVISIONS = 2  # icosphere subdivisions of a ball prop's mesh


@dataclass(frozen=True)
class Prop:
    """A rigid thing a person handles (a ball): a mesh, its paint and where it is each frame.

    Its paint is bright, like a glove, so the pixel audit finds it by hue; ``colors``
    (T, 3), if given, is its paint per frame (a ball that lights up), ``color`` the bright one."""

    faces: np.ndarray
    vertices: np.ndarray  # (V, 3) about the prop's centre
    color: RGB
    centres: np.ndarray  # (T, 3) world centre per frame
    colors: np.ndarray | None = None  # (T, 3) sRGB per frame, else ``color`` throughout

    @classmethod
    def ball(
        cls, radius: float, color: RGB, centres: np.ndarray, colors: np.ndarray | None = None
    ) -> Prop:
        """A ball of ``radius`` metres centred on ``centres`` (T, 3), painted ``colors``
        (T, 3) per frame if given."""
        import trimesh

        m = trimesh.creation.icosphere(subdivisions=BALL_SUBDIVISIONS, radius=radius)
        paint = None if colors is None else np.asarray(colors, np.uint8)
        return cls(np.asarray(m.faces), np.asarray(m.vertices), color, np.asarray(centres), paint)

    def mesh(self) -> Mesh:
        """The prop as a mesh moving (and changing paint) through the clip."""
        verts = self.centres[:, None, :] + self.vertices[None]
        paint = np.tile(np.asarray(self.color, np.uint8), (len(self.vertices), 1))
        return Mesh(self.faces, verts, paint, self.colors)


@dataclass(frozen=True)
class Mesh:
    """A mesh whose vertices (T, V, 3) change per frame: another person, a prop."""

    faces: np.ndarray
    vertices: np.ndarray
    colors: np.ndarray  # (V, 3) sRGB
    frame_colors: np.ndarray | None = None  # (T, 3) sRGB of the whole mesh per frame


def finish_people(rigs: Sequence[Rig]) -> None:
    """Hand every posed person (and their props) to one renderer, seen by the first person's
    camera, and record the 3D ground truth in meta. With several people, meta also lists each
    one's look (``people``) and which person carries each track (``owners``), so the pixel
    audit reads each track from its own person's gloves."""
    main, scene = rigs[0], rigs[0].scene
    others = [Mesh(r.body.faces, r.posed().vertices, r.vertex_colors()) for r in rigs[1:]]
    others += [p.mesh() for r in rigs for p in r.props]
    camera = main.chosen_camera()
    scene.world = BodyWorld(
        main.body.faces, main.posed().vertices, main.vertex_colors(), camera, floor=0.0,
        sequence=main.sequence(), joints=main.joints, others=others,
    )  # fmt: skip
    joints3d = {k: v for r in rigs for k, v in r.joints3d.items()}
    scene.meta.update(
        {
            "joints3d": joints3d,
            "camera": camera_json(camera),
            "look": main.look.to_json(),
            "renderer": "human",
        }
    )
    if len(rigs) > 1:
        scene.meta["people"] = [r.look.to_json() for r in rigs]
        scene.meta["owners"] = {name: i for i, r in enumerate(rigs) for name in r.owned}
    if any(r.props for r in rigs):
        scene.meta["props"] = [list(p.color) for r in rigs for p in r.props]


class BodyWorld:
    """The :class:`~tempogen.generators.motion.World` of a posed body: one dynamic mesh
    (plus one per other person or prop) updated in place each frame and drawn through the
    labels' camera."""

    def __init__(
        self,
        faces: np.ndarray,
        vertices: np.ndarray,
        vertex_colors: np.ndarray,
        camera: Camera,
        floor: float | None = 0.0,
        sequence: PoseSequence | None = None,
        joints: np.ndarray | None = None,
        others: Sequence[Mesh] = (),
        cameras: Sequence[Camera] | None = None,
    ) -> None:
        self.faces = np.asarray(faces)
        self.vertices = vertices
        self.vertex_colors = np.asarray(vertex_colors)
        self.camera = camera
        self.floor = floor
        self.sequence = sequence  # the poses that made ``vertices`` (for export and checks)
        self.joints = joints  # the posed joints (T, 24, 3) the labels were projected from
        self.others = list(others)  # more people and props, drawn in the same frames
        self.decor: Decor | None = None  # a sign and distractors (style variations)
        self.cameras = cameras  # a camera per frame (one that follows), else ``camera`` throughout

    def solid_points(self) -> list[np.ndarray]:
        """World points (T, V, 3) of every mesh per frame: where scenery must not show."""
        return [self.vertices, *(m.vertices for m in self.others)]

    def frames(
        self,
        background: str,
        rng: np.random.Generator,
        indices: Sequence[int] | None = None,
    ) -> Iterator[np.ndarray]:
        """RGB frames (H, W, 3) uint8, one per pose (or only at ``indices``, in that order);
        the buffer is reused between frames."""
        return (f for f, _ in self._render(background, rng, indices, coverage=False))

    def frames_and_masks(
        self, background: str, rng: np.random.Generator
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """RGB frames and the coverage (uint8 alpha) of every person and prop, for a
        noise-encoded clip: the one render pass gives both (arrays reused between frames)."""
        for frame, mask in self._render(background, rng, None, coverage=True):
            assert mask is not None  # coverage=True: each render leaves its meshes' alpha
            yield frame, mask

    def _render(
        self,
        background: str,
        rng: np.random.Generator,
        indices: Sequence[int] | None,
        coverage: bool,
    ) -> Iterator[tuple[np.ndarray, np.ndarray | None]]:
        from tempogen.generators.render3d import Renderer

        order = range(len(self.vertices)) if indices is None else [int(i) for i in indices]
        with Renderer(
            self.camera, background=background, rng=rng, floor=self.floor, coverage=coverage
        ) as r:
            handle = r.add_dynamic_mesh(self.faces, self.vertex_colors)
            extra = [r.add_dynamic_mesh(m.faces, m.colors) for m in self.others]
            if self.decor is not None:
                self.decor.install(r)
            for i in order:
                if self.cameras is not None:
                    r.set_camera(self.cameras[i])
                r.set_vertices(handle, self.vertices[i])
                for h, m in zip(extra, self.others):
                    r.set_vertices(h, m.vertices[i])
                    if m.frame_colors is not None:
                        r.set_colors(h, m.frame_colors[i])
                frame = r.render()
                yield frame, r.coverage
