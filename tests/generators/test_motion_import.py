"""Motion import: AMASS .npz, VIBE .pkl and BVH files the tests write themselves, checked with
forward kinematics on SMPL's tree."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from tempogen.generators.humans import render_motion_files
from tempogen.generators.motion_import import (
    MotionImportError,
    load_amass,
    load_bvh,
    load_motion,
    load_vibe,
    skeleton_map,
)
from tempogen.generators.poses import PoseSequence, rotvec_to_matrix
from tempogen.generators.skeleton import INDEX, PARENTS, REST_JOINTS
from tempogen.io import write_text


def _fk(seq: PoseSequence) -> np.ndarray:
    """World joint positions (T, 24, 3) of a pose sequence on the mannequin's rest skeleton."""
    rot = rotvec_to_matrix(seq.poses)
    glob = np.empty_like(rot)
    pos = np.empty((seq.num_frames, len(PARENTS), 3))
    for j, p in enumerate(PARENTS):
        if p < 0:
            glob[:, j] = rot[:, j]
            pos[:, j] = REST_JOINTS[0] + seq.trans
        else:
            glob[:, j] = glob[:, p] @ rot[:, j]
            pos[:, j] = pos[:, p] + glob[:, p] @ (REST_JOINTS[j] - REST_JOINTS[p])
    return pos


def _rx(deg: float) -> np.ndarray:
    return Rotation.from_euler("x", deg, degrees=True).as_matrix()


def _angle_deg(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    return np.degrees(np.arccos(np.clip(np.sum(a * b, axis=-1), -1.0, 1.0)))


# ------------------------------------------------------------------------------------- AMASS

AMASS_FPS = 120
AMASS_FRAMES = 121  # one second


def _amass_source(width: int) -> dict[str, np.ndarray]:
    """A z-up body: upright (Rx +90 turns SMPL's y-up body to z up), yawing about z, the left
    arm rising about z with a non-linear profile, walking along AMASS's +y."""
    t = np.arange(AMASS_FRAMES) / AMASS_FPS
    yaw = np.radians(60.0) * t
    raise_ = np.radians(90.0) * t**2
    poses = np.zeros((AMASS_FRAMES, width))
    root = Rotation.from_euler("z", yaw[:, None]) * Rotation.from_euler(
        "x", np.full((t.size, 1), np.pi / 2)
    )
    poses[:, 0:3] = root.as_rotvec()
    poses[:, 3 * INDEX["left_shoulder"] + 2] = raise_
    poses[:, 66:] = 0.3  # hands/jaw/eyes: must be dropped
    trans = np.column_stack([np.zeros_like(t), 1.0 * t, np.full_like(t, 0.9)])
    return {
        "poses": poses,
        "trans": trans,
        "betas": np.linspace(-1, 1, 16),
        "gender": np.array("female"),
        "mocap_framerate": np.array(float(AMASS_FPS)),
    }


def _write_npz(path: Path, arrays: dict[str, np.ndarray]) -> Path:
    np.savez(path, **arrays)
    return path


@pytest.mark.parametrize("width", [156, 165])
def test_amass_resampled_upright_y_up_with_arm_raised(tmp_path: Path, width: int) -> None:
    src = _amass_source(width)
    path = _write_npz(tmp_path / "walk.npz", src)
    seq = load_amass(path, fps=48)
    assert seq.fps == 48
    assert seq.num_frames == 49 and seq.duration == pytest.approx(1.0)
    np.testing.assert_allclose(seq.betas, src["betas"])
    assert np.all(seq.poses[:, [22, 23]] == 0) and np.all(seq.poses[:, 1:16] == 0)

    # resampling: rotations about one axis slerp to the linear blend of the source angles
    t = np.arange(49) / 48
    t_src = np.arange(AMASS_FRAMES) / AMASS_FPS
    raise_ = np.interp(t, t_src, np.radians(90.0) * t_src**2)
    np.testing.assert_allclose(seq.poses[:, INDEX["left_shoulder"]], np.column_stack(
        [0 * t, 0 * t, raise_]), atol=1e-9)  # fmt: skip
    # z-up yaw about z becomes yaw about y; upright stays upright
    np.testing.assert_allclose(seq.poses[:, 0], np.column_stack(
        [0 * t, np.radians(60.0) * t, 0 * t]), atol=1e-9)  # fmt: skip

    pos = _fk(seq)
    head, pelvis = pos[:, INDEX["head"]], pos[:, INDEX["pelvis"]]
    up = _angle_deg(head - pelvis, np.array([0.0, 1.0, 0.0]))
    assert np.all(up < 5.0), up
    facing = rotvec_to_matrix(seq.poses[-1, 0]) @ np.array([0.0, 0.0, 1.0])
    np.testing.assert_allclose(
        facing, [np.sin(np.radians(60)), 0, np.cos(np.radians(60))], atol=1e-9
    )
    # at the end the left arm points straight up, on the body's left side
    arm = pos[-1, INDEX["left_wrist"]] - pos[-1, INDEX["left_shoulder"]]
    assert _angle_deg(arm, np.array([0.0, 1.0, 0.0])) < 2.0
    lateral = pos[-1, INDEX["left_shoulder"]] - pos[-1, INDEX["right_shoulder"]]
    left_dir = rotvec_to_matrix(seq.poses[-1, 0]) @ np.array([1.0, 0.0, 0.0])
    assert lateral @ left_dir > 0.3
    # AMASS +y (1 m in 1 s) is our -z; height is kept
    np.testing.assert_allclose(seq.trans[-1] - seq.trans[0], [0.0, 0.0, -1.0], atol=1e-9)
    assert seq.trans[:, 1] == pytest.approx(np.full(49, seq.trans[0, 1]))
    assert abs(pelvis[0, 1] - 0.93) < 0.05


def test_amass_at_source_rate_and_other_key_spelling(tmp_path: Path) -> None:
    src = _amass_source(165)
    src["mocap_frame_rate"] = src.pop("mocap_framerate")
    seq = load_motion(_write_npz(tmp_path / "x.npz", src))
    assert seq.fps == AMASS_FPS and seq.num_frames == AMASS_FRAMES
    decimated = load_amass(tmp_path / "x.npz", fps=30)
    assert decimated.num_frames == 31
    np.testing.assert_allclose(decimated.poses, seq.poses[::4], atol=1e-9)


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda a: a.pop("trans"), "'trans'"),
        (lambda a: a.pop("poses"), "'poses'"),
        (lambda a: a.pop("mocap_framerate"), "'mocap_framerate'"),
        (lambda a: a.update(poses=a["poses"][:, :100]), "poses"),
        (lambda a: a.update(trans=a["trans"][:-1]), "trans"),
        (lambda a: a.update(trans=a["trans"][:, :2]), "trans"),
        (lambda a: a["trans"].__setitem__((5, 1), np.nan), "trans"),
        (lambda a: a["poses"].__setitem__((7, 4), np.inf), "poses"),
        (lambda a: a.update(mocap_framerate=np.array(0.0)), "mocap_framerate"),
    ],
)
def test_amass_bad_input_names_file_and_key(tmp_path: Path, change, field: str) -> None:
    src = _amass_source(156)
    change(src)
    path = _write_npz(tmp_path / "walk.npz", src)
    with pytest.raises(MotionImportError) as err:
        load_amass(path)
    assert "walk.npz" in str(err.value) and field in str(err.value)


