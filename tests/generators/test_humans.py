"""Simulated humans: every motion certifies for every answer, and its rendered pixels agree.

The pixel checks read the rendered frames only through colour and silhouette: a glove's hue
blob for a hand, the body's outline against a plain sky for feet, head and pelvis, the two
gloves' relative position for the body's yaw. The states read this way go through the same
observer as the labels (``tempogen.observe``) and must give the labelled answer.
"""

from __future__ import annotations

import math
import zlib

import cv2
import numpy as np
import pytest

import tempogen.generators.patterns.human  # noqa: F401  (registers the human motions)
from tempogen import observe
from tempogen.builders.audit.pixels3d import pixel_states_3d
from tempogen.facts import answer_of
from tempogen.generators.camera import Camera
from tempogen.generators.humans import BodyWorld, Mesh, Rig, hue
from tempogen.generators.kinematics import LIMBS, PoseError, flexion
from tempogen.generators.motion import MOTIONS, SAMPLES, Scene, Style, certify, make_scene
from tempogen.generators.poses import rotvec_to_matrix
from tempogen.generators.skeleton import INDEX
from tempogen.labels import Labels
from tempogen.questions import answer_key

HUMAN = sorted(name for name, m in MOTIONS.items() if m.renderer == "human" and not m.needs_source)
CASES = [(name, key) for name in HUMAN for key in MOTIONS[name].keys()]
# each motion's first answer always; its other answers in the slow run (make test runs all)
FIRST_FAST = [
    (name, key)
    if key == MOTIONS[name].keys()[0]
    else pytest.param(name, key, marks=pytest.mark.slow)
    for name, key in CASES
]
W, H = 320, 180


def _scene(name: str, key: str, seed: int | None = None, **kw) -> Scene:
    seed = zlib.crc32(f"{name}/{key}".encode()) % 10_000 if seed is None else seed
    rng = np.random.default_rng(seed)
    args = dict(width=W, height=H, fps=15.0, num_frames=int(rng.integers(46, 76)), style=Style())
    args.update(kw)
    return make_scene(MOTIONS[name], key, rng, **args)


def test_the_human_motions_are_registered() -> None:
    want = {"twirl", "body_turn", "hand_move", "side_step", "arm_swing_speed", "jump_rhythm",
            "wave_rhythm", "air_drawing", "jumps", "squats", "claps", "waves",
            "circle_count", "first_hand", "jump_compare", "walk_path", "held_lights",
            "step_count", "arm_circles", "turn_first", "walk_faster", "put_down",
            "walk_depth", "action_order"}  # fmt: skip
    assert want <= set(HUMAN)
    for name in HUMAN:
        assert MOTIONS[name].note == "simulated human"


@pytest.mark.parametrize("name,key", FIRST_FAST)
def test_every_answer_certifies_at_16_samples(name: str, key: str) -> None:
    scene = _scene(name, key, width=640, height=360, fps=30.0, num_frames=150)
    labels = scene.labels()
    cert = certify(labels)
    assert cert.ok(MOTIONS[name].fact, key), cert
    assert scene.world is not None
    # the 3D truth in meta projects onto the subject's track, to its millimetre rounding
    cam = _camera(labels)
    subject = labels.subject
    pts = np.asarray(labels.meta["joints3d"][subject.name])
    err = np.hypot(*(cam.project(pts) - np.stack([subject.x, subject.y], 1)).T)
    mm = max(cam.pixels_per_metre(p) for p in pts) / 1000.0
    assert err.max() <= 0.9 * mm + 1e-6


def _camera(labels: Labels) -> Camera:
    c = labels.meta["camera"]
    return Camera(labels.width, labels.height, math.radians(c["yfov_deg"]), np.array(c["pose"]))


def test_same_seed_same_clip() -> None:
    a, b = _scene("twirl", "cw", 3), _scene("twirl", "cw", 3)
    assert a.labels().to_json() == b.labels().to_json()
    idx = [0, 20]
    fa = [f.copy() for f in a.world.frames("grid", np.random.default_rng(1), indices=idx)]
    fb = [f.copy() for f in b.world.frames("grid", np.random.default_rng(1), indices=idx)]
    assert all(np.array_equal(x, y) for x, y in zip(fa, fb))
    c = _scene("twirl", "cw", 4)
    assert c.labels().to_json() != a.labels().to_json()


