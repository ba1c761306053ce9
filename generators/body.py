"""Body models for simulated humans: real SMPL, SMPL-H or SMPL-X files through ``smplx``, or
the embedded mannequin (``assets/smpl_mannequin.pkl``, SMPL's file format, made by
``scripts/make_mannequin.py``) when no real model is given or the given one is missing.

Whatever the model, :meth:`BodyModel.pose` returns vertices and SMPL's 24 joints (names and
order from :mod:`tempogen.generators.skeleton`), so motions, labels and the renderer never
depend on which body was loaded. Reading and checking a model file, and building its
``smplx`` module, live in :mod:`tempogen.generators.body_file`.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tempogen.generators.body_file import (
    FORMAT_JOINTS,
    BodyModelError,
    build_smplx_module,
    read_model_file,
    validate_model,
)
from tempogen.generators.poses import PoseSequence
from tempogen.generators.skeleton import INDEX, NUM_JOINTS

ENV_VAR = "TEMPOGEN_BODY_MODEL"
MODEL_TYPES = ("smpl", "smplh", "smplx")
GENDERS = ("neutral", "male", "female")
MANNEQUIN_NAME = "mannequin"
CHUNK_FRAMES = 256
HOW_TO_POINT = (
    f"to use real SMPL files, set {ENV_VAR} (or pass model_path) to a folder laid out as smplx "
    "expects (smpl/SMPL_NEUTRAL.pkl, smplh/SMPLH_MALE.pkl, smplx/SMPLX_FEMALE.npz, ...) or to "
    "one model file; the files come from the SMPL / SMPL-H / SMPL-X websites under their "
    "licences"
)

# Where SMPL's 24 joints sit among a format's output joints: the first 22 are shared; SMPL's
# hand joints (22, 23) become the middle finger's first joint of each hand.
_JOINT_MAP = {
    "smpl": list(range(24)),
    "smplh": list(range(22)) + [25, 40],
    "smplx": list(range(22)) + [28, 43],
}

# Named groups of SMPL joints, for colouring parts of the body (e.g. hands and head distinct).
PART_GROUPS: dict[str, tuple[int, ...]] = {
    group: tuple(INDEX[n] for n in names.split())
    for group, names in {
        "torso": "pelvis spine1 spine2 spine3 left_collar right_collar",
        "head": "neck head",
        "arms": "left_shoulder right_shoulder left_elbow right_elbow",
        "hands": "left_wrist right_wrist left_hand right_hand",
        "legs": "left_hip right_hip left_knee right_knee",
        "feet": "left_ankle right_ankle left_foot right_foot",
    }.items()
}


@dataclass(frozen=True, eq=False)
class BodyFrames:
    """Posed body: ``vertices`` (T, V, 3) float32 and SMPL's ``joints`` (T, 24, 3) float64, in
    metres, world coordinates (y up)."""

    vertices: np.ndarray
    joints: np.ndarray

    @property
    def num_frames(self) -> int:
        """Number of posed frames."""
        return int(self.joints.shape[0])


def mannequin_path() -> Path:
    """Path of the embedded mannequin model file."""
    import tempogen.assets

    return Path(tempogen.assets.__file__).resolve().parent / "smpl_mannequin.pkl"


class BodyModel:
    """A loaded body model: mesh topology, body parts and a batched ``smplx`` forward pass."""

    def __init__(
        self, name: str, model_type: str, gender: str, path: Path, data: Mapping[str, Any]
    ) -> None:
        self.name = name
        self.model_type = model_type
        self.gender = gender
        self.path = path
        self.smplx_module = build_smplx_module(path, model_type, gender, data)
        self.num_betas: int = int(self.smplx_module.num_betas)
        self._pose_blend = bool(self.smplx_module.posedirs.abs().max() > 0)
        row_sums = self.smplx_module.lbs_weights.sum(dim=1)
        self._unit_weights = bool((row_sums - 1.0).abs().max() < 1e-5)
        faces = np.asarray(data["f"], dtype=np.int64).astype(np.int32)
        faces.setflags(write=False)
        self.faces: np.ndarray = faces
        self.num_vertices: int = int(np.asarray(data["v_template"]).shape[0])
        parts = _parts(np.asarray(data["weights"], dtype=np.float64), model_type)
        parts.setflags(write=False)
        self.parts: np.ndarray = parts
        self._joint_map = _JOINT_MAP[model_type]
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"BodyModel({self.name!r}, {self.model_type}, {self.gender}, "
            f"{self.num_vertices} vertices)"
        )

    def __reduce__(self) -> tuple:
        # worker processes reload the file (cached per process) instead of pickling torch
        return (_load_file, (self.path, self.name, self.model_type, self.gender))

    def rest_joints(self, betas: np.ndarray | Sequence[float] | None = None) -> np.ndarray:
        """SMPL's 24 joints (24, 3) of the unposed body with shape ``betas``, at the origin."""
        frames = self.pose(np.zeros((1, NUM_JOINTS, 3)), np.zeros((1, 3)), betas)
        return frames.joints[0]

    def rest_vertices(self, betas: np.ndarray | Sequence[float] | None = None) -> np.ndarray:
        """Vertices (V, 3) of the unposed body with shape ``betas``, at the origin."""
        frames = self.pose(np.zeros((1, NUM_JOINTS, 3)), np.zeros((1, 3)), betas)
        return frames.vertices[0]

    def pose(
        self,
        seq: PoseSequence | np.ndarray,
        trans: np.ndarray | None = None,
        betas: np.ndarray | Sequence[float] | None = None,
    ) -> BodyFrames:
        """Pose the body for every frame of ``seq`` (a :class:`PoseSequence`, or poses
        (T, 24, 3) axis-angle with ``trans`` (T, 3) and optional ``betas``)."""
        if isinstance(seq, PoseSequence):
            if trans is not None or betas is not None:
                raise TypeError("pose: pass trans and betas inside the PoseSequence")
            poses, trans, betas = seq.poses, seq.trans, seq.betas
        else:
            poses = np.asarray(seq, dtype=np.float64)
            if poses.ndim != 3 or poses.shape[1:] != (NUM_JOINTS, 3):
                raise ValueError(f"poses: expected shape (T, 24, 3), got {poses.shape}")
            trans = np.zeros((len(poses), 3)) if trans is None else np.asarray(trans, float)
            if trans.shape != (len(poses), 3):
                raise ValueError(f"trans: expected shape ({len(poses)}, 3), got {trans.shape}")
            if not (np.isfinite(poses).all() and np.isfinite(trans).all()):
                raise ValueError("poses/trans: contain NaN or infinite values")
        shape = np.zeros(self.num_betas, dtype=np.float32)
        if betas is not None:
            b = np.asarray(betas, dtype=np.float64).ravel()[: self.num_betas]
            shape[: len(b)] = b
        n = len(poses)
        vertices = np.empty((n, self.num_vertices, 3), dtype=np.float32)
        joints = np.empty((n, NUM_JOINTS, 3), dtype=np.float64)
        with self._lock, _torch_context() as torch:
            v_shaped, rest = self._shaped(torch.from_numpy(shape)[None])
            # without pose blend shapes the skinned vertices are linear in the joints'
            # transforms: verts = (weights x homogeneous rest vertices) @ transforms
            m = self.smplx_module
            mixed = None
            if not self._pose_blend:
                vh = torch.cat([v_shaped[0], torch.ones((self.num_vertices, 1))], 1)
                mixed = (m.lbs_weights[:, :, None] * vh[:, None, :]).flatten(1)
            for start in range(0, n, CHUNK_FRAMES):
                stop = min(n, start + CHUNK_FRAMES)
                p = torch.from_numpy(np.ascontiguousarray(poses[start:stop], dtype=np.float32))
                t = torch.from_numpy(np.ascontiguousarray(trans[start:stop], dtype=np.float32))
                rot, rel, posed = self._transforms(torch, p, rest)
                k = stop - start
                # each joint's 3x4 transform; where the skinning weights of every vertex
                # sum to 1, the root translation rides along in the same product
                rel = rel[:, :, :3, :].clone()
                if self._unit_weights:
                    rel[:, :, :, 3] += t[:, None, :]
                if mixed is not None:
                    a = rel.permute(1, 3, 0, 2).reshape(-1, k * 3)
                    verts = torch.matmul(mixed, a).view(-1, k, 3)
                else:
                    verts = self._skin_blended(torch, rot, rel, v_shaped)
                vertices[start:stop] = verts.permute(1, 0, 2).numpy()
                if not self._unit_weights:
                    vertices[start:stop] += trans[start:stop, None].astype(np.float32)
                joints[start:stop] = (posed[:, self._joint_map] + t[:, None]).numpy()
        return BodyFrames(vertices, joints)

    def _shaped(self, betas: Any) -> tuple[Any, Any]:
        """Shaped template (1, V, 3) and its regressed joints (1, J, 3), as smplx's lbs."""
        from smplx.lbs import blend_shapes, vertices2joints

        m = self.smplx_module
        v_shaped = m.v_template[None] + blend_shapes(betas, m.shapedirs)
        return v_shaped, vertices2joints(m.J_regressor, v_shaped)

    def _transforms(self, torch: Any, p: Any, rest: Any) -> tuple[Any, Any, Any]:
        """Joint rotations (k, J, 3, 3), smplx's relative transforms (k, J, 4, 4) and posed
        joints (k, J, 3) for a chunk of SMPL poses (k, 24, 3); hands flat, face neutral."""
        from smplx.lbs import batch_rigid_transform, batch_rodrigues

        m = self.smplx_module
        k = p.shape[0]
        n_joints = m.J_regressor.shape[0]
        full = torch.zeros((k, n_joints, 3), dtype=torch.float32)
        used = NUM_JOINTS if self.model_type == "smpl" else 22
        full[:, :used] = p[:, :used]
        if hasattr(m, "pose_mean"):
            full += m.pose_mean.view(1, n_joints, 3)
        rot = batch_rodrigues(full.view(-1, 3)).view(k, n_joints, 3, 3)
        posed, rel = batch_rigid_transform(rot, rest.expand(k, -1, -1), m.parents)
        return rot, rel, posed

    def _skin_blended(self, torch: Any, rot: Any, rel: Any, v_shaped: Any) -> Any:
        """smplx's skinning with pose blend shapes (real SMPL files), as one weights-by-
        transforms product instead of smplx's per-vertex batched products; (V, k, 3)."""
        m = self.smplx_module
        k, n_joints = rot.shape[:2]
        eye = torch.eye(3, dtype=torch.float32)
        feature = (rot[:, 1:] - eye).reshape(k, -1)
        v_posed = v_shaped + torch.matmul(feature, m.posedirs).view(k, -1, 3)
        v_posed = v_posed.permute(1, 0, 2).contiguous()
        a = rel.permute(1, 0, 2, 3).reshape(n_joints, k * 12)
        blend = torch.matmul(m.lbs_weights, a).view(-1, k, 3, 4)
        verts = blend[..., 3].clone()
        for c in range(3):
            verts.addcmul_(blend[..., c], v_posed[..., c : c + 1])
        return verts

    def part_mask(self, group: str) -> np.ndarray:
        """Boolean (V,) mask of the vertices in a :data:`PART_GROUPS` group (e.g. "hands")."""
        if group not in PART_GROUPS:
            raise ValueError(f"part group: expected one of {sorted(PART_GROUPS)}, got {group!r}")
        return np.isin(self.parts, PART_GROUPS[group])

    def vertex_colors(self, body: Sequence[float], **groups: Sequence[float]) -> np.ndarray:
        """Per-vertex RGBA (V, 4) uint8: ``body`` everywhere, overridden per part group, e.g.
        ``vertex_colors((200, 170, 150), hands=(230, 40, 40), head=(40, 60, 220))``."""
        colors = np.empty((self.num_vertices, 4), dtype=np.uint8)
        colors[:] = _rgba(body, "body")
        for group, rgb in groups.items():
            colors[self.part_mask(group)] = _rgba(rgb, group)
        return colors


