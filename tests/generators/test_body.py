"""The embedded mannequin (SMPL format), its generator script and the body-model loader."""

from __future__ import annotations

import pickle
import runpy
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest
import trimesh
from scipy.spatial import cKDTree
from scipy.spatial.transform import Rotation

from tempogen.generators.body import (
    ENV_VAR,
    PART_GROUPS,
    BodyModelError,
    load_body,
    mannequin_path,
)
from tempogen.generators.poses import PoseSequence
from tempogen.generators.skeleton import INDEX, NUM_JOINTS, PARENTS, REST_JOINTS

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "make_mannequin.py"
RIGHT_SHOULDER, RIGHT_ELBOW, RIGHT_WRIST = (
    INDEX["right_shoulder"],
    INDEX["right_elbow"],
    INDEX["right_wrist"],
)


def shipped() -> dict:
    with open(mannequin_path(), "rb") as f:
        return pickle.load(f, encoding="latin1")


def forward_kinematics(poses: np.ndarray, trans: np.ndarray, rest: np.ndarray) -> tuple:
    """Global rotations (T, 24, 3, 3) and joint positions (T, 24, 3), computed here from the
    tree: each joint turns about its own rest position, carried by its parent."""
    n = len(poses)
    rot = Rotation.from_rotvec(poses.reshape(-1, 3)).as_matrix().reshape(n, NUM_JOINTS, 3, 3)
    g_rot = np.zeros_like(rot)
    g_pos = np.zeros((n, NUM_JOINTS, 3))
    for j, p in enumerate(PARENTS):
        if p < 0:
            g_rot[:, j] = rot[:, j]
            g_pos[:, j] = rest[j] + trans
        else:
            g_rot[:, j] = g_rot[:, p] @ rot[:, j]
            g_pos[:, j] = g_pos[:, p] + np.einsum("tab,b->ta", g_rot[:, p], rest[j] - rest[p])
    return g_rot, g_pos


@pytest.fixture(autouse=True)
def _no_model_env(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)


# --- the asset -------------------------------------------------------------------------


