"""SMPL's 24-joint kinematic tree and the embedded mannequin's rest skeleton.

Coordinates follow SMPL: metres, ``y`` up, the body faces ``+z`` and its left side is at
``+x``. The rest pose is SMPL's T-pose; the mannequin stands with its soles on ``y = 0``.
Everything 3D in tempogen (body model, inverse kinematics, motion import) indexes joints
through these names so a real SMPL model and the mannequin are interchangeable.
"""

from __future__ import annotations

import numpy as np

JOINTS: tuple[str, ...] = (
    "pelvis",
    "left_hip",
    "right_hip",
    "spine1",
    "left_knee",
    "right_knee",
    "spine2",
    "left_ankle",
    "right_ankle",
    "spine3",
    "left_foot",
    "right_foot",
    "neck",
    "left_collar",
    "right_collar",
    "head",
    "left_shoulder",
    "right_shoulder",
    "left_elbow",
    "right_elbow",
    "left_wrist",
    "right_wrist",
    "left_hand",
    "right_hand",
)
NUM_JOINTS = len(JOINTS)
PARENTS: tuple[int, ...] = (
    -1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18, 19, 20, 21
)  # fmt: skip
INDEX: dict[str, int] = {name: i for i, name in enumerate(JOINTS)}

# The mannequin's joint centres in its T-pose (metres): a 1.7 m adult, soles on y = 0.
REST_JOINTS = np.array(
    [
        [0.000, 0.930, 0.000],  # pelvis
        [0.090, 0.860, 0.000],  # left_hip
        [-0.090, 0.860, 0.000],  # right_hip
        [0.000, 1.050, -0.010],  # spine1
        [0.100, 0.480, 0.010],  # left_knee
        [-0.100, 0.480, 0.010],  # right_knee
        [0.000, 1.180, -0.010],  # spine2
        [0.100, 0.080, -0.020],  # left_ankle
        [-0.100, 0.080, -0.020],  # right_ankle
        [0.000, 1.300, 0.000],  # spine3
        [0.110, 0.025, 0.100],  # left_foot
        [-0.110, 0.025, 0.100],  # right_foot
        [0.000, 1.500, -0.010],  # neck
        [0.070, 1.430, -0.010],  # left_collar
        [-0.070, 1.430, -0.010],  # right_collar
        [0.000, 1.600, 0.020],  # head
        [0.180, 1.430, -0.020],  # left_shoulder
        [-0.180, 1.430, -0.020],  # right_shoulder
        [0.450, 1.430, -0.030],  # left_elbow
        [-0.450, 1.430, -0.030],  # right_elbow
        [0.700, 1.430, -0.030],  # left_wrist
        [-0.700, 1.430, -0.030],  # right_wrist
        [0.780, 1.430, -0.030],  # left_hand
        [-0.780, 1.430, -0.030],  # right_hand
    ],
    dtype=np.float64,
)
REST_JOINTS.setflags(write=False)


def children(joint: int) -> list[int]:
    """Direct children of a joint in the tree."""
    return [i for i, p in enumerate(PARENTS) if p == joint]


def chain(joint: int) -> list[int]:
    """Joints from the root down to ``joint`` (inclusive), in order."""
    out = [joint]
    while PARENTS[out[-1]] >= 0:
        out.append(PARENTS[out[-1]])
    return out[::-1]
