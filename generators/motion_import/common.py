"""What every motion reader shares: checks that name the file and field of a bad value, and
the rotations taking other worlds (z up, a y-down camera) to tempogen's (y up)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from scipy.spatial.transform import Rotation

from tempogen.generators.bvh_map import MotionImportError

# Rotations taking other worlds to ours (y up).
Z_UP_TO_Y_UP = Rotation.from_euler("x", -90, degrees=True).as_matrix()
CAMERA_TO_Y_UP = Rotation.from_euler("x", 180, degrees=True).as_matrix()


def check_fps(path: Path, fps: float | None) -> None:
    """Refuse a frame rate that is given and not a positive finite number."""
    if fps is not None and not (np.isfinite(fps) and fps > 0):
        raise MotionImportError(f"{path}: fps: must be a positive number, got {fps}")


def check_finite(path: Path, field: str, arr: np.ndarray) -> None:
    """Refuse an array (frames first) holding NaN or infinity, naming the first bad frame."""
    if not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr.reshape(arr.shape[0], -1)))[0][0]
        raise MotionImportError(f"{path}: {field}: NaN or infinite value (first at frame {bad})")


def as_float(path: Path, field: str, arr: Any) -> np.ndarray:
    """``arr`` as a float64 array, or a :class:`MotionImportError` naming the field."""
    try:
        return np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise MotionImportError(f"{path}: {field}: not numeric: {exc}") from exc
