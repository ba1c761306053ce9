"""BVH mapping from the motion (a rest pose that is not a body), draft joint maps for rigs the
structure cannot place, and rigs refused as not humanoid (issue 26 C, D)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import yaml
from kit import run_cli
from scipy.spatial.transform import Rotation
from test_motion_import import (
    _LIMB_BONES,
    _angle_deg,
    _bvh_text,
    _fk,
    _Layout,
    _layout_motion,
    _mixamo,
    _odd_arms,
    _plain,
    _world,
)

from tempogen.generators.bvh_map import Skeleton, mirror_pairs
from tempogen.generators.humanoid import body_problem, find_mapping, level_body
from tempogen.generators.motion_import import (
    NotHumanoidError,
    SkeletonMapError,
    load_bvh,
    skeleton_map,
)
from tempogen.generators.motion_import.bvh_reader import read_bvh
from tempogen.generators.skeleton import INDEX, PARENTS, REST_JOINTS
from tempogen.io import write_text

X, Y = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
BVH_DATA = Path(__file__).parents[1] / "data" / "bvh"


def _arc(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A rotation turning direction ``a`` onto direction ``b`` (identity for a zero vector)."""
    if not (np.linalg.norm(a) > 0 and np.linalg.norm(b) > 0):
        return np.eye(3)
    return Rotation.align_vectors([b], [a])[0].as_matrix()


class _Bent:
    """A layout re-rigged so its rest pose is not a body: each bone's OFFSET turned to
    ``direction(node)`` (None keeps it), with zero-length hub joints where a joint's children
    would otherwise need different turns (as CMU's LHipJoint), and local rotations that keep
    every frame's world positions exactly the layout's: the motion is still a normal body."""

    def __init__(self, lay: _Layout, direction: Callable[[str], np.ndarray | None]) -> None:
        self.lay = lay
        joints = lay.joints()
        offset = {n: o for n, _, o in joints}
        kids: dict[str, list[str]] = {}
        for n, p, _ in joints:
            if p is not None:
                kids.setdefault(p, []).append(n)
        head_path = set()
        node: str | None = lay.roles["head"]
        parent = {n: p for n, p, _ in joints}
        while node is not None:
            head_path.add(node)
            node = parent[node]

        def turned(name: str, v: np.ndarray) -> np.ndarray:
            d = direction(name)
            return v if d is None else np.linalg.norm(v) * d

        self.q = {n: np.eye(3) for n, _, _ in joints}
        self.hub: dict[str, str] = {}
        new_off, self.ends = {}, {}
        for n, _, _ in joints:
            items = [(c, offset[c], turned(c, offset[c])) for c in kids.get(n, [])]
            if n in lay.ends:
                items.append(("", lay.ends[n], turned(n + "#end", lay.ends[n])))
            for c, _, w in items:
                if c:
                    new_off[c] = w
                else:
                    self.ends[n] = w
            if all(np.allclose(v, w) for _, v, w in items):
                continue
            direct = next((c for c, _, _ in items if c in head_path), items[0][0])
            for c, v, w in items:
                if c == direct:
                    self.q[n] = _arc(w, v)
                else:  # a hub at the joint, turned so this child's bone points as before
                    self.hub[c] = f"{c}_hub"
                    self.q[self.hub[c]] = _arc(w, v)
        self.joints = []
        for n, p, o in joints:
            if n in self.hub:
                self.joints.append((self.hub[n], p, np.zeros(3)))
                p = self.hub[n]
            self.joints.append((n, p, new_off.get(n, o)))

    def text(self, local: dict[str, np.ndarray], root: np.ndarray) -> str:
        n = root.shape[0]
        eye = np.broadcast_to(np.eye(3), (n, 3, 3))
        new = {}
        for name, p, _ in self.joints:
            rot = local.get(name, eye)
            q_parent = self.q[p] if p is not None else np.eye(3)
            new[name] = q_parent.T @ rot @ self.q[name]
        names = {name: name for name, _, _ in self.joints}
        return _bvh_text(self.joints, self.ends, names, root, new, 1 / 30)


def _along_x(name: str) -> np.ndarray:
    return X