def test_poses_stay_within_joint_limits() -> None:
    for name in HUMAN:
        scene = _scene(name, MOTIONS[name].keys()[0], width=640, height=360)
        poses = scene.world.sequence.poses
        for limb in LIMBS:
            f = flexion(poses, limb)
            assert f.min() >= -1e-6 and f.max() <= LIMBS[limb].max_flex + 1e-6, (name, limb)


def test_first_person_hand_motions_are_flagged() -> None:
    seen = set()
    for seed in range(12):
        scene = _scene("hand_move", "left", seed)
        labels = scene.labels()
        fp = labels.meta.get("variation", {}).get("first_person") == 1
        seen.add(fp)
        cam = _camera(labels)
        head = scene.world.joints[0, 15]
        back = cam.pose[:3, 2]  # the camera looks along -back
        if fp:  # at the head, looking forward (+z) and down at the hands
            assert np.linalg.norm(cam.pose[:3, 3] - head) < 0.3
            assert back[2] < 0.0 and back[1] > 0.3
        else:  # in front of the person, looking back at them (-z)
            assert cam.pose[2, 3] > 1.0 and back[2] > 0.5
    assert seen == {True, False}


def test_an_unreachable_target_names_the_motion_and_frame() -> None:
    scene = Scene(np.random.default_rng(0), W, H, 15.0, 10, Style())
    rig = Rig.start(scene, "test_reach")
    far = np.tile(rig.rest_point("left_shoulder") + [0.0, 0.0, 1.5], (10, 1))
    with pytest.raises(PoseError, match=r"motion 'test_reach': frame 0: left_arm"):
        rig.arm_to("left", far)


@pytest.mark.parametrize("key", MOTIONS["put_down"].keys())
def test_a_ball_put_down_rests_on_its_stand(key: str) -> None:
    """A ball put down ends on the stand under it (centre one radius above the top, within
    1 cm), never moves once it lands and never dips below that; a ball kept in hand stays
    still, well above the stands."""
    scene = _scene("put_down", key, width=640, height=360, fps=30.0, num_frames=150)
    labels = scene.labels()
    balls = [m for m in scene.world.others if len(m.vertices[0]) != 8]
    stands = [m for m in scene.world.others if len(m.vertices[0]) == 8]
    assert len(balls) == len(stands) == 2
    for ball in balls:
        centre = ball.vertices.mean(axis=1)
        radius = float(np.linalg.norm(ball.vertices[0] - centre[0], axis=1).max())
        step = np.linalg.norm(np.diff(centre, axis=0), axis=1)
        moved = np.flatnonzero(step > 1e-9)
        if key == "none":  # held still throughout, well above the stands
            tops = max(float(s.vertices[0][:, 1].max()) for s in stands)
            assert not len(moved) and centre[-1, 1] - radius > tops + 0.05
            continue
        below = [s for s in stands if _under(s, centre[-1])]
        assert len(below) == 1, "each ball's spot has one stand under it"
        top = float(below[0].vertices[0][:, 1].max())
        assert abs(centre[-1, 1] - (top + radius)) <= 0.01
        landed = moved[-1] + 1
        assert landed < len(centre) - 1  # it lands before the end and stays
        assert np.all(centre[landed:] == centre[-1])
        assert np.all(centre[:landed, 1] >= centre[-1, 1] - 1e-6)  # never below the top
    names = {tuple(b.colors[0]) for b in balls}
    assert names == {tuple(labels.track(n).color) for n in labels.query.objects}


def _under(stand: Mesh, point: np.ndarray) -> bool:
    """Whether ``point`` lies above the footprint of a box-shaped stand (first frame)."""
    lo, hi = stand.vertices[0].min(axis=0), stand.vertices[0].max(axis=0)
    return bool(lo[0] <= point[0] <= hi[0] and lo[2] <= point[2] <= hi[2])