def test_shipped_file_is_plain_smpl_format():
    d = shipped()
    v = d["v_template"]
    assert 2000 <= len(v) <= 5000
    assert d["f"].shape[1] == 3 and d["f"].dtype == np.uint32
    assert d["weights"].shape == (len(v), 24)
    assert d["J_regressor"].shape == (24, len(v))
    assert d["shapedirs"].shape == (len(v), 3, 10)
    assert d["posedirs"].shape == (len(v), 3, 207)
    assert d["kintree_table"].shape == (2, 24)
    assert list(d["kintree_table"][0, 1:]) == list(PARENTS[1:])
    assert list(d["kintree_table"][1]) == list(range(24))
    for key, value in d.items():  # no chumpy, no scipy: numpy arrays, strings, a dict
        assert isinstance(value, (np.ndarray, str, dict)), key
    np.testing.assert_allclose(d["weights"].sum(axis=1), 1.0, atol=1e-12)
    assert (d["weights"] >= 0).all()
    # the regressor reproduces the skeleton's rest joints (well within 1 mm)
    assert (d["J_regressor"] >= 0).all()
    np.testing.assert_allclose(d["J_regressor"].sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(d["J_regressor"] @ v, REST_JOINTS, atol=1e-6)
    # the mesh is closed and outward-facing; soles on the floor; a 1.7 m adult
    mesh = trimesh.Trimesh(v, d["f"].astype(np.int64), process=False)
    assert mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0
    assert v[:, 1].min() == 0.0
    assert 1.68 < v[:, 1].max() < 1.76
    # left/right mirror image: each vertex's mirror is a vertex of the mesh
    dist, _ = cKDTree(v).query(v * [-1, 1, 1])
    assert dist.max() < 1e-9


def test_shipped_file_loads_through_smplx_create():
    import smplx  # torch: imported by the tests that run it, not at collection (seconds)
    import torch

    d = shipped()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = smplx.create(model_path=str(mannequin_path()), model_type="smpl")
        assert isinstance(model, smplx.SMPL)
        assert model.get_num_verts() == len(d["v_template"])
        # smplx's default extra landmarks index SMPL's 6,890-vertex mesh; the file ships its own
        model = smplx.create(
            model_path=str(mannequin_path()), model_type="smpl", vertex_ids=d["vertex_ids"]
        )
        with torch.no_grad():
            out = model()  # zero pose, zero shape
    np.testing.assert_allclose(out.vertices[0].numpy(), d["v_template"], atol=1e-6)
    np.testing.assert_allclose(out.joints[0, :24].numpy(), REST_JOINTS, atol=1e-6)
    nose = out.joints[0, 24].numpy()  # smplx's first extra landmark is the nose tip
    assert nose[2] > 0.12 and 1.55 < nose[1] < 1.65


def test_script_reproduces_shipped_arrays(tmp_path):
    out = tmp_path / "again.pkl"
    runpy.run_path(str(SCRIPT))["main"](["--out", str(out)])
    with open(out, "rb") as f:
        again = pickle.load(f)
    d = shipped()
    assert sorted(again) == sorted(d)
    for key, value in d.items():
        if isinstance(value, np.ndarray):
            assert value.dtype == again[key].dtype, key
            assert np.array_equal(value, again[key]), key
        else:
            assert value == again[key], key


# --- posing ----------------------------------------------------------------------------


def test_zero_pose_is_the_rest_pose_and_trans_shifts_it():
    body = load_body()
    d = shipped()
    assert body.name == "mannequin" and body.model_type == "smpl"
    assert body.faces.dtype == np.int32 and np.array_equal(body.faces, d["f"])
    frames = body.pose(np.zeros((2, 24, 3)), np.array([[0.0, 0, 0], [1.0, 0.5, -2.0]]))
    assert frames.vertices.shape == (2, len(d["v_template"]), 3)
    assert frames.vertices.dtype == np.float32 and frames.joints.dtype == np.float64
    np.testing.assert_allclose(frames.joints[0], REST_JOINTS, atol=1e-5)
    np.testing.assert_allclose(frames.vertices[0], d["v_template"], atol=1e-5)
    np.testing.assert_allclose(frames.joints[1], REST_JOINTS + [1.0, 0.5, -2.0], atol=1e-5)
    np.testing.assert_allclose(body.rest_joints(), REST_JOINTS, atol=1e-5)


def test_lowering_the_right_arm_puts_the_wrist_at_the_hip():
    body = load_body()
    poses = np.zeros((1, 24, 3))
    poses[0, RIGHT_SHOULDER] = [0.0, 0.0, np.pi / 2]  # +90 deg about z turns -x into -y
    joints = body.pose(poses).joints[0]
    shoulder = REST_JOINTS[RIGHT_SHOULDER]
    arm = REST_JOINTS[RIGHT_WRIST] - shoulder  # (-0.52, 0, -0.01)
    expected = shoulder + [-arm[1], arm[0], arm[2]]  # R_z(90) applied by hand
    np.testing.assert_allclose(joints[RIGHT_WRIST], expected, atol=1e-5)
    assert joints[RIGHT_WRIST, 1] < 0.95  # hanging down beside the hip
    # only the right arm moved
    arm_joints = [RIGHT_SHOULDER, RIGHT_ELBOW, RIGHT_WRIST, INDEX["right_hand"]]
    rest = np.delete(np.arange(24), arm_joints)
    np.testing.assert_allclose(joints[rest], REST_JOINTS[rest], atol=1e-5)


def test_joints_follow_forward_kinematics_and_hands_follow_the_wrist():
    body = load_body()
    d = shipped()
    rng = np.random.default_rng(7)
    poses = rng.normal(0.0, 0.6, (5, 24, 3))
    trans = rng.normal(0.0, 1.0, (5, 3))
    frames = body.pose(PoseSequence(poses, trans, fps=30.0))
    g_rot, g_pos = forward_kinematics(poses, trans, REST_JOINTS)
    np.testing.assert_allclose(frames.joints, g_pos, atol=2e-5)
    # every vertex skinned to the right wrist alone moves rigidly with it
    hand = np.flatnonzero(d["weights"][:, RIGHT_WRIST] == 1.0)
    assert len(hand) > 50
    rest = d["v_template"][hand] - REST_JOINTS[RIGHT_WRIST]
    expected = g_pos[:, RIGHT_WRIST, None] + np.einsum("tab,vb->tva", g_rot[:, RIGHT_WRIST], rest)
    np.testing.assert_allclose(frames.vertices[:, hand], expected, atol=5e-5)


def test_fast_skinning_matches_smplx_forward():
    body = load_body()
    rng = np.random.default_rng(3)
    n = 300  # more than one chunk
    poses = rng.normal(0.0, 0.5, (n, 24, 3))
    trans = rng.normal(0.0, 1.0, (n, 3))
    betas = rng.normal(0.0, 1.0, 10)
    frames = body.pose(poses, trans, betas)
    ref = _smplx_forward(body.smplx_module, poses, trans, betas)
    np.testing.assert_allclose(frames.vertices, ref.vertices.numpy(), atol=1e-5)
    np.testing.assert_allclose(frames.joints, ref.joints[:, :24].numpy(), atol=1e-5)


def _smplx_forward(module, poses, trans, betas):
    import torch

    n = len(poses)
    b = np.zeros((n, module.num_betas))
    b[:, : len(betas)] = betas
    f32 = torch.float32
    with torch.no_grad():
        return module(
            global_orient=torch.tensor(poses[:, 0], dtype=f32),
            body_pose=torch.tensor(poses[:, 1:].reshape(n, -1), dtype=f32),
            betas=torch.tensor(b, dtype=f32),
            transl=torch.tensor(trans, dtype=f32),
        )


def test_shape_directions():
    body = load_body()
    heights, heads = [], []
    for b0 in (-2.0, -1.0, 0.0, 1.0, 2.0):
        v = body.rest_vertices([b0])
        heights.append(v[:, 1].max())
        heads.append(body.rest_joints([b0])[INDEX["head"], 1])
        assert abs(v[:, 1].min()) < 1e-6  # soles stay on the floor
    assert np.all(np.diff(heights) > 0.02) and np.all(np.diff(heads) > 0.02)
    # beta 1 (girth) widens the waist but keeps height and joints
    waist = np.abs(body.rest_vertices()[:, 1] - 1.05) < 0.02
    thin, wide = body.rest_vertices([0, -1.5]), body.rest_vertices([0, 1.5])
    assert np.ptp(wide[waist, 0]) > 1.2 * np.ptp(thin[waist, 0])
    assert abs(wide[:, 1].max() - thin[:, 1].max()) < 1e-3
    np.testing.assert_allclose(body.rest_joints([0, 1.5]), REST_JOINTS, atol=1e-3)
    for betas in np.random.default_rng(2).normal(0.0, 1.5, (5, 10)):
        assert abs(body.rest_vertices(betas)[:, 1].min()) < 1e-6  # any shape stands on y = 0
    # beta 2 moves the shoulders out; the joints follow
    span = [np.ptp(body.rest_joints([0, 0, b])[[16, 17], 0]) for b in (-1.0, 0.0, 1.0)]
    assert span[0] < span[1] < span[2] and span[2] - span[1] > 0.03


def test_parts_and_colours():
    body = load_body()
    x = np.abs(shipped()["v_template"][:, 0])
    hands = body.part_mask("hands")
    assert (x[hands] > 0.66).all() and hands[x > 0.735].all()  # forearm ends inside the palm
    head = body.part_mask("head")
    assert (shipped()["v_template"][head, 1] > 1.4).all()
    colors = body.vertex_colors((200, 180, 160), hands=(255, 0, 0), head=(0, 0, 255))
    assert colors.shape == (body.num_vertices, 4) and colors.dtype == np.uint8
    assert (colors[hands] == [255, 0, 0, 255]).all() and (colors[head] == [0, 0, 255, 255]).all()
    assert (colors[~hands & ~head] == [200, 180, 160, 255]).all()
    assert set(np.unique(body.parts)) <= set(range(24))
    assert {g for g in PART_GROUPS if body.part_mask(g).any()} == set(PART_GROUPS)
    with pytest.raises(ValueError, match="part group"):
        body.part_mask("tail")


# --- loading real models ---------------------------------------------------------------


def test_smplx_folder_layout_and_env_var_load_the_real_file(tmp_path, monkeypatch):
    real = tmp_path / "smpl" / "SMPL_NEUTRAL.pkl"
    real.parent.mkdir()
    shutil.copy(mannequin_path(), real)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        body = load_body(tmp_path, "smpl")
        assert body.name == str(real) and body.path == real.resolve()
        assert load_body(tmp_path, "smpl") is body  # cached per process
        assert pickle.loads(pickle.dumps(body)) is body  # workers reload, not copy torch
        monkeypatch.setenv(ENV_VAR, str(tmp_path))
        assert load_body() is body
        single = load_body(real)  # one file
        assert single.name == str(real) and single.model_type == "smpl"
    np.testing.assert_allclose(body.rest_joints(), REST_JOINTS, atol=1e-5)


def test_other_genders_and_pose_blend_shapes(tmp_path):
    d = shipped()
    rng = np.random.default_rng(1)
    d["posedirs"] = rng.normal(0.0, 2e-3, d["posedirs"].shape)
    (tmp_path / "smpl").mkdir()
    with open(tmp_path / "smpl" / "SMPL_FEMALE.pkl", "wb") as f:
        pickle.dump(d, f)
    body = load_body(tmp_path, "smpl", "female")
    assert body.gender == "female" and body.name.endswith("SMPL_FEMALE.pkl")
    poses = rng.normal(0.0, 0.5, (20, 24, 3))
    trans = rng.normal(0.0, 1.0, (20, 3))
    frames = body.pose(poses, trans, [0.5, -0.5])
    ref = _smplx_forward(body.smplx_module, poses, trans, [0.5, -0.5])
    assert np.abs(ref.vertices.numpy() - d["v_template"]).max() > 0.05
    np.testing.assert_allclose(frames.vertices, ref.vertices.numpy(), atol=1e-5)
    with pytest.raises(BodyModelError, match="SMPL_MALE.pkl"):
        load_body(tmp_path, "smpl", "male")
    # skinning weights that do not sum to 1: the translation is still added once
    d = shipped()
    d["weights"] = d["weights"] * 0.9
    odd = tmp_path / "odd_weights.pkl"
    with open(odd, "wb") as f:
        pickle.dump(d, f)
    body = load_body(odd)
    frames = body.pose(poses, trans)
    ref = _smplx_forward(body.smplx_module, poses, trans, [])
    np.testing.assert_allclose(frames.vertices, ref.vertices.numpy(), atol=1e-5)


def _extended(kind: str) -> dict:
    """The mannequin rewritten as a SMPL-H (52 joints) or SMPL-X (55 joints) model file:
    finger joints at SMPL's hand joints, the hands skinned to each middle finger's base."""
    d = shipped()
    v = d["v_template"]
    face = ["jaw", "leye", "reye"] if kind == "smplx" else []
    first_hand = 22 + len(face)
    n = first_hand + 30
    parents = list(PARENTS[:22]) + [15] * len(face)
    rows = [d["J_regressor"][j] for j in range(22)] + [d["J_regressor"][15]] * len(face)
    for wrist, hand in ((20, 22), (21, 23)):
        for finger in ("index", "middle", "pinky", "ring", "thumb"):
            base = len(parents)
            parents += [wrist, base, base + 1]
            # the middle finger's base is SMPL's hand joint; the other joints sit elsewhere
            first = hand if finger == "middle" else wrist
            rows += [d["J_regressor"][first], d["J_regressor"][wrist], d["J_regressor"][wrist]]
    weights = np.zeros((len(v), n))
    weights[:, :22] = d["weights"][:, :22]
    weights[:, first_hand + 3] = d["weights"][:, 22]  # left middle1
    weights[:, first_hand + 18] = d["weights"][:, 23]  # right middle1
    kintree = np.array([[p if p >= 0 else 2**32 - 1 for p in parents], range(n)], np.uint32)
    out = {
        "v_template": v,
        "f": d["f"],
        "weights": weights,
        "J_regressor": np.array(rows),
        "kintree_table": kintree,
        "shapedirs": d["shapedirs"],
        "posedirs": np.zeros((len(v), 3, 9 * (n - 1))),
        "hands_componentsl": np.eye(45),
        "hands_componentsr": np.eye(45),
        "hands_meanl": np.zeros(45),
        "hands_meanr": np.zeros(45),
    }
    if kind == "smplx":
        out["shapedirs"] = np.concatenate([d["shapedirs"], np.zeros_like(d["shapedirs"])], 2)
        out["lmk_faces_idx"] = np.zeros(51, np.int64)
        out["lmk_bary_coords"] = np.full((51, 3), 1 / 3)
    return out


def test_smplh_and_smplx_map_onto_smpl_joints(tmp_path):
    (tmp_path / "smplh").mkdir()
    with open(tmp_path / "smplh" / "SMPLH_MALE.pkl", "wb") as f:
        pickle.dump(_extended("smplh"), f)
    (tmp_path / "smplx").mkdir()
    np.savez(tmp_path / "smplx" / "SMPLX_NEUTRAL.npz", **_extended("smplx"))
    rng = np.random.default_rng(5)
    poses = rng.normal(0.0, 0.5, (4, 24, 3))
    poses[:, 22:] = 0.0  # SMPL-H/X hands stay flat
    trans = rng.normal(0.0, 1.0, (4, 3))
    ref = load_body().pose(poses, trans, [1.0, 0.5, -1.0])
    for kind, gender in (("smplh", "male"), ("smplx", "neutral")):
        body = load_body(tmp_path, kind, gender)
        assert body.model_type == kind
        frames = body.pose(poses, trans, [1.0, 0.5, -1.0])
        np.testing.assert_allclose(frames.joints, ref.joints, atol=1e-5)
        np.testing.assert_allclose(frames.vertices, ref.vertices, atol=1e-5)
        assert np.array_equal(body.parts, load_body().parts)


# --- missing and corrupt files ---------------------------------------------------------


def test_a_missing_model_asked_for_is_an_error_not_the_mannequin(tmp_path, monkeypatch):
    # issue 13: the mannequin stands in only when no model is given
    missing = tmp_path / "no_such_models"
    with pytest.raises(BodyModelError, match="no_such_models: no such body model") as err:
        load_body(missing, "smplx")
    assert ENV_VAR in str(err.value)  # says how to point to real files
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "also_missing"))
    with pytest.raises(BodyModelError, match=f"also_missing.*{ENV_VAR}"):
        load_body()
    empty = tmp_path / "empty_dir"
    empty.mkdir()
    with pytest.raises(BodyModelError, match=r"smpl/SMPL_NEUTRAL\.pkl"):
        load_body(empty)
    monkeypatch.delenv(ENV_VAR)
    assert load_body().name == "mannequin" and load_body("").name == "mannequin"


