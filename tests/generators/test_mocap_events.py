"""Joint events of recorded motion (generators/mocap/events.py): on designed joints, where every
event is known, and on real motion files (tests/data/bvh/ev_*.bvh, SOURCES-events.md)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest

from tempogen.facts import answer_of
from tempogen.generators.mocap import events as ev
from tempogen.generators.skeleton import INDEX, REST_JOINTS
from tempogen.labels import Labels, Query, Track

DATA = Path(__file__).resolve().parents[1] / "data" / "bvh"
FPS = 30.0


def standing(seconds: float = 4.0, fps: float = FPS) -> np.ndarray:
    """A person standing still: the rest joints in every frame, feet near y = 0."""
    n = int(seconds * fps)
    j = np.repeat(REST_JOINTS[None].astype(np.float64), n, axis=0)
    j[..., 1] -= REST_JOINTS[:, 1].min()
    return j


def bump(n: int, centre: float, half: float) -> np.ndarray:
    """0 outside ``centre +- half`` frames, rising smoothly to 1 at ``centre``."""
    u = np.clip(1 - np.abs(np.arange(n) - centre) / half, 0, 1)
    return np.asarray(0.5 - 0.5 * np.cos(np.pi * u))


def lift(j: np.ndarray, names: list[str], amount: np.ndarray) -> None:
    for name in names:
        j[:, INDEX[name], 1] += amount


FOOT = {s: [f"{s}_ankle", f"{s}_foot"] for s in ev.SIDES}


def test_steps_count_each_lift_of_one_foot():
    j = standing()
    for k, side in enumerate(["right", "left", "right"]):
        lift(j, FOOT[side], 0.15 * bump(len(j), 20 + 25 * k, 8))
    found = ev.steps(j, FPS)
    assert [e.part for e in found] == ["right", "left", "right"]
    assert ev.jumps(j, FPS) == [] and ev.squats(j, FPS) == []


def test_a_shuffle_a_foot_up_at_the_start_and_a_lift_too_short_are_no_steps():
    j = standing()
    lift(j, FOOT["left"], 0.04 * bump(len(j), 30, 8))  # 4 cm: a shuffle
    lift(j, FOOT["right"], 0.15 * bump(len(j), 0, 8))  # up at the window's start
    lift(j, FOOT["right"], 0.15 * bump(len(j), 80, 2))  # 0.1 s up: a twitch
    assert ev.steps(j, FPS) == []


def test_jumps_need_both_feet_off_and_the_pelvis_up():
    j = standing()
    for c in (30, 70):
        up = 0.25 * bump(len(j), c, 6)
        j[:, :, 1] += up[:, None]
    assert [(e.part) for e in ev.jumps(j, FPS)] == ["body", "body"]
    assert ev.steps(j, FPS) == []  # both feet up together: no step
    hop = standing()
    lift(hop, FOOT["right"], 0.3 * bump(len(hop), 40, 10))
    hop[:, INDEX["pelvis"], 1] += 0.1 * bump(len(hop), 40, 10)
    assert ev.jumps(hop, FPS) == []  # one foot always down


def test_jacks_need_hands_over_the_head_legs_apart_and_a_jump():
    j = standing()
    n = len(j)
    over = bump(n, 60, 20) > 0.3
    for s in ev.SIDES:
        j[over, INDEX[f"{s}_wrist"], 1] = j[over, INDEX["head"], 1] + 0.2
    assert ev.jacks(j, FPS) == []  # hands up, standing: no jack
    j[:, :, 1] += 0.25 * bump(n, 60, 6)[:, None]
    assert ev.jacks(j, FPS) == []  # a jump with the hands up, legs together: no jack
    for s, sign in (("left", 1.0), ("right", -1.0)):
        for part in (f"{s}_ankle", f"{s}_foot"):
            j[over, INDEX[part], 0] += sign * 0.15  # the feet 30 cm farther apart
    assert [(e.start < 60 < e.end) for e in ev.jacks(j, FPS)] == [True]
    dance = j.copy()  # and the hands over the head again, far from any flight: no jacks at all
    late = bump(n, 100, 10) > 0.3
    for s in ev.SIDES:
        dance[late, INDEX[f"{s}_wrist"], 1] = dance[late, INDEX["head"], 1] + 0.2
    assert ev.jacks(dance, FPS) == []
    hop = j.copy()  # and a jump with the hands down: not every flight is a jack's
    hop[:, :, 1] += 0.25 * bump(n, 100, 6)[:, None]
    assert ev.jacks(hop, FPS) == []


def test_squats_need_a_deep_and_long_dip():
    j = standing(6.0)
    upper = [i for n, i in INDEX.items() if "ankle" not in n and "foot" not in n]
    for c, depth, half in ((40, 0.35, 20), (110, 0.1, 20), (160, 0.35, 4)):
        j[:, upper, 1] -= depth * bump(len(j), c, half)[:, None]
    found = ev.squats(j, FPS)
    assert len(found) == 1 and found[0].start < 40 < found[0].end  # 10 cm and a quick dip: none


def test_waves_count_each_swing_out_of_a_raised_hand_not_a_raise():
    j = standing()
    n = len(j)
    w, s = INDEX["right_wrist"], INDEX["right_shoulder"]
    raised = np.flatnonzero(bump(n, 60, 55) > 0.5)
    j[raised, w, 1] = j[raised, s, 1] + 0.2
    # out (the body's right is -x) and back, 1.25 times a second, from the middle of a swing
    phase = 2 * np.pi * 1.25 * (raised - raised[0]) / FPS
    j[raised, w, 0] -= 0.12 * np.sin(phase)
    period = int(FPS / 1.25)  # 24 frames; farthest out a quarter into each, back a half later
    peaks = raised[0] + period // 4 + period * np.arange(3)
    outward = [int(f) for f in peaks if f + period // 2 <= raised[-1]]  # one back after it
    found = ev.waves(j, FPS, "right")
    assert len(outward) == 2 and [e.start for e in found] == outward
    assert ev.waving(j, FPS) == found and ev.waves(j, FPS, "left") == []
    both = j.copy()  # the left hand waving too: which one, and how many, is unclear
    lw, ls = INDEX["left_wrist"], INDEX["left_shoulder"]
    both[raised, lw, 1] = both[raised, ls, 1] + 0.2
    both[raised, lw, 0] += 0.12 * np.sin(phase)
    assert len(ev.waves(both, FPS, "left")) == 2 and ev.waving(both, FPS) == []
    once = standing()
    once[raised, w, 1] = once[raised, s, 1] + 0.2  # raised and lowered, no swing
    assert ev.waves(once, FPS, "right") == [] and ev.waving(once, FPS) == []
    with pytest.raises(ValueError, match="side"):
        ev.waves(j, FPS, "middle")


def test_turning_points_ignore_wiggles_below_the_amplitude():
    x = np.r_[np.linspace(0, 1, 10), np.linspace(1, 0.95, 3), np.linspace(0.95, 2, 10)]
    assert ev.turning_points(x, 0.2) == []
    z = np.r_[np.linspace(0, 1, 10), np.linspace(1, 0, 10), np.linspace(0, 1, 10)]
    assert ev.turning_points(z, 0.2) == [9, 19]


def test_first_mover_needs_a_still_start_and_a_clear_margin():
    j = standing()
    n = len(j)
    ramp = np.clip((np.arange(n) - 30) / 10, 0, 1)
    later = np.clip((np.arange(n) - 60) / 10, 0, 1)
    j[:, INDEX["left_wrist"], 0] += 0.3 * ramp
    j[:, INDEX["right_wrist"], 0] -= 0.3 * later
    got = ev.first_mover(j, FPS)
    assert got is not None and got.first == "left_wrist"
    assert got.onsets["left_wrist"] < got.onsets["right_wrist"]  # type: ignore[operator]
    close = standing()
    close[:, INDEX["left_wrist"], 0] += 0.3 * ramp
    close[:, INDEX["right_wrist"], 0] -= 0.3 * np.clip((np.arange(n) - 36) / 10, 0, 1)
    assert ev.first_mover(close, FPS) is None  # 0.2 s apart: too close to tell
    early = standing()
    early[:, INDEX["left_wrist"], 0] += 0.3 * np.clip(np.arange(n) / 5, 0, 1)
    assert ev.first_mover(early, FPS) is None  # moving from the window's first moments
    assert ev.first_mover(standing(), FPS) is None  # nothing moves
    only = standing()
    only[:, INDEX["right_wrist"], 0] -= 0.3 * later
    assert ev.first_mover(only, FPS).first == "right_wrist"  # type: ignore[union-attr]


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="24, 3"):
        ev.steps(np.zeros((10, 17, 3)), FPS)
    with pytest.raises(ValueError, match="fps"):
        ev.jumps(standing(), 0.0)
    with pytest.raises(ValueError, match="unknown joint"):
        ev.first_mover(standing(), FPS, ("left_wrist", "tail"))


@functools.cache
def real(name: str) -> tuple[np.ndarray, float]:
    """Posed joints of a real motion file from tests/data/bvh (see SOURCES-events.md)."""
    from tempogen.generators.humans.look import body_for
    from tempogen.generators.motion_import import load_motion

    seq = load_motion(DATA / name)
    return np.asarray(body_for("").pose(seq).joints, dtype=np.float64), float(seq.fps)


def test_real_walk_steps_and_crouch():
    """CMU 131_01 (start, walk, crouch, walk): steps of the right foot and one deep crouch (the
    left foot of this styled walk glides: grounded, it lifts under ``LIFT_ON``)."""
    j, fps = real("ev_walk.bvh")
    assert [e.part for e in ev.steps(j, fps)].count("right") >= 2
    assert len(ev.squats(j, fps)) == 1
    assert ev.jumps(j, fps) == []


def test_real_jumping_jacks():
    """CMU jumping jacks (AnimatedDrawings' copy): six flights, three jacks (arms over the
    head), no squat, no wave, no step; no jack where nobody jumps."""
    j, fps = real("ev_jacks.bvh")
    assert len(ev.jumps(j, fps)) == 6
    assert len(ev.jacks(j, fps)) == 3
    assert ev.jacks(*real("ev_walk.bvh")) == []
    assert ev.squats(j, fps) == [] and ev.steps(j, fps) == []
    assert ev.waves(j, fps, "left") == [] and ev.waves(j, fps, "right") == []


def test_real_hop_and_jump():
    """CMU 131_03 (start, hop, stop): one flight with both feet off the floor."""
    j, fps = real("ev_hop.bvh")
    assert len(ev.jumps(j, fps)) == 1


def test_real_first_foot():
    """AnimatedDrawings' dab: the left foot steps out long before the right moves."""
    j, fps = real("ev_dab.bvh")
    got = ev.first_mover(j, fps, ("left_ankle", "right_ankle"))
    assert got is not None and got.first == "left_ankle"
    assert ev.first_mover(j, fps, ("right_ankle", "left_ankle")).first == "left_ankle"  # type: ignore[union-attr]