@pytest.mark.parametrize("key", MOTIONS["walk_path"].keys())
def test_walk_path_closes_and_faces_along_it(key: str) -> None:
    """The pelvis walks a closed loop (the last frame is the first) facing along it, the feet
    take turns to step; asked for "none", the person stands still."""
    fps = 30.0
    scene = _scene("walk_path", key, width=640, height=360, fps=fps, num_frames=150)
    pelvis = np.asarray(scene.labels().meta["joints3d"]["person"])
    if key == "none":
        assert np.ptp(pelvis, axis=0).max() < 0.01
        return
    xz = pelvis[:, [0, 2]]
    assert np.linalg.norm(pelvis[-1] - pelvis[0]) < 0.01 * np.ptp(xz, axis=0).max()
    ahead = rotvec_to_matrix(scene.world.sequence.poses[:, 0]) @ np.array([0.0, 0.0, 1.0])
    yaw = np.unwrap(np.arctan2(ahead[:, 0], ahead[:, 2]))
    loop = xz[:-1]  # the last frame is the first: differences wrap round the loop
    v = np.roll(loop, -1, axis=0) - np.roll(loop, 1, axis=0)
    v = np.vstack([v, v[:1]])
    tangent = np.unwrap(np.arctan2(v[:, 0], v[:, 1]))
    err = np.degrees(np.abs((yaw - tangent + np.pi) % (2 * np.pi) - np.pi))
    # corners: where the path's own direction jumps (the body turns there, smoothly)
    at = np.arange(len(xz))
    corners = np.flatnonzero(np.abs(np.diff(np.degrees(tangent))) > 10.0)
    far = np.r_[corners, -fps]  # a frame far before the clip: a circle has no corner
    away = np.abs(at[:, None] - far[None, :]).min(axis=1) > 0.25 * fps
    assert away.sum() > 0.4 * len(xz)
    assert err[away].max() < 10.0, err[away].max()  # along the straight parts and curves
    assert err.max() < 90.0  # a corner is turned smoothly, never walked sideways
    assert np.degrees(np.abs(np.diff(yaw))).max() < 30.0  # no snap from frame to frame
    joints = scene.world.joints
    up = {s: joints[:, INDEX[f"{s}_ankle"], 1] - joints[:, INDEX[f"{s}_ankle"], 1].min() > 0.03
          for s in ("left", "right")}  # fmt: skip
    assert not np.any(up["left"] & up["right"])  # walking: one foot always down
    for s in ("left", "right"):
        assert np.sum(np.diff(up[s].astype(int)) == 1) >= 2, f"the {s} foot hardly steps"


@pytest.mark.slow
@pytest.mark.parametrize("key", MOTIONS["walk_path"].keys())
def test_walk_path_pixel_audit_reads_the_shape(key: str) -> None:
    """The pixel audit's own reader (the gloves carry the pelvis) gives the walked shape."""
    scene = _scene("walk_path", key)
    labels = scene.labels()
    idx = observe.uniform_indices(labels.num_frames, SAMPLES)
    measured = pixel_states_3d(_render(scene, idx), labels, idx)
    got = answer_of(measured, idx)
    assert got is not None and answer_key("trajectory", got) == key, got


@pytest.mark.parametrize("key", MOTIONS["walk_depth"].keys())
def test_walk_depth_walks_in_depth_in_full_view(key: str) -> None:
    """The pelvis goes along the camera's line of sight the way the answer says (a turn faces
    the other way), and every joint, head and soles stay inside the frame."""
    scene = _scene("walk_depth", key, width=640, height=360, fps=30.0, num_frames=150)
    labels = scene.labels()
    cam = _camera(labels)
    depth = cam.depth(np.asarray(labels.meta["joints3d"]["person"]))
    steps = np.sign(np.diff(depth)[np.abs(np.diff(depth)) > 1e-4])
    runs = [s for i, s in enumerate(steps) if i == 0 or s != steps[i - 1]]
    assert [{-1.0: "towards", 1.0: "away"}[s] for s in runs] == (
        [] if key == "none" else key.split("-")
    )
    joints = scene.world.joints
    uv = cam.project(
        np.concatenate([joints.reshape(-1, 3), joints[:, INDEX["head"]] + [0, 0.14, 0]])
    )
    assert (
        uv[:, 0].min() > 0 and uv[:, 0].max() < 640 and uv[:, 1].min() > 0 and uv[:, 1].max() < 360
    )