def test_corrupt_files_are_clear_errors(tmp_path):
    raw = mannequin_path().read_bytes()
    truncated = tmp_path / "truncated.pkl"
    truncated.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(BodyModelError, match="truncated.pkl.*truncated or corrupt"):
        load_body(truncated)

    def write(name: str, change) -> Path:
        d = shipped()
        change(d)
        path = tmp_path / name
        with open(path, "wb") as f:
            pickle.dump(d, f)
        return path

    cases = {
        "no_weights.pkl": (lambda d: d.pop("weights"), "'weights' is missing"),
        "bad_weights.pkl": (lambda d: d.update(weights=d["weights"].T), "'weights'.*shape"),
        "bad_faces.pkl": (lambda d: d.update(f=d["f"] + 10**6), "'f'.*vertex indices"),
        "nan_template.pkl": (
            lambda d: d["v_template"].__setitem__((0, 0), np.nan),
            "'v_template'.*NaN",
        ),
        "joints_27.pkl": (
            lambda d: d.update(kintree_table=np.zeros((2, 27))),
            "'kintree_table'.*27 joints",
        ),
    }
    for name, (change, message) in cases.items():
        with pytest.raises(BodyModelError, match=f"{name}.*{message}"):
            load_body(write(name, change))
    not_dict = tmp_path / "list.pkl"
    not_dict.write_bytes(pickle.dumps([1, 2, 3]))
    with pytest.raises(BodyModelError, match="list.pkl.*expected a dict"):
        load_body(not_dict)
    # a corrupt real model in the smplx layout is an error, not a silent fallback
    (tmp_path / "smpl").mkdir()
    (tmp_path / "smpl" / "SMPL_NEUTRAL.pkl").write_bytes(raw[:100])
    with pytest.raises(BodyModelError, match="SMPL_NEUTRAL.pkl"):
        load_body(tmp_path)
    with pytest.raises(BodyModelError, match="gender"):
        load_body(None, "smpl", "other")
    with pytest.raises(BodyModelError, match="type"):
        load_body(None, "mano")


def test_a_missing_body_model_in_the_config_names_the_field(tmp_path):
    from tempogen.config import ConfigError, config_from_dict

    with pytest.raises(ConfigError, match=r"scenes3d\.body_model: no such body model.*nowhere"):
        config_from_dict({"scenes3d": {"body_model": str(tmp_path / "nowhere")}}, "c.yaml")
    assert config_from_dict({"scenes3d": {"body_model": None}}).scenes3d.body_model == ""


def test_the_docs_smplx_create_call_runs_as_written(monkeypatch):
    # issue 12: the documented call is the one that works (a plain create fails on landmarks)
    import contextlib
    import io
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    page = root / "docs" / "guide" / "humans.md"
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    (snippet,) = [b for b in blocks if "smplx.create(" in b]
    monkeypatch.chdir(root)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(snippet, str(page), "exec"), {})
    assert "torch.Size([1, 4354, 3])" in out.getvalue()
