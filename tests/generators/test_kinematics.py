"""Forward kinematics agrees with the body model; inverse kinematics lands limbs on targets."""

from __future__ import annotations

import numpy as np
import pytest

from tempogen.generators.body import load_body
from tempogen.generators.kinematics import (
    LIMBS,
    PoseError,
    axis_angle,
    blend,
    flexion,
    forward_kinematics,
    hand_point,
    limb_reach,
    set_global,
    solve_limb,
)
from tempogen.generators.poses import PoseSequence, rotvec_to_matrix
from tempogen.generators.skeleton import INDEX, REST_JOINTS


def test_zero_pose_is_the_rest_skeleton() -> None:
    joints, rot = forward_kinematics(np.zeros((3, 24, 3)), REST_JOINTS)
    assert np.allclose(joints, REST_JOINTS[None], atol=1e-12)
    assert np.allclose(rot, np.eye(3), atol=1e-12)
    shifted, _ = forward_kinematics(np.zeros((24, 3)), REST_JOINTS, trans=[0.5, 0.0, -1.0])
    assert np.allclose(shifted, REST_JOINTS + [0.5, 0.0, -1.0])


def test_root_turn_keeps_the_pelvis_and_turns_the_rest() -> None:
    pose = np.zeros((24, 3))
    pose[0] = axis_angle((0, 1, 0), 90.0)  # a quarter turn to the body's left
    joints, _ = forward_kinematics(pose, REST_JOINTS)
    assert np.allclose(joints[0], REST_JOINTS[0])
    # the left hand (at +x) swings round to -z
    assert joints[INDEX["left_hand"], 2] < -0.7 and abs(joints[INDEX["left_hand"], 0]) < 0.05


def test_numpy_kinematics_equals_the_body_model() -> None:
    body = load_body()
    rng = np.random.default_rng(0)
    betas = rng.normal(0.0, 1.0, body.num_betas)
    poses = rng.normal(0.0, 0.5, (12, 24, 3))
    trans = rng.normal(0.0, 0.5, (12, 3))
    frames = body.pose(PoseSequence(poses, trans, 30.0, betas))
    ours, _ = forward_kinematics(poses, body.rest_joints(betas), trans)
    assert np.abs(ours - frames.joints).max() < 1e-5  # smplx runs in float32
    assert np.allclose(body.rest_joints(), REST_JOINTS, atol=1e-5)


def _circle(centre: np.ndarray, radius: float, n: int = 40) -> np.ndarray:
    a = np.linspace(0.0, 2 * np.pi, n)
    return centre + radius * np.stack([np.cos(a), np.sin(a), 0.3 * np.sin(2 * a)], 1)


@pytest.mark.parametrize("side", ["left", "right"])
def test_arm_ik_puts_the_hand_on_every_target(side: str) -> None:
    sign = 1.0 if side == "left" else -1.0
    limb = f"{side}_arm"
    targets = _circle(np.array([0.2 * sign, 1.3, 0.35]), 0.15)
    eff = hand_point(REST_JOINTS, side)
    poses = solve_limb(
        np.zeros((len(targets), 24, 3)), REST_JOINTS, limb, targets,
        pole=[0.6 * sign, -1.0, -0.5], effector=eff,
    )  # fmt: skip
    joints, rot = forward_kinematics(poses, REST_JOINTS)
    elbow = joints[:, INDEX[f"{side}_elbow"]]
    reached = elbow + (rot[:, INDEX[f"{side}_elbow"]] @ (eff - REST_JOINTS[INDEX[f"{side}_elbow"]]))
    assert np.abs(reached - targets).max() < 1e-3  # within a millimetre
    mid = 0.5 * (joints[:, INDEX[f"{side}_wrist"]] + joints[:, INDEX[f"{side}_hand"]])
    assert np.abs(mid - targets).max() < 1e-3
    # the elbow folds the anatomical way: about -y for the left arm, +y for the right
    fold = flexion(poses, limb)
    assert fold.min() > 0.0 and fold.max() <= LIMBS[limb].max_flex
    assert np.all(np.sign(poses[:, INDEX[f"{side}_elbow"], 1]) == -sign)
    # and toward the pole: the elbow sits outside and below the shoulder-hand line
    shoulder = joints[:, INDEX[f"{side}_shoulder"]]
    assert np.all(elbow[:, 1] < np.maximum(shoulder[:, 1], targets[:, 1]))
    assert np.all(sign * (elbow[:, 0] - shoulder[:, 0]) > 0)


