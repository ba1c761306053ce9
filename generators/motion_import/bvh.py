"""BVH motions retargeted onto SMPL's 24 joints.

Skeletons are mapped by their structure (:mod:`tempogen.generators.bvh_map`: CMU, Mixamo,
3ds Max Biped, Unreal, DAZ, any spine length, any joint names; a YAML joint map overrides it)
and retargeted bone by bone (:mod:`.retarget`), so every mapped SMPL bone points the way its
BVH bone points whatever the BVH's rest pose.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from scipy.spatial.transform import Rotation

from tempogen.generators.bvh_map import SPINE, MotionImportError, Skeleton, SkeletonMapError
from tempogen.generators.humanoid import describe, draft_text, load_joint_map, map_skeleton
from tempogen.generators.motion_import.bvh_reader import Bvh, read_bvh
from tempogen.generators.motion_import.common import CAMERA_TO_Y_UP, Z_UP_TO_Y_UP, check_fps
from tempogen.generators.motion_import.contact import FOOT_JOINTS, foot_points, ground
from tempogen.generators.motion_import.retarget import retarget, toe_tips, unit
from tempogen.generators.poses import PoseSequence
from tempogen.generators.skeleton import INDEX, REST_JOINTS

# An up axis is read from the mean hips-to-chest direction only when one of its components
# reaches this much (else the skeleton is taken as y up).
UP_CLEAR = 0.5


def load_bvh(
    path: str | Path,
    fps: float | None = None,
    up: str = "auto",
    joint_map: str | Path | dict[str, str | None] | None = None,
) -> PoseSequence:
    """A BVH motion retargeted onto SMPL's 24 joints, resampled to ``fps`` if given.

    Which BVH joint drives which SMPL joint is read from the skeleton's structure
    (:mod:`tempogen.generators.bvh_map`); ``joint_map`` (a YAML file or a dict of SMPL joint
    -> BVH joint name, ``None`` to leave one unmapped) overrides any of it.

    ``up`` is the BVH world's up axis (``"+y"``, ``"+z"``, ...); ``"auto"`` reads it from the
    hips-to-chest direction. Units become metres by the ratio of the mannequin's hip height to
    the BVH's (hips above the lowest joint or end site at rest); the body is then grounded
    (:func:`.contact.ground`): its soles on the floor wherever a foot is planted (the file's
    own floor where its feet rest on it), its planted feet held where the file's are.
    """
    p = Path(path)
    check_fps(p, fps)
    bvh = _read_bvh(p)
    nodes = bvh.nodes
    skeleton, mapping = _mapped(p, bvh, joint_map)
    parent, is_joint, rest = skeleton.parent, skeleton.is_joint, skeleton.rest
    joint_col = {i: c for c, i in enumerate(i for i in range(len(nodes)) if is_joint[i])}

    _, local = bvh.to_rotmat()
    n_frames = local.shape[0]
    glob = np.empty((n_frames, len(nodes), 3, 3))
    for i in range(len(nodes)):
        if not is_joint[i]:
            glob[:, i] = glob[:, parent[i]]
        elif parent[i] < 0:
            glob[:, i] = local[:, joint_col[i]]
        else:
            glob[:, i] = glob[:, parent[i]] @ local[:, joint_col[i]]
    if skeleton.frame is not None:  # mapped in a frame of the motion: that frame is the rest
        glob = glob @ np.swapaxes(glob[skeleton.frame], -1, -2)
    pos = bvh.node_positions()
    if not (np.isfinite(pos).all() and np.isfinite(glob).all()):
        raise MotionImportError(f"{p}: MOTION: NaN or infinite channel values")

    hips = mapping[INDEX["pelvis"]]
    chest = mapping[max(j for j in SPINE if j in mapping)]
    to_y = _up_rotation(p, up, pos[:, hips], pos[:, chest])
    pos = pos @ to_y.T
    rest = rest @ to_y.T
    glob = to_y @ glob @ to_y.T

    # flat-on-flat ankles need a standing rest pose: a frame of the motion has no flat foot
    tips = toe_tips(mapping, parent, rest)
    poses = retarget(mapping, glob, pos, rest, tips, flat_ankles=skeleton.frame is None)

    rest_up = unit(rest[chest] - rest[hips])
    hip_height = float(np.max((rest[hips] - rest) @ rest_up))
    if not hip_height > 0:
        raise MotionImportError(f"{p}: {nodes[hips].name}: hips are not above the feet at rest")
    scale = REST_JOINTS[0, 1] / hip_height
    pos = pos * scale
    seq = PoseSequence(poses, pos[:, hips] - REST_JOINTS[0], float(bvh.fps), None, str(p))
    # the file's own floor (y = 0 of its world) where its feet rest on it, else where they are
    # map_skeleton always maps both ankles: each foot has a point of the file's to follow
    feet = {j: mapping[j] for j in (*FOOT_JOINTS[0], *FOOT_JOINTS[1]) if j in mapping}
    seq, _ = ground(seq, feet=foot_points(_as_smpl(pos, feet), feet), feet_joints=feet)
    return seq if fps is None or fps == seq.fps else seq.resample(fps)


def _as_smpl(pos: np.ndarray, nodes: dict[int, int]) -> np.ndarray:
    """(T, 24, 3): the positions of the BVH nodes mapped to SMPL joints (others zero)."""
    out = np.zeros((pos.shape[0], 24, 3))
    for j, b in nodes.items():
        out[:, j] = pos[:, b]
    return out


def skeleton_map(
    path: str | Path, joint_map: str | Path | dict[str, str | None] | None = None
) -> dict[str, str]:
    """Which BVH joint drives each SMPL joint in ``path`` (SMPL name -> BVH name), as
    :func:`load_bvh` maps it: what ``tempogen human map`` prints, and a joint map to edit.
    A rig that cannot be mapped raises :class:`SkeletonMapError` carrying a draft map."""
    p = Path(path)
    bvh = _read_bvh(p)
    skeleton, mapping = _mapped(p, bvh, joint_map)
    return describe(skeleton, mapping)


def draft_joint_map(path: str | Path, err: SkeletonMapError) -> str:
    """The draft joint map (YAML text) for a BVH file ``err`` says cannot be mapped."""
    nodes = _read_bvh(Path(path)).nodes
    return draft_text(path, err, [n.name for n in nodes if not n.is_end_site()])


def _mapped(
    path: Path, bvh: Any, joint_map: str | Path | dict[str, str | None] | None
) -> tuple[Skeleton, dict[int, int]]:
    """The skeleton in the pose its mapping is aligned to (the rest pose, or the frame of the
    motion where the rig is a standing body: ``frame`` says which), and the mapping."""
    nodes = bvh.nodes
    parent = [nodes.index(n.parent) if n.parent is not None else -1 for n in nodes]
    is_joint = [not n.is_end_site() for n in nodes]
    names = [n.name for n in nodes]  # whole: 3ds Max writes ``JOINT Bip01 L Thigh``
    frames = bvh.node_positions()
    if not np.isfinite(frames).all():
        raise MotionImportError(f"{path}: MOTION: NaN or infinite channel values")
    skeleton = Skeleton(names, parent, is_joint, bvh.rest_pose_positions(), frames)
    if isinstance(joint_map, (str, Path)):
        mapping, pose = map_skeleton(path, skeleton, load_joint_map(joint_map), joint_map)
    else:
        mapping, pose = map_skeleton(path, skeleton, joint_map, None)
    return pose, mapping


def _read_bvh(path: Path) -> Bvh:
    if not path.is_file():
        raise MotionImportError(f"{path}: no such file")
    return read_bvh(path)


def _up_rotation(path: Path, up: str, hips: np.ndarray, chest: np.ndarray) -> np.ndarray:
    """Rotation taking the BVH world's up axis to +y."""
    if up == "auto":
        d = chest - hips
        d = d[np.linalg.norm(d, axis=1) > 0]
        mean = (d / np.linalg.norm(d, axis=1, keepdims=True)).mean(axis=0) if len(d) else None
        if mean is None or np.abs(mean).max() < UP_CLEAR:
            up = "+y"
        else:
            k = int(np.argmax(np.abs(mean)))
            up = ("+" if mean[k] > 0 else "-") + "xyz"[k]
    table = {
        "+y": np.eye(3),
        "-y": CAMERA_TO_Y_UP,
        "+z": Z_UP_TO_Y_UP,
        "-z": Rotation.from_euler("x", 90, degrees=True).as_matrix(),
        "+x": Rotation.from_euler("z", 90, degrees=True).as_matrix(),
        "-x": Rotation.from_euler("z", -90, degrees=True).as_matrix(),
    }
    if up not in table:
        raise MotionImportError(
            f"{path}: up: expected 'auto' or one of {', '.join(table)}, got {up!r}"
        )
    return table[up]
