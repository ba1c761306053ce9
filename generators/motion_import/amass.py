"""AMASS ``.npz`` motions (SMPL-H or SMPL-X layout, ``z`` up): the global orientation and the
pelvis path are turned -90 degrees about ``x``; the body joints 1-21 are copied, SMPL's hand
joints 22/23 are left at rest."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from tempogen.generators.bvh_map import MotionImportError
from tempogen.generators.motion_import.common import (
    Z_UP_TO_Y_UP,
    as_float,
    check_finite,
    check_fps,
)
from tempogen.generators.motion_import.contact import ground
from tempogen.generators.poses import PoseSequence, matrix_to_rotvec, rotvec_to_matrix
from tempogen.generators.skeleton import NUM_JOINTS, REST_JOINTS

# SMPL's template pelvis joint in model coordinates (neutral body; it moves by a centimetre or
# two with gender and betas): AMASS places the pelvis at ``trans + this`` in its z-up world.
_SMPL_TEMPLATE_PELVIS = np.array([0.0, -0.22, 0.03])

_AMASS_KEYS = "AMASS files have poses, trans, betas, mocap_framerate"
_AMASS_POSE_WIDTHS = {72: "SMPL", 156: "SMPL-H", 165: "SMPL-X"}


def load_amass(path: str | Path, fps: float | None = None) -> PoseSequence:
    """An AMASS ``.npz`` (SMPL-H or SMPL-X layout) turned y-up, resampled to ``fps`` if given.

    Takes the global orientation and the 21 body joints; SMPL's hand joints stay at rest.
    """
    p = Path(path)
    check_fps(p, fps)
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

        poses = as_float(p, "poses", get("poses"))
        trans = as_float(p, "trans", get("trans"))
        rate = as_float(p, rate_key, get(rate_key))
        betas = as_float(p, "betas", get("betas")).ravel() if "betas" in keys else None

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
    check_finite(p, "poses", poses)
    check_finite(p, "trans", trans)
    if betas is not None and not np.isfinite(betas).all():
        raise MotionImportError(f"{p}: betas: NaN or infinite value")

    out = np.zeros((n, NUM_JOINTS, 3))
    out[:, :22] = poses[:, :66].reshape(n, 22, 3)
    root = rotvec_to_matrix(out[:, 0])
    out[:, 0] = matrix_to_rotvec(Z_UP_TO_Y_UP @ root)
    pelvis = (trans + _SMPL_TEMPLATE_PELVIS) @ Z_UP_TO_Y_UP.T
    seq = PoseSequence(out, pelvis - REST_JOINTS[0], float(rate.item()), betas, str(p))
    seq, _ = ground(seq)  # AMASS's floor is z = 0: kept where the soles rest on it
    return seq if fps is None or fps == seq.fps else seq.resample(fps)