def _left_leg_up(lay: _Layout) -> Callable[[str], np.ndarray | None]:
    """The left leg below the hip folded straight up, along the spine."""
    below = {lay.roles[r] for r in ("left_knee", "left_ankle", "left_foot")}
    return lambda name: Y if name in below or name == lay.roles["left_foot"] + "#end" else None


_BENT = {
    "plain-x": (lambda: _plain(3, False), lambda lay: _along_x),
    "mixamo-x": (_mixamo, lambda lay: _along_x),
    "anonymous-x": (lambda: _plain(3, True), lambda lay: _along_x),
    "plain-folded": (lambda: _plain(3, False), _left_leg_up),
    "anonymous-folded": (lambda: _plain(3, True), _left_leg_up),
}


def _expected(lay: _Layout) -> dict[str, str]:
    return {r: lay.roles[r] for r in sorted(lay.roles, key=INDEX.get)}


def _bone_errors(seq, lay: _Layout, root: np.ndarray, local: dict[str, np.ndarray]) -> float:
    """The largest angle (degrees) between a retargeted SMPL limb bone and the BVH bone between
    the joints playing its ends, over every frame (test_motion_import's check)."""
    pos, want = _fk(seq), _world(lay.joints(), root, local)
    worst = 0.0
    for a, b in _LIMB_BONES:
        if a in lay.roles and b in lay.roles:
            bvh = want[lay.roles[b]] - want[lay.roles[a]]
            worst = max(worst, float(_angle_deg(pos[:, INDEX[b]] - pos[:, INDEX[a]], bvh).max()))
    return worst


@pytest.mark.parametrize("rig", sorted(_BENT))
def test_rest_pose_not_a_body_maps_from_the_motion(tmp_path: Path, rig: str) -> None:
    """Every bone along +x at rest (zero-length hubs where a joint branches), or the left leg
    folded up along the spine: the rest pose maps nothing, the motion's frames are a body. The
    rig maps onto the joints the normal rig's do and retargets to the same poses; the motion
    starts in the normal rig's rest pose, as capture files do."""
    make, bend = _BENT[rig]
    lay = make()
    root, local = _layout_motion(lay, 6)
    write_text(tmp_path / "normal.bvh", lay.text(local, root))
    text = _Bent(lay, bend(lay)).text(local, root)
    write_text(tmp_path / "bent.bvh", text)
    if rig.endswith("-x"):  # the rest pose is a line: every OFFSET lies along +x
        offsets = [line.split()[1:] for line in text.splitlines() if "OFFSET" in line]
        assert all(float(y) == 0 == float(z) and float(x) >= 0 for x, y, z in offsets)
    assert skeleton_map(tmp_path / "bent.bvh") == skeleton_map(tmp_path / "normal.bvh")
    assert skeleton_map(tmp_path / "bent.bvh") == _expected(lay)
    normal, bent = load_bvh(tmp_path / "normal.bvh"), load_bvh(tmp_path / "bent.bvh")
    turn = Rotation.from_rotvec(normal.poses.reshape(-1, 3)).inv() * Rotation.from_rotvec(
        bent.poses.reshape(-1, 3)
    )
    assert np.degrees(turn.magnitude()).max() < 0.01
    np.testing.assert_allclose(bent.trans, normal.trans, atol=1e-6)
    assert _bone_errors(bent, lay, root, local) < 2.0


def test_mapped_in_a_frame_bones_still_point_like_the_bvh(tmp_path: Path) -> None:
    """No frame is the rest pose (the arm already rising, the body turning): the bent rig is
    aligned to the first body-shaped frame; every retargeted limb bone points like its BVH
    bone in every frame, and the joints stand where the normal rig's do."""
    lay = _mixamo()
    root, local = _layout_motion(lay, 7)
    root, local = root[2:], {k: v[2:] for k, v in local.items()}
    write_text(tmp_path / "normal.bvh", lay.text(local, root))
    write_text(tmp_path / "bent.bvh", _Bent(lay, _along_x).text(local, root))
    assert skeleton_map(tmp_path / "bent.bvh") == _expected(lay)
    normal, bent = load_bvh(tmp_path / "normal.bvh"), load_bvh(tmp_path / "bent.bvh")
    assert _bone_errors(bent, lay, root, local) < 2.0
    body = _fk(bent) - bent.trans[:, None]  # joints about the pelvis: the scale is the rig's
    np.testing.assert_allclose(body, _fk(normal) - normal.trans[:, None], atol=0.005)
    assert np.abs(bent.trans - normal.trans).max() < 0.02


