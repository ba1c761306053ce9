"""Recorded human motion as :class:`PoseSequence`: AMASS ``.npz``, VIBE ``.pkl`` and BVH files.

Every loader returns poses on SMPL's 24-joint tree in tempogen's world (metres, ``y`` up, a body
with identity global orientation faces ``+z``, its left at ``+x``). ``trans`` is the offset of
the pelvis from its rest position ``REST_JOINTS[0]``: ``trans = 0`` stands the mannequin on the
floor ``y = 0`` at the origin, as SMPL's own ``pelvis = J_pelvis + trans`` convention does.

- AMASS (:mod:`.amass`) is ``z`` up: the global orientation and the pelvis path are turned -90
  degrees about ``x``; the body joints 1-21 are copied, SMPL's hand joints 22/23 are left at rest.
- VIBE's (:mod:`.vibe`) global orientation is in camera coordinates (``y`` down, looking along
  ``+z``): a turn of 180 degrees about ``x`` makes a person facing the camera face ``+z``
  upright. Its weak-perspective camera gives the pelvis's in-plane displacement in metres, not
  its depth.
- BVH skeletons (:mod:`.bvh`) are mapped by their structure (:mod:`tempogen.generators.bvh_map`:
  CMU, Mixamo, 3ds Max Biped, Unreal, DAZ, any spine length, any joint names; a YAML joint map
  overrides it) and retargeted bone by bone (:mod:`.retarget`), so every mapped SMPL bone points
  the way its BVH bone points whatever the BVH's rest pose.

This module picks the reader by suffix and estimates a render's cost; the readers' names are
re-exported here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tempogen.config import Estimate, estimate
from tempogen.generators.bvh_map import MotionImportError, NotHumanoidError, SkeletonMapError
from tempogen.generators.motion_import.amass import load_amass
from tempogen.generators.motion_import.bvh import load_bvh, skeleton_map
from tempogen.generators.motion_import.contact import ground
from tempogen.generators.motion_import.vibe import VIBE_FPS, load_vibe
from tempogen.generators.poses import PoseSequence

__all__ = [
    "HUMAN_BYTES_PER_FRAME",
    "VIBE_FPS",
    "MotionImportError",
    "NotHumanoidError",
    "SkeletonMapError",
    "load_amass",
    "load_bvh",
    "load_motion",
    "load_vibe",
    "render_estimate",
    "skeleton_map",
]


def load_motion(
    path: str | Path, fps: float | None = None, joint_map: str | Path | None = None
) -> PoseSequence:
    """Load a motion file by its suffix (.npz AMASS, .pkl VIBE, .bvh), resampled to ``fps``.

    Every motion comes grounded (:func:`.contact.ground`: soles on ``y = 0`` while a foot is
    planted). VIBE stores no frame rate: its frames are taken as ``VIBE_FPS`` (30) before
    resampling.
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
        seq, _ = ground(load_vibe(p))  # VIBE has no floor: the soles' is made y = 0
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