@pytest.mark.slow
@pytest.mark.parametrize("key", MOTIONS["walk_depth"].keys())
def test_walk_depth_pixel_audit_reads_the_size(key: str) -> None:
    """The pixel audit's own reader (the gloves' on-screen size, over floor and a noisy sky)
    gives the walk's direction in depth."""
    scene = _scene("walk_depth", key, width=640, height=360)
    labels = scene.labels()
    idx = observe.uniform_indices(labels.num_frames, SAMPLES)
    measured = pixel_states_3d(_render(scene, idx), labels, idx)
    got = answer_of(measured, idx)
    assert got is not None and answer_key("approach", got) == key, got


# pixel reads -----------------------------------------------------------------------------


def glove_mask(frame: np.ndarray, rgb: tuple[int, int, int]) -> np.ndarray:
    """Pixels of a glove: its hue, well saturated (clothes, floor and sky are muted)."""
    hsv = cv2.cvtColor(frame, cv2.COLOR_RGB2HSV)
    d = np.abs(hsv[..., 0].astype(np.int32) * 2 - hue(rgb))
    d = np.minimum(d, 360 - d)
    return (d <= 20) & (hsv[..., 1] >= 120) & (hsv[..., 2] >= 50)


def centroid(mask: np.ndarray) -> tuple[float, float, int]:
    """Centroid in label coordinates (pixel centres at +0.5) and area of a mask."""
    yy, xx = np.nonzero(mask)
    if not len(xx):
        return math.nan, math.nan, 0
    return float(xx.mean() + 0.5), float(yy.mean() + 0.5), len(xx)


def _render(
    scene: Scene, idx: np.ndarray, plain: bool = False, everyone: bool = False
) -> list[np.ndarray]:
    world: BodyWorld = scene.world
    if plain:  # the body (``everyone``: all people) on a plain sky: outlines are non-sky pixels
        others = world.others if everyone else ()
        world = BodyWorld(
            world.faces, world.vertices, world.vertex_colors, world.camera, None, others=others
        )
        frames = world.frames("solid", np.random.default_rng(5), indices=idx)
    else:
        frames = world.frames("noise", np.random.default_rng(5), indices=idx)
    return [f.copy() for f in frames]


def _silhouette(frame: np.ndarray) -> np.ndarray:
    sky = frame[0, 0].astype(np.int32)
    return np.abs(frame.astype(np.int32) - sky).max(axis=2) > 12


def _measured(labels: Labels, idx: np.ndarray, name: str, **states: np.ndarray) -> Labels:
    """The labels with one track's states at ``idx`` replaced by pixel measurements."""
    tr = labels.track(name)
    full = {}
    for k, v in states.items():
        arr = getattr(tr, k).copy()
        arr[idx] = v
        full[k] = arr
    tracks = tuple(tr.with_states(**full) if t.name == name else t for t in labels.tracks)
    return labels.with_tracks(tracks, meta={**labels.meta, "measured": True})


