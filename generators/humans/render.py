"""Rendering a whole pose sequence (procedural or imported, ``tempogen human render``) to an
mp4 with its ground truth beside it, as one unit."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from tempogen.generators.humans.camera import camera_json, fit_camera
from tempogen.generators.humans.look import body_for, draw_look, look_colors
from tempogen.generators.humans.world import BodyWorld
from tempogen.generators.poses import PoseSequence
from tempogen.generators.skeleton import JOINTS

# The fixed camera of a rendered motion file (degrees; fill = share of the frame it spans).
RENDER_YFOV = 40.0
RENDER_ELEVATION = 12.0
RENDER_AZIMUTH = 0.0
RENDER_FILL = 0.8
FLOOR_DROP = 0.1  # metres the floor lies below the lowest joint of the whole motion


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
    camera that keeps the whole motion in view, and return its ground truth: the camera and
    every joint per frame in 3D (metres) and projected (pixels), as JSON-ready lists.

    The video is written atomically; the joints are the body model's posed joints, the same
    ones the labels of generated clips are projected from.
    """
    from tempogen.video import VideoWriter

    body = body_for(body_path)
    rng = np.random.default_rng(seed)
    look = draw_look(rng, body.num_betas)
    betas = seq.betas if seq.betas is not None else look.betas
    posed = body.pose(PoseSequence(seq.poses, seq.trans, seq.fps, betas[: body.num_betas]))
    camera = fit_camera(
        posed.joints.reshape(-1, 3),
        width,
        height,
        yfov_deg=RENDER_YFOV,
        elevation_deg=RENDER_ELEVATION,
        azimuth_deg=RENDER_AZIMUTH,
        fill=RENDER_FILL,
    )
    colors = look_colors(body, look)
    floor = float(posed.joints[..., 1].min()) - FLOOR_DROP
    world = BodyWorld(body.faces, posed.vertices, colors, camera, floor=floor)
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
        "camera": camera_json(camera),
        "joint_names": list(JOINTS),
        "joints3d": np.round(posed.joints, 4).tolist(),
        "joints2d": np.round(camera.project(posed.joints), 2).tolist(),
    }
