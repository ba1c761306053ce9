"""VIBE output pickles: one person's track, its frames filled by slerp, turned upright.

VIBE's global orientation is in camera coordinates (``y`` down, looking along ``+z``): a turn
of 180 degrees about ``x`` makes a person facing the camera face ``+z`` upright. Its
weak-perspective camera gives the pelvis's in-plane displacement in metres, not its depth.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from scipy.spatial.transform import Rotation, Slerp

from tempogen import safe_pickle
from tempogen.generators.bvh_map import MotionImportError
from tempogen.generators.motion_import.common import (
    CAMERA_TO_Y_UP,
    as_float,
    check_finite,
    check_fps,
)
from tempogen.generators.poses import PoseSequence, matrix_to_rotvec, rotvec_to_matrix
from tempogen.generators.skeleton import NUM_JOINTS

_VIBE_KEYS = "VIBE tracks have pose, betas, frame_ids"
VIBE_FPS = 30.0


def load_vibe(path: str | Path, track: int | None = None, fps: float = VIBE_FPS) -> PoseSequence:
    """One person's track of a VIBE output pickle (the longest unless ``track``), y-up.

    ``fps`` is the rate of the video VIBE ran on. Frames missing from ``frame_ids`` are filled
    by slerp. The pelvis starts at its standing height; its later in-plane displacement comes
    from ``orig_cam`` (metres under VIBE's weak perspective); depth stays fixed, since a
    weak-perspective camera does not give it without the unknown focal length.
    """
    p = Path(path)
    check_fps(p, fps)
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
    pose = as_float(p, f"track {tid}: pose", tr["pose"])
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
    check_finite(p, f"track {tid}: pose", pose)
    betas = None
    if tr.get("betas") is not None:
        b = as_float(p, f"track {tid}: betas", tr["betas"])
        if b.ndim not in (1, 2) or (b.ndim == 2 and b.shape[0] != n) or b.size == 0:
            raise MotionImportError(
                f"{where}: betas: expected shape ({n}, 10) or (10,), got {b.shape}"
            )
        if not np.isfinite(b).all():
            raise MotionImportError(f"{where}: betas: NaN or infinite value")
        betas = b.mean(axis=0) if b.ndim == 2 else b
    cam = None
    if tr.get("orig_cam") is not None:
        cam = as_float(p, f"track {tid}: orig_cam", tr["orig_cam"])
        if cam.shape != (n, 4):
            raise MotionImportError(f"{where}: orig_cam: expected shape ({n}, 4), got {cam.shape}")
        check_finite(p, f"track {tid}: orig_cam", cam)

    t_src = (ids - ids[0]).astype(np.float64)
    t_all = np.arange(int(ids[-1] - ids[0]) + 1, dtype=np.float64)
    rots = pose.reshape(n, NUM_JOINTS, 3)
    if n == 1:
        poses = rots.copy()
    else:
        poses = np.empty((t_all.size, NUM_JOINTS, 3))
        for j in range(NUM_JOINTS):
            poses[:, j] = Slerp(t_src, Rotation.from_rotvec(rots[:, j]))(t_all).as_rotvec()
    poses[:, 0] = matrix_to_rotvec(CAMERA_TO_Y_UP @ rotvec_to_matrix(poses[:, 0]))
    trans = np.zeros((t_all.size, 3))
    if cam is not None:
        # orig_cam = (sx, sy, tx, ty): the body's origin sits at (tx, ty) metres in the image
        # plane of a y-down camera.
        plane = np.stack([np.interp(t_all, t_src, cam[:, k]) for k in (2, 3)], axis=1)
        shift = np.column_stack([plane - plane[0], np.zeros(t_all.size)])
        trans = shift @ CAMERA_TO_Y_UP.T
    return PoseSequence(poses, trans, float(fps), betas, f"{p}#track{tid}")
