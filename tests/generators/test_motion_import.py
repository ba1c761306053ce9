"""Motion import: AMASS .npz, VIBE .pkl and BVH files the tests write themselves, checked with
forward kinematics on SMPL's tree."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from tempogen.generators.motion_import import (
    MotionImportError,
    load_amass,
    load_bvh,
    load_motion,
    load_vibe,
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
