"""3D object patterns: every answer class certifies, and the rendered pixels give it back."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import tempogen.generators.patterns.objects3d  # noqa: F401  (registers the 3D patterns)
from tempogen import observe
from tempogen.builders.audit.pixels import pixel_labels
from tempogen.builders.audit.pixels3d import centroid, hue_mask, paints, pixel_states_3d
from tempogen.facts import answer_of
from tempogen.generators.motion import MOTIONS, SAMPLES, Scene, Style, certify, make_scene
from tempogen.generators.patterns.objects3d import NOTE, RigidWorld
from tempogen.generators.render2d import BACKGROUNDS
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
