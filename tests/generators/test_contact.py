"""Imported motion stands on the floor (issue 26 item E): soles on y = 0 while a foot is
planted, a jump still leaves the floor, toes point as the file's, and a rendered walk keeps
the person readable with every 2D joint the projection through its frame's camera."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from tempogen.cli import main
from tempogen.generators.body import load_body
from tempogen.generators.motion_import import load_bvh
from tempogen.generators.motion_import.contact import ground, planted_feet, reshaped
from tempogen.generators.poses import PoseSequence
from tempogen.io import write_text

DATA = Path(__file__).resolve().parents[1] / "data" / "bvh"
FPS = 30
LEG = 83.0  # cm, hip joint to ankle of the hand-made rig (straight leg)
ANKLE = 2.0  # cm: its ankle sits this far above its toe joint, as CMU's (SMPL: 5.5 cm)
SWING = 20.0  # degrees each leg swings either side of straight down
STEP_TIME = 0.5  # seconds per step
TOE_TIP = 0.5  # share of the way from the ball to the front of the mesh's foot


def _rig() -> list[tuple[str, str | None, tuple[float, float, float]]]:
    """(name, parent, offset cm) of a Mixamo-named rig: legs of ``LEG`` cm, a low ankle."""
    rig: list[tuple[str, str | None, tuple[float, float, float]]] = [("Hips", None, (0, 0, 0))]
    for side, x in (("Left", 9.0), ("Right", -9.0)):
        rig += [
            (f"{side}UpLeg", "Hips", (x, -5.0, 0.0)),
            (f"{side}Leg", f"{side}UpLeg", (0.0, -LEG / 2, 0.0)),
            (f"{side}Foot", f"{side}Leg", (0.0, -LEG / 2, 0.0)),
            (f"{side}ToeBase", f"{side}Foot", (0.0, -ANKLE, 12.0)),
        ]
    rig += [
        ("Spine", "Hips", (0.0, 10.0, 0.0)),
        ("Spine1", "Spine", (0.0, 15.0, 0.0)),
        ("Spine2", "Spine1", (0.0, 15.0, 0.0)),
        ("Neck", "Spine2", (0.0, 18.0, 0.0)),
        ("Head", "Neck", (0.0, 10.0, 0.0)),
    ]
    for side, x in (("Left", 1.0), ("Right", -1.0)):
        rig += [
            (f"{side}Shoulder", "Spine2", (x * 4.0, 14.0, 0.0)),
            (f"{side}Arm", f"{side}Shoulder", (x * 14.0, 0.0, 0.0)),
            (f"{side}ForeArm", f"{side}Arm", (x * 27.0, 0.0, 0.0)),
            (f"{side}Hand", f"{side}ForeArm", (x * 25.0, 0.0, 0.0)),
        ]
    return rig


ENDS = {"LeftToeBase": (0, 0, 6.0), "RightToeBase": (0, 0, 6.0), "Head": (0, 15.0, 0)}
ENDS |= {"LeftHand": (8.0, 0, 0), "RightHand": (-8.0, 0, 0)}


def _bvh(path: Path, root: np.ndarray, bend: dict[str, np.ndarray], toes: bool = True) -> Path:
    """Write the rig with root positions (T, 3) cm and bends about x (degrees) per joint
    (without ``toes``, each ankle ends in an end site at the toe tip)."""
    rig = [j for j in _rig() if toes or "ToeBase" not in j[0]]
    ends = ENDS if toes else ENDS | {f"{s}Foot": (0.0, -ANKLE, 18.0) for s in ("Left", "Right")}
    kids: dict[str | None, list[tuple[str, str | None, tuple[float, float, float]]]] = {}
    for j in rig:
        kids.setdefault(j[1], []).append(j)
    lines, cols = ["HIERARCHY"], [root]
    zero = np.zeros(len(root))

    def emit(name: str, parent: str | None, off: tuple[float, float, float], d: int) -> None:
        pad = "  " * d
        lines.extend([f"{pad}{'ROOT' if parent is None else 'JOINT'} {name}", pad + "{"])
        lines.append(f"{pad}  OFFSET {off[0]:.4f} {off[1]:.4f} {off[2]:.4f}")
        pos = "Xposition Yposition Zposition " if parent is None else ""
        lines.append(
            f"{pad}  CHANNELS {6 if parent is None else 3} {pos}Zrotation Xrotation Yrotation"
        )
        cols.append(np.column_stack([zero, bend.get(name, zero), bend.get(name + ".yaw", zero)]))
        for kid in kids.get(name, []):
            emit(*kid, d + 1)
        if name in ends:
            e = ends[name]
            lines.extend([f"{pad}  End Site", pad + "  {", f"{pad}    OFFSET {e[0]} {e[1]} {e[2]}",
                          pad + "  }"])  # fmt: skip
        lines.append(pad + "}")

    emit(*rig[0], 0)
    data = np.concatenate(cols, axis=1)
    lines += ["MOTION", f"Frames: {len(root)}", f"Frame Time: {1.0 / FPS:.6f}"]
    lines += [" ".join(f"{v:.5f}" for v in row) for row in data]
    write_text(path, "\n".join(lines) + "\n")
    return path


def _walk(
    path: Path, seconds: float, yaw: float = 0.0, toes: bool = True
) -> tuple[Path, np.ndarray]:
    """A straight-legged walk along +z turned ``yaw`` degrees about y: the stance ankle stays
    put (the hips vault over it), the swing knee bends, both feet stay level. Returns the file
    and each frame's stance side (0 left, 1 right)."""
    t = np.arange(int(seconds * FPS) + 1) / FPS
    k = np.floor(t / STEP_TIME).astype(int)
    s = t / STEP_TIME - k
    a = np.radians(SWING)
    stance_angle = a * (1 - 2 * s)
    step = 2 * LEG * np.sin(a)
    root = np.column_stack(
        [0 * t, ANKLE + LEG * np.cos(stance_angle) + 5.0, k * step - LEG * np.sin(stance_angle)]
    )
    knee = 40.0 * np.sin(np.pi * s)
    st, sw = np.degrees(stance_angle), -np.degrees(stance_angle)
    bend: dict[str, np.ndarray] = {}
    left = k % 2 == 0  # the left foot bears the body on even steps
    for side, stands in (("Left", left), ("Right", ~left)):
        bend[f"{side}UpLeg"] = np.where(stands, -st, -sw)
        bend[f"{side}Leg"] = np.where(stands, 0.0, knee)
        bend[f"{side}Foot"] = np.where(stands, st, sw - knee)  # the foot stays level
    bend["Hips.yaw"] = np.full(len(t), yaw)
    turn = Rotation.from_euler("y", yaw, degrees=True)
    return _bvh(path, turn.apply(root), bend, toes), np.where(left, 0, 1)


