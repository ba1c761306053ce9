"""3D object patterns: every answer class certifies, and the rendered pixels give it back."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import tempogen.generators.patterns  # noqa: F401  (registers every pattern, 3D ones included)
from tempogen import observe
from tempogen.builders.audit.pixels import pixel_labels
from tempogen.builders.audit.pixels3d import centroid, hue_mask, paints, pixel_states_3d
from tempogen.choices import BACKGROUNDS
from tempogen.facts import answer_of
from tempogen.generators.motion import MOTIONS, SAMPLES, Scene, Style, certify, make_scene
from tempogen.generators.patterns.objects3d import NOTE, RigidWorld
from tempogen.questions import answer_key

NAMES = ("cube_spin", "top_spin", "moon_orbit", "ball_roll")
CASES = [(name, key) for name in NAMES for key in MOTIONS[name].keys()]
W, H = 320, 180


def _scene(name: str, key: str, seed: int | None = None) -> Scene:
    seed = zlib.crc32(f"{name}/{key}".encode()) % 1000 if seed is None else seed
    rng = np.random.default_rng(seed)
    return make_scene(
        MOTIONS[name],
        key,
        rng,
        width=W,
        height=H,
        fps=12,
        num_frames=int(rng.integers(36, 60)),
        style=Style(),
    )


def _sampled_frames(scene: Scene, background: str, seed: int) -> tuple[np.ndarray, list]:
    idx = observe.uniform_indices(scene.n, SAMPLES)
    want = set(idx.tolist())
    frames = [
        f.copy()
        for i, f in enumerate(scene.world.frames(background, np.random.default_rng(seed)))
        if i in want
    ]
    assert len(frames) == SAMPLES
    return idx, frames


def _centroids(frames, rgb, others) -> np.ndarray:
    out = []
    for f in frames:
        c = centroid(hue_mask(f, rgb, others))
        assert c is not None, f"colour {rgb} not found in a frame"
        out.append(c)
    return np.array(out)


def _paints(scene: Scene) -> list:
    """Every colour painted on a body (floor and sky excluded), as the labels record them."""
    listed = sorted(tuple(c) for c in scene.labels().meta["paints"])
    assert listed == paints(scene.labels())
    return listed


def _pixel_answer(name: str, scene: Scene, idx: np.ndarray, frames: list):
    """The question's answer from pixels alone, by the pixel audit's own reader."""
    labels = scene.labels()
    measured = pixel_states_3d(frames, labels, idx)
    subj = measured.subject
    return answer_of(measured, idx), np.c_[subj.x[idx], subj.y[idx]]


def test_patterns_are_registered_as_3d_object_scenes():
    for name in NAMES:
        m = MOTIONS[name]
        assert m.renderer == "object3d" and m.note == NOTE == "simulated 3D objects"
    assert MOTIONS["ball_roll"].keys() == ["left", "right", "left-right", "right-left"]
    assert MOTIONS["cube_spin"].keys() == ["cw", "ccw", "cw-ccw", "ccw-cw", "none"]
    assert "seen from above" in MOTIONS["top_spin"].question


@pytest.mark.slow
@pytest.mark.parametrize("name,key", CASES)
def test_pixels_give_the_label_answer(name: str, key: str) -> None:
    seed = zlib.crc32(f"{name}/{key}".encode()) % 1000
    scene = _scene(name, key, seed)
    labels = scene.labels()
    cert = certify(labels)
    assert cert.ok(MOTIONS[name].fact, key), cert
    assert isinstance(scene.world, RigidWorld) and scene.world.num_frames == scene.n
    background = BACKGROUNDS[seed % len(BACKGROUNDS)]
    idx, frames = _sampled_frames(scene, background, seed)

    got, centre = _pixel_answer(name, scene, idx, frames)
    assert got is not None, f"{name}: pixels do not determine the answer"
    assert answer_key(MOTIONS[name].fact, got) == key
    # the labelled positions are where the objects are drawn
    subj = labels.subject
    err = np.hypot(centre[:, 0] - subj.x[idx], centre[:, 1] - subj.y[idx])
    assert err.max() < max(2.0, 0.2 * subj.size), err
    if name in ("cube_spin", "top_spin"):  # the labelled mark is where its paint is drawn
        mark = labels.track("mark")
        seen = _centroids(frames, mark.color, [p for p in _paints(scene) if p != mark.color])
        err = np.hypot(seen[:, 0] - mark.x[idx], seen[:, 1] - mark.y[idx])
        assert err.max() < max(2.0, 0.2 * mark.size), err
    if name == "top_spin":
        return  # seen obliquely, its paint does not turn rigidly on screen: read via its mark
    # the repo's generic pixel verifier (colour masks, patch rotation) agrees
    spin = labels.query.kind == "spin"
    generic = answer_of(pixel_labels(frames, labels, idx, rotation=spin), idx)
    assert generic is not None and answer_key(MOTIONS[name].fact, generic) == key


@pytest.mark.parametrize("name", NAMES)
def test_objects_stay_in_view_and_labels_are_projected(name: str) -> None:
    scene = _scene(name, MOTIONS[name].keys()[0])
    labels = scene.labels()
    cam = scene.world.camera
    for t in labels.tracks:
        b = t.bbox()
        assert b[:, 0].min() >= 0 and b[:, 1].min() >= 0
        assert b[:, 2].max() <= W and b[:, 3].max() <= H
    if name in ("moon_orbit", "ball_roll"):
        moving = [b for b in scene.world.bodies if b.poses.ndim == 3][0]
        px = cam.project(moving.poses[:, :3, 3])
        assert np.allclose(px[:, 0], labels.subject.x) and np.allclose(px[:, 1], labels.subject.y)


def test_rolling_ball_turns_as_it_rolls() -> None:
    scene = _scene("ball_roll", "right-left")
    ball = scene.world.bodies[0]
    x = ball.poses[:, 0, 3]
    radius = float(np.linalg.norm(ball.mesh.vertices, axis=1).max())
    # rolling without slipping: the turn about the axle is -distance / radius
    turn = np.unwrap(np.arctan2(ball.poses[:, 1, 0], ball.poses[:, 0, 0]))
    assert np.allclose(turn - turn[0], -(x - x[0]) / radius, atol=1e-6)
    assert np.allclose(ball.poses[:, 1, 3], radius)  # resting on the floor at y = 0


def test_top_turns_clockwise_seen_from_above() -> None:
    scene = _scene("top_spin", "cw")
    disc = scene.world.bodies[1]
    yaw = scene.labels().subject.angle
    # the disc's local +x, seen from above (x right, z towards the viewer of the map)
    fx, fz = disc.poses[:, 0, 0], disc.poses[:, 2, 0]
    heading = np.degrees(np.unwrap(np.arctan2(fz, fx)))  # clockwise positive from above
    assert np.allclose(heading - heading[0], yaw - yaw[0], atol=1e-6)
    assert yaw[-1] > yaw[0]


def test_same_seed_same_clip() -> None:
    a, b = _scene("moon_orbit", "cw", 5), _scene("moon_orbit", "cw", 5)
    assert a.labels().to_json() == b.labels().to_json()
    fa = [f.copy() for f in a.world.frames("gradient", np.random.default_rng(2))]
    fb = [f.copy() for f in b.world.frames("gradient", np.random.default_rng(2))]
    assert all(np.array_equal(x, y) for x, y in zip(fa, fb))
    assert not np.array_equal(fa[0], fa[-1])


# issue 12: 3D objects for count, velocity & frequency, shape & trend and visual cues ------------
TASK_NAMES = (
    "ball_bounce3d",
    "ball_rhythm3d",
    "lamp_flash3d",
    "moon_laps3d",
    "lamp_blink3d",
    "lamp_order3d",
    "roll_order3d",
    "ball_pace3d",
    "ramp_roll3d",
    "pendulum3d",
    "rotor3d",
    "fly_shape3d",
    "cube_fly3d",
    "balloon3d",
)
TASK_CASES = [(name, key) for name in TASK_NAMES for key in MOTIONS[name].keys()]


def test_new_patterns_cover_their_tasks_2d_classes() -> None:
    from tempogen.generators.motion import motions_for

    for task in ("count", "direction", "rotation", "shape&trend", "velocity&frequency"):
        flat = {(m.fact, k) for m in motions_for(task) if m.renderer == "2d" for k in m.keys()}
        solid = {
            (m.fact, k) for m in motions_for(task) if m.renderer == "object3d" for k in m.keys()
        }
        assert flat and flat <= solid, (task, flat - solid)
    # visual cues: each 3D pattern alone answers every order the 2D patterns ask
    flat = {k for m in motions_for("visual_cues") if m.renderer == "2d" for k in m.keys()}
    for name in ("lamp_order3d", "roll_order3d"):
        assert set(MOTIONS[name].keys()) == flat, name


# one seed per class always; two more (other scenes, other clip lengths) in the slow run
SEEDED = [(name, key, 0) for name, key in TASK_CASES] + [
    pytest.param(name, key, extra, marks=pytest.mark.slow)
    for name, key in TASK_CASES
    for extra in (1, 2)
]


@pytest.mark.parametrize("name,key,extra", SEEDED)
def test_new_patterns_certify_and_pixels_give_the_label_answer(
    name: str, key: str, extra: int
) -> None:
    seed = zlib.crc32(f"{name}/{key}".encode()) % 1000 + 1000 * extra
    scene = _scene(name, key, seed)
    labels = scene.labels()
    motion = MOTIONS[name]
    assert motion.renderer == "object3d" and motion.note == NOTE
    assert answer_key(motion.fact, answer_of(labels)) == key  # the label is the request
    cert = certify(labels)
    assert cert.ok(motion.fact, key), cert  # 16 frames suffice, one does not
    assert isinstance(scene.world, RigidWorld) and scene.world.num_frames == scene.n
    background = BACKGROUNDS[seed % len(BACKGROUNDS)]
    idx, frames = _sampled_frames(scene, background, seed)
    measured = pixel_states_3d(frames, labels, idx)
    got = answer_of(measured, idx)
    assert got is not None and answer_key(motion.fact, got) == key, got
    for name_ in labels.query.objects:
        t, m = labels.track(name_), measured.track(name_)
        if t.role == "anchor":
            continue
        if labels.query.kind in ("lit", "flash"):  # each lamp is lit on exactly its frames
            assert np.array_equal(m.lit[idx].astype(bool), t.lit[idx]), name_
        else:  # the labelled centre is where the object is drawn
            err = np.hypot(m.x[idx] - t.x[idx], m.y[idx] - t.y[idx])
            assert err.max() < max(2.0, 0.2 * t.size), err


def test_bouncing_ball_touches_the_floor_at_each_counted_contact() -> None:
    scene = _scene("ball_bounce3d", "4")
    ball = scene.world.bodies[0]
    radius = float(np.linalg.norm(ball.mesh.vertices, axis=1).max())
    height = ball.poses[:, 1, 3]
    assert height.min() == pytest.approx(radius) and height.max() > 3 * radius
    touching = np.flatnonzero(np.isclose(height, radius))
    assert len(touching) == 4  # one frame on the floor per bounce, gravity down
    idx = observe.uniform_indices(scene.n, SAMPLES)
    assert set(touching) <= set(idx.tolist())  # every contact is on a sampled frame
    assert np.allclose(ball.poses[:, [0, 2], 3], ball.poses[0, [0, 2], 3])  # in place


def test_lamp_shell_is_in_place_exactly_when_labelled_lit() -> None:
    scene = _scene("lamp_order3d", "obj2")
    labels = scene.labels()
    shells = [b for b in scene.world.bodies if b.poses.ndim == 3]
    assert len(shells) == 3
    for shell in shells:
        name = next(t.name for t in labels.tracks if tuple(t.color) == tuple(shell.color))
        t = labels.track(name)
        shown = shell.poses[:, 1, 3] > 0  # hidden shells wait far below the floor
        assert np.array_equal(shown, t.lit)
        px = scene.world.camera.project(shell.poses[shown, :3, 3])
        assert np.allclose(px, np.c_[t.x[shown], t.y[shown]])


def test_paced_ball_rolls_without_slipping_at_a_fixed_depth() -> None:
    scene = _scene("ball_pace3d", "accelerating")
    ball = scene.world.bodies[0]
    cam = scene.world.camera
    centres = ball.poses[:, :3, 3]
    radius = float(np.linalg.norm(ball.mesh.vertices, axis=1).max())
    assert np.allclose(centres[:, 1], radius)
    travel = np.linalg.norm(centres - centres[0], axis=1)
    # the band's turn about the axle equals distance over radius
    turn = np.degrees(
        np.arccos(
            np.clip(np.einsum("ij,ij->i", ball.poses[:, :3, 1], ball.poses[:1, :3, 1]), -1, 1)
        )
    )
    small = travel / radius < np.pi * 0.9
    assert np.allclose(turn[small], np.degrees(travel[small] / radius), atol=1e-4)
    depth = (centres - cam.pose[:3, 3]) @ -cam.pose[:3, 2]
    assert np.allclose(depth, depth[0])
    steps = np.diff(scene.labels().subject.x)
    assert np.all(np.abs(steps[1:]) >= np.abs(steps[:-1]) - 1e-9)  # speeds up


@pytest.mark.parametrize("key", ["accelerating", "decelerating"])
def test_ramp_ball_rolls_on_the_slope_down_from_rest_or_up_to_rest(key: str) -> None:
    scene = _scene("ramp_roll3d", key)
    ramp, ball = scene.world.bodies
    centres = ball.poses[:, :3, 3]
    radius = float(np.linalg.norm(ball.mesh.vertices, axis=1).max())
    # the ramp's top face: the face whose normal points most upwards
    top = int(np.argmax(ramp.mesh.face_normals[:, 1]))
    normal = ramp.mesh.face_normals[top]
    on = ramp.mesh.vertices[ramp.mesh.faces[top][0]]
    assert 0.1 < np.degrees(np.arccos(normal[1])) < 15  # a slope, gravity down
    assert np.allclose((centres - on) @ normal, radius)  # resting on the slope throughout
    height = centres[:, 1]
    speed = np.linalg.norm(np.diff(centres, axis=0), axis=1)
    if key == "accelerating":  # down from rest: lower and faster every frame
        assert np.all(np.diff(height) < 0) and np.all(np.diff(speed) > 0)
        assert speed[0] < 0.1 * speed[-1]
    else:  # up the slope, slower every frame, at rest as the clip ends
        assert np.all(np.diff(height) > 0) and np.all(np.diff(speed) < 0)
        assert speed[-1] < 0.1 * speed[0]
    # rolling without slipping: turned about the axle (across the slope) by distance / radius
    travel = np.linalg.norm(centres - centres[0], axis=1)
    rel = ball.poses[:, :3, :3] @ ball.poses[0, :3, :3].T
    turn = np.arccos(np.clip((np.trace(rel, axis1=1, axis2=2) - 1) / 2, -1, 1))
    small = travel / radius < np.pi * 0.9
    assert np.allclose(turn[small], travel[small] / radius, atol=1e-6)
    spin = rel[1] - rel[1].T  # the axis of the first step's turn, times 2 sin(turn)
    axis = np.array([spin[2, 1], spin[0, 2], spin[1, 0]])
    assert abs(axis @ normal) < 1e-6 and abs(axis @ (centres[1] - centres[0])) < 1e-9


@pytest.mark.parametrize("laps", [1, 2, 3])
def test_moon_circles_its_planet_the_counted_laps_and_a_little_more(laps: int) -> None:
    """N whole laps and 20 to 40 degrees more in 3D (LOOP_EXTRA): ending exactly on a lap,
    a reading a hair short counts one fewer (tests/data/gpu_h200/README.md)."""
    scene = _scene("moon_laps3d", str(laps))
    planet, moon = scene.world.bodies
    offset = moon.poses[:, :3, 3] - planet.poses[:3, 3]
    cam = scene.world.camera
    right = cam.pose[:3, 0]
    # the orbit's plane is tilted about the camera's right axis: its angle in 3D, unwrapped
    normal = np.cross(offset[0], offset[len(offset) // 7])
    in_plane_up = np.cross(normal / np.linalg.norm(normal), right)
    turned = np.unwrap(np.arctan2(offset @ in_plane_up, offset @ right))
    past = np.degrees(abs(turned[-1] - turned[0])) - 360.0 * laps
    assert 20.0 <= past <= 40.0
    assert np.allclose(np.linalg.norm(offset, axis=1), np.linalg.norm(offset[0]))
    assert answer_key("count", answer_of(scene.labels())) == str(laps)


def test_rolling_balls_rest_until_their_onset_and_roll_towards_the_camera() -> None:
    scene = _scene("roll_order3d", "obj3")
    labels = scene.labels()
    cam = scene.world.camera
    balls = scene.world.bodies
    assert len(balls) == 3
    for ball in balls:
        name = next(t.name for t in labels.tracks if tuple(t.color) == tuple(ball.color))
        t = labels.track(name)
        centres = ball.poses[:, :3, 3]
        radius = float(np.linalg.norm(ball.mesh.vertices, axis=1).max())
        assert np.allclose(centres[:, 1], radius)  # on the floor throughout
        assert np.allclose(cam.project(centres), np.c_[t.x, t.y])
        z = centres[:, 2]
        assert np.all(np.diff(z) >= 0) and z[-1] - z[0] > 0.5  # towards the camera, never back
        moving = np.flatnonzero(np.diff(z) > 0)
        assert moving[0] > 0  # at rest at the start
        # rolling without slipping: the turn about the axle is distance over radius
        turn = np.arctan2(ball.poses[:, 2, 1], ball.poses[:, 1, 1])
        travel = z - z[0]
        small = travel / radius < np.pi * 0.9
        assert np.allclose(turn[small], travel[small] / radius, atol=1e-6)
    assert answer_key("order", answer_of(labels)) == "obj3"


@pytest.mark.parametrize(
    "name,key", [("fly_shape3d", "star"), ("cube_fly3d", "square"), ("balloon3d", "up-left")]
)
def test_airborne_paths_are_their_labelled_pixels(name: str, key: str) -> None:
    scene = _scene(name, key)
    ball = scene.world.bodies[0]
    px = scene.world.camera.project(ball.poses[:, :3, 3])
    t = scene.labels().subject
    assert np.allclose(px, np.c_[t.x, t.y], atol=1e-6)


def test_default_plan_gives_every_task_3d_objects() -> None:
    from collections import Counter

    from tempogen.config import load_config
    from tempogen.generators.build import plan

    cfg = load_config("configs/default.yaml")
    specs = plan(cfg)
    kinds = Counter((s.task, MOTIONS[s.motion].renderer) for s in specs)
    for task in cfg.tasks:
        assert kinds[(task, "object3d")] >= max(5, 0.3 * cfg.samples_for(task)), (task, kinds)


def test_a_long_bounce_clip_keeps_its_count_through_the_json_labels() -> None:
    # tomato-scale's count-0183 as first planned (14.5 s, 6 bounces): after the labels' 0.01 px rounding the
    # apexes wiggled by 0.07 px and each read as a second bounce (12), failing the export
    import json

    from tempogen.facts import answer_of
    from tempogen.generators.build import Spec, labels_json, spec_scene
    from tempogen.labels import Labels

    spec = Spec(
        id="count-0183", task="count", motion="ball_bounce3d", answer_key="6", seed=1422465860,
        width=640, height=360, fps=30.0, num_frames=434, distractors=1, misleading_text=False,
        background="gradient", answer_pos=1, crf=18, preset="ultrafast", body="",
    )  # fmt: skip
    labels = spec_scene(spec)[0].labels()
    stored = Labels.from_json(json.loads(json.dumps(labels_json(labels))))
    assert answer_of(labels) == answer_of(stored) == int(spec.answer_key) == 6


# 3D objects whose speed swings or turns: a pendulum and a rotor ------------------------------
SPEED_NAMES = ("pendulum3d", "rotor3d")
SPEED_CASES = [
    (name, key, seed) for name in SPEED_NAMES for key in MOTIONS[name].keys() for seed in (0, 1, 2)
]


def _physical_trend(speeds: np.ndarray) -> str:
    """Speed trend of per-frame speeds by their envelope: the peaks of the first and last third."""
    if speeds.max() < 1e-9:
        return "none"
    k = len(speeds) // 3
    ratio = speeds[-k:].max() / speeds[:k].max()
    return "accelerating" if ratio > 2 else "decelerating" if ratio < 0.5 else "constant"


@pytest.mark.parametrize("name,key,seed", SPEED_CASES)
def test_pendulum_and_rotor_certify_every_answer(name: str, key: str, seed: int) -> None:
    scene = _scene(name, key, zlib.crc32(f"{name}/{key}".encode()) % 1000 + 1000 * seed)
    labels = scene.labels()
    assert answer_key("speed", answer_of(labels)) == key
    cert = certify(labels)
    assert cert.ok("speed", key), cert  # 16 frames suffice, one does not
    idx = observe.uniform_indices(scene.n, SAMPLES)
    if name == "rotor3d":  # no sampled step comes near a turn that could alias
        assert np.abs(np.diff(labels.subject.angle[idx])).max() < 0.9 * 90.0


@pytest.mark.parametrize("key", MOTIONS["pendulum3d"].keys())
def test_pendulum_swings_as_a_pendulum_and_its_trend_is_physical(key: str) -> None:
    scene = _scene("pendulum3d", key)
    rod, ball = scene.world.bodies[1:]
    pivot = rod.poses[0, :3, 3]
    centres = ball.poses[:, :3, 3]
    length = np.linalg.norm(centres - pivot, axis=1)
    assert np.allclose(length, length[0]) and np.allclose(centres[:, 2], pivot[2])
    period = 2 * np.pi * np.sqrt(length[0] / 9.81)  # small swings: T = 2 pi sqrt(L / g)
    assert period == pytest.approx((scene.n - 1) / 3 / scene.fps)
    # the ball's speed in metres per second, frame by frame, from its 3D path
    speeds = np.linalg.norm(np.diff(centres, axis=0), axis=1) * scene.fps
    assert _physical_trend(speeds) == key == answer_key("speed", answer_of(scene.labels()))


@pytest.mark.parametrize("key", MOTIONS["rotor3d"].keys())
def test_rotor_spins_face_on_and_its_trend_is_physical(key: str) -> None:
    scene = _scene("rotor3d", key)
    cam = scene.world.camera
    hub = scene.world.bodies[1]
    axis = hub.poses[:, :3, 2]  # the hub cylinder's axis in every frame
    assert np.allclose(axis, axis[0])
    # the blades face the camera: the turn axis points at the eye
    view = cam.pose[:3, 3] - hub.poses[0, :3, 3]
    # degrees turned per second, frame to frame, from the rotor's 3D poses
    step = np.einsum("nij,nkj->nik", hub.poses[1:, :3, :3], hub.poses[:-1, :3, :3])
    turn = np.arccos(np.clip((np.trace(step, axis1=1, axis2=2) - 1) / 2, -1, 1))
    assert _physical_trend(np.degrees(turn) * scene.fps) == key
    assert answer_key("speed", answer_of(scene.labels())) == key
    assert abs(axis[0] @ view) / np.linalg.norm(view) > 0.999


@pytest.mark.parametrize("frames", [32, 33, 41])
def test_three_moon_laps_certify_in_a_short_clip(frames: int) -> None:
    """Samples 2 and 3 frames apart: the laps advance per sample, so no step passes 90 deg."""
    m = MOTIONS["moon_laps3d"]
    for seed in range(3):
        scene = make_scene(m, "3", np.random.default_rng(seed), width=192, height=108,
                           fps=10.0, num_frames=frames, style=Style())  # fmt: skip
        assert certify(scene.labels()).max_turn <= 90.0