def _still(lay: _Layout, bend, path: Path) -> None:
    """The bent rig standing in its own rest pose for two frames: no frame is a body."""
    bent = _Bent(lay, bend(lay))
    names = {n: n for n, _, _ in bent.joints}
    root = np.tile(lay.nodes[0][2], (2, 1))
    write_text(path, _bvh_text(bent.joints, bent.ends, names, root, {}, 1 / 30))


def test_names_decide_where_no_pose_is_a_body(tmp_path: Path) -> None:
    """The folded leg's joints are named (LeftLeg, LeftFoot): no pose tells where its ankle is,
    the names do. Anonymous joints cannot be placed: a draft, not a guess."""
    lay = _plain(3, False)
    _still(lay, _left_leg_up, tmp_path / "named.bvh")
    assert skeleton_map(tmp_path / "named.bvh") == _expected(lay)
    _still(_plain(3, True), _left_leg_up, tmp_path / "anon.bvh")
    # the error says what every pose tried showed, the frames' as well as the rest pose's
    with pytest.raises(SkeletonMapError, match="cannot map the skeleton") as err:
        skeleton_map(tmp_path / "anon.bvh")
    assert "(the rest pose and frames 0, 1: the leg below 'j01' has no ankle" in str(err.value)


# ------------------------------------------------------------------- real rigs, from frames


@pytest.mark.parametrize(
    "name, joint_map, hands",
    [
        ("bandai_walk.bvh", "bandai.joints.yaml", False),
        ("bandai_walk2.bvh", "bandai.joints.yaml", False),
        ("rokoko_dance.bvh", "rokoko.joints.yaml", True),
    ],
)
def test_real_rigs_map_from_their_frames_as_their_joint_maps_say(
    name: str, joint_map: str, hands: bool
) -> None:
    """Rigs whose rest pose is not a body (spine along +x). Bandai Namco's: position channels
    on every joint, a ``joint_Root`` left at the origin while the Hips walk up to 5.4 m away
    (walk2's frames: the arms must not look like details beside that distance). A heel up
    mid-step (walk's frames, the dance's): the named Foot is still the ankle, not the toe below
    it. Each maps without a joint map onto the joints its hand-written one names (Rokoko's
    adds the hands, which its joint map leaves out)."""
    path, map_path = BVH_DATA / name, BVH_DATA / joint_map
    want = yaml.safe_load(map_path.read_text())
    auto = skeleton_map(path)
    assert {k: auto.get(k) for k in want} == want
    assert set(auto) - set(want) == ({"left_hand", "right_hand"} if hands else set())
    assert skeleton_map(path, map_path) == auto
    assert load_bvh(path).num_frames == 4


def test_a_root_left_behind_is_no_part_of_the_body() -> None:
    """walk2's ``joint_Root`` stays at the origin while its Hips walk 5.4 m away from it: each
    frame's size is the body's (under 2 m, as at rest), so both pairs of limbs stay limbs
    (counted in, the root made the arms look like details beside the walk)."""
    bvh = read_bvh(BVH_DATA / "bandai_walk2.bvh")
    nodes = bvh.nodes
    parent = [nodes.index(n.parent) if n.parent is not None else -1 for n in nodes]
    joints = [not n.is_end_site() for n in nodes]
    sk = Skeleton([n.name for n in nodes], parent, joints, bvh.rest_pose_positions(),
                  bvh.node_positions())  # fmt: skip
    assert [sk.names[i] for i in sk.carriers] == ["joint_Root"]
    for t in range(4):
        pose = sk.at(t)
        assert np.linalg.norm(pose.rest[1] - pose.rest[0]) > 500  # cm, the Hips from the root
        assert pose.scale < 200
        found = {(pose.names[a], pose.names[b]) for a, b in mirror_pairs(pose)}
        assert found == {("UpperLeg_L", "UpperLeg_R"), ("Shoulder_L", "Shoulder_R")}