def _pixel_answer(scene: Scene, labels: Labels, idx: np.ndarray) -> object:
    subject = labels.subject
    if labels.query.kind == "lit" or subject.shape == "ball":  # held balls: their paint
        return answer_of(pixel_states_3d(_render(scene, idx), labels, idx), idx)
    if subject.shape == "hand":  # every hand the question reads, from its glove
        frames = _render(scene, idx)
        measured = labels
        for t in (labels.track(n) for n in labels.query.objects):
            if t.shape != "hand":
                continue
            xs, ys, areas = np.array([centroid(glove_mask(f, t.color)) for f in frames]).T
            seen = areas >= 0.5 * np.median(areas)
            assert seen.sum() >= 12, f"the hand is hidden in {int((~seen).sum())} samples"
            err = np.hypot(xs - t.x[idx], ys - t.y[idx])[seen]
            tol = max(3.5, 0.4 * t.size)  # the visible side only: close-ups skew it
            assert err.max() <= tol, f"glove centroid is {err.max():.1f} px from the label"
            xs, ys = np.where(seen, xs, t.x[idx]), np.where(seen, ys, t.y[idx])
            measured = _measured(measured, idx, t.name, x=xs, y=ys)
        return answer_of(measured, idx)
    if subject.shape == "human" and labels.query.kind == "spin":
        return answer_of(_yaw_from_gloves(scene, labels, idx), idx)
    if labels.query.fact == "more":  # people side by side: each one's soles in their half
        frames = _render(scene, idx, plain=True, everyone=True)
        return answer_of(_soles_per_person(labels, idx, frames), idx)
    frames = _render(scene, idx, plain=True)
    rows = [np.nonzero(_silhouette(f).any(axis=1))[0] for f in frames]
    if subject.shape == "feet":  # the soles: the outline's lowest row
        y = np.array([r.max() + 1.0 for r in rows])
        return answer_of(_measured(labels, idx, "feet", y=y), idx)
    if subject.shape == "head":  # the crown: the outline's highest row
        y = np.array([float(r.min()) for r in rows])
        return answer_of(_measured(labels, idx, "head", y=y), idx)
    if labels.query.fact == "approach":  # apparent size: the outline's height, crown to soles
        tall = np.array([r.max() + 1.0 - r.min() for r in rows])
        return answer_of(_measured(labels, idx, subject.name, scale=tall / tall[0]), idx)
    xs, ys, _ = np.array([centroid(_silhouette(f)) for f in frames]).T  # the whole person
    return answer_of(_measured(labels, idx, subject.name, x=xs, y=ys), idx)


def _soles_per_person(labels: Labels, idx: np.ndarray, frames: list[np.ndarray]) -> Labels:
    """Each person's soles: the lowest outline row in the columns nearer their own feet
    track than any other person's (people stand apart, side by side)."""
    people = [labels.track(n) for n in labels.query.objects[0::2]]
    cols = np.arange(labels.width) + 0.5
    near = np.argmin([np.abs(cols - t.x[idx[0]]) for t in people], axis=0)
    measured = labels
    for k, t in enumerate(people):
        rows = [np.nonzero(_silhouette(f)[:, near == k].any(axis=1))[0] for f in frames]
        assert all(len(r) for r in rows), f"{t.name} is missing from a frame"
        y = np.array([r.max() + 1.0 for r in rows])
        measured = _measured(measured, idx, t.name, y=y)
    return measured


def _yaw_from_gloves(scene: Scene, labels: Labels, idx: np.ndarray) -> Labels:
    """The body's yaw as the elevated camera shows it: the direction from the right glove to
    the left one, which turns on screen the way the body turns seen from above."""
    look = labels.meta["look"]["hands"]
    frames = _render(scene, idx)
    angles = []
    for f in frames:
        (lx, ly, la), (rx, ry, ra) = (
            centroid(glove_mask(f, tuple(look[s][1]))) for s in ("left", "right")
        )
        assert la > 0 and ra > 0, "a glove is hidden"
        angles.append(math.degrees(math.atan2(ly - ry, lx - rx)))
    steps = observe.wrap(np.diff(angles), 360.0)
    angle = np.concatenate([[angles[0]], angles[0] + np.cumsum(steps)])
    return _measured(labels, idx, "person", angle=angle)


@pytest.mark.slow
@pytest.mark.parametrize("name,key", CASES)
def test_pixels_answer_like_labels(name: str, key: str) -> None:
    scene = _scene(name, key)
    labels = scene.labels()
    idx = observe.uniform_indices(labels.num_frames, SAMPLES)
    got = _pixel_answer(scene, labels, idx)
    assert got is not None, f"{name}: the pixels do not determine the answer"
    assert answer_key(MOTIONS[name].fact, got) == key


