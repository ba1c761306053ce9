"""Recorded human motion as :class:`PoseSequence`: AMASS ``.npz``, VIBE ``.pkl`` and BVH files.

Every loader returns poses on SMPL's 24-joint tree in tempogen's world (metres, ``y`` up, a body
with identity global orientation faces ``+z``, its left at ``+x``). ``trans`` is the offset of
the pelvis from its rest position ``REST_JOINTS[0]``: ``trans = 0`` stands the mannequin on the
floor ``y = 0`` at the origin, as SMPL's own ``pelvis = J_pelvis + trans`` convention does.

- AMASS is ``z`` up: the global orientation and the pelvis path are turned -90 degrees about
  ``x``; the body joints 1-21 are copied, SMPL's hand joints 22/23 are left at rest.
- VIBE's global orientation is in camera coordinates (``y`` down, looking along ``+z``): a turn
  of 180 degrees about ``x`` makes a person facing the camera face ``+z`` upright. Its
  weak-perspective camera gives the pelvis's in-plane displacement in metres, not its depth.
- BVH skeletons are mapped by their structure (:mod:`tempogen.generators.bvh_map`: CMU,
  Mixamo, 3ds Max Biped, Unreal, DAZ, any spine length, any joint names; a YAML joint map
  overrides it) and retargeted bone by bone, so every mapped SMPL bone points the way its BVH
  bone points whatever the BVH's rest pose.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from scipy.spatial.transform import Rotation, Slerp

from tempogen import safe_pickle
from tempogen.config import Estimate, estimate
from tempogen.generators.bvh_map import (
    SPINE,
    MotionImportError,
    Skeleton,
    describe,
    load_joint_map,
    map_skeleton,
)
from tempogen.generators.poses import PoseSequence, matrix_to_rotvec, rotvec_to_matrix
from tempogen.generators.skeleton import INDEX, NUM_JOINTS, PARENTS, REST_JOINTS

# Rotations taking other worlds to ours (y up).
_Z_UP_TO_Y_UP = Rotation.from_euler("x", -90, degrees=True).as_matrix()
_CAMERA_TO_Y_UP = Rotation.from_euler("x", 180, degrees=True).as_matrix()
# SMPL's template pelvis joint in model coordinates (neutral body; it moves by a centimetre or
# two with gender and betas): AMASS places the pelvis at ``trans + this`` in its z-up world.
_SMPL_TEMPLATE_PELVIS = np.array([0.0, -0.22, 0.03])

_AMASS_KEYS = "AMASS files have poses, trans, betas, mocap_framerate"
_AMASS_POSE_WIDTHS = {72: "SMPL", 156: "SMPL-H", 165: "SMPL-X"}
_VIBE_KEYS = "VIBE tracks have pose, betas, frame_ids"
VIBE_FPS = 30.0


# --------------------------------------------------------------------------------------------
# dispatch


def load_motion(
    path: str | Path, fps: float | None = None, joint_map: str | Path | None = None
) -> PoseSequence:
    """Load a motion file by its suffix (.npz AMASS, .pkl VIBE, .bvh), resampled to ``fps``.

    VIBE stores no frame rate: its frames are taken as ``VIBE_FPS`` (30) before resampling.
    ``joint_map`` (YAML, SMPL joint -> BVH joint) applies to BVH files only.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if joint_map is not None and suffix != ".bvh":
        raise MotionImportError(f"{p}: a joint map applies to BVH files only, not {suffix!r}")
    if suffix == ".npz":
        return load_amass(p, fps)
    if suffix == ".bvh":
        return load_bvh(p, fps, joint_map=joint_map)
    if suffix in (".pkl", ".pickle", ".joblib"):
        seq = load_vibe(p)
        return seq if fps is None or fps == seq.fps else seq.resample(fps)
    raise MotionImportError(
        f"{p}: unsupported motion file type {suffix or '(no suffix)'!r} "
        "(expected .npz (AMASS), .pkl (VIBE output) or .bvh)"
    )


# Bytes a rendered frame holds until the clip is written: its posed mesh, joints and ground
# truth for the JSON (measured: about 75 KB with the embedded body; SMPL-X's mesh is larger).
HUMAN_BYTES_PER_FRAME = 200_000


def render_estimate(seq: PoseSequence, fps: float, width: int, height: int) -> Estimate:
    """What rendering ``seq`` at ``fps`` and ``width`` x ``height`` would make and hold
    (:func:`tempogen.config.estimate`), from its length alone: nothing is resampled yet."""
    frames = int(np.floor(seq.duration * fps + 1e-9)) + 1
    return estimate(frames, width, height, kind="human", held_bytes=frames * HUMAN_BYTES_PER_FRAME)