def _standing(points: dict[str, np.ndarray]) -> np.ndarray:
    rest = REST_JOINTS.copy()
    for name, where in points.items():
        rest[INDEX[name]] = where
    return rest


def test_a_frame_without_two_pairs_of_limbs_is_one_failed_try() -> None:
    """The rest pose's left leg folded up (not a body); frame 0's left forearm stretched to
    three times its length (no pair of arms in that frame); frames 1-2 standing: the search
    goes on past frame 0 and maps as a standing rig does."""
    parents = [int(p) for p in PARENTS]
    knee, ankle = _AT["left_knee"], _AT["left_ankle"]
    folded = _standing({"left_ankle": 2 * knee - ankle, "left_foot": 2 * knee - _AT["left_foot"]})
    elbow, wrist = _AT["left_elbow"], _AT["left_wrist"]
    stretched = {"left_wrist": elbow + 3 * (wrist - elbow)}
    stretched["left_hand"] = stretched["left_wrist"] + _AT["left_hand"] - wrist
    frames = np.stack([_standing(stretched), _standing({}), _standing({})])
    names, joints = list(INDEX), [True] * len(parents)
    standing = find_mapping(Skeleton(names, parents, joints, REST_JOINTS))
    assert find_mapping(Skeleton(names, parents, joints, folded, frames)) == standing


# ------------------------------------------------------------------- draft joint maps (CLI)


def test_cli_human_map_prints_a_draft_to_complete_and_pass_back(tmp_path: Path) -> None:
    """A rig nothing can map: `human map` prints a draft joint map (every SMPL joint, the
    unknown ones null with their candidates), exits 2 with the reason on stderr; the draft
    completed from its own candidates maps the rig, and `human map --joint-map` prints it."""
    lay = _plain(3, True)
    path = tmp_path / "anon.bvh"
    _still(lay, _left_leg_up, path)
    res = run_cli("human", "map", path, fork=True)
    assert res.returncode == 2, res.stderr
    assert f"{path}: cannot map the skeleton" in res.stderr and "Traceback" not in res.stderr
    draft = yaml.safe_load(res.stdout)
    assert list(draft) == list(INDEX)  # one line per SMPL joint, in SMPL's order
    unknown = {
        line.split(":")[0]: line for line in res.stdout.splitlines() if ": null  # UNKNOWN" in line
    }
    assert "left_knee" in unknown and "(required)" in unknown["left_knee"]
    assert all(draft[k] is None for k in unknown)
    completed = dict(draft)
    for role, line in unknown.items():
        want = lay.roles.get(role)
        if want is not None:
            assert f'"{want}"' in line.split("pick one of")[1], line  # offered
        completed[role] = want
    for role, name in draft.items():
        if name is not None:
            completed[role] = lay.roles.get(role)  # the draft's guesses, corrected
    done = tmp_path / "completed.yaml"
    write_text(done, "".join(f"{k}: {v if v else 'null'}\n" for k, v in completed.items()))
    again = run_cli("human", "map", path, "--joint-map", done, fork=True)
    assert again.returncode == 0, again.stderr
    assert yaml.safe_load(again.stdout) == {k: v for k, v in completed.items() if v}
    assert load_bvh(path, joint_map=done).num_frames == 2
    # the draft passed back unchanged still lacks joints: refused again, with a new draft
    write_text(tmp_path / "draft.yaml", res.stdout)
    same = run_cli("human", "map", path, "--joint-map", tmp_path / "draft.yaml", fork=True)
    assert same.returncode == 2 and "found no joint for" in same.stderr


def _candidates(draft: str) -> dict[str, list[str]]:
    """SMPL joint -> the BVH joints a draft offers for it."""
    out = {}
    for line in draft.splitlines():
        if ": null  # UNKNOWN" in line:
            offered = line.split("pick one of ")[1].removesuffix(", ...")
            out[line.split(":")[0]] = yaml.safe_load(f"[{offered}]") if '"' in offered else []
    return out