@pytest.mark.slow
def test_pixel_check_catches_a_wrong_label() -> None:
    """Played backwards, a clockwise twirl reads counter-clockwise from the pixels."""
    scene = _scene("twirl", "cw")
    labels = scene.labels()
    idx = observe.uniform_indices(labels.num_frames, SAMPLES)
    frames = _render(scene, idx)[::-1]
    t = labels.subject
    xs, ys, _ = np.array([centroid(glove_mask(f, t.color)) for f in frames]).T
    got = answer_of(_measured(labels, idx, "hand", x=xs, y=ys), idx)
    assert answer_key("rotation", got) == "ccw"


@pytest.mark.slow
def test_no_jumps_beside_a_jumping_companion_reads_zero_from_pixels() -> None:
    """Count 0: the person asked about stands while the companion jumps. The audit's glove
    reader gives 0 for that person and a count above 0 when pointed at the companion."""
    for seed in range(40):
        scene = _scene("jumps", "0", seed, width=640, height=360)
        labels = scene.labels()
        if len(labels.meta.get("people", [])) == 2:
            break
    else:
        pytest.fail("no jumps clip with a companion in 40 seeds")
    assert labels.meta["actor"].startswith("the person in")  # named by clothes
    idx = observe.uniform_indices(labels.num_frames, SAMPLES)
    frames = _render(scene, idx)
    assert answer_of(pixel_states_3d(frames, labels, idx), idx) == 0
    decoy = Labels.from_json(labels.to_json())
    decoy.meta["owners"] = {**decoy.meta.get("owners", {}), "feet": 1}
    assert answer_of(pixel_states_3d(frames, decoy, idx), idx) >= 2


# action_order: what the person does right after a gesture -----------------------------------


@pytest.mark.parametrize("key", ["clap", "arms_out"])
def test_action_order_audit_reader_reads_the_next_gesture(key: str) -> None:
    """The real audit reader (gloves' paint centroids) on rendered frames of TOMATO's samples
    reads the gesture sequence and the labelled answer."""
    from tempogen.builders.audit.pixels3d import human_pixel_states

    scene = _scene("action_order", key, width=640, height=360)
    labels = scene.labels()
    idx = observe.uniform_indices(labels.num_frames, SAMPLES)
    measured = human_pixel_states(_render(scene, idx), labels, idx)
    assert observe.gestures(measured, idx) == tuple(labels.meta["gestures"])
    assert answer_key("next", answer_of(measured, idx)) == key


def test_action_order_answer_follows_the_order_of_the_gestures() -> None:
    """Played backwards the gestures come in reverse order: what follows the anchor is what
    preceded it (or nothing), so a fact that ignored order would fail here."""
    labels = _scene("action_order", "both_up", seed=3).labels()
    seq = list(labels.meta["gestures"])
    back = labels.with_tracks(
        tuple(t.take(np.arange(labels.num_frames)[::-1]) for t in labels.tracks)
    )
    assert observe.gestures(back, np.arange(back.num_frames)) == tuple(seq[::-1])
    k = seq.index(labels.query.kind)
    assert answer_of(labels) == seq[k + 1] == "both_up"
    assert answer_of(back) == (seq[k - 1] if k > 0 else None)


def test_action_order_edits_reverse_and_mirror() -> None:
    """Reverse re-reads the answer from the reversed states (what came just before the anchor,
    or a refusal when nothing did); a mirror keeps it, the hands being named by their gloves."""
    from tempogen.editing import Clip, EditError, Mirror, Reverse, Rotate

    for seed in range(4):
        labels = _scene("action_order", "clap", seed=seed).labels()
        seq = list(labels.meta["gestures"])
        k = seq.index(labels.query.kind)
        clip = Clip.from_array(np.zeros((labels.num_frames, H, W, 3), np.uint8), 15.0, labels)
        for op in (Mirror("horizontal"), Mirror("vertical"), Rotate(90)):
            assert answer_key("next", answer_of(op(clip).labels)) == "clap"
        if k == 0:  # reversed, the anchor comes last: nothing follows it
            assert answer_of(Reverse()(clip).labels) is None
        else:
            assert answer_of(Reverse()(clip).labels) == seq[k - 1]
    with pytest.raises(EditError, match="'next'"):
        from tempogen.editing import Loop

        Loop(2)(clip)