def _rgba(rgb: Sequence[float], what: str) -> np.ndarray:
    c = np.asarray(rgb, dtype=np.float64).ravel()
    if c.shape not in ((3,), (4,)) or not ((c >= 0) & (c <= 255)).all():
        raise ValueError(f"{what} colour: expected 3 or 4 values in 0..255, got {rgb!r}")
    return np.concatenate([c, [255.0]])[:4].round().astype(np.uint8)


def _parts(weights: np.ndarray, model_type: str) -> np.ndarray:
    """Index of the SMPL joint each vertex mostly follows (finger joints count as the hand,
    jaw and eyes as the head)."""
    cols = np.arange(weights.shape[1])
    if model_type == "smplh":
        cols = np.where(cols < 22, cols, np.where(cols < 37, 22, 23))
    elif model_type == "smplx":
        cols = np.where(cols < 22, cols, np.where(cols < 25, 15, np.where(cols < 40, 22, 23)))
    merged = np.zeros((weights.shape[0], NUM_JOINTS))
    for c in range(weights.shape[1]):
        merged[:, cols[c]] += weights[:, c]
    return np.argmax(merged, axis=1).astype(np.int64)


TORCH_THREADS = 1


@contextlib.contextmanager
def _torch_context() -> Iterator[Any]:
    """torch with gradients off and one intra-op thread while posing (a body's products are
    small, two threads mostly contend, and build workers run side by side); the caller's
    thread setting is restored afterwards."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(TORCH_THREADS)
    try:
        with torch.no_grad():
            yield torch
    finally:
        torch.set_num_threads(before)


_CACHE: dict[tuple[str, str, str], BodyModel] = {}
_CACHE_LOCK = threading.Lock()


def _candidates(folder: Path, model_type: str, gender: str) -> list[Path]:
    """Where smplx (and a flat folder) keep a model of this type and gender."""
    stem = f"{model_type.upper()}_{gender.upper()}"
    exts = {"smpl": ("pkl",), "smplh": ("pkl", "npz"), "smplx": ("npz", "pkl")}[model_type]
    return [d / f"{stem}.{e}" for d in (folder / model_type, folder) for e in exts]


def _load_file(path: Path, name: str, want_type: str | None, gender: str) -> BodyModel:
    key = (str(path), want_type or "", gender)
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
        data = read_model_file(path)
        model_type = validate_model(path, data)
        if want_type is not None and model_type != want_type:
            raise BodyModelError(
                f"{path}: field 'kintree_table': {FORMAT_JOINTS[model_type]} joints make a "
                f"{model_type} model, but a {want_type} model was asked for"
            )
        model = BodyModel(name, model_type, gender, path, data)
        _CACHE[key] = model
        return model


def _missing(missing: str, why: str) -> BodyModelError:
    """A body model that was asked for and is not there: an error, never a silent mannequin."""
    return BodyModelError(f"{missing}: {why}; {HOW_TO_POINT} (leave it unset for the mannequin)")


def load_body(
    model_path: str | os.PathLike[str] | None = None,
    model_type: str = "smpl",
    gender: str = "neutral",
) -> BodyModel:
    """Load a body model (cached per process).

    ``model_path``: a folder laid out as smplx expects (``<dir>/smpl/SMPL_NEUTRAL.pkl``,
    ``<dir>/smplx/SMPLX_MALE.npz``, ...; ``model_type`` and ``gender`` pick the file) or one
    model file (its joint count decides its type); ``None`` reads ``$TEMPOGEN_BODY_MODEL`` and,
    if that is unset, loads the embedded mannequin. A model asked for and missing, or corrupt,
    raises :class:`BodyModelError` naming it: the mannequin stands in only when none is given.
    """
    model_type = str(model_type).lower()
    gender = str(gender).lower()
    if model_type not in MODEL_TYPES:
        raise BodyModelError(f"body model type: expected one of {MODEL_TYPES}, got {model_type!r}")
    if gender not in GENDERS:
        raise BodyModelError(f"body model gender: expected one of {GENDERS}, got {gender!r}")
    source = "model_path"
    if model_path is None or str(model_path) == "":
        model_path = os.environ.get(ENV_VAR) or None
        source = ENV_VAR
    if model_path is None:
        return _load_file(mannequin_path(), MANNEQUIN_NAME, "smpl", "neutral")
    path = Path(model_path).expanduser()
    if path.is_dir():
        tried = _candidates(path, model_type, gender)
        found = next((p for p in tried if p.is_file()), None)
        if found is None:
            raise _missing(
                str(tried[0]),
                f"no {model_type} model for gender {gender!r} in {path} ({source}; looked for "
                + ", ".join(str(p.relative_to(path)) for p in tried)
                + ")",
            )
        return _load_file(found.resolve(), str(found), model_type, gender)
    if path.is_file():
        return _load_file(path.resolve(), str(path), None, gender)
    raise _missing(str(path), f"no such body model file or folder ({source})")