def test_draft_offers_joints_of_the_right_side_below_the_known_parent(tmp_path: Path) -> None:
    """Arms from different spine joints: nothing is placed. The draft offers, for each joint,
    joints whose names are not of the other side, the one whose name says the role first; once
    a joint map places a hip, its knee is offered only the joints below that hip."""
    lay = _odd_arms()
    root, local = _layout_motion(lay, 2)
    path = tmp_path / "odd.bvh"
    write_text(path, lay.text(local, root))
    res = run_cli("human", "map", path, fork=True)
    assert res.returncode == 2 and "found 1 pair(s) of mirrored limbs" in res.stderr
    offered = _candidates(res.stdout)
    assert set(offered) == set(INDEX)  # nothing placed
    assert offered["left_knee"][0] == "LeftLeg" and offered["right_elbow"][0] == "RightForeArm"
    assert not any(n.startswith("Right") for n in offered["left_knee"])
    assert not any(n.startswith("Left") for n in offered["right_wrist"])
    assert not any(n.startswith(("Left", "Right")) for n in offered["spine1"])
    hip = tmp_path / "hip.yaml"
    write_text(hip, "left_hip: LeftUpLeg\n")
    res = run_cli("human", "map", path, "--joint-map", hip, fork=True)
    assert res.returncode == 2 and 'left_hip: "LeftUpLeg"' in res.stdout
    assert _candidates(res.stdout)["left_knee"] == ["LeftLeg", "LeftFoot", "LeftToeBase"]


def _pose(points: dict[str, np.ndarray]) -> tuple[Skeleton, dict[int, int]]:
    """A skeleton of SMPL's tree standing at the mannequin's rest joints, some moved to
    ``points``; mapped one to one."""
    parents = [int(p) for p in PARENTS]
    rest = REST_JOINTS.copy()
    for name, where in points.items():
        rest[INDEX[name]] = where
    sk = Skeleton(list(INDEX), parents, [True] * len(parents), rest)
    return sk, {j: j for j in range(len(parents))}


_AT = {name: REST_JOINTS[j] for name, j in INDEX.items()}


@pytest.mark.parametrize(
    "moved, problem",
    [
        ({}, None),
        ({"left_ankle": _AT["left_hip"] + [0.0, -0.5, 0.5]}, None),  # a kick forward, 45 deg
        ({"left_ankle": _AT["left_hip"] + [0.0, -0.3, 0.6]}, "the left leg does not hang"),
        ({"right_ankle": _AT["right_hip"] + [0.0, 0.8, 0.0]}, "the right leg does not hang"),
        ({"right_hip": _AT["left_hip"]}, "the left and right hips are one point"),
        ({"right_shoulder": _AT["left_shoulder"]}, "the left and right shoulders are one point"),
        ({"spine3": _AT["pelvis"]}, "the spine has no length"),
    ],
)
def test_body_problem_says_which_pose_is_not_a_standing_body(moved, problem) -> None:
    got = body_problem(*_pose(moved))
    assert got == problem if problem is None else got is not None and got.startswith(problem)


def test_body_problem_wants_mirrored_roles_on_mirrored_limbs() -> None:
    """One leg's ankle taken one joint lower (its toe: a heel up mid-step) than the other's:
    not a pose to map from, whatever the geometry says."""
    sk, mapping = _pose({})
    mapping[INDEX["left_ankle"]] = INDEX["left_foot"]
    del mapping[INDEX["left_foot"]]
    got = body_problem(sk, mapping)
    assert got is not None and got.startswith(
        "the left and right ankles (left_foot, right_ankle) lie at different places"
    )