# end to end: the event patterns through the CLI, and the pixel audit ----------------------

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "mocap"
EVENT_FILES = ("cmu_jumping_jacks.bvh", "ev_fair1_wave_hello.bvh")


@pytest.mark.slow
def test_event_questions_build_through_the_cli_and_the_pixel_audit_agrees(tmp_path):
    """Jumping jacks counted and the first hand named, from shipped real files: the build
    asks them with the file's window as provenance, and ``audit verify`` reads the same
    answers from the pixels."""
    from kit import run_cli

    for name in EVENT_FILES:
        (tmp_path / name).write_bytes((ASSETS / name).read_bytes())
    cfg = tmp_path / "events.yaml"
    cfg.write_text(
        "seed: 11\nsize: [256, 144]\nfps: 30\ntasks: [count, visual_cues]\n"
        "samples_per_task: {count: 1, visual_cues: 1}\n"
        "scenes3d: {humans: 1.0, objects: 0.0, duration: [3.0, 4.0]}\n"
        "variants: {share: 0}\nvinoground: {pairs: 0}\nretrieval: {pairs: 0}\n"
        'shortcuts: "off"\nmocap: {files: ["*.bvh"], share: 1.0, window: [3.0, 4.0]}\n'
    )
    out = tmp_path / "out"
    env = {"PYOPENGL_PLATFORM": "egl"}
    # fresh processes, not forked ones: a pytest worker that already posed bodies (torch's
    # thread pool) can hang a forked child that renders (seen once in the full suite)
    proc = run_cli("generate", "--config", cfg, "--out", out, "-q", env=env)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(x) for x in (out / "manifest.jsonl").read_text().splitlines()]
    asked = {r["mocap"]["file"]: (r["question"], r["answer_key"]) for r in rows}
    assert asked == {
        "cmu_jumping_jacks.bvh": ("How many jumping jacks does the person do?", "3"),
        "ev_fair1_wave_hello.bvh": ("Which hand of the person starts moving first?", "obj2"),
    }
    proc = run_cli("audit", "verify", "--manifest", out / "manifest.jsonl", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "verified 2/2 (100.0%)" in proc.stdout + proc.stderr


# which hand starts first: the held body and the glove reading -----------------------------


def order_labels(early_jitter: float) -> Labels:
    """Two gloves: obj1 wanders ``early_jitter`` px from frame 5 and moves off at frame 40;
    obj2 moves off at frame 20."""
    n = 90
    f = np.arange(n)
    x1 = 100 + early_jitter * (f >= 5) + 30 * np.clip((f - 40) / 10, 0, 1)
    x2 = 200 + 30 * np.clip((f - 20) / 10, 0, 1)
    tracks = tuple(
        Track.build(name, n, x=x, y=np.full(n, 90.0), color=(230, 40, 200), size=5.0)
        for name, x in (("obj1", x1), ("obj2", x2))
    )
    return Labels(320, 180, FPS, tracks, Query("order", ("obj1", "obj2"), "move"))


def test_the_glove_reading_ignores_a_wander_the_labels_see():
    """What the pixel audit reads of an order question: a glove within its jitter of its first
    place has not started. Exact labels see a 2.5 px wander as a start; the gloves do not, so
    ``mocap_first_hand`` must refuse such a window (its labels and the audit would differ)."""
    from tempogen.generators.patterns.mocap_first import glove_read

    wander = order_labels(2.5)
    assert answer_of(wander)[0] == ("obj1",)  # exact labels: obj1 starts at frame 5
    assert answer_of(glove_read(wander))[0] == ("obj2",)  # the gloves: obj2 at frame 20
    still = order_labels(0.0)
    assert answer_of(still)[0] == answer_of(glove_read(still))[0] == ("obj2",)


def test_first_hand_holds_the_body_still_until_each_hand_starts():
    """A window of AnimatedDrawings' wave: the right hand (obj2) drops from the held pose
    first; before it, nothing the question reads moves at all, and the clip certifies."""
    from tempogen.generators.mocap.source import Source, file_sha256, register
    from tempogen.generators.motion import certify, get_motion
    from tempogen.generators.scene import Scene, Style

    path = ASSETS / "ev_fair1_wave_hello.bvh"
    sha = file_sha256(path)
    register(sha, path, None)
    motion = get_motion("mocap_first_hand")
    src = Source(path.name, sha, 10, 96, FPS, "", 0.0)
    scene = Scene(np.random.default_rng(0), 256, 144, FPS, 96, Style(source=src.to_json()))
    scene.fact = motion.fact
    motion.animate(scene, None)
    labels = scene.labels()
    cert = certify(labels)
    assert cert.ok("order", "obj2"), cert
    steps = {
        t.name: np.hypot(np.diff(t.x), np.diff(t.y))
        for t in labels.tracks
        if t.name in ("obj1", "obj2")
    }
    start = int(np.flatnonzero(steps["obj2"] > 0)[0])
    assert start > 0.5 * FPS and not steps["obj1"][:start].any()


@pytest.mark.parametrize(
    "motion, name, start, frames, want",
    [
        ("mocap_squats", "cmu_131_01.bvh", 60, 90, ("1", "")),  # the walk's one deep crouch
        ("mocap_jumps", "cmu_131_03.bvh", 123, 112, ("1", "")),  # the hop's one flight
        # six flights of a few centimetres: no jump on screen, so the window is refused
        (
            "mocap_jumps",
            "cmu_jumping_jacks.bvh",
            4,
            110,
            (None, "count differs from the joint events"),
        ),
    ],
)
def test_a_count_certifies_on_its_real_window_or_is_refused(motion, name, start, frames, want):
    """The catalogue's probe of a shipped file's window: the count the track shows, read as
    the pixel audit reads it (the belt for a body part), equal to the joint events'."""
    from tempogen.generators.mocap.catalogue import probe
    from tempogen.generators.mocap.source import Source, file_sha256, load, register
    from tempogen.generators.motion import get_motion
    from tempogen.generators.poses import PoseSequence

    path = ASSETS / name
    sha = file_sha256(path)
    register(sha, path, None)
    seq, _ = load(path.resolve(), FPS, None)
    m = get_motion(motion)
    piece = PoseSequence(seq.poses[start : start + frames], seq.trans[start : start + frames], FPS)
    (view,) = m.views(piece)  # type: ignore[attr-defined]
    assert probe(m, Source(name, sha, start, frames, FPS, "", view), 256, 144) == want