def test_amass_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.npz"
    write_text(path, "not a zip")
    with pytest.raises(MotionImportError, match="broken.npz"):
        load_amass(path)
    with pytest.raises(MotionImportError, match="nothere.npz"):
        load_amass(tmp_path / "nothere.npz")


# -------------------------------------------------------------------------------------- VIBE


def _vibe_tracks() -> dict[int, dict[str, np.ndarray]]:
    short = np.zeros((5, 72))
    short[:, 0] = np.pi
    ids = np.array([10, 11, 12, 15, 16, 17, 18])
    n = ids.size
    yaw = np.radians(10.0) * (ids - 10)
    elbow = np.radians(12.0) * (ids - 10)
    long = np.zeros((n, 72))
    # upright facing the camera in camera coordinates (y down), then yawing
    turn = Rotation.from_euler("x", np.full((n, 1), np.pi)) * Rotation.from_euler("y", yaw[:, None])
    long[:, :3] = turn.as_rotvec()
    long[:, 3 * INDEX["left_elbow"] + 1] = elbow
    cam = np.column_stack(
        [np.full(n, 0.5), np.full(n, 0.9), 0.1 * (ids - 10), 0.3 - 0.05 * (ids - 10)]
    )
    common = {"pred_cam": np.zeros((n, 3)), "joints3d": np.zeros((n, 49, 3)), "verts": None}
    return {
        1: {"pose": short, "betas": np.zeros((5, 10)), "frame_ids": np.arange(5),
            "orig_cam": np.zeros((5, 4))},
        2: {"pose": long, "betas": np.tile(np.arange(10.0), (n, 1)), "frame_ids": ids,
            "orig_cam": cam, **common},
    }  # fmt: skip


def _dump(path: Path, obj) -> Path:
    try:
        import joblib
    except ImportError:
        with open(path, "wb") as f:
            pickle.dump(obj, f)
    else:
        joblib.dump(obj, path)
    return path


def test_vibe_longest_track_gap_filled_upright(tmp_path: Path) -> None:
    path = _dump(tmp_path / "vibe_output.pkl", _vibe_tracks())
    seq = load_vibe(path)
    assert "track2" in seq.source
    assert seq.num_frames == 9 and seq.fps == 30.0  # frames 10..18, 13 and 14 filled
    np.testing.assert_allclose(seq.betas, np.arange(10.0))
    k = np.arange(9)
    np.testing.assert_allclose(seq.poses[:, 0], np.column_stack(
        [0 * k, np.radians(10.0) * k, 0 * k]), atol=1e-9)  # fmt: skip
    np.testing.assert_allclose(
        seq.poses[:, INDEX["left_elbow"], 1], np.radians(12.0) * k, atol=1e-9
    )
    pos = _fk(seq)
    up = pos[:, INDEX["head"]] - pos[:, INDEX["pelvis"]]
    assert np.all(_angle_deg(up, np.array([0.0, 1.0, 0.0])) < 5.0)
    # frame 10 faces the camera (+z); in-plane motion from orig_cam: right and up, depth fixed
    np.testing.assert_allclose(rotvec_to_matrix(seq.poses[0, 0]) @ [0, 0, 1], [0, 0, 1], atol=1e-9)
    np.testing.assert_allclose(seq.trans, np.column_stack([0.1 * k, 0.05 * k, 0 * k]), atol=1e-9)


def test_vibe_track_choice_and_dispatch(tmp_path: Path) -> None:
    path = _dump(tmp_path / "run.pkl", _vibe_tracks())
    short = load_vibe(path, track=1, fps=25)
    assert short.num_frames == 5 and short.fps == 25
    np.testing.assert_allclose(short.poses[:, 0], 0.0, atol=1e-9)  # upright, facing us
    with pytest.raises(MotionImportError, match=r"run\.pkl: track 7: no such track"):
        load_vibe(path, track=7)
    via = load_motion(path, fps=15)
    assert via.fps == 15 and via.num_frames == 5  # 8 frames at 30 fps resampled


@pytest.mark.parametrize(
    "key, change",
    [
        ("pose", lambda tr: tr.pop("pose")),
        ("frame_ids", lambda tr: tr.pop("frame_ids")),
        ("pose", lambda tr: tr.update(pose=tr["pose"][:, :69])),
        ("frame_ids", lambda tr: tr.update(frame_ids=tr["frame_ids"][::-1].copy())),
        ("orig_cam", lambda tr: tr.update(orig_cam=tr["orig_cam"][:, :3])),
        ("pose", lambda tr: tr["pose"].__setitem__((2, 5), np.nan)),
    ],
)
def test_vibe_bad_track_names_file_track_and_key(tmp_path: Path, key: str, change) -> None:
    tracks = _vibe_tracks()
    change(tracks[2])
    path = _dump(tmp_path / "vibe_output.pkl", tracks)
    with pytest.raises(MotionImportError) as err:
        load_vibe(path, track=2)
    msg = str(err.value)
    assert "vibe_output.pkl" in msg and "track 2" in msg and key in msg, msg


def test_vibe_not_a_track_dict(tmp_path: Path) -> None:
    path = _dump(tmp_path / "list.pkl", [1, 2, 3])
    with pytest.raises(MotionImportError, match="list.pkl"):
        load_vibe(path)


# --------------------------------------------------------------------------------------- BVH

# Joint names of each style, keyed by the role they play (SMPL's names; neck1 is an extra
# CMU joint between neck and head).
_CMU = {
    "pelvis": "Hips", "spine1": "LowerBack", "spine2": "Spine", "spine3": "Spine1",
    "neck": "Neck", "neck1": "Neck1", "head": "Head",
}  # fmt: skip
_MIXAMO = {
    "pelvis": "mixamorig:Hips", "spine1": "mixamorig:Spine", "spine2": "mixamorig:Spine1",
    "spine3": "mixamorig:Spine2", "neck": "mixamorig:Neck", "head": "mixamorig:Head",
}  # fmt: skip
_LIMBS = {
    "collar": "Shoulder", "shoulder": "Arm", "elbow": "ForeArm", "wrist": "Hand",
    "hip": "UpLeg", "knee": "Leg", "ankle": "Foot", "foot": "ToeBase",
}  # fmt: skip


def _names(style: str) -> dict[str, str]:
    names = dict(_MIXAMO if style == "mixamo" else _CMU)
    prefix = "mixamorig:" if style == "mixamo" else ""
    for side in ("left", "right"):
        for role, word in _LIMBS.items():
            names[f"{side}_{role}"] = f"{prefix}{side.capitalize()}{word}"
        names[f"{side}_hipjoint"] = f"{side[0].upper()}HipJoint"
    return names


