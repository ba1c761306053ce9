"""TOMATO's "misleading text" and "distractor objects" in 3D clips (``generators/decor3d.py``).

A simulated human and 3D objects get a sign stating a wrong answer and two muted shapes:
the clip still certifies, labels do not change, the pixel audit still reads the labelled
answer, the sign and distractors are really drawn (and nothing else changes), and the same
seed gives the same pixels.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import tempogen.generators.patterns  # noqa: F401  (registers the 3D object patterns)
import tempogen.generators.patterns.human  # noqa: F401  (registers the human motions)
from tempogen import observe
from tempogen.builders.audit.pixels3d import pixel_states_3d
from tempogen.facts import answer_of
from tempogen.generators.decor3d import wrong_text
from tempogen.generators.motion import (
    MISLEADING,
    MOTIONS,
    SAMPLES,
    Scene,
    Style,
    certify,
    make_scene,
)
from tempogen.questions import answer_key

W, H = 320, 180
FULL = Style(distractors=2, misleading_text=True, background="grid")
# a human filmed from the front, one seen from high above (the sign lies on the floor), a
# ball on a floor and a cube in the air (the sign hangs on a back wall)
CASES = [("hand_move", "left", 4), ("walk_path", "circle", 1), ("ball_roll", "right", 3),
         ("cube_spin", "cw", 2)]  # fmt: skip


def _scene(name: str, key: str, seed: int, style: Style = FULL) -> Scene:
    rng = np.random.default_rng(seed)
    return make_scene(
        MOTIONS[name], key, rng, width=W, height=H, fps=12.0, num_frames=40, style=style
    )


def _frames(scene: Scene, idx: np.ndarray) -> list[np.ndarray]:
    """The frames at ``idx`` (copies), from a fixed render generator."""
    want = set(int(i) for i in idx)
    return [
        f.copy()
        for i, f in enumerate(scene.world.frames(FULL.background, np.random.default_rng(7)))
        if i in want
    ]


def _decor_mask(scene: Scene) -> np.ndarray:
    """Pixels the sign and distractors may cover (their outlines, grown by 2 pixels)."""
    cam, decor = scene.world.camera, scene.world.decor
    mask = np.zeros((H, W), np.uint8)
    shapes = [d.points() for d in decor.distractors]
    if decor.sign is not None:
        shapes.append(decor.sign.corners)
    for pts in shapes:
        hull = cv2.convexHull(np.round(cam.project(pts)).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 1)
    return cv2.dilate(mask, np.ones((5, 5), np.uint8)).astype(bool)


@pytest.mark.parametrize("name,key,seed", CASES)
def test_variations_keep_labels_certificate_and_pixel_answer(name: str, key: str, seed: int):
    scene = _scene(name, key, seed)
    labels = scene.labels()
    assert certify(labels).ok(MOTIONS[name].fact, key)
    variation = labels.meta["variation"]
    assert variation["misleading_text"] == 1 and variation["distractors"] == 2
    text = labels.meta["decor"]["sign"]["text"]
    assert text in MISLEADING[MOTIONS[name].fact]
    assert text.lower() not in key.split("-")
    # the same clip without the variations has the same labels
    plain = _scene(name, key, seed, Style(background="grid")).labels()
    assert [t.to_json() for t in plain.tracks] == [t.to_json() for t in labels.tracks]
    assert plain.query == labels.query
    idx = observe.uniform_indices(labels.num_frames, SAMPLES)
    got = answer_of(pixel_states_3d(_frames(scene, idx), labels, idx), idx)
    assert got is not None and answer_key(MOTIONS[name].fact, got) == key


@pytest.mark.parametrize("name,key,seed", CASES)
def test_sign_and_distractors_are_drawn_and_change_nothing_else(name: str, key: str, seed: int):
    scene = _scene(name, key, seed)
    plain = _scene(name, key, seed, Style(background="grid"))
    assert (
        plain.world.decor is None
        and "variation" not in plain.meta
        or ("misleading_text" not in plain.meta["variation"])
    )
    idx = np.array([0, scene.n // 2, scene.n - 1])
    mask = _decor_mask(scene)
    cam = scene.world.camera
    sign = np.zeros((H, W), np.uint8)
    quad = np.round(cam.project(scene.world.decor.sign.corners)).astype(np.int32)
    cv2.fillConvexPoly(sign, quad, 1)
    for a, b in zip(_frames(scene, idx), _frames(plain, idx)):
        diff = np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 0
        assert not diff[~mask].any(), "the variations changed pixels outside their outlines"
        assert diff[sign.astype(bool)].mean() > 0.3, "the sign is not drawn"
        for d in scene.world.decor.distractors:
            blob = np.zeros((H, W), np.uint8)
            hull = cv2.convexHull(np.round(cam.project(d.points())).astype(np.int32))
            cv2.fillConvexPoly(blob, hull, 1)
            assert diff[blob.astype(bool)].mean() > 0.3, f"distractor {d.shape} is not drawn"


def test_distractors_alone_are_recorded_and_drawn() -> None:
    """Asked for distractors only, a clip gets them: counted in meta, visible in pixels."""
    style = Style(distractors=2, background="grid")
    scene = _scene("ball_roll", "left", 5, style)
    assert scene.meta["variation"] == {"distractors": 2}
    assert "sign" not in scene.meta["decor"] and len(scene.meta["decor"]["distractors"]) == 2
    plain = _scene("ball_roll", "left", 5, Style(background="grid"))
    idx = np.array([0])
    (a,), (b,) = _frames(scene, idx), _frames(plain, idx)
    diff = np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 0
    for d in scene.meta["decor"]["distractors"]:
        x, y = (int(round(v)) for v in d["at"])
        assert diff[max(y - 4, 0) : y + 1, max(x - 3, 0) : x + 4].any()
    # muted paints: under the pixel audit's saturation floor
    for d in scene.meta["decor"]["distractors"]:
        hsv = cv2.cvtColor(np.uint8([[d["color"]]]), cv2.COLOR_RGB2HSV)[0, 0]
        assert hsv[1] < 100


def test_same_seed_same_pixels() -> None:
    idx = np.array([0, 20, 39])
    for name, key, seed in (CASES[0], CASES[2]):
        a, b = _scene(name, key, seed), _scene(name, key, seed)
        assert a.labels().to_json() == b.labels().to_json()
        for fa, fb in zip(_frames(a, idx), _frames(b, idx)):
            assert np.array_equal(fa, fb)


def test_sign_text_never_states_the_right_answer() -> None:
    rng = np.random.default_rng(0)
    for name, motion in MOTIONS.items():
        if motion.renderer == "2d":
            continue
        for key in motion.keys():
            right = {w.upper() for w in key.replace(",", "-").split("-")}
            for _ in range(8):
                text = wrong_text(motion, key, rng)
                assert text, f"{name}/{key}: no wrong answer to write"
                assert not set(text.split()) & right, f"{name}/{key}: the sign says {text!r}"
                if key == "none":
                    assert text != "STOP"