def _check_fps(path: Path, fps: float | None) -> None:
    if fps is not None and not (np.isfinite(fps) and fps > 0):
        raise MotionImportError(f"{path}: fps: must be a positive number, got {fps}")


def _finite(path: Path, field: str, arr: np.ndarray) -> None:
    if not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr.reshape(arr.shape[0], -1)))[0][0]
        raise MotionImportError(f"{path}: {field}: NaN or infinite value (first at frame {bad})")


# --------------------------------------------------------------------------------------------
# AMASS


def load_amass(path: str | Path, fps: float | None = None) -> PoseSequence:
    """An AMASS ``.npz`` (SMPL-H or SMPL-X layout) turned y-up, resampled to ``fps`` if given.

    Takes the global orientation and the 21 body joints; SMPL's hand joints stay at rest.
    """
    p = Path(path)
    _check_fps(p, fps)
    if not p.is_file():
        raise MotionImportError(f"{p}: no such file")
    try:
        data = np.load(p, allow_pickle=False)
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise MotionImportError(f"{p}: not a readable .npz file: {exc}") from exc
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise MotionImportError(f"{p}: not an .npz archive of named arrays ({_AMASS_KEYS})")
    with data:
        keys = set(data.files)
        for key in ("poses", "trans"):
            if key not in keys:
                raise MotionImportError(f"{p}: missing key {key!r} ({_AMASS_KEYS})")
        rate_key = next((k for k in ("mocap_framerate", "mocap_frame_rate") if k in keys), None)
        if rate_key is None:
            raise MotionImportError(
                f"{p}: missing key 'mocap_framerate' (or 'mocap_frame_rate') ({_AMASS_KEYS})"
            )

        def get(key: str) -> np.ndarray:
            try:
                return np.asarray(data[key])
            except (ValueError, OSError) as exc:
                raise MotionImportError(f"{p}: key {key!r} cannot be read: {exc}") from exc

        poses = _as_float(p, "poses", get("poses"))
        trans = _as_float(p, "trans", get("trans"))
        rate = _as_float(p, rate_key, get(rate_key))
        betas = _as_float(p, "betas", get("betas")).ravel() if "betas" in keys else None

    if poses.ndim != 2 or poses.shape[1] not in _AMASS_POSE_WIDTHS or poses.shape[0] < 1:
        widths = ", ".join(f"{w} ({n})" for w, n in _AMASS_POSE_WIDTHS.items())
        raise MotionImportError(
            f"{p}: poses: expected shape (T, 156) or (T, 165) (widths {widths}), got {poses.shape}"
        )
    n = poses.shape[0]
    if trans.shape != (n, 3):
        raise MotionImportError(f"{p}: trans: expected shape ({n}, 3), got {trans.shape}")
    if rate.size != 1 or not (np.isfinite(rate.item()) and rate.item() > 0):
        raise MotionImportError(f"{p}: {rate_key}: expected one positive number, got {rate}")
    _finite(p, "poses", poses)
    _finite(p, "trans", trans)
    if betas is not None and not np.isfinite(betas).all():
        raise MotionImportError(f"{p}: betas: NaN or infinite value")

    out = np.zeros((n, NUM_JOINTS, 3))
    out[:, :22] = poses[:, :66].reshape(n, 22, 3)
    root = rotvec_to_matrix(out[:, 0])
    out[:, 0] = matrix_to_rotvec(_Z_UP_TO_Y_UP @ root)
    pelvis = (trans + _SMPL_TEMPLATE_PELVIS) @ _Z_UP_TO_Y_UP.T
    seq = PoseSequence(out, pelvis - REST_JOINTS[0], float(rate.item()), betas, str(p))
    return seq if fps is None or fps == seq.fps else seq.resample(fps)


def _as_float(path: Path, field: str, arr: Any) -> np.ndarray:
    try:
        return np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise MotionImportError(f"{path}: {field}: not numeric: {exc}") from exc


# --------------------------------------------------------------------------------------------
# VIBE