@pytest.mark.parametrize(
    "tilt, wings, reason",
    [
        (0.0, False, "four limbs reach the ground"),
        (25.0, False, "four limbs reach the ground"),  # withers above the hips
        (25.0, True, "no arms above the hips"),
        (70.0, False, None),  # the spine runs along the legs: upright, not level
        (0.0, None, None),  # a T-pose: legs along the spine
    ],
)
def test_level_body_tells_a_level_spine_over_hanging_limbs(tilt, wings, reason) -> None:
    """Hips at the origin, the chest 1 m away tilted up by ``tilt`` degrees, legs hanging
    straight down from both (wings: the front pair spreads sideways; None: a person)."""
    up = np.radians(tilt)
    chest = np.array([0.0, np.sin(up), np.cos(up)])
    names = ["hips", "chest", "l_leg", "l_foot", "r_leg", "r_foot", "l_arm", "l_hand", "r_arm",
             "r_hand"]  # fmt: skip
    if wings is None:  # a standing person: chest above the hips, arms out to the sides
        chest = np.array([0.0, 1.0, 0.0])
        ends = [[0.2, -0.9, 0.0], [-0.2, -0.9, 0.0], [0.8, 1.0, 0.0], [-0.8, 1.0, 0.0]]
    elif wings:
        ends = [[0.2, -0.9, 0.0], [-0.2, -0.9, 0.0], chest + [0.9, 0, 0], chest + [-0.9, 0, 0]]
    else:
        ends = [
            [0.2, -0.9, 0.0],
            [-0.2, -0.9, 0.0],
            chest + [0.2, -0.9, 0],
            chest + [-0.2, -0.9, 0],
        ]
    roots = [[0.2, 0, 0], [-0.2, 0, 0], chest + [0.2, 0, 0], chest + [-0.2, 0, 0]]
    rest = [np.zeros(3), chest]
    for root, end in zip(roots, ends):
        rest += [np.array(root, dtype=float), np.array(end, dtype=float)]
    parent = [-1, 0, 0, 2, 0, 4, 1, 6, 1, 8]
    sk = Skeleton(names, parent, [True] * 10, np.array(rest))
    got = level_body(sk, (2, 4), (6, 8))
    assert got == reason if reason is None else got is not None and got.startswith(reason)


# ------------------------------------------------------------------ rigs that are not humanoid


def _pair(lay: _Layout, parent: str, name: str, points, end, words=None) -> None:
    """A mirrored pair of chains: ``points`` (x >= 0, cm) for the left one, x mirrored for the
    right one; ``name`` takes the side letter and the link's number (or its word)."""
    for side, sx in (("L", 1.0), ("R", -1.0)):
        flip = np.array([sx, 1.0, 1.0])
        tip = lay.chain(parent, [(name.format(s=side, k=words[k] if words else k),
                                  np.array(p) * flip, "") for k, p in enumerate(points)])  # fmt: skip
        lay.end(tip, np.array(end) * flip)


def _elephant() -> _Layout:
    """Four legs under a spine rising to the withers (as an elephant's), a trunk hanging from
    the head, ears, a tail: the structure alone takes it for a person sitting, arms forward."""
    lay = _Layout()
    lay.add("Hips", None, [0, 160, 0])
    _pair(
        lay,
        "Hips",
        "{s}_{k}",
        [[35, 150, 0], [35, 90, 5], [35, 25, 0], [35, 5, -5]],
        [35, 0, -10],
        ["Thigh", "Calf", "Foot", "Toe0"],
    )  # fmt: skip (Truebones' names)
    lay.chain("Hips", [("Spine", [0, 175, 50], ""), ("Spine1", [0, 190, 100], ""),
                       ("Chest", [0, 200, 150], "")])  # fmt: skip
    _pair(lay, "Chest", "{s}_Front{k}", [[35, 185, 150], [35, 100, 155], [35, 25, 150],
                                         [35, 5, 160]], [35, 0, 175])  # fmt: skip
    head = lay.chain("Chest", [("Neck", [0, 210, 180], ""), ("Head", [0, 225, 210], "head")])
    trunk = lay.chain(head, [(f"Trunk{k}", [0, 170 - 40 * k, 240 + 5 * k], "") for k in range(4)])
    lay.end(trunk, [0, 20, 255])
    _pair(lay, head, "{s}_Ear{k}", [[30, 205, 205]], [50, 195, 200])
    tail = lay.chain("Hips", [(f"Tail{k}", [0, 150 - 30 * k, -20 - 5 * k], "") for k in range(3)])
    lay.end(tail, [0, 70, -40])
    return lay