def _skeleton(style: str, arms_down: bool):
    """(role, parent role, offset in cm) in depth-first order, and end-site offsets per role.

    Offsets are the mannequin's (x100, cm), so the BVH and SMPL bones have equal directions at
    rest; with ``arms_down`` the arm chains below the collars hang straight down instead.
    ``cmu_quirks`` copies real CMU files: zero-length LHipJoint/RHipJoint above the legs, and
    Neck and LeftShoulder/RightShoulder starting where Spine1 does."""
    quirks = style == "cmu_quirks"
    r = REST_JOINTS * 100.0

    def off(a: str, b: str) -> np.ndarray:
        return r[INDEX[a]] - r[INDEX[b]]

    joints = [("pelvis", None, np.zeros(3))]
    ends = {}
    for s in ("left", "right"):
        top = "pelvis"
        if quirks:
            joints.append((f"{s}_hipjoint", "pelvis", np.zeros(3)))
            top = f"{s}_hipjoint"
        joints += [
            (f"{s}_hip", top, off(f"{s}_hip", "pelvis")),
            (f"{s}_knee", f"{s}_hip", off(f"{s}_knee", f"{s}_hip")),
            (f"{s}_ankle", f"{s}_knee", off(f"{s}_ankle", f"{s}_knee")),
            (f"{s}_foot", f"{s}_ankle", off(f"{s}_foot", f"{s}_ankle")),
        ]
        ends[f"{s}_foot"] = np.array([0.0, -r[INDEX[f"{s}_foot"], 1], 6.0])  # sole on y = 0
    joints += [
        ("spine1", "pelvis", off("spine1", "pelvis")),
        ("spine2", "spine1", off("spine2", "spine1")),
        ("spine3", "spine2", off("spine3", "spine2")),
        ("neck", "spine3", np.zeros(3) if quirks else off("neck", "spine3")),
    ]
    if style != "mixamo":
        lift = off("neck", "spine3") if quirks else np.zeros(3)
        joints += [
            ("neck1", "neck", lift + 0.5 * off("head", "neck")),
            ("head", "neck1", 0.5 * off("head", "neck")),
        ]
    else:
        joints += [("head", "neck", off("head", "neck"))]
    ends["head"] = np.array([0.0, 15.0, 0.0])
    for s, sign in (("left", 1.0), ("right", -1.0)):
        down = Rotation.from_euler("z", -90.0 * sign, degrees=True).as_matrix()
        turn = down if arms_down else np.eye(3)
        joints += [
            (f"{s}_collar", "spine3", np.zeros(3) if quirks else off(f"{s}_collar", "spine3")),
            (
                f"{s}_shoulder",
                f"{s}_collar",
                off(f"{s}_shoulder", "spine3" if quirks else f"{s}_collar"),
            ),
            (f"{s}_elbow", f"{s}_shoulder", turn @ off(f"{s}_elbow", f"{s}_shoulder")),
            (f"{s}_wrist", f"{s}_elbow", turn @ off(f"{s}_wrist", f"{s}_elbow")),
        ]
        ends[f"{s}_wrist"] = turn @ off(f"{s}_hand", f"{s}_wrist")
    return joints, ends


_ORDERS = {"pelvis": "ZXY", "left_shoulder": "XZY", "left_elbow": "YXZ"}  # others ZYX


def _motion(n: int, arms_down: bool) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Root positions (cm) and local rotations: the left arm rises, a leg steps, the body
    walks 100 cm along +x while turning, the neck nods through CMU's extra Neck1 joint."""
    s = np.linspace(0.0, 1.0, n)

    def rot(axis: str, deg: np.ndarray) -> np.ndarray:
        return Rotation.from_euler(axis, deg[:, None], degrees=True).as_matrix()

    lift = 150.0 if arms_down else 80.0
    local = {
        "pelvis": rot("y", 30.0 * s),
        "left_shoulder": rot("z", lift * s) @ rot("x", 25.0 * s),
        # a twist of the left forearm about its own bone, a bend of the right elbow
        "left_elbow": rot("y", -40.0 * s) if arms_down else rot("x", 40.0 * s),
        "right_elbow": rot("x", 30.0 * s) if arms_down else rot("y", 30.0 * s),
        "right_shoulder": rot("x", -35.0 * s),
        "left_hip": rot("x", -40.0 * s),
        "left_knee": rot("x", 30.0 * s),
        "right_ankle": rot("x", -20.0 * s),
        "spine2": rot("x", 10.0 * s),
        "neck1": rot("x", 20.0 * s),
        "neck": rot("z", 10.0 * s),
        "head": rot("y", 15.0 * s),
    }
    root = np.column_stack([100.0 * s, np.full(n, 93.0), np.zeros(n)])
    return root, local