def load_vibe(path: str | Path, track: int | None = None, fps: float = VIBE_FPS) -> PoseSequence:
    """One person's track of a VIBE output pickle (the longest unless ``track``), y-up.

    ``fps`` is the rate of the video VIBE ran on. Frames missing from ``frame_ids`` are filled
    by slerp. The pelvis starts at its standing height; its later in-plane displacement comes
    from ``orig_cam`` (metres under VIBE's weak perspective); depth stays fixed, since a
    weak-perspective camera does not give it without the unknown focal length.
    """
    p = Path(path)
    _check_fps(p, fps)
    data = _read_pickle(p)
    if not isinstance(data, dict) or not data:
        raise MotionImportError(
            f"{p}: expected a non-empty dict of track id -> track ({_VIBE_KEYS}), "
            f"got {type(data).__name__}"
        )
    tracks = {}
    for tid, tr in data.items():
        if not isinstance(tr, dict):
            raise MotionImportError(f"{p}: track {tid}: expected a dict ({_VIBE_KEYS})")
        tracks[tid] = tr
    if track is not None:
        matches = [t for t in tracks if _same_id(t, track)]
        if not matches:
            raise MotionImportError(
                f"{p}: track {track}: no such track (tracks: {', '.join(map(str, tracks))})"
            )
        tid = matches[0]
    else:
        for t, tr in tracks.items():
            if "frame_ids" not in tr:
                raise MotionImportError(f"{p}: track {t}: missing key 'frame_ids' ({_VIBE_KEYS})")
        tid = min(tracks, key=lambda t: (-np.size(tracks[t]["frame_ids"]), str(t)))
    return _vibe_track(p, tid, tracks[tid], fps)


def _same_id(key: Any, track: int) -> bool:
    try:
        return int(key) == int(track)
    except (TypeError, ValueError):
        return str(key) == str(track)


def _read_pickle(path: Path) -> Any:
    """A VIBE output (pickle or joblib) through the allow-list of :mod:`tempogen.safe_pickle`:
    a hostile file is refused, naming the class, and runs nothing."""
    if not path.is_file():
        raise MotionImportError(f"{path}: no such file")
    try:
        return safe_pickle.load_path(path)
    except safe_pickle.ForbiddenPickleError as exc:
        raise MotionImportError(f"{path}: {exc}") from exc
    except Exception as exc:  # unpickling fails in many ways; all mean an unreadable file
        raise MotionImportError(f"{path}: not a readable VIBE pickle: {exc}") from exc


def _vibe_track(p: Path, tid: Any, tr: dict, fps: float) -> PoseSequence:
    where = f"{p}: track {tid}"
    for key in ("pose", "frame_ids"):
        if key not in tr:
            raise MotionImportError(f"{where}: missing key {key!r} ({_VIBE_KEYS})")
    pose = _as_float(p, f"track {tid}: pose", tr["pose"])
    if pose.ndim != 2 or pose.shape[1] != 72 or pose.shape[0] < 1:
        raise MotionImportError(f"{where}: pose: expected shape (T, 72), got {pose.shape}")
    n = pose.shape[0]
    ids = np.asarray(tr["frame_ids"])
    if ids.shape != (n,) or not np.issubdtype(ids.dtype, np.integer):
        raise MotionImportError(
            f"{where}: frame_ids: expected {n} integers (one per pose), "
            f"got {ids.dtype} of shape {ids.shape}"
        )
    if n > 1 and not (np.diff(ids) > 0).all():
        raise MotionImportError(f"{where}: frame_ids: must be strictly increasing")
    _finite(p, f"track {tid}: pose", pose)
    betas = None
    if tr.get("betas") is not None:
        b = _as_float(p, f"track {tid}: betas", tr["betas"])
        if b.ndim not in (1, 2) or (b.ndim == 2 and b.shape[0] != n) or b.size == 0:
            raise MotionImportError(
                f"{where}: betas: expected shape ({n}, 10) or (10,), got {b.shape}"
            )
        if not np.isfinite(b).all():
            raise MotionImportError(f"{where}: betas: NaN or infinite value")
        betas = b.mean(axis=0) if b.ndim == 2 else b
    cam = None
    if tr.get("orig_cam") is not None:
        cam = _as_float(p, f"track {tid}: orig_cam", tr["orig_cam"])
        if cam.shape != (n, 4):
            raise MotionImportError(f"{where}: orig_cam: expected shape ({n}, 4), got {cam.shape}")
        _finite(p, f"track {tid}: orig_cam", cam)

    t_src = (ids - ids[0]).astype(np.float64)
    t_all = np.arange(int(ids[-1] - ids[0]) + 1, dtype=np.float64)
    rots = pose.reshape(n, NUM_JOINTS, 3)
    if n == 1:
        poses = rots.copy()
    else:
        poses = np.empty((t_all.size, NUM_JOINTS, 3))
        for j in range(NUM_JOINTS):
            poses[:, j] = Slerp(t_src, Rotation.from_rotvec(rots[:, j]))(t_all).as_rotvec()
    poses[:, 0] = matrix_to_rotvec(_CAMERA_TO_Y_UP @ rotvec_to_matrix(poses[:, 0]))
    trans = np.zeros((t_all.size, 3))
    if cam is not None:
        # orig_cam = (sx, sy, tx, ty): the body's origin sits at (tx, ty) metres in the image
        # plane of a y-down camera.
        plane = np.stack([np.interp(t_all, t_src, cam[:, k]) for k in (2, 3)], axis=1)
        shift = np.column_stack([plane - plane[0], np.zeros(t_all.size)])
        trans = shift @ _CAMERA_TO_Y_UP.T
    return PoseSequence(poses, trans, float(fps), betas, f"{p}#track{tid}")


