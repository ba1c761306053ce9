"""The mocap: config section, the catalogue of certified windows, the planner's mocap specs and
their provenance in rows (issue 26 item A)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from kit import REPO, manifest_row, run_cli

from tempogen.config import ConfigError, DatasetConfig, load_config
from tempogen.editing.clip import Clip
from tempogen.editing.ops.flip import Mirror
from tempogen.editing.ops.reverse import Reverse
from tempogen.errors import GenerationError, InputFileError
from tempogen.facts import answer_of
from tempogen.generators.mocap.catalogue import build_catalogue, cut
from tempogen.generators.mocap.plan import mocap_motions
from tempogen.generators.mocap.source import Source
from tempogen.generators.motion import certify, get_motion, make_scene, motions_for
from tempogen.generators.planning import RENDER_VERSION, plan, twin_key
from tempogen.generators.scene import Style
from tempogen.manifest import validate_row
from tempogen.questions import answer_key

ZOMBIE = REPO / "assets" / "mocap" / "fair1_zombie.bvh"  # a slow walk across the floor


def _walk(folder: Path, frames: int = 112, start: int = 175) -> Path:
    """``frames`` frames (30 fps) of the shipped walk from ``start``, as its own BVH file (at
    frame 175 the person walks steadily across the floor: both sides of the walk certify)."""
    lines = ZOMBIE.read_text().splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("Frame Time"))
    text = (
        lines[: at - 1]
        + [f"Frames: {frames}", lines[at]]
        + lines[at + 1 + start : at + 1 + start + frames]
    )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "walk.bvh"
    path.write_text("\n".join(text) + "\n")
    return path


def _config(tmp: Path, extra: str = "", share: str = "1.0") -> Path:
    cfg = tmp / "mocap.yaml"
    cfg.write_text(
        "seed: 5\nsize: [480, 270]\nsamples_per_task: {direction: 3}\ntasks: [direction]\n"
        "scenes3d: {humans: 1.0, objects: 0.0}\nvariants: {share: 0}\nvinoground: {pairs: 0}\n"
        "retrieval: {pairs: 0}\nshortcuts: 'off'\n"
        f"mocap:\n  files: ['motion/*.bvh']\n  share: {share}\n  window: [3.5, 3.5]\n{extra}"
    )
    return cfg


# config --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field", "line"),
    [
        ("mocap:\n  files: ['nothing/*.bvh']\n", "mocap.files[0]", 2),
        ("mocap:\n  files: ['motion/*.bvh']\n  share: 2\n", "mocap.share", 3),
        ("mocap:\n  files: ['motion/*.bvh']\n  shares: 0.5\n", "mocap.shares", 3),
        ("mocap:\n  share: 0.5\n", "mocap.share", 2),
        (
            "mocap:\n  files: ['motion/*.bvh']\n  joint_maps: {x: no.yaml}\n",
            "mocap.joint_maps.x",
            3,
        ),
    ],
)
def test_config_errors_name_the_file_line_and_field(tmp_path, body, field, line) -> None:
    _walk(tmp_path / "motion")
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(body)
    with pytest.raises(ConfigError) as err:
        load_config(cfg)
    assert f"bad.yaml:{line}: {field}:" in str(err.value)


def test_a_glob_matching_nothing_exits_2_through_the_cli(tmp_path) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("mocap:\n  files: ['nothing/*.bvh']\n  share: 0.5\n")
    proc = run_cli("generate", "--config", cfg, "--out", tmp_path / "out", "--dry-run")
    assert proc.returncode == 2, proc.stderr
    assert "mocap.files[0]" in proc.stderr and "matches no motion file" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_off_by_default_leaves_the_config_and_the_patterns_as_they_were() -> None:
    assert "mocap" not in DatasetConfig().to_json()
    assert not any(m.needs_source for task in ("direction",) for m in motions_for(task))
    assert {m.name for m in motions_for("direction", sourced=True)} >= {"mocap_travel"}


# catalogue -----------------------------------------------------------------------------


def test_windows_are_cut_the_same_way_every_time() -> None:
    a = cut(300, 30.0, (3.0, 4.0), [1, 2])
    assert a == cut(300, 30.0, (3.0, 4.0), [1, 2])
    assert a != cut(300, 30.0, (3.0, 4.0), [1, 3])
    assert all(90 <= n <= 120 and s + n <= 300 for s, n in a)
    assert cut(60, 30.0, (3.0, 4.0), [1, 2]) == []  # shorter than the shortest window


def test_catalogue_certifies_counts_skips_and_caches(tmp_path) -> None:
    _walk(tmp_path / "motion")
    short = _walk(tmp_path / "short", 40)
    shutil.move(short, tmp_path / "motion" / "short.bvh")
    cfg = load_config(_config(tmp_path))
    motions = mocap_motions(cfg)
    cat = build_catalogue(cfg, motions, tmp_path / "out", RENDER_VERSION)
    assert cat.files == 2 and cat.skipped["file too short"] == 1
    assert cat.windows >= 1 and cat.candidates
    for c in cat.candidates:  # each recorded answer is the one the clip certifies
        src = Source.from_json(c.source)
        scene = make_scene(
            get_motion(c.motion), c.key, np.random.default_rng(3), width=480, height=270,
            fps=30.0, num_frames=src.frames, style=Style(source=c.source),
        )  # fmt: skip
        assert answer_key(get_motion(c.motion).fact, answer_of(scene.labels())) == c.key
    cached = sorted((tmp_path / "out" / "mocap").glob("*.json"))
    assert len(cached) == 2
    again = build_catalogue(cfg, motions, tmp_path / "out", RENDER_VERSION)
    assert again == cat
    line = cat.line(3)
    assert (
        line.startswith("mocap: 2 files, ") and "3 questions" in line and "file too short 1" in line
    )


# planner and provenance ------------------------------------------------------------------


def test_mocap_specs_carry_their_window_and_a_changed_file_re_renders(tmp_path) -> None:
    walk = _walk(tmp_path / "motion")
    specs = plan(load_config(_config(tmp_path)))
    mocap = [s for s in specs if s.source]
    assert len(mocap) == 3 and all(get_motion(s.motion).needs_source for s in mocap)
    keys = Counter(s.answer_key for s in mocap)  # the walk offers left and right: balanced
    assert set(keys) == {"left", "right"} and max(keys.values()) - min(keys.values()) <= 1
    assert all(s.num_frames == json.loads(s.source)["frames"] for s in mocap)
    src = json.loads(mocap[0].source)
    assert src["file"] == "motion/walk.bvh" and len(src["sha256"]) == 64
    assert twin_key(mocap[0]) is None  # no minimal pair for a recording
    walk.write_text(walk.read_text() + "\n")  # the same motion, other bytes
    again = plan(load_config(_config(tmp_path)))
    assert [s.hash for s in again if s.source] != [s.hash for s in mocap]
    assert all(json.loads(s.source)["sha256"] != src["sha256"] for s in again if s.source)
    assert "source" not in mocap[0].__class__(**{**mocap[0].__dict__, "source": ""}).to_json()


def test_a_fresh_worker_finds_the_file_by_the_spec_alone(tmp_path, monkeypatch) -> None:
    """A Ray process did not plan the build: the spec carries where the file is (outside its
    hash), so the clip animates there; without it, and away from the config's folder, the
    spec names the missing file."""
    from dataclasses import replace

    from tempogen.generators.mocap import source
    from tempogen.generators.planning import spec_scene

    _walk(tmp_path / "motion")
    spec = next(s for s in plan(load_config(_config(tmp_path))) if s.source)
    assert json.loads(spec.located)["file"] == str((tmp_path / "motion" / "walk.bvh").resolve())
    assert spec.hash == replace(spec, located="").hash and "located" not in spec.to_json()
    monkeypatch.chdir(tmp_path.parent)  # the spec's relative path does not resolve here
    monkeypatch.setattr(source, "_FILES", {})  # a process that planned nothing
    monkeypatch.setattr(source, "load", source.load.__wrapped__)
    assert spec_scene(spec)[0].labels().num_frames == spec.num_frames
    monkeypatch.setattr(source, "_FILES", {})
    with pytest.raises(GenerationError, match="motion/walk.bvh"):
        spec_scene(replace(spec, located=""))


def test_the_row_validator_holds_the_mocap_provenance() -> None:
    good = {
        "file": "motion/walk.bvh", "sha256": "a" * 64, "fps": 30.0,
        "window": {"frames": [10, 115], "seconds": [0.3333, 3.8333]},
        "joint_map": {"pelvis": "Hips"},
    }  # fmt: skip
    row = manifest_row(mocap=good).to_json()
    validate_row(row)
    bad = [
        ({**good, "sha256": "xyz"}, "mocap.sha256"),
        ({**good, "window": {"frames": [20, 20], "seconds": [0, 0]}}, "mocap.window.frames"),
        ({**good, "extra": 1}, "mocap"),
        ({k: v for k, v in good.items() if k != "file"}, "mocap.file"),
    ]
    for value, path in bad:
        with pytest.raises(InputFileError, match=rf": {path}\b"):
            validate_row({**row, "mocap": value})


def test_a_reversed_and_a_mirrored_mocap_walk_certify_their_mapped_answers(tmp_path) -> None:
    _walk(tmp_path / "motion")
    cfg = load_config(_config(tmp_path))
    cat = build_catalogue(cfg, [get_motion("mocap_travel")], None, RENDER_VERSION)
    c = next(c for c in cat.candidates if c.key in ("left", "right"))
    src = Source.from_json(c.source)
    labels = make_scene(
        get_motion(c.motion), c.key, np.random.default_rng(0), width=480, height=270,
        fps=30.0, num_frames=src.frames, style=Style(source=c.source),
    ).labels()  # fmt: skip
    clip = Clip.from_array(np.zeros((src.frames, 270, 480, 3), np.uint8), 30.0, labels)
    other = {"left": "right", "right": "left"}[c.key]
    for op in (Reverse(), Mirror()):
        edited = op(clip).labels
        cert = certify(edited)
        assert cert.ok("direction", other), (op, cert)


# end to end ---------------------------------------------------------------------------


@pytest.mark.slow
def test_the_shipped_mocap_config_builds_offline_and_the_pixel_audit_agrees(tmp_path) -> None:
    """configs/mocap.yaml over the real files in assets/mocap: mocap questions in at least three
    tasks, each row naming its file (whose bytes hash as recorded), window and joint map;
    edited variants of mocap clips; ``audit verify`` agrees on every row."""
    import hashlib

    out = tmp_path / "out"
    env = {"PYOPENGL_PLATFORM": "egl"}
    cfg = REPO / "configs" / "mocap.yaml"
    proc = run_cli("generate", "--config", cfg, "--out", out, "-q", "-j", "2", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "mocap: 6 files, " in proc.stdout
    rows = [json.loads(x) for x in (out / "manifest.jsonl").read_text().splitlines()]
    mine = [r for r in rows if "mocap" in r]
    assert len({r["task"] for r in mine if not r["edits"]}) >= 3
    assert any(r["edits"] for r in mine)  # an edited variant of a mocap clip
    assert all(r["note"] == "motion capture" for r in mine)
    for r in mine:
        m = r["mocap"]
        path = (cfg.parent / m["file"]).resolve()
        assert path.parent == REPO / "assets" / "mocap"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == m["sha256"]
        assert m["joint_map"]["pelvis"] and m["joint_map"]["left_wrist"]
        start, end = m["window"]["frames"]
        assert end - start == r["num_frames"] or r["edits"]
    proc = run_cli("audit", "verify", "--manifest", out / "manifest.jsonl", "-q", env=env)
    assert proc.returncode == 0, proc.stderr
    assert f"verified {len(rows)}/{len(rows)}" in proc.stdout + proc.stderr


DEGREES = 300.0  # the turn of the test's body over its window: past a stride's twist


def _turning_walk(folder: Path, degrees: float) -> Path:
    """An AMASS ``.npz`` (z up) of the shipped walk's steps taken on the spot while the body
    turns ``degrees`` round the vertical over the window."""
    from tempogen.generators.motion_import import load_motion
    from tempogen.generators.motion_import.common import Z_UP_TO_Y_UP
    from tempogen.generators.poses import matrix_to_rotvec, rotvec_to_matrix
    from tempogen.generators.skeleton import REST_JOINTS

    seq = load_motion(_walk(folder / "bvh"), 30.0)
    n = seq.num_frames
    a = np.radians(degrees) * np.arange(n) / (n - 1)
    turn = np.zeros((n, 3, 3))
    turn[:, 0, 0] = turn[:, 2, 2] = np.cos(a)
    turn[:, 1, 1] = 1.0
    turn[:, 0, 2], turn[:, 2, 0] = np.sin(a), -np.sin(a)
    pelvis = seq.trans + REST_JOINTS[0]
    pelvis[:, [0, 2]] = pelvis[0, [0, 2]]  # stepping on the spot as it turns
    root = turn @ rotvec_to_matrix(seq.poses[:, 0])
    poses = np.zeros((n, 156))
    poses[:, 3:66] = seq.poses[:, 1:22].reshape(n, 63)
    poses[:, :3] = matrix_to_rotvec(Z_UP_TO_Y_UP.T @ root)
    trans = pelvis @ Z_UP_TO_Y_UP - np.array([0.0, -0.22, 0.03])  # the loader's template pelvis
    (folder / "motion").mkdir(parents=True, exist_ok=True)
    out = folder / "motion" / "turn.npz"
    np.savez(out, poses=poses, trans=trans, betas=np.zeros(16), mocap_framerate=30.0)
    return out


def test_a_body_turning_one_way_and_the_other_reads_each_sense(tmp_path) -> None:
    senses = []
    for degrees in (DEGREES, -DEGREES):
        folder = tmp_path / str(degrees)
        _turning_walk(folder, degrees)
        text = _config(folder).read_text().replace("motion/*.bvh", "motion/*.npz")
        cfg_path = folder / "mocap.yaml"
        cfg_path.write_text(text.replace("[direction]", "[rotation]"))
        cat = build_catalogue(
            load_config(cfg_path), [get_motion("mocap_turn")], None, RENDER_VERSION
        )
        assert {c.key for c in cat.candidates} <= {"cw", "ccw"}, cat
        senses.append({c.key for c in cat.candidates})
    assert senses[0] and senses[1] and senses[0] != senses[1]


def test_marks_stand_apart_in_hue_from_the_gloves_and_each_other() -> None:
    """Every glove pair a look can draw leaves the belt and collars twice the readers' hue
    tolerance from the gloves and from each other, so no reader takes one for another."""
    import itertools

    from tempogen.generators.humans.look import HAND_COLORS, MIN_HAND_HUE_GAP, hue_gap
    from tempogen.generators.mocap.belt import HUE_TOL, mark_colors

    for a, b in itertools.permutations(HAND_COLORS.values(), 2):
        if hue_gap(a, b) < MIN_HAND_HUE_GAP:
            continue
        colors = [a, b, *mark_colors([a, b]).values()]
        assert len(colors) == 5
        assert min(hue_gap(x, y) for x, y in itertools.combinations(colors, 2)) > 2 * HUE_TOL


def test_a_joint_map_named_for_a_glob_is_applied_and_recorded(tmp_path) -> None:
    from tempogen.generators.mocap.source import window

    _walk(tmp_path / "motion")
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "walk.yaml").write_text("head: null\n")  # leave the head unmapped
    extra = "  joint_maps: {'motion/*.bvh': maps/walk.yaml}\n"
    cfg = load_config(_config(tmp_path, extra))
    cat = build_catalogue(cfg, [get_motion("mocap_travel")], None, RENDER_VERSION)
    src = Source.from_json(cat.candidates[0].source)
    assert src.joint_map == "maps/walk.yaml"
    applied = window(src)[1]
    assert applied["pelvis"] == "Hips" and "head" not in applied