def _crab() -> _Layout:
    """Eight legs and two claws round one body joint."""
    lay = _Layout()
    lay.add("Body", None, [0, 30, 0])
    for k in range(4):
        z = -15 + 10 * k
        _pair(lay, "Body", f"{{s}}_Leg{k}_{{k}}", [[15, 30, z], [35, 40, z], [55, 20, z]],
              [65, 0, z])  # fmt: skip
    _pair(lay, "Body", "{s}_Claw{k}", [[12, 32, 18], [25, 38, 35], [30, 36, 50]], [30, 34, 62])
    return lay


def _snake() -> _Layout:
    """A chain of twelve joints, two small fangs at its head (no limbs)."""
    lay = _Layout()
    tip = lay.chain(lay.add("Root", None, [0, 5, 0]),
                    [(f"Seg{k}", [0, 5, -15.0 * (k + 1)], "") for k in range(12)])  # fmt: skip
    lay.end(tip, [0, 5, -195])
    _pair(lay, "Root", "{s}_Fang{k}", [[1, 4, 2]], [1.5, 2, 3])
    return lay


def _bird() -> _Layout:
    """Two legs under a level body, two wings spread from the chest, a neck, a tail."""
    lay = _Layout()
    lay.add("Hips", None, [0, 40, 0])
    _pair(lay, "Hips", "{s}_Leg{k}", [[8, 38, 0], [8, 25, 3], [8, 8, 0], [8, 1, 6]], [8, 0, 12])
    lay.chain("Hips", [("Spine", [0, 42, 8], ""), ("Chest", [0, 44, 18], "")])
    _pair(lay, "Chest", "{s}_Wing{k}", [[8, 46, 18], [25, 46, 16], [40, 46, 14]], [60, 46, 10])
    head = lay.chain("Chest", [("Neck", [0, 50, 22], ""), ("Neck1", [0, 58, 26], ""),
                               ("Head", [0, 63, 30], "")])  # fmt: skip
    lay.end(head, [0, 63, 38])
    lay.end(lay.add("Tail", "Hips", [0, 41, -8]), [0, 40, -25])
    return lay


def _elephant_moving(bent: bool, rearing: slice) -> Callable[[], _Layout]:
    """The elephant, re-rigged with every bone along +x at rest if ``bent`` (only its motion
    is then an elephant's), reared up on its hind legs in the frames ``rearing`` picks (its
    spine upright, its hind legs under it: a person's shape there)."""

    def make() -> _Layout:
        lay = _elephant()
        rig = _Bent(lay, _along_x) if bent else lay

        class Rig(_Layout):
            def text(self, local, root, world=np.eye(3)) -> str:
                n = root.shape[0]
                tilt = np.zeros(n)
                tilt[rearing] = -75.0
                up = Rotation.from_euler("x", tilt[:, None], degrees=True).as_matrix()
                down = np.swapaxes(up, 1, 2)
                return rig.text({"Hips": up, "L_Thigh": down, "R_Thigh": down}, root)

        out = Rig()
        out.nodes = lay.nodes
        return out

    return make


def _no_spine() -> _Layout:
    """Arms and legs all hang from one joint, a head on a stalk above it: no spine."""
    lay = _Layout()
    lay.add("Body", None, [0, 90, 0])
    _pair(lay, "Body", "{s}_Leg{k}", [[10, 85, 0], [12, 45, 2], [12, 5, 0]], [12, 0, 12])
    _pair(lay, "Body", "{s}_Arm{k}", [[15, 95, 0], [40, 95, 0]], [60, 95, 0])
    lay.end(lay.chain("Body", [("Stalk", [0, 120, 0], ""), ("Head", [0, 140, 0], "")]),
            [0, 160, 0])  # fmt: skip
    return lay


_ANIMALS = {
    "no-spine": (_no_spine, "both pairs of limbs (L_Leg0/R_Leg0, L_Arm0/R_Arm0) branch off"),
    "elephant": (_elephant, "four limbs reach the ground"),
    "elephant-bent": (_elephant_moving(True, slice(0)), "four limbs reach the ground"),
    "elephant-rearing": (_elephant_moving(False, slice(None)), "four limbs reach the ground"),
    "crab": (_crab, "10 mirrored limbs of leg length"),
    "snake": (_snake, "a single chain of 13 joints (Root ... Seg11)"),
    "bird": (_bird, "no arms above the hips"),
}