# --------------------------------------------------------------------------------------------
# BVH


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
    the BVH's (hips above the lowest joint or end site at rest), and the lowest point the
    skeleton reaches in the clip is taken as the floor, y = 0.
    """
    p = Path(path)
    _check_fps(p, fps)
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
    pos = bvh.node_positions()
    if not (np.isfinite(pos).all() and np.isfinite(glob).all()):
        raise MotionImportError(f"{p}: MOTION: NaN or infinite channel values")

    hips = mapping[INDEX["pelvis"]]
    chest = mapping[max(j for j in SPINE if j in mapping)]
    to_y = _up_rotation(p, up, pos[:, hips], pos[:, chest])
    pos = pos @ to_y.T
    rest = rest @ to_y.T
    glob = to_y @ glob @ to_y.T

    poses = _retarget(mapping, glob, pos, rest)

    rest_up = _unit(rest[chest] - rest[hips])
    hip_height = float(np.max((rest[hips] - rest) @ rest_up))
    if not hip_height > 0:
        raise MotionImportError(f"{p}: {nodes[hips].name}: hips are not above the feet at rest")
    scale = REST_JOINTS[0, 1] / hip_height
    floor = pos[..., 1].min()
    pelvis = (pos[:, hips] - np.array([0.0, floor, 0.0])) * scale
    seq = PoseSequence(poses, pelvis - REST_JOINTS[0], float(bvh.fps), None, str(p))
    return seq if fps is None or fps == seq.fps else seq.resample(fps)


def skeleton_map(
    path: str | Path, joint_map: str | Path | dict[str, str | None] | None = None
) -> dict[str, str]:
    """Which BVH joint drives each SMPL joint in ``path`` (SMPL name -> BVH name), as
    :func:`load_bvh` maps it: what ``tempogen human map`` prints, and a joint map to edit."""
    p = Path(path)
    bvh = _read_bvh(p)
    skeleton, mapping = _mapped(p, bvh, joint_map)
    return describe(skeleton, mapping)


def _mapped(
    path: Path, bvh: Any, joint_map: str | Path | dict[str, str | None] | None
) -> tuple[Skeleton, dict[int, int]]:
    nodes = bvh.nodes
    parent = [nodes.index(n.parent) if n.parent is not None else -1 for n in nodes]
    is_joint = [not n.is_end_site() for n in nodes]
    names = [n.name for n in nodes]
    full = iter(_joint_names(path))
    names = [next(full, n) if j else n for n, j in zip(names, is_joint)]
    skeleton = Skeleton(names, parent, is_joint, bvh.rest_pose_positions())
    map_path = joint_map if isinstance(joint_map, (str, Path)) else None
    given = load_joint_map(joint_map) if map_path is not None else joint_map
    return skeleton, map_skeleton(path, skeleton, given, map_path)


def _joint_names(path: Path) -> list[str]:
    """Every ROOT/JOINT name in file order, whole: 3ds Max writes ``JOINT Bip01 L Thigh``
    (the reader keeps only the first word)."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            words = line.split()
            if words and words[0] == "MOTION":
                break
            if len(words) > 1 and words[0] in ("ROOT", "JOINT"):
                out.append(" ".join(words[1:]))
    return out


def _read_bvh(path: Path) -> Any:
    if not path.is_file():
        raise MotionImportError(f"{path}: no such file")
    import pybvh

    try:
        return pybvh.read_bvh_file(path, world_up="+y")
    except Exception as exc:  # the reader raises ValueError, IndexError, ... on bad text
        raise MotionImportError(f"{path}: not a readable BVH file: {exc}") from exc