def _hop(path: Path) -> tuple[Path, np.ndarray]:
    """Standing, then a 25 cm jump of 0.4 s, then standing: the frames in the air."""
    t = np.arange(int(1.2 * FPS) + 1) / FPS
    u = (t - 0.4) / 0.4
    air = (u > 0) & (u < 1)
    rise = np.where(air, 4 * 25.0 * u * (1 - u), 0.0)
    root = np.column_stack([0 * t, ANKLE + LEG + 5.0 + rise, 0 * t])
    return _bvh(path, root, {}), air


def _posed(seq: PoseSequence) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The mannequin posed by ``seq``: vertices, joints, and each foot's vertex mask."""
    body = load_body(None)
    frames = body.pose(seq)
    parts = np.asarray(body.parts)
    feet = np.stack([np.isin(parts, [7, 10]), np.isin(parts, [8, 11])])
    return frames.vertices.astype(np.float64), frames.joints, feet


def _planted(seq: PoseSequence) -> np.ndarray:
    v, j, feet = _posed(seq)
    low = v[..., 1].min(axis=1)
    foot_low = np.stack([v[:, m, 1].min(axis=1) for m in feet], axis=1)
    return planted_feet(low, foot_low, j, seq.fps)


def test_handmade_walk_soles_on_the_floor_toes_level_feet_held(tmp_path: Path) -> None:
    path, stance = _walk(tmp_path / "walk.bvh", 2.0, yaw=30.0)  # walks along x and z
    seq = load_bvh(path)
    ahead = Rotation.from_euler("y", 30.0, degrees=True).apply([0.0, 0.0, 1.0])
    v, j, feet = _posed(seq)
    low = v[..., 1].min(axis=1)
    # a foot bears the body in every frame: the lowest point of the mesh is on the floor
    assert np.abs(low).max() < 0.01, np.abs(low).max()
    # the file's feet stay level: so do the mannequin's soles (heel and toes of the stance
    # foot at one height) and its toes point straight ahead, not along the rig's slope
    rest = load_body(None).rest_vertices()
    for side, ball in ((0, 10), (1, 11)):
        foot = np.flatnonzero(feet[side])
        tip = foot[np.argmax(rest[foot, 2])]
        heel = foot[np.argmin(rest[foot, 2])]
        toe = v[:, tip] - j[:, ball]
        ang = np.degrees(np.arccos(toe @ ahead / np.linalg.norm(toe, axis=1)))
        assert ang.max() < 3.0, ang.max()
        on = stance == side
        tilt = v[on, tip, 1] - v[on, heel, 1]
        assert np.abs(tilt).max() < 0.01, np.abs(tilt).max()
        # the file's stance ankle does not move: the planted ball of the foot stays put
        per = int(STEP_TIME * FPS)
        for start in range(side * per, len(seq.poses) - per, 2 * per):
            xz = j[start + 1 : start + per - 1, ball][:, [0, 2]]  # the plant's inner frames
            assert np.linalg.norm(xz - xz[0], axis=1).max() < 0.01


