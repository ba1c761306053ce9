"""``tempogen human``: render a motion file as a simulated human, or print its joint map."""

from __future__ import annotations

import argparse
from pathlib import Path

from tempogen.choices import BACKGROUNDS


def _human_render(args: argparse.Namespace) -> int:
    from tempogen.config import check_estimate
    from tempogen.generators.humans import render_motion_files
    from tempogen.generators.motion_import import load_motion, render_estimate
    from tempogen.paths import check_not_input

    # the joints beside the video: the name's suffix only (--out take.v2/clip: clip.joints.json)
    joints = str(Path(args.out).with_suffix(".joints.json"))
    check_not_input(
        [("--out", args.out), ("--out (its joints)", joints)],
        [args.motion, args.joint_map, args.body],
    )
    w, h = args.size
    seq = load_motion(args.motion, joint_map=args.joint_map)  # at its own rate: as the file
    est = render_estimate(seq, args.fps, w, h)
    where = f"{args.motion} at --fps {args.fps:g}, --size {w}x{h}"
    check_estimate(est, where, args.allow_large, "pass --allow-large")
    if args.fps != seq.fps:
        seq = seq.resample(args.fps)
    truth = render_motion_files(
        seq, args.out, joints, width=w, height=h, body_path=args.body or "",
        background=args.background,
    )  # fmt: skip
    print(
        f"{args.out}: {truth['num_frames']} frames at {truth['fps']:g} fps, {w}x{h}, body {truth['body_model']}"
    )
    print(f"{joints}: camera and 24 joints per frame (3D metres, 2D pixels)")
    return 0


def _human_map(args: argparse.Namespace) -> int:
    import json

    from tempogen.generators.motion_import import SkeletonMapError, skeleton_map
    from tempogen.generators.motion_import.bvh import draft_joint_map

    try:
        mapping = skeleton_map(args.motion, args.joint_map)
    except SkeletonMapError as exc:  # a draft to complete on stdout; the reason, exit 2
        print(draft_joint_map(args.motion, exc), end="")
        raise
    for smpl, bvh in mapping.items():
        print(f"{smpl}: {json.dumps(bvh)}")
    return 0


def add_human(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``human`` command group."""
    from tempogen.cli.argtypes import finite_float, frame_size
    from tempogen.config import MAX_FPS

    hu = sub.add_parser("human", help="simulated humans from motion files")
    husub = hu.add_subparsers(dest="human_cmd", required=True)
    hr = husub.add_parser(
        "render", help="render an AMASS .npz, VIBE .pkl or BVH motion as an mp4 plus its joints"
    )
    hr.add_argument("motion", help="motion file (.npz AMASS, .pkl VIBE, .bvh)")
    hr.add_argument("--out", required=True, help="output .mp4 (joints go to <out>.joints.json)")
    hr.add_argument(
        "--fps", type=finite_float(1, MAX_FPS), default=30.0,
        help="clip frame rate, 1 to 240 (resampled; default %(default)s)",
    )  # fmt: skip
    hr.add_argument(
        "--size", default="640x360", type=frame_size, help="WIDTHxHEIGHT (default 640x360)"
    )
    hr.add_argument("--body", help="SMPL/SMPL-H/SMPL-X model file or folder (default: embedded)")
    hr.add_argument("--background", default="solid", choices=BACKGROUNDS)
    hr.add_argument(
        "--joint-map", help="YAML of SMPL joint: BVH joint overriding the mapping (BVH only)"
    )
    hr.add_argument(
        "--allow-large",
        action="store_true",
        help="render even past the cost limits (over 144,000 frames or 8 GB of memory)",
    )
    hr.set_defaults(func=_human_render)
    hm = husub.add_parser(
        "map", help="print which BVH joint drives each SMPL joint (YAML, a joint map to edit)"
    )
    hm.add_argument("motion", help="BVH file")
    hm.add_argument("--joint-map", help="YAML of SMPL joint: BVH joint laid over the mapping")
    hm.set_defaults(func=_human_map)