def _world(joints, root: np.ndarray, local: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The BVH's world joint positions by our own forward kinematics."""
    n = root.shape[0]
    glob, pos = {}, {}
    for role, par, offset in joints:
        rot = local.get(role, np.broadcast_to(np.eye(3), (n, 3, 3)))
        if par is None:
            glob[role], pos[role] = rot, root + offset
        else:
            glob[role] = glob[par] @ rot
            pos[role] = pos[par] + glob[par] @ offset
    return pos


def _bvh_text(joints, ends, names, root, local, frame_time, world=np.eye(3)) -> str:
    """BVH text of a skeleton and motion, its whole world turned by ``world``."""
    n = root.shape[0]
    kids: dict[str | None, list] = {}
    for j in joints:
        kids.setdefault(j[1], []).append(j)
    lines, cols = ["HIERARCHY"], [root @ world.T]

    def emit(role: str, par: str | None, offset: np.ndarray, depth: int) -> None:
        pad = "  " * depth
        order = _ORDERS.get(role, "ZYX")
        chans = " ".join(f"{a}rotation" for a in order)
        lines.append(f"{pad}{'ROOT' if par is None else 'JOINT'} {names[role]}")
        lines.append(pad + "{")
        lines.append(f"{pad}  OFFSET " + " ".join(f"{v:.6f}" for v in world @ offset))
        pos_chans = "Xposition Yposition Zposition " if par is None else ""
        lines.append(f"{pad}  CHANNELS {6 if par is None else 3} {pos_chans}{chans}")
        rot = local.get(role, np.broadcast_to(np.eye(3), (n, 3, 3)))
        cols.append(Rotation.from_matrix(world @ rot @ world.T).as_euler(order, degrees=True))
        for child in kids.get(role, []):
            emit(*child, depth + 1)
        if role in ends:
            lines.extend([f"{pad}  End Site", pad + "  {",
                      f"{pad}    OFFSET " + " ".join(f"{v:.6f}" for v in world @ ends[role]),
                      pad + "  }"])  # fmt: skip
        lines.append(pad + "}")

    emit(*joints[0], 0)
    data = np.concatenate(cols, axis=1)
    lines += ["MOTION", f"Frames: {n}", f"Frame Time: {frame_time:.6f}"]
    lines += [" ".join(f"{v:.6f}" for v in row) for row in data]
    return "\n".join(lines) + "\n"


# SMPL bones checked, by (parent joint, child joint): the BVH bone between the joints mapped to
# them must point the same way (neck -> head spans CMU's extra Neck1).
_BONES = [
    ("pelvis", "spine1"), ("pelvis", "left_hip"), ("pelvis", "right_hip"),
    ("spine1", "spine2"), ("spine2", "spine3"), ("spine3", "neck"), ("neck", "head"),
    ("spine3", "left_collar"), ("spine3", "right_collar"),
    ("left_collar", "left_shoulder"), ("right_collar", "right_shoulder"),
    ("left_shoulder", "left_elbow"), ("left_elbow", "left_wrist"),
    ("right_shoulder", "right_elbow"), ("right_elbow", "right_wrist"),
    ("left_hip", "left_knee"), ("left_knee", "left_ankle"), ("left_ankle", "left_foot"),
    ("right_hip", "right_knee"), ("right_knee", "right_ankle"), ("right_ankle", "right_foot"),
]  # fmt: skip


@pytest.mark.parametrize(
    "style, arms_down, world",
    [
        ("cmu", False, "y-up"),
        ("cmu", True, "y-up"),
        ("mixamo", True, "y-up"),
        ("cmu_quirks", True, "y-up"),
        ("cmu", False, "z-up"),
        ("mixamo", False, "turned"),
    ],
)
def test_bvh_retargeted_bones_point_like_the_bvh(
    tmp_path: Path, style: str, arms_down: bool, world: str
) -> None:
    n = 6
    joints, ends = _skeleton(style, arms_down)
    root, local = _motion(n, arms_down)
    # z-up: the file's world has y turned onto z (the loader turns it back); turned: the file's
    # body faces 150 degrees away from +z, and so must the imported one.
    turn = Rotation.from_euler("y", 150.0 if world == "turned" else 0.0, degrees=True).as_matrix()
    tilt = _rx(90.0) if world == "z-up" else np.eye(3)
    text = _bvh_text(joints, ends, _names(style), root, local, 1 / 60, tilt @ turn)
    path = tmp_path / f"{style}.bvh"
    write_text(path, text)
    seq = load_bvh(path)
    assert seq.fps == pytest.approx(60.0) and seq.num_frames == n

    expected = {k: v @ turn.T for k, v in _world(joints, root, local).items()}  # y-up, cm
    pos = _fk(seq)
    undefined = [("spine3", "neck"), ("spine3", "left_collar"), ("spine3", "right_collar")]
    for a, b in _BONES:
        if style == "cmu_quirks" and (a, b) in undefined:
            continue  # zero-length BVH bones have no direction
        got = pos[:, INDEX[b]] - pos[:, INDEX[a]]
        want = expected[b] - expected[a]
        err = _angle_deg(got, want)
        assert np.all(err < 2.0), (a, b, err)
    # the BVH forearm's twist about its bone is SMPL's forearm twist about its bone (+x)
    twist = np.degrees(np.linalg.norm(seq.poses[:, INDEX["left_elbow"]], axis=1))
    np.testing.assert_allclose(twist, np.linspace(0.0, 40.0, n), atol=0.5)
    axis = _angle_deg(seq.poses[1:, INDEX["left_elbow"]], np.array([1.0, 0.0, 0.0]))
    assert np.all(axis < 2.0), axis
    # the left arm ends up raised, on the body's left; unmapped hands stay at rest
    wrist, shoulder = pos[-1, INDEX["left_wrist"]], pos[-1, INDEX["left_shoulder"]]
    assert wrist[1] > shoulder[1] + 0.2
    np.testing.assert_allclose(seq.poses[:, [22, 23]], 0.0)
    # root in metres: the hips walked 100 cm along +x at the mannequin's standing height
    np.testing.assert_allclose(seq.trans[0], [0.0, 0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(seq.trans[-1] - seq.trans[0], turn @ [1.0, 0.0, 0.0], atol=1e-6)
    facing = rotvec_to_matrix(seq.poses[0, 0]) @ [0.0, 0.0, 1.0]
    np.testing.assert_allclose(facing, turn @ [0.0, 0.0, 1.0], atol=1e-6)
    np.testing.assert_allclose(pos[:, 0], expected["pelvis"] / 100.0, atol=1e-6)


_CONVENTIONS = {
    "unreal": (
        ["pelvis", "spine_01", "spine_02", "spine_03", "neck_01", "head"],
        {"collar": "clavicle", "shoulder": "upperarm", "elbow": "lowerarm", "wrist": "hand",
         "hip": "thigh", "knee": "calf", "ankle": "foot", "foot": "ball"},
        "{word}_{s}",
    ),
    "daz": (
        ["hip", "abdomen", "abdomen2", "chest", "neck", "head"],
        {"collar": "Collar", "shoulder": "Shldr", "elbow": "ForeArm", "wrist": "Hand",
         "hip": "Thigh", "knee": "Shin", "ankle": "Foot", "foot": "Toe"},
        "{s}{word}",
    ),
    "blender": (
        ["Hips", "Spine", "Chest", "UpperChest", "Neck", "Head"],
        {"collar": "shoulder", "shoulder": "upper_arm", "elbow": "forearm", "wrist": "hand",
         "hip": "thigh", "knee": "shin", "ankle": "foot", "foot": "toe"},
        "{word}.{S}",
    ),
    "biped": (
        ["Bip01_Pelvis", "Bip01_Spine", "Bip01_Spine1", "Bip01_Spine2", "Bip01_Neck",
         "Bip01_Head"],
        {"collar": "Clavicle", "shoulder": "UpperArm", "elbow": "Forearm", "wrist": "Hand",
         "hip": "Thigh", "knee": "Calf", "ankle": "Foot", "foot": "Toe0"},
        "Bip01_{S}_{word}",
    ),
    "smpl": (
        ["Pelvis", "Spine1", "Spine2", "Spine3", "Neck", "Head"],
        {"collar": "Collar", "shoulder": "Shoulder", "elbow": "Elbow", "wrist": "Wrist",
         "hip": "Hip", "knee": "Knee", "ankle": "Ankle", "foot": "Foot"},
        "{S}_{word}",
    ),
}  # fmt: skip


@pytest.mark.parametrize("convention", sorted(_CONVENTIONS))
def test_bvh_naming_conventions_map_alike(tmp_path: Path, convention: str) -> None:
    center, limbs, pattern = _CONVENTIONS[convention]
    names = dict(zip(["pelvis", "spine1", "spine2", "spine3", "neck", "head"], center))
    for side in ("left", "right"):
        for role, word in limbs.items():
            names[f"{side}_{role}"] = pattern.format(s=side[0], S=side[0].upper(), word=word)
    joints, ends = _skeleton("mixamo", True)
    root, local = _motion(4, True)
    write_text(tmp_path / "a.bvh", _bvh_text(joints, ends, _names("mixamo"), root, local, 0.02))
    write_text(tmp_path / "b.bvh", _bvh_text(joints, ends, names, root, local, 0.02))
    reference, seq = load_bvh(tmp_path / "a.bvh"), load_bvh(tmp_path / "b.bvh")
    np.testing.assert_allclose(seq.poses, reference.poses, atol=1e-9)
    np.testing.assert_allclose(seq.trans, reference.trans, atol=1e-9)


def test_bvh_resampled_and_dispatched(tmp_path: Path) -> None:
    joints, ends = _skeleton("cmu", False)
    root, local = _motion(7, False)
    path = tmp_path / "walk.bvh"
    write_text(path, _bvh_text(joints, ends, _names("cmu"), root, local, 1 / 60))
    full = load_bvh(path)
    half = load_motion(path, fps=30)
    assert half.fps == 30 and half.num_frames == 4
    np.testing.assert_allclose(half.poses, full.poses[::2], atol=1e-9)
    np.testing.assert_allclose(half.trans, full.trans[::2], atol=1e-9)


def test_bvh_unmappable_skeleton_names_file_and_joints(tmp_path: Path) -> None:
    text = """HIERARCHY
ROOT Root
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Bone1
  {
    OFFSET 0 10 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 10 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.033333
0 0 0 0 0 0 0 0 0
0 1 0 0 0 0 0 0 0
"""
    path = tmp_path / "stick.bvh"
    write_text(path, text)
    with pytest.raises(MotionImportError) as err:
        load_bvh(path)
    msg = str(err.value)
    assert "stick.bvh" in msg and "Root, Bone1" in msg
    for joint in ("pelvis", "spine", "left_hip", "right_knee", "left_shoulder", "right_wrist"):
        assert joint in msg, joint


def test_bvh_missing_arm_and_bad_text(tmp_path: Path) -> None:
    joints, ends = _skeleton("cmu", False)
    keep = [j for j in joints if not j[0].startswith("right_") or "hip" in j[0] or
            "knee" in j[0] or "ankle" in j[0] or "foot" in j[0]]  # fmt: skip
    root, local = _motion(3, False)
    path = tmp_path / "onearm.bvh"
    write_text(path, _bvh_text(keep, ends, _names("cmu"), root, local, 1 / 30))
    with pytest.raises(MotionImportError) as err:
        load_bvh(path)
    msg = str(err.value)
    assert "onearm.bvh" in msg and "right_shoulder" in msg and "left_shoulder (" not in msg
    bad = tmp_path / "bad.bvh"
    write_text(bad, "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0\n}\n")
    with pytest.raises(MotionImportError, match="bad.bvh"):
        load_bvh(bad)


def test_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(MotionImportError, match=r"clip\.fbx.*'\.fbx'"):
        load_motion(tmp_path / "clip.fbx")


# ------------------------------------------------------------ BVH layouts mapped by structure


def _at(role: str, side: str = "") -> np.ndarray:
    """A mannequin joint's rest position in cm (``side`` fills a ``{s}`` in the role)."""
    return REST_JOINTS[INDEX[role.format(s=side)]] * 100.0


class _Layout:
    """A BVH skeleton written node by node at absolute rest positions (cm), with the SMPL
    role each node is expected to play."""

    def __init__(self) -> None:
        self.nodes: list[tuple[str, str | None, np.ndarray]] = []
        self.ends: dict[str, np.ndarray] = {}
        self.roles: dict[str, str] = {}
        self.where: dict[str, np.ndarray] = {}

    def add(self, name: str, parent: str | None, pos, role: str = "") -> str:
        self.nodes.append((name, parent, np.asarray(pos, dtype=np.float64)))
        self.where[name] = np.asarray(pos, dtype=np.float64)
        if role:
            self.roles[role] = name
        return name

    def chain(self, parent: str, links) -> str:
        """Nodes one below the other: (name, position, role) each."""
        for name, pos, role in links:
            parent = self.add(name, parent, pos, role)
        return parent

    def end(self, name: str, pos) -> None:
        self.ends[name] = np.asarray(pos, dtype=np.float64) - self.where[name]

    def joints(self) -> list[tuple[str, str | None, np.ndarray]]:
        """(name, parent, offset) in depth-first-compatible order, as ``_bvh_text`` wants."""
        return [(n, p, pos - self.where[p] if p else np.zeros(3)) for n, p, pos in self.nodes]

    def text(self, local: dict[str, np.ndarray], root: np.ndarray, world=np.eye(3)) -> str:
        names = {n: n for n, _, _ in self.nodes}
        return _bvh_text(self.joints(), self.ends, names, root, local, 1 / 30, world)


def _lowered(p: np.ndarray, side: str, degrees: float) -> np.ndarray:
    """An arm point turned down about the shoulder by ``degrees`` (an A-pose rest)."""
    turn = Rotation.from_euler("z", -degrees if side == "left" else degrees, degrees=True)
    s = _at("{s}_shoulder", side)
    return s + turn.as_matrix() @ (p - s)


def _fingers(lay: _Layout, wrist: str, side: str, name, a_pose: float, hand_role: str) -> None:
    """Five fingers of three joints and a tip; the middle one's base is SMPL's hand joint."""
    w, h = _at("{s}_wrist", side), _at("{s}_hand", side)
    along = (h - w) / np.linalg.norm(h - w)
    for finger, dz, scale in (("Thumb", 3.5, 0.6), ("Index", 2.0, 0.95), ("Middle", 0.0, 1.0),
                              ("Ring", -2.0, 0.95), ("Pinky", -3.8, 0.8)):  # fmt: skip
        base = (w + 0.5 * (h - w) if finger == "Thumb" else h) + [0.0, 0.0, dz]
        pts = [base + along * scale * k for k in (0.0, 3.5, 6.0, 8.0)]
        parent = wrist
        for k, p in enumerate(pts[:3]):
            role = hand_role if finger == "Middle" and k == 0 else ""
            parent = lay.add(name(finger, k + 1), parent, _lowered(p, side, a_pose), role)
        lay.end(parent, _lowered(pts[3], side, a_pose))


def _mixamo() -> _Layout:
    """Mixamo: ``mixamorig:`` names, A-pose rest, five fingers, Toe_End and HeadTop_End."""
    lay, m, a = _Layout(), "mixamorig:", 40.0
    lay.add(m + "Hips", None, _at("pelvis"), "pelvis")
    for s in ("left", "right"):
        S = s.capitalize()
        toe = lay.chain(m + "Hips", [
            (f"{m}{S}UpLeg", _at("{s}_hip", s), f"{s}_hip"),
            (f"{m}{S}Leg", _at("{s}_knee", s), f"{s}_knee"),
            (f"{m}{S}Foot", _at("{s}_ankle", s), f"{s}_ankle"),
            (f"{m}{S}ToeBase", _at("{s}_foot", s), f"{s}_foot"),
            (f"{m}{S}Toe_End", _at("{s}_foot", s) + [0, 0, 6.0], ""),
        ])  # fmt: skip
        lay.end(toe, lay.where[toe] + [0, 0, 2.0])
    top = lay.chain(m + "Hips", [(m + "Spine", _at("spine1"), "spine1"),
                                 (m + "Spine1", _at("spine2"), "spine2"),
                                 (m + "Spine2", _at("spine3"), "spine3")])  # fmt: skip
    head = lay.chain(top, [(m + "Neck", _at("neck"), "neck"), (m + "Head", _at("head"), "head"),
                           (m + "HeadTop_End", _at("head") + [0, 18.0, 0], "")])  # fmt: skip
    lay.end(head, lay.where[head] + [0, 1.0, 0])
    for s in ("left", "right"):
        S = s.capitalize()
        wrist = lay.chain(top, [
            (f"{m}{S}Shoulder", _at("{s}_collar", s), f"{s}_collar"),
            (f"{m}{S}Arm", _at("{s}_shoulder", s), f"{s}_shoulder"),
            (f"{m}{S}ForeArm", _lowered(_at("{s}_elbow", s), s, a), f"{s}_elbow"),
            (f"{m}{S}Hand", _lowered(_at("{s}_wrist", s), s, a), f"{s}_wrist"),
        ])  # fmt: skip
        _fingers(lay, wrist, s, lambda f, k, S=S: f"{m}{S}Hand{f}{k}", a, f"{s}_hand")
    return lay


def _biped() -> _Layout:
    """3ds Max Biped: a ``Bip01`` root, the thighs hang from ``Bip01 Spine`` (above the
    pelvis) and the clavicles from ``Bip01 Neck``; three fingers."""
    lay = _Layout()
    lay.add("Bip01", None, _at("pelvis"))
    lay.add("Bip01 Pelvis", "Bip01", _at("pelvis"))
    hub = lay.add("Bip01 Spine", "Bip01 Pelvis", _at("pelvis") + [0, 6.0, 0], "pelvis")
    for s in ("left", "right"):
        L = s[0].upper()
        toe = lay.chain(hub, [
            (f"Bip01 {L} Thigh", _at("{s}_hip", s), f"{s}_hip"),
            (f"Bip01 {L} Calf", _at("{s}_knee", s), f"{s}_knee"),
            (f"Bip01 {L} Foot", _at("{s}_ankle", s), f"{s}_ankle"),
            (f"Bip01 {L} Toe0", _at("{s}_foot", s), f"{s}_foot"),
        ])  # fmt: skip
        lay.end(toe, lay.where[toe] + [0, 0, 6.0])
    neck = lay.chain(hub, [("Bip01 Spine1", _at("spine2"), "spine1"),
                           ("Bip01 Spine2", _at("spine3"), "spine2"),
                           ("Bip01 Neck", _at("neck"), "spine3")])  # fmt: skip
    head = lay.add("Bip01 Head", neck, _at("head"), "head")
    lay.end(head, _at("head") + [0, 18.0, 0])
    for s in ("left", "right"):
        L = s[0].upper()
        wrist = lay.chain(neck, [
            (f"Bip01 {L} Clavicle", _at("{s}_collar", s), f"{s}_collar"),
            (f"Bip01 {L} UpperArm", _at("{s}_shoulder", s), f"{s}_shoulder"),
            (f"Bip01 {L} Forearm", _at("{s}_elbow", s), f"{s}_elbow"),
            (f"Bip01 {L} Hand", _at("{s}_wrist", s), f"{s}_wrist"),
        ])  # fmt: skip
        for k, (dz, role) in enumerate(((3.0, ""), (1.5, ""), (0.0, f"{s}_hand"))):
            f = lay.chain(wrist, [(f"Bip01 {L} Finger{k}", _at("{s}_hand", s) + [0, 0, dz], role),
                                  (f"Bip01 {L} Finger{k}1", _at("{s}_hand", s) * [1.03 + 0.01 * k, 1, 1]
                                   + [0, 0, dz], "")])  # fmt: skip
            lay.end(f, lay.where[f] * [1.03, 1, 1])
    return lay


def _unreal() -> _Layout:
    """Unreal (UE5 mannequin): a root on the floor, IK bones, five spine joints, two neck
    joints, twist bones beside the limbs, metacarpals."""
    lay = _Layout()
    lay.add("root", None, np.zeros(3))
    lay.add("pelvis", "root", _at("pelvis"), "pelvis")
    for s in ("left", "right"):
        x = s[0]
        thigh = lay.add(f"thigh_{x}", "pelvis", _at("{s}_hip", s), f"{s}_hip")
        lay.end(
            lay.add(f"thigh_twist_01_{x}", thigh, 0.5 * (_at("{s}_hip", s) + _at("{s}_knee", s))),
            0.5 * (_at("{s}_hip", s) + _at("{s}_knee", s)) + [0, -3, 0],
        )
        toe = lay.chain(thigh, [
            (f"calf_{x}", _at("{s}_knee", s), f"{s}_knee"),
            (f"foot_{x}", _at("{s}_ankle", s), f"{s}_ankle"),
            (f"ball_{x}", _at("{s}_foot", s), f"{s}_foot"),
        ])  # fmt: skip
        lay.end(toe, lay.where[toe] + [0, 0, 6.0])
    spine = [_at("spine1") + (_at("spine3") - _at("spine1")) * k / 4 for k in range(5)]
    top = lay.chain("pelvis", [(f"spine_0{k + 1}", p, {0: "spine1", 2: "spine2", 4: "spine3"}
                                .get(k, "")) for k, p in enumerate(spine)])  # fmt: skip
    head = lay.chain(top, [("neck_01", _at("neck"), "neck"),
                           ("neck_02", 0.5 * (_at("neck") + _at("head")), ""),
                           ("head", _at("head"), "head")])  # fmt: skip
    lay.end(head, _at("head") + [0, 18.0, 0])
    for s in ("left", "right"):
        x = s[0]
        upper = lay.chain(
            top,
            [
                (f"clavicle_{x}", _at("{s}_collar", s), f"{s}_collar"),
                (f"upperarm_{x}", _at("{s}_shoulder", s), f"{s}_shoulder"),
            ],
        )
        for k, t in ((1, 0.33), (2, 0.66)):
            p = _at("{s}_shoulder", s) + t * (_at("{s}_elbow", s) - _at("{s}_shoulder", s))
            lay.end(lay.add(f"upperarm_twist_0{k}_{x}", upper, p), p * [1.02, 1, 1])
        wrist = lay.chain(
            upper,
            [
                (f"lowerarm_{x}", _at("{s}_elbow", s), f"{s}_elbow"),
                (f"hand_{x}", _at("{s}_wrist", s), f"{s}_wrist"),
            ],
        )
        w, h = _at("{s}_wrist", s), _at("{s}_hand", s)
        meta = lay.add(f"middle_metacarpal_{x}", wrist, w + 0.15 * (h - w))
        lay.roles.pop(f"{s}_hand", None)
        _fingers(lay, meta, s, lambda f, k, x=x: f"{f.lower()}_0{k}_{x}", 0.0, f"{s}_hand")
    lay.add("ik_foot_root", "root", np.zeros(3))
    for s in ("left", "right"):
        lay.end(lay.add(f"ik_foot_{s[0]}", "ik_foot_root", _at("{s}_ankle", s)),
                _at("{s}_ankle", s) + [0, 0, 1.0])  # fmt: skip
    gun = lay.add("ik_hand_gun", lay.add("ik_hand_root", "root", np.zeros(3)), _at("right_wrist"))
    for s in ("right", "left"):
        lay.end(lay.add(f"ik_hand_{s[0]}", gun, _at("{s}_wrist", s)), _at("{s}_wrist", s) + 1.0)
    return lay


def _daz() -> _Layout:
    """DAZ Genesis 3/8: a ``hip`` root, the thighs under ``pelvis`` (its sibling the
    abdomen), bend/twist pairs in the limbs' own chains, four spine joints."""
    lay = _Layout()
    lay.add("hip", None, _at("pelvis"), "pelvis")
    lay.add("pelvis", "hip", _at("pelvis") - [0, 3.0, 0])
    for s in ("left", "right"):
        x = s[0]
        hip, knee = _at("{s}_hip", s), _at("{s}_knee", s)
        toe = lay.chain("pelvis", [
            (f"{x}ThighBend", hip, f"{s}_hip"), (f"{x}ThighTwist", hip + 0.3 * (knee - hip), ""),
            (f"{x}Shin", knee, f"{s}_knee"), (f"{x}Foot", _at("{s}_ankle", s), f"{s}_ankle"),
            (f"{x}Metatarsals", 0.5 * (_at("{s}_ankle", s) + _at("{s}_foot", s)), ""),
            (f"{x}Toe", _at("{s}_foot", s), f"{s}_foot"),
        ])  # fmt: skip
        lay.end(toe, lay.where[toe] + [0, 0, 6.0])
    s1, s3 = _at("spine1"), _at("spine3")
    top = lay.chain("hip", [("abdomenLower", s1, "spine1"),
                            ("abdomenUpper", s1 + (s3 - s1) / 3, "spine2"),
                            ("chestLower", s1 + 2 * (s3 - s1) / 3, ""),
                            ("chestUpper", s3, "spine3")])  # fmt: skip
    head = lay.chain(top, [("neckLower", _at("neck"), "neck"),
                           ("neckUpper", 0.5 * (_at("neck") + _at("head")), ""),
                           ("head", _at("head"), "head")])  # fmt: skip
    lay.end(head, _at("head") + [0, 18.0, 0])
    for s in ("left", "right"):
        x = s[0]
        sh, el, wr = _at("{s}_shoulder", s), _at("{s}_elbow", s), _at("{s}_wrist", s)
        wrist = lay.chain(top, [
            (f"{x}Collar", _at("{s}_collar", s), f"{s}_collar"),
            (f"{x}ShldrBend", sh, f"{s}_shoulder"), (f"{x}ShldrTwist", sh + 0.5 * (el - sh), ""),
            (f"{x}ForearmBend", el, f"{s}_elbow"), (f"{x}ForearmTwist", el + 0.5 * (wr - el), ""),
            (f"{x}Hand", wr, f"{s}_wrist"),
        ])  # fmt: skip
        _fingers(lay, wrist, s, lambda f, k, x=x: f"{x}{f[:3]}{k}", 0.0, f"{s}_hand")
    return lay


def _plain(spine: int, anonymous: bool) -> _Layout:
    """A bare skeleton with ``spine`` spine joints (Spine, Spine1, ...); ``anonymous`` names
    every joint ``j00``, ``j01``, ... so only the structure can map it."""
    lay = _Layout()
    lay.add("Hips", None, _at("pelvis"), "pelvis")
    for s in ("left", "right"):
        S = s.capitalize()
        toe = lay.chain("Hips", [
            (f"{S}UpLeg", _at("{s}_hip", s), f"{s}_hip"),
            (f"{S}Leg", _at("{s}_knee", s), f"{s}_knee"),
            (f"{S}Foot", _at("{s}_ankle", s), f"{s}_ankle"),
            (f"{S}ToeBase", _at("{s}_foot", s), f"{s}_foot"),
        ])  # fmt: skip
        lay.end(toe, lay.where[toe] + [0, 0, 6.0])
    s1, s3 = _at("spine1"), _at("spine3")
    pts = [s1 + (s3 - s1) * k / max(spine - 1, 1) for k in range(spine)] if spine > 1 else [s3]
    slots = {1: ["spine3"], 2: ["spine1", "spine3"], 3: ["spine1", "spine2", "spine3"],
             4: ["spine1", "spine2", "", "spine3"]}[spine]  # fmt: skip
    top = lay.chain("Hips", [("Spine" + (str(k) if k else ""), p, r)
                             for k, (p, r) in enumerate(zip(pts, slots))])  # fmt: skip
    head = lay.chain(top, [("Neck", _at("neck"), "neck"), ("Head", _at("head"), "head")])
    lay.end(head, _at("head") + [0, 18.0, 0])
    for s in ("left", "right"):
        S = s.capitalize()
        wrist = lay.chain(top, [
            (f"{S}Shoulder", _at("{s}_collar", s), f"{s}_collar"),
            (f"{S}Arm", _at("{s}_shoulder", s), f"{s}_shoulder"),
            (f"{S}ForeArm", _at("{s}_elbow", s), f"{s}_elbow"),
            (f"{S}Hand", _at("{s}_wrist", s), f"{s}_wrist"),
        ])  # fmt: skip
        lay.end(wrist, _at("{s}_hand", s))
    if anonymous:
        rename = {n: f"j{k:02d}" for k, (n, _, _) in enumerate(lay.nodes)}
        lay.nodes = [(rename[n], rename.get(p), pos) for n, p, pos in lay.nodes]
        lay.where = {rename[n]: v for n, v in lay.where.items()}
        lay.ends = {rename[n]: v for n, v in lay.ends.items()}
        lay.roles = {r: rename[n] for r, n in lay.roles.items()}
    return lay


_LAYOUTS = {
    "mixamo": _mixamo, "biped": _biped, "unreal": _unreal, "daz": _daz,
    "spine4": lambda: _plain(4, False), "spine1": lambda: _plain(1, False),
    "spine2": lambda: _plain(2, False), "anonymous": lambda: _plain(3, True),
}  # fmt: skip

# bones whose SMPL parent has one mapped child: the retargeted bone points exactly like the
# BVH bone between the joints playing its two ends
_LIMB_BONES = [(f"{s}_{a}", f"{s}_{b}") for s in ("left", "right") for a, b in (
    ("hip", "knee"), ("knee", "ankle"), ("ankle", "foot"), ("collar", "shoulder"),
    ("shoulder", "elbow"), ("elbow", "wrist"))] + [("spine1", "spine2"), ("neck", "head")]  # fmt: skip


def _layout_motion(lay: _Layout, n: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The test motion (see ``_motion``) on whichever joints play its roles, the root walking
    from where the layout's root stands."""
    root, local = _motion(n, arms_down=False)
    by_name = {lay.roles[r]: rot for r, rot in local.items() if r in lay.roles}
    first = lay.nodes[0][2]
    return root - root[0] + first, by_name


@pytest.mark.parametrize("layout", sorted(_LAYOUTS))
@pytest.mark.parametrize("turned", [False, True])
def test_bvh_layouts_map_by_structure_and_bones_follow(
    tmp_path: Path, layout: str, turned: bool
) -> None:
    """Each rig's own hierarchy (extra root, IK bones, twist joints, fingers, any spine
    length, no usable names) maps every role onto the joint that plays it, and the retargeted
    limbs point like the BVH's; a file whose world faces another way maps alike."""
    lay = _LAYOUTS[layout]()
    root, local = _layout_motion(lay, 5)
    turn = Rotation.from_euler("y", 150.0 if turned else 0.0, degrees=True).as_matrix()
    path = tmp_path / f"{layout}.bvh"
    write_text(path, lay.text(local, root, turn))
    assert skeleton_map(path) == {r: lay.roles[r] for r in sorted(lay.roles, key=INDEX.get)}
    seq = load_bvh(path)
    pos = _fk(seq)
    joints = [(n, p, off) for n, p, off in lay.joints()]
    expected = {k: v @ turn.T for k, v in _world(joints, root, local).items()}
    for a, b in _LIMB_BONES:
        if a in lay.roles and b in lay.roles:
            want = expected[lay.roles[b]] - expected[lay.roles[a]]
            err = _angle_deg(pos[:, INDEX[b]] - pos[:, INDEX[a]], want)
            assert np.all(err < 2.0), (layout, a, b, err)
    # the left arm rose on the body's left, whatever the names
    assert pos[-1, INDEX["left_wrist"], 1] > pos[-1, INDEX["left_shoulder"], 1] + 0.2


def _odd_arms() -> _Layout:
    """A rig whose arms hang from different spine joints: no mirrored pair of arms, so its
    structure alone cannot be mapped."""
    lay = _plain(3, False)
    lay.nodes = [(n, "Spine1" if n == "RightShoulder" else p, pos) for n, p, pos in lay.nodes]
    del lay.roles["spine2"]
    lay.roles["spine3"] = "Spine1"  # SMPL's collars hang from spine3: the lower arm's parent
    return lay


def test_bvh_joint_map_overrides_and_completes_the_mapping(tmp_path: Path) -> None:
    lay = _odd_arms()
    root, local = _layout_motion(lay, 4)
    path = tmp_path / "odd.bvh"
    write_text(path, lay.text(local, root))
    with pytest.raises(MotionImportError) as err:
        load_bvh(path)
    msg = str(err.value)
    assert "odd.bvh" in msg and "mirrored limbs" in msg and "joint map" in msg
    assert "left_shoulder" in msg and "RightShoulder" in msg
    # a full map (what `tempogen human map` prints for a mappable rig) makes it load
    full = tmp_path / "full.yaml"
    write_text(full, "".join(f"{r}: {n}\n" for r, n in lay.roles.items()))
    assert skeleton_map(path, full) == {r: lay.roles[r] for r in sorted(lay.roles, key=INDEX.get)}
    seq = load_motion(path, joint_map=full)
    pos, expected = _fk(seq), _world(lay.joints(), root, local)
    for a, b in [(a, b) for a, b in _LIMB_BONES if a in lay.roles and b in lay.roles]:
        want = expected[lay.roles[b]] - expected[lay.roles[a]]
        assert np.all(_angle_deg(pos[:, INDEX[b]] - pos[:, INDEX[a]], want) < 2.0), (a, b)
    # a partial map lays itself over the structure's answer; null unmaps a joint
    plain = tmp_path / "plain.bvh"
    write_text(plain, _plain(3, False).text(local, root))
    part = tmp_path / "part.yaml"
    write_text(part, "left_foot: null\nhead: Neck\nneck: null\n")
    got = skeleton_map(plain, part)
    assert "left_foot" not in got and "neck" not in got and got["head"] == "Neck"
    assert got["right_foot"] == "RightToeBase"


@pytest.mark.parametrize(
    "text, where, what",
    [
        ("left_wrist: LeftHand\nelbo: LeftForeArm\n", "bad.yaml:2: elbo", "not an SMPL joint"),
        ("left_wrist: NoSuchJoint\n", "bad.yaml: left_wrist", "no joint named 'NoSuchJoint'"),
        ("left_wrist: [a, b]\n", "bad.yaml:1: left_wrist", "expected a BVH joint name"),
        ("- left_wrist\n", "bad.yaml", "a joint map is a mapping"),
    ],
)
def test_bvh_joint_map_errors_name_file_line_and_key(
    tmp_path: Path, text: str, where: str, what: str
) -> None:
    lay = _plain(3, False)
    root, local = _layout_motion(lay, 2)
    write_text(tmp_path / "a.bvh", lay.text(local, root))
    write_text(tmp_path / "bad.yaml", text)
    with pytest.raises(MotionImportError) as err:
        load_bvh(tmp_path / "a.bvh", joint_map=tmp_path / "bad.yaml")
    assert where in str(err.value) and what in str(err.value)
    with pytest.raises(MotionImportError, match="BVH files only"):
        load_motion(tmp_path / "a.npz", joint_map=tmp_path / "bad.yaml")


def _project(camera: dict, p: np.ndarray, width: int, height: int) -> np.ndarray:
    """A pinhole projection written out by hand: world -> camera (OpenGL axes, looking down
    -z) -> pixels, from the camera's vertical field of view and pose."""
    pose = np.array(camera["pose"])
    rel = (p - pose[:3, 3]) @ pose[:3, :3]
    f = 0.5 * height / np.tan(np.radians(camera["yfov_deg"]) / 2)
    return np.array([width / 2 + f * rel[0] / -rel[2], height / 2 - f * rel[1] / -rel[2]])


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["biped", "unreal", "daz", "anonymous"])
def test_bvh_layout_renders_the_hand_computed_pose(tmp_path: Path, layout: str) -> None:
    """Every layout raising its left arm straight up: in the rendered clip's joints, the
    left elbow and wrist stand straight above the left shoulder, one and two bone lengths up,
    and their pixels are the hand-computed projections of those points."""
    lay = _LAYOUTS[layout]()
    n = 3
    up = Rotation.from_euler("z", np.linspace(0.0, 90.0, n)[:, None], degrees=True).as_matrix()
    local = {lay.roles["left_shoulder"]: up}
    root = np.tile(lay.nodes[0][2], (n, 1))
    path = tmp_path / f"{layout}.bvh"
    write_text(path, lay.text(local, root))
    out = tmp_path / "clip.mp4"
    truth = render_motion_files(load_bvh(path), out, tmp_path / "clip.joints.json",
                                width=160, height=96)  # fmt: skip
    j3, j2 = np.array(truth["joints3d"]), np.array(truth["joints2d"])
    sh, el, wr = (INDEX[f"left_{k}"] for k in ("shoulder", "elbow", "wrist"))
    upper = np.linalg.norm(j3[0, el] - j3[0, sh])  # the body's own bones, at rest (frame 0)
    fore = np.linalg.norm(j3[0, wr] - j3[0, el])
    shoulder = j3[-1, sh]
    for joint, rise in ((el, upper), (wr, upper + fore)):
        want = shoulder + [0.0, rise, 0.0]
        np.testing.assert_allclose(j3[-1, joint], want, atol=0.01)
        px = _project(truth["camera"], want, 160, 96)
        np.testing.assert_allclose(j2[-1, joint], px, atol=0.6)
    # the right arm stays out to the side at shoulder height (T-pose rest)
    assert abs(j3[-1, INDEX["right_wrist"], 1] - j3[-1, INDEX["right_shoulder"], 1]) < 0.02
    assert out.is_file() and out.stat().st_size > 0


def test_cli_human_map_prints_a_joint_map_that_loads_back(tmp_path: Path, capsys) -> None:
    from tempogen.cli import main

    lay = _daz()
    root, local = _layout_motion(lay, 2)
    path = tmp_path / "daz.bvh"
    write_text(path, lay.text(local, root))
    assert main(["human", "map", str(path)]) == 0
    printed = capsys.readouterr().out
    assert 'left_elbow: "lForearmBend"' in printed and "lForearmTwist" not in printed
    edited = tmp_path / "map.yaml"
    write_text(edited, printed.replace('left_wrist: "lHand"', 'left_wrist: "lForearmTwist"'))
    assert skeleton_map(path, edited)["left_wrist"] == "lForearmTwist"
    out = tmp_path / "daz.mp4"
    argv = ["human", "render", str(path), "--out", str(out), "--size", "64x48"]
    assert main([*argv, "--joint-map", str(tmp_path / "none.yaml")]) == 2
    assert "none.yaml" in capsys.readouterr().err and not out.exists()