def test_toeless_rig_walks_on_the_floor_on_its_ankles(tmp_path: Path) -> None:
    # ankles ending in an end site (no toe joint): the planted ankle is what is held
    path, stance = _walk(tmp_path / "walk.bvh", 2.0, yaw=30.0, toes=False)
    seq = load_bvh(path)
    v, j, _ = _posed(seq)
    assert np.abs(v[..., 1].min(axis=1)).max() < 0.01
    per = int(STEP_TIME * FPS)
    for side, ankle in ((0, 7), (1, 8)):
        for start in range(side * per, len(seq.poses) - per, 2 * per):
            xz = j[start + 1 : start + per - 1, ankle][:, [0, 2]]
            assert np.linalg.norm(xz - xz[0], axis=1).max() < 0.01


@pytest.mark.parametrize("name", ["cmu_131_01_walk.bvh", "cmu_131_03_hop.bvh"])
def test_real_cmu_clip_soles_on_the_floor_while_planted(name: str) -> None:
    seq = load_bvh(DATA / name)
    planted = _planted(seq).any(axis=1)
    assert planted.mean() > 0.4  # the clips are mostly on the ground
    low = _posed(seq)[0][..., 1].min(axis=1)
    assert np.abs(low[planted]).max() < 0.01, np.abs(low[planted]).max()
    if "hop" in name:  # the hop still leaves the floor
        assert low.max() > 0.15


def test_a_jump_leaves_the_floor(tmp_path: Path) -> None:
    path, air = _hop(tmp_path / "hop.bvh")
    seq = load_bvh(path)
    low = _posed(seq)[0][..., 1].min(axis=1)
    assert np.abs(low[~air]).max() < 0.01
    top = int(np.argmax(np.where(air, low, -1.0)))
    assert low[top] > 0.2  # 25 cm in the file, scaled by about 1.01
    # what grounding found: both feet planted while standing, neither in the air; the file
    # already stood on its floor, so nothing was moved
    _, found = ground(seq)
    np.testing.assert_allclose(found.lowest, low, atol=1e-6)
    assert found.planted[:10].all() and found.planted[-10:].all()
    assert not found.planted[air].any()
    np.testing.assert_allclose(found.lift, 0.0, atol=1e-3)  # already grounded: a no-op
    np.testing.assert_allclose(found.shift, 0.0)


@pytest.mark.parametrize("raised", [0.0, 30.0])
def test_a_clip_with_no_plant_keeps_the_files_floor_or_drops_to_it(
    tmp_path: Path, raised: float
) -> None:
    # the body glides at 3 m/s with its feet together: no foot is ever planted. On its file's
    # floor it stays where the file has it; 30 cm above, its lowest point comes down to y = 0
    t = np.arange(31) / FPS
    root = np.column_stack([0 * t, np.full_like(t, ANKLE + LEG + 5.0 + raised), 300.0 * t])
    seq = load_bvh(_bvh(tmp_path / "glide.bvh", root, {}))
    assert not _planted(seq).any()
    low = _posed(seq)[0][..., 1].min(axis=1)
    if raised:
        assert np.abs(low).max() < 0.005
    else:
        np.testing.assert_allclose(seq.trans[:, 1], 0.0, atol=1e-9)  # the file's own height