def test_leg_ik_bends_the_knee_forward_and_keeps_the_foot_flat() -> None:
    poses = np.zeros((20, 24, 3))
    trans = np.zeros((20, 3))
    trans[:, 1] = -np.linspace(0.02, 0.35, 20)  # a squat: the pelvis sinks, the foot stays
    ankle = np.tile(REST_JOINTS[INDEX["left_ankle"]], (20, 1))
    poses = solve_limb(poses, REST_JOINTS, "left_leg", ankle, pole=[0, 0, 1], trans=trans)
    poses = set_global(poses, REST_JOINTS, INDEX["left_ankle"], np.eye(3), trans)
    joints, rot = forward_kinematics(poses, REST_JOINTS, trans)
    assert np.abs(joints[:, INDEX["left_ankle"]] - ankle).max() < 1e-6
    assert np.all(joints[:, INDEX["left_knee"], 2] > REST_JOINTS[INDEX["left_knee"], 2] - 1e-9)
    assert np.allclose(rot[:, INDEX["left_ankle"]], np.eye(3), atol=1e-9)
    fold = flexion(poses, "left_leg")
    assert np.all(np.diff(fold) > 0) and fold[-1] > 60.0  # deeper squat, more knee bend


def test_unreachable_target_is_an_error_naming_the_frame() -> None:
    lo, hi = limb_reach(LIMBS["right_arm"], REST_JOINTS)
    shoulder = REST_JOINTS[INDEX["right_shoulder"]]
    targets = np.tile(shoulder + [0.0, 0.0, 0.9 * hi], (5, 1))
    targets[3] = shoulder + [0.0, 0.0, hi + 0.2]
    with pytest.raises(PoseError, match=r"wave: frame 3: right_arm target is .* outside its reach"):
        solve_limb(
            np.zeros((5, 24, 3)), REST_JOINTS, "right_arm", targets, [0, -1, -1], what="wave"
        )
    targets[3] = shoulder + [0.0, 0.0, 0.5 * lo]  # folded tighter than the elbow allows
    with pytest.raises(PoseError, match="frame 3"):
        solve_limb(np.zeros((5, 24, 3)), REST_JOINTS, "right_arm", targets, [0, -1, -1])


def test_a_pole_along_the_limb_is_an_error() -> None:
    shoulder = REST_JOINTS[INDEX["left_shoulder"]]
    targets = np.tile(shoulder + [0.0, 0.0, 0.4], (2, 1))
    with pytest.raises(PoseError, match="pole"):
        solve_limb(np.zeros((2, 24, 3)), REST_JOINTS, "left_arm", targets, [0.0, 0.0, 1.0])


def test_blend_and_axis_angle() -> None:
    a, b = axis_angle((0, 0, 1), -70.0), axis_angle((0, 1, 0), -90.0)
    w = np.array([0.0, 0.5, 1.0])
    out = blend(a, b, w)
    assert np.allclose(out[0], a) and np.allclose(out[2], b)
    ra, rm, rb = rotvec_to_matrix(out)
    # halfway: equal angles to both ends
    ang = [np.degrees(np.arccos((np.trace(x.T @ y) - 1) / 2)) for x, y in ((ra, rm), (rm, rb))]
    assert abs(ang[0] - ang[1]) < 1e-6
