"""Rendering a whole pose sequence (procedural or imported, ``tempogen human render``) to an
mp4 with its ground truth beside it, as one unit."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
from scipy.ndimage import gaussian_filter1d

from tempogen.generators.camera import Camera
from tempogen.generators.humans.camera import HEAD_TOP, camera_json, fit_camera
from tempogen.generators.humans.look import body_for, draw_look, look_colors
from tempogen.generators.humans.world import BodyWorld
from tempogen.generators.motion_import.contact import reshaped
from tempogen.generators.poses import PoseSequence
from tempogen.generators.skeleton import INDEX, JOINTS

# The camera of a rendered motion file (degrees; fill = share of the frame the person spans):
# it follows the pelvis at a fixed distance and height, never rolling or turning.
RENDER_YFOV = 40.0
RENDER_ELEVATION = 12.0
RENDER_AZIMUTH = 0.0
RENDER_FILL = 0.8
FOLLOW_SMOOTH = 0.5  # seconds (sd): the camera's track of the pelvis is this smooth


def render_motion_files(
    seq: PoseSequence, out: str | Path, joints: str | Path, **kw: Any
) -> dict[str, Any]:
    """:func:`render_motion` into ``out`` plus its ground truth as JSON in ``joints``, written
    as one unit: the video takes its name only after the joints file is written, and a failure
    (a full disk) leaves neither, so no clip is ever found without its labels."""
    from tempogen.io import dumps, write_text
    from tempogen.resume import discard_on_error, staging

    out, joints = Path(out), Path(joints)
    partial, partial_joints = staging(out), staging(joints)
    with discard_on_error(partial, partial_joints):  # an earlier pair stays as it was
        truth = render_motion(seq, partial, **kw)
        truth["video"] = str(out)
        write_text(partial_joints, dumps(truth) + "\n")
    os.replace(partial_joints, joints)  # renames only: no space needed, nothing can half-fail
    os.replace(partial, out)
    return truth


def render_motion(
    seq: PoseSequence,
    out: str | Path,
    *,
    width: int = 640,
    height: int = 360,
    body_path: str = "",
    background: str = "solid",
    seed: int = 0,
    crf: int = 18,
) -> dict[str, Any]:
    """Render a pose sequence (procedural or imported) as an mp4 seen by a third-person
    camera that follows the person (:func:`follow_cameras`), on a floor at ``y = 0`` (the
    loaders ground their motion there), and return its ground truth: the camera (``camera``
    if it stands still, else ``cameras``, one per frame) and every joint per frame in 3D
    (metres) and projected through that frame's camera (pixels), as JSON-ready lists.

    The video is written atomically; the joints are the body model's posed joints, the same
    ones the labels of generated clips are projected from.
    """
    from tempogen.video import VideoWriter

    body = body_for(body_path)
    rng = np.random.default_rng(seed)
    look = draw_look(rng, body.num_betas)
    betas = (seq.betas if seq.betas is not None else look.betas)[: body.num_betas]
    # the loaders ground the mannequin with the file's shape: this body and shape stand on
    # the floor (y = 0, where it is drawn) as their rest soles do
    posed = body.pose(reshaped(seq, body, betas))
    cameras = follow_cameras(posed.joints, width, height, seq.fps)
    colors = look_colors(body, look)
    mid = cameras[len(cameras) // 2]  # the floor is laid about the middle of the path
    world = BodyWorld(body.faces, posed.vertices, colors, mid, floor=0.0, cameras=cameras)
    with VideoWriter(out, seq.fps, width, height, crf=crf, background=True) as vw:
        for frame in world.frames(background, rng):
            vw.write(frame)
    return {
        "video": str(out),
        "fps": seq.fps,
        "num_frames": seq.num_frames,
        "width": width,
        "height": height,
        "body_model": body.name,
        "source": seq.source,
        **_camera_truth(cameras),
        "floor_y": 0.0,
        "joint_names": list(JOINTS),
        "joints3d": np.round(posed.joints, 4).tolist(),
        "joints2d": np.round(
            np.stack([c.project(j) for c, j in zip(cameras, posed.joints)]), 2
        ).tolist(),
    }


def follow_cameras(joints: np.ndarray, width: int, height: int, fps: float) -> list[Camera]:
    """One camera per frame, following the pelvis: the fixed render view (elevation and
    azimuth above) moved along the pelvis's smoothed path over the floor, at the distance
    that keeps every frame's body (joints, head top, soles), relative to that path, inside
    the central :data:`RENDER_FILL` of the frame. Only the camera's position changes."""
    track = np.zeros((len(joints), 3))
    track[:, [0, 2]] = joints[:, INDEX["pelvis"]][:, [0, 2]]
    sigma = FOLLOW_SMOOTH * fps
    if sigma >= 0.5 and len(joints) > 1:
        track = gaussian_filter1d(track, sigma, axis=0, mode="nearest")
    rel = joints - track[:, None]
    head = rel[:, INDEX["head"]] + [0.0, HEAD_TOP, 0.0]
    soles = rel[:, [INDEX["left_foot"], INDEX["right_foot"]]].reshape(-1, 3) * [1.0, 0.0, 1.0]
    base = fit_camera(
        np.concatenate([rel.reshape(-1, 3), head, soles]),
        width,
        height,
        yfov_deg=RENDER_YFOV,
        elevation_deg=RENDER_ELEVATION,
        azimuth_deg=RENDER_AZIMUTH,
        fill=RENDER_FILL,
    )
    out = []
    for t in track:
        pose = base.pose.copy()
        pose[:3, 3] += t
        out.append(Camera(base.width, base.height, base.yfov, pose))
    return out


def _camera_truth(cameras: list[Camera]) -> dict[str, Any]:
    """``camera`` when every frame's camera is the same, else ``cameras`` (one per frame)."""
    each = [camera_json(c) for c in cameras]
    if all(c == each[0] for c in each):
        return {"camera": each[0]}
    return {"cameras": each}