def test_another_shape_stands_on_the_same_floor() -> None:
    # the renderer draws a shape the loader did not ground: moved by the change of its soles
    # (the embedded mannequin's shapes all keep their soles on y = 0; an SMPL file's do not)
    seq = load_bvh(DATA / "cmu_131_01_walk.bvh")
    planted = _planted(seq).any(axis=1)
    body = load_body(None)
    for betas in (np.r_[2.0, 1.0, np.zeros(8)], np.r_[-2.0, -1.0, np.zeros(8)]):
        tall = body.pose(reshaped(seq, body, betas))
        low = tall.vertices[..., 1].min(axis=1)
        assert np.abs(low[planted]).max() < 0.015, (betas[:2], np.abs(low[planted]).max())


def test_planted_feet_negative_cases() -> None:
    fps, n = 30.0, 30
    joints = np.zeros((n, 24, 3))
    low = np.zeros(n)
    feet = np.zeros((n, 2))
    # left: slow and low (planted); right: low but sliding at 1 m/s (not planted)
    joints[:, [8, 11], 2] = (np.arange(n) / fps)[:, None]
    got = planted_feet(low, feet, joints, fps)
    assert got[:, 0].all() and not got[:, 1].any()
    # a foot held still but 20 cm up is not planted; nor is a slow moment of 2 frames
    feet[:, 0] = 0.2
    assert not planted_feet(low, feet, joints, fps)[:, 0].any()
    feet[:, 0] = 0.0
    joints[:, [7, 10], 2] = (np.arange(n) / fps)[:, None]
    joints[14:18, [7, 10], 2] = joints[14, 7, 2]  # still for 4 frames: slow for 2 (< 0.1 s)
    assert not planted_feet(low, feet, joints, fps)[:, 0].any()
    joints[14:20, [7, 10], 2] = joints[14, 7, 2]  # still for 6 frames: a plant of 4
    assert planted_feet(low, feet, joints, fps)[:, 0].sum() == 4
    # one frame has no speed: a foot is planted when it is low
    one = planted_feet(np.zeros(1), np.array([[0.02, 0.3]]), joints[:1], fps)
    assert one.tolist() == [[True, False]]


def _project(camera: dict, points: np.ndarray, width: int, height: int) -> np.ndarray:
    pose = np.array(camera["pose"])
    rel = (points - pose[:3, 3]) @ pose[:3, :3]
    f = 0.5 * height / np.tan(np.radians(camera["yfov_deg"]) / 2)
    return np.column_stack([width / 2 + f * rel[:, 0] / -rel[:, 2],
                            height / 2 - f * rel[:, 1] / -rel[:, 2]])  # fmt: skip


def test_long_walk_render_follows_the_person(tmp_path: Path) -> None:
    path, _ = _walk(tmp_path / "long.bvh", 9.0)  # about 10 m along +z
    out = tmp_path / "long.mp4"
    assert main(["human", "render", str(path), "--out", str(out), "--fps", "2", "--size",
                 "96x64"]) == 0  # fmt: skip
    truth = json.loads((tmp_path / "long.joints.json").read_text())
    j3, j2 = np.array(truth["joints3d"]), np.array(truth["joints2d"])
    assert np.ptp(j3[:, 0, 2]) > 9.0 and truth["floor_y"] == 0.0
    # the person spans at least 40% of the frame's height in every frame
    span = j2[..., 1].max(axis=1) - j2[..., 1].min(axis=1)
    assert span.min() >= 0.4 * 64, span
    # the camera moves, and each frame's joints are the projection through its own camera
    cams = truth["cameras"]
    assert len(cams) == len(j3) and "camera" not in truth
    for cam, p3, p2 in zip(cams, j3, j2):
        np.testing.assert_allclose(_project(cam, p3, 96, 64), p2, atol=0.05)
    rot = np.array([np.array(c["pose"])[:3, :3] for c in cams])
    assert np.abs(rot - rot[0]).max() < 1e-4  # it follows without turning or rolling
    up = Rotation.from_matrix(rot[0]).apply([1.0, 0.0, 0.0])
    assert abs(up[1]) < 1e-4  # the image's horizontal stays level: no roll