def _up_rotation(path: Path, up: str, hips: np.ndarray, chest: np.ndarray) -> np.ndarray:
    """Rotation taking the BVH world's up axis to +y."""
    if up == "auto":
        d = chest - hips
        d = d[np.linalg.norm(d, axis=1) > 0]
        mean = (d / np.linalg.norm(d, axis=1, keepdims=True)).mean(axis=0) if len(d) else None
        if mean is None or np.abs(mean).max() < 0.5:
            up = "+y"
        else:
            k = int(np.argmax(np.abs(mean)))
            up = ("+" if mean[k] > 0 else "-") + "xyz"[k]
    table = {
        "+y": np.eye(3),
        "-y": _CAMERA_TO_Y_UP,
        "+z": _Z_UP_TO_Y_UP,
        "-z": Rotation.from_euler("x", 90, degrees=True).as_matrix(),
        "+x": Rotation.from_euler("z", 90, degrees=True).as_matrix(),
        "-x": Rotation.from_euler("z", -90, degrees=True).as_matrix(),
    }
    if up not in table:
        raise MotionImportError(
            f"{path}: up: expected 'auto' or one of {', '.join(table)}, got {up!r}"
        )
    return table[up]


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)


def _arc(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Smallest rotations (..., 3, 3) turning unit vectors ``a`` onto unit vectors ``b``."""
    a, b = np.broadcast_arrays(a, b)
    cross = np.cross(a, b)
    sin = np.linalg.norm(cross, axis=-1, keepdims=True)
    cos = np.sum(a * b, axis=-1, keepdims=True)
    helper = np.where(np.abs(a[..., :1]) < 0.9, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    axis = np.where(sin > 1e-9, cross, np.cross(a, helper))
    return rotvec_to_matrix(_unit(axis) * np.arctan2(sin, cos))


def _retarget(
    mapping: dict[int, int], glob: np.ndarray, pos: np.ndarray, rest: np.ndarray
) -> np.ndarray:
    """SMPL local rotations whose bones point like the BVH's mapped bones, frame by frame.

    Each mapped joint gets a rest alignment (SMPL's T-pose frame -> the BVH rest frame): with
    several bones below it (pelvis, chest), the rotation that best fits all of them; with one,
    its parent's alignment followed by the smallest turn onto the BVH bone, so twist carries
    down a chain consistently. Per frame the joint takes its BVH joint's orientation times
    that alignment, and a one-bone joint is turned the last bit so the bone points exactly at
    the BVH child (intermediate BVH joints, such as CMU's Neck1, are absorbed this way).
    A mapped leaf uses its parent's alignment.
    """
    n = glob.shape[0]
    size = float(np.ptp(rest, axis=0).max()) or 1.0
    eps = 1e-6 * size

    def targets(j: int) -> list[int]:
        out = []
        for c in (c for c, pa in enumerate(PARENTS) if pa == j):
            out.extend([c] if c in mapping else targets(c))
        return out

    smpl_glob = np.empty((n, NUM_JOINTS, 3, 3))
    align: dict[int, np.ndarray] = {}

    def inherited(j: int) -> np.ndarray:
        a = PARENTS[j]
        while a >= 0 and a not in align:
            a = PARENTS[a]
        return align[a] if a >= 0 else np.eye(3)

    for j in range(NUM_JOINTS):
        if j not in mapping:
            smpl_glob[:, j] = smpl_glob[:, PARENTS[j]]
            continue
        b = mapping[j]
        direct = targets(j)
        tips = list(direct)
        while True:
            short = [k for k in tips if np.linalg.norm(rest[mapping[k]] - rest[b]) <= eps]
            if not short:
                break
            tips = [t for k in tips for t in ([k] if k not in short else targets(k))]
        d = np.array([_unit(REST_JOINTS[k] - REST_JOINTS[j]) for k in tips]).reshape(-1, 3)
        v = np.array([_unit(rest[mapping[k]] - rest[b]) for k in tips]).reshape(-1, 3)
        spread = len(tips) > 1 and np.linalg.svd(v, compute_uv=False)[1] > 0.1
        if spread:
            align[j] = Rotation.align_vectors(v, d)[0].as_matrix()
            smpl_glob[:, j] = glob[:, b] @ align[j]
        elif tips:
            k = max(
                range(len(tips)), key=lambda i: np.linalg.norm(rest[mapping[tips[i]]] - rest[b])
            )
            up = inherited(j)
            align[j] = _arc(up @ d[k], v[k]) @ up
            g = glob[:, b] @ align[j]
            if tips == direct:
                now = _unit(pos[:, mapping[tips[k]]] - pos[:, b])
                g = _arc(g @ d[k], now) @ g
            smpl_glob[:, j] = g
        else:
            align[j] = inherited(j)
            smpl_glob[:, j] = glob[:, b] @ align[j]

    local = np.empty_like(smpl_glob)
    local[:, 0] = smpl_glob[:, 0]
    pa = np.array(PARENTS[1:])
    local[:, 1:] = np.swapaxes(smpl_glob[:, pa], -1, -2) @ smpl_glob[:, 1:]
    return matrix_to_rotvec(local)