def _walk(lay: _Layout, path: Path, n: int = 3) -> None:
    """The rig moving forward for ``n`` frames, at rest otherwise."""
    root = lay.nodes[0][2] + np.outer(np.arange(n), [0.0, 0.0, 5.0])
    write_text(path, lay.text({}, root))


@pytest.mark.parametrize("animal", sorted(_ANIMALS))
def test_cli_refuses_rigs_that_are_not_humanoid(tmp_path: Path, animal: str) -> None:
    """A quadruped, a crab, a snake, a bird: `human map` and `human render` exit 2 with
    "<file>: not a humanoid rig: <reason>", and nothing is rendered."""
    make, reason = _ANIMALS[animal]
    path = tmp_path / f"{animal}.bvh"
    _walk(make(), path)
    with pytest.raises(NotHumanoidError) as err:
        load_bvh(path)
    assert str(err.value).startswith(f"{path}: not a humanoid rig: {reason}")
    res = run_cli("human", "map", path, fork=True)
    assert res.returncode == 2 and res.stdout == ""
    assert f"{path}: not a humanoid rig: {reason}" in res.stderr and "Traceback" not in res.stderr
    out = tmp_path / "clip.mp4"
    res = run_cli("human", "render", path, "--out", out, "--size", "64x48", fork=True)
    assert res.returncode == 2 and f"{path}: not a humanoid rig: {reason}" in res.stderr
    assert not out.exists() and not out.with_suffix(".joints.json").exists()


def test_a_joint_map_naming_every_required_joint_overrides_the_refusal(tmp_path: Path) -> None:
    """The user says the elephant's hind legs are legs and its front legs arms: it maps as
    they say. A map naming fewer joints does not lift the refusal."""
    path = tmp_path / "elephant.bvh"
    _walk(_elephant(), path)
    roles = {"pelvis": "Hips", "spine1": "Spine", "spine2": "Spine1", "spine3": "Chest",
             "neck": "Neck", "head": "Head"}  # fmt: skip
    for side, s in (("left", "L"), ("right", "R")):
        for role, word in zip(("hip", "knee", "ankle", "foot"), ("Thigh", "Calf", "Foot", "Toe0")):
            roles[f"{side}_{role}"] = f"{s}_{word}"
        for k, role in enumerate(("shoulder", "elbow", "wrist")):
            roles[f"{side}_{role}"] = f"{s}_Front{k}"
    full = tmp_path / "full.yaml"
    write_text(full, "".join(f"{k}: {v}\n" for k, v in roles.items()))
    assert skeleton_map(path, full) == {k: roles[k] for k in sorted(roles, key=INDEX.get)}
    assert load_bvh(path, joint_map=full).num_frames == 3
    part = tmp_path / "part.yaml"
    write_text(part, "".join(f"{k}: {v}\n" for k, v in roles.items() if k != "right_wrist"))
    res = run_cli("human", "map", path, "--joint-map", part, fork=True)
    assert res.returncode == 2 and "not a humanoid rig" in res.stderr


def test_a_humanoid_with_a_tail_and_a_prop_still_maps(tmp_path: Path) -> None:
    """A tail as long as a leg (five even bones) from the hips and a phone in the right hand
    are neither limbs nor a reason to refuse: the body maps as without them."""
    lay = _plain(3, False)
    reach = sum(np.linalg.norm(o) for n, _, o in lay.joints()
                if n in ("LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase")) + 6.0  # fmt: skip
    hips = lay.where["Hips"]
    step = reach / 5 * np.array([0.0, -0.6, -0.8])
    tail = lay.chain("Hips", [(f"Tail{k}", hips + step * (k + 1), "") for k in range(4)])
    lay.end(tail, hips + step * 5)
    lay.end(
        lay.add("Phone", "RightHand", lay.where["RightHand"]), lay.where["RightHand"] - [10, 0, 0]
    )
    root, local = _layout_motion(lay, 3)
    write_text(tmp_path / "tail.bvh", lay.text(local, root))
    assert skeleton_map(tmp_path / "tail.bvh") == _expected(lay)
