"""The dataset pipeline end to end: determinism, resume after a kill, balance, manifest schema."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from kit import run_cli

from tempogen import observe
from tempogen.config import load_config
from tempogen.facts import answer_of
from tempogen.generators.build import plan
from tempogen.generators.motion import SAMPLES, get_motion, motions_for
from tempogen.labels import Labels
from tempogen.questions import TASKS, answer_key, num_options
from tempogen.video import probe, read_video, sha256_file

REPO = Path(__file__).resolve().parents[1]
# every stage runs (variants, Vinoground pairs, caption retrieval), each at a small size: this
# config is built five times (twice clean, resumed, replaced, rerun)
SMALL = (
    "seed: 11\nsize: [160, 90]\nfps: 10\nduration: [3, 4]\nsamples_per_task: 3\n"
    "vinoground: {pairs: 2}\nretrieval: {pairs: 2}\n"
)
N_CLIPS = 3 * len(TASKS)  # simulated clips; edited variants come on top
REQUIRED = {
    "id",
    "video",
    "task",
    "generator",
    "demonstration_type",
    "question",
    "options",
    "answer",
    "answer_text",
    "labels",
    "variation",
    "source",
    "edits",
    "seed",
    "spec_hash",
    "video_sha256",
}


def generate(
    config: Path, out: Path, jobs: int = 1, fork: bool = False
) -> subprocess.CompletedProcess:
    """``tempogen generate`` in a fresh process, or (``fork``) forked from this one: for a run
    that only refuses or reuses, where a fresh interpreter's imports would be most of it."""
    if fork:
        args = ("generate", "--config", config, "--out", out, "-j", str(jobs), "-q")
        return run_cli(*args, timeout=300, fork=True)
    cmd = [sys.executable, "-m", "tempogen.cli", "generate", "--config", str(config)]
    cmd += ["--out", str(out), "-j", str(jobs), "-q"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=REPO)


def finished(folder: Path) -> dict[str, Path]:
    """Files under their final names (temp files start with '.' and end with '.tmp')."""
    if not folder.is_dir():
        return {}
    return {p.name: p for p in folder.iterdir() if not p.name.startswith(".")}


def rows_of(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]


def is_variant(row: dict) -> bool:
    return row["source"] is not None


@pytest.fixture(scope="module")
def small_config(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("cfg") / "small.yaml"
    p.write_text(SMALL)
    return p


@pytest.fixture(scope="module")
def clean(small_config, tmp_path_factory) -> Path:
    """A clean build of the small config through the command line, one worker."""
    out = tmp_path_factory.mktemp("clean") / "out"
    proc = generate(small_config, out)
    assert proc.returncode == 0, proc.stderr
    rows = rows_of(out)
    assert sum(not is_variant(r) for r in rows) == N_CLIPS
    assert f"wrote {len(rows)} clips" in proc.stdout
    return out


# (a) determinism -----------------------------------------------------------------------------


@pytest.mark.slow
def test_two_builds_are_identical(clean, small_config, tmp_path):
    other = tmp_path / "again"
    proc = generate(small_config, other, jobs=2)  # another worker count, same bytes
    assert proc.returncode == 0, proc.stderr
    manifest = (clean / "manifest.jsonl").read_bytes()
    assert (other / "manifest.jsonl").read_bytes() == manifest
    assert (other / "config.json").read_bytes() == (clean / "config.json").read_bytes()
    for page in ("index.html", "report.html", "validity.json", "tomato/data/count.json"):
        if (clean / page).exists():  # pages are byte-stable too (issue 13 item 13)
            assert (other / page).read_bytes() == (clean / page).read_bytes(), page
    rows = rows_of(clean)
    assert len(rows) > N_CLIPS  # edited variants too
    for row in rows:
        a, b = read_video(clean / row["video"]), read_video(other / row["video"])
        assert a.shape == b.shape == (row["num_frames"], row["height"], row["width"], 3)
        np.testing.assert_array_equal(a, b, err_msg=row["id"])
        rec = f"clips/{row['id']}.json"
        assert (clean / rec).read_bytes() == (other / rec).read_bytes()


TWO_CLIPS = """\
seed: 5
size: [64, 48]
fps: 10
duration: [3, 3]
samples_per_task: 2
tasks: [direction]
variants: {share: 0}
vinoground: {pairs: 0}
retrieval: {pairs: 0}
scenes3d: {humans: 0, objects: 0}
"""
BUILD_IN_PROCESS = """
import sys
import time
import cv2
import numpy as np
from tempogen.builders.dataset.build import build_dataset
from tempogen.config import load_config
if sys.argv[3] == "warm":
    # run one parallel OpenCV call (whatever the core count), then let its pool go idle
    cv2.setNumThreads(4)
    cv2.resize(np.zeros((480, 640, 3), np.uint8), (1280, 960))
    time.sleep(0.5)
summary = build_dataset(load_config(sys.argv[1]), sys.argv[2], jobs=2, progress=False)
print("built", summary.clips)
"""


class Hung(AssertionError):
    """The build did not finish in time."""


def _build_in_process(cfg: Path, out: Path, mode: str) -> None:
    cmd = [sys.executable, "-c", BUILD_IN_PROCESS, str(cfg), str(out), mode]
    # its own session, so a hung pool (the parent and its forked workers) can be killed whole
    proc = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        stdout, stderr = proc.communicate(timeout=30)  # it takes a few seconds (mostly imports)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise Hung(f"build_dataset(jobs=2) hung ({mode})") from None
    assert proc.returncode == 0, stderr.decode()
    assert b"built 2" in stdout


@pytest.mark.slow
def test_parallel_build_after_using_opencv_in_the_same_process(tmp_path):
    cfg = tmp_path / "two.yaml"
    cfg.write_text(TWO_CLIPS)
    _build_in_process(cfg, tmp_path / "cold", "cold")  # control: a fresh process is fine
    _build_in_process(cfg, tmp_path / "warm", "warm")


# (b) resume after a kill ---------------------------------------------------------------------


@pytest.mark.slow
def test_resume_after_kill(clean, small_config, tmp_path):
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "tempogen.cli", "generate", "--config", str(small_config)]
    cmd += ["--out", str(out), "-j", "1", "-q"]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if len([n for n in finished(out / "clips") if n.endswith(".json")]) >= 2:
                break
            time.sleep(0.002)
        assert proc.poll() is None, "generate ended before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL

    records = {n[: -len(".json")]: p for n, p in finished(out / "clips").items()}
    assert 2 <= len(records) < N_CLIPS, sorted(records)
    videos = finished(out / "videos")
    # leftovers, if any, are temp files and never carry a final name
    for folder in ("videos", "clips", "sheets"):
        for p in (out / folder).iterdir():
            if p.name.startswith("."):
                assert p.name.endswith(".tmp"), p
    # nothing under a final name is half-written: each is the clean build's file, byte for byte.
    # (A finished video may lack its record if the kill lands between the video's rename and
    # the record's write; that window is hit deterministically in test_cli.py's sheet test.)
    for name, p in videos.items():
        assert p.read_bytes() == (clean / "videos" / name).read_bytes(), name
    for cid, rec in records.items():
        row = json.loads(rec.read_text())
        video = out / row["video"]
        assert video.name in videos, f"record {cid} without its video"
        assert sha256_file(video) == row["video_sha256"]
        assert (out / "sheets" / f"{cid}.png").is_file()
        assert rec.read_bytes() == (clean / "clips" / f"{cid}.json").read_bytes()
    assert not (out / "manifest.jsonl").exists()

    def stamp(p: Path) -> tuple[int, int]:
        st = p.stat()
        return st.st_ino, st.st_mtime_ns

    kept = {
        cid: [
            stamp(out / "videos" / f"{cid}.mp4"),
            stamp(out / "clips" / f"{cid}.json"),
            stamp(out / "sheets" / f"{cid}.png"),
        ]
        for cid in records
    }

    rerun = generate(small_config, out)
    assert rerun.returncode == 0, rerun.stderr
    # the summary tells reused frames from rendered ones (issue 13 item 13)
    reused = sum(json.loads(p.read_text())["num_frames"] for p in records.values())
    total = sum(r["num_frames"] for r in rows_of(clean) if not r.get("source"))
    assert f"{total - reused:,} frames rendered, {reused:,} reused from an earlier run" in (
        rerun.stdout
    ), rerun.stdout
    for cid, before in kept.items():
        after = [
            stamp(out / "videos" / f"{cid}.mp4"),
            stamp(out / "clips" / f"{cid}.json"),
            stamp(out / "sheets" / f"{cid}.png"),
        ]
        assert after == before, f"{cid} was redone instead of reused"
    for got, want in zip(rows_of(out), rows_of(clean), strict=True):
        diff = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
        assert not diff, (want["id"], diff)
    assert (out / "manifest.jsonl").read_bytes() == (clean / "manifest.jsonl").read_bytes()
    for name in finished(clean / "videos"):
        assert (out / "videos" / name).read_bytes() == (clean / "videos" / name).read_bytes()


# (c) balance of the default plan -------------------------------------------------------------


@pytest.mark.parametrize("config", ["default.yaml", "tomato-scale.yaml"])
def test_plan_is_balanced(config):
    cfg = load_config(REPO / "configs" / config)
    specs = plan(cfg)
    by_task: dict[str, list] = {}
    for s in specs:
        by_task.setdefault(s.task, []).append(s)
    assert set(by_task) == set(cfg.tasks)
    assert len({s.id for s in specs}) == len(specs)
    for task, group in by_task.items():
        assert len(group) >= 60, task
        motions = motions_for(task)
        # balanced per pattern: every answer a pattern can give gets the same share of its
        # questions (within one), so the pattern that drew a clip says nothing of its answer
        for m in motions:
            keys = Counter(s.answer_key for s in group if s.motion == m.name)
            assert set(keys) <= set(m.keys()), (task, m.name, keys)
            per_key = [keys.get(k, 0) for k in m.keys()]
            assert max(per_key) - min(per_key) <= 1, (task, m.name, keys)
        # and patterns of one demonstration type take turns (minimal-pair twins come on top:
        # a pattern whose answers have no flip gets none)
        planned = [s for s in group if s.id == s.pair or not s.pair]
        for kind in ("2d", "human", "object3d"):
            made = Counter(s.motion for s in planned if get_motion(s.motion).renderer == kind)
            per = [made.get(m.name, 0) for m in motions if m.renderer == kind]
            assert not per or max(per) - min(per) <= 1, (task, kind, made)
        positions: dict[int, Counter] = {}
        for s in planned:  # a twin's answer goes elsewhere in its original's options
            m = get_motion(s.motion)
            assert s.answer_key in m.keys()
            k = num_options(m.fact, m.objects, m.keys())
            assert 0 <= s.answer_pos < k
            positions.setdefault(k, Counter())[s.answer_pos] += 1
        for k, c in positions.items():
            per_pos = [c.get(p, 0) for p in range(k)]
            assert max(per_pos) - min(per_pos) <= 1, (task, k, c)


def test_plan_is_deterministic_and_seeded():
    cfg = load_config(REPO / "configs" / "default.yaml")
    a, b = plan(cfg), plan(cfg)
    assert [s.to_json() for s in a] == [s.to_json() for s in b]
    assert [s.hash for s in a] == [s.hash for s in b]
    assert len({s.hash for s in a}) == len(a)
    other = plan(dataclasses.replace(cfg, seed=cfg.seed + 1))
    assert [s.seed for s in other] != [s.seed for s in a]


# (d) manifest rows ---------------------------------------------------------------------------


def _check_common(root: Path, row: dict) -> None:
    missing = REQUIRED - set(row)
    assert not missing, (row.get("id"), missing)
    video = root / row["video"]
    assert row["video"] == f"videos/{row['id']}.mp4"
    assert sha256_file(video) == row["video_sha256"], row["id"]
    info = probe(video)
    assert (info.num_frames, info.width, info.height) == (
        row["num_frames"],
        row["width"],
        row["height"],
    )
    assert row["demonstration_type"] == "simulated"
    assert get_motion(row["generator"]).task == row["task"]
    assert set(row["variation"]) == {"counterfactual", "composite", "zoom", "first_person"}
    opts = row["options"]
    assert len(set(opts)) == len(opts) >= 2
    assert opts[row["answer"]] == row["answer_text"]
    # the stored states, read back, certify the answer at TOMATO's 16 samples
    labels = Labels.from_json(row["labels"])
    assert labels.num_frames == row["num_frames"]
    idx = observe.uniform_indices(labels.num_frames, SAMPLES)
    fact = labels.query.fact
    assert answer_key(fact, answer_of(labels, idx)) == row["answer_key"], row["id"]
    assert answer_of(labels, np.array([0])) is None


@pytest.mark.slow
def test_manifest_rows(clean):
    rows = rows_of(clean)
    assert len({r["id"] for r in rows}) == len(rows)
    assert sorted(finished(clean / "videos")) == sorted(f"{r['id']}.mp4" for r in rows)
    base = {r["id"]: r for r in rows if not is_variant(r)}
    assert len(base) == N_CLIPS
    assert Counter(r["task"] for r in base.values()) == dict.fromkeys(TASKS, 3)
    for row in rows:
        _check_common(clean, row)
    for row in base.values():
        assert (row["width"], row["height"], row["fps"]) == (160, 90, 10.0)
        assert row["edits"] == [] and row["seed"] == row["spec"]["seed"]
        # a simulated human's hand motion may be filmed first-person; nothing else is flagged
        assert not any(v for k, v in row["variation"].items() if k != "first_person")
        if row["variation"]["first_person"]:
            assert row["note"] == "simulated human"
        assert row["answer"] == row["spec"]["answer_pos"] % len(row["options"])
    for row in rows:
        if is_variant(row):
            src = base[row["source"]]
            assert row["id"].startswith(f"{src['id']}~")
            assert row["task"] == src["task"] and row["generator"] == src["generator"]
            assert row["edits"] and row["spec_hash"] != src["spec_hash"]


# (e) resume: a finished clip or variant is reused, anything changed or damaged is redone -----

ONE_CLIP = {
    "seed": 9,
    "size": [64, 48],
    "fps": 10,
    "duration": [3, 3],
    "samples_per_task": 1,
    "tasks": ["direction"],
    "scenes3d": {"humans": 0, "objects": 0},
}


def _stamps(out: Path, cid: str) -> list[tuple[int, int]]:
    """Inode and mtime of a clip's files: a redone file is renamed into place anew."""
    files = (f"videos/{cid}.mp4", f"clips/{cid}.json", f"sheets/{cid}.png")
    return [((out / f).stat().st_ino, (out / f).stat().st_mtime_ns) for f in files]


def _damage(out: Path, cid: str, how: str) -> None:
    if how == "no sheet":
        (out / "sheets" / f"{cid}.png").unlink()
    elif how == "no video":
        (out / "videos" / f"{cid}.mp4").unlink()
    elif how == "altered video":
        video = out / "videos" / f"{cid}.mp4"
        video.write_bytes(video.read_bytes()[:-1] + b"\0")
    elif how == "corrupt record":
        record = out / "clips" / f"{cid}.json"
        record.write_bytes(record.read_bytes()[:-20])
    elif how == "no record":
        (out / "clips" / f"{cid}.json").unlink()


DAMAGES = ["no sheet", "no video", "altered video", "corrupt record", "no record"]


@pytest.fixture
def one_clip(tmp_path):
    from tempogen.config import config_from_dict
    from tempogen.generators.build import render_spec

    (spec,) = plan(config_from_dict(ONE_CLIP))
    row = render_spec(spec, tmp_path)
    return spec, row, tmp_path


def test_rerun_reuses_a_finished_clip(one_clip):
    from tempogen.generators.build import render_spec

    spec, row, out = one_clip
    before = _stamps(out, spec.id)
    assert render_spec(spec, out) == row
    assert _stamps(out, spec.id) == before  # nothing re-rendered or rewritten


@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_clip_is_rendered_again(one_clip, how):
    from tempogen.generators.build import render_spec

    spec, row, out = one_clip
    before = _stamps(out, spec.id)[0]
    _damage(out, spec.id, how)
    assert render_spec(spec, out) == row  # the same clip, rendered again
    assert _stamps(out, spec.id)[0] != before
    assert sha256_file(out / row["video"]) == row["video_sha256"]


def test_a_changed_spec_or_render_version_is_rendered_again(one_clip, monkeypatch):
    from tempogen.generators import build, planning

    spec, row, out = one_clip
    before = _stamps(out, spec.id)
    other = dataclasses.replace(spec, seed=spec.seed + 1)
    assert build.render_spec(other, out)["spec_hash"] == other.hash != spec.hash
    assert _stamps(out, spec.id)[0] != before[0]
    build.render_spec(spec, out)
    before = _stamps(out, spec.id)
    monkeypatch.setattr(planning, "RENDER_VERSION", planning.RENDER_VERSION + 1)
    again = build.render_spec(spec, out)
    assert again["spec_hash"] == spec.hash != row["spec_hash"]
    assert _stamps(out, spec.id)[0] != before[0]
    assert again["video_sha256"] == row["video_sha256"]  # same rendering, redone


def test_rerun_reuses_a_variant_and_redoes_a_damaged_one(one_clip):
    from tempogen.builders.dataset.variants import default_variants, edit_row

    spec, row, out = one_clip
    mirror = next(v for v in default_variants() if v.name == "mirror_h")
    new = edit_row(row, out, mirror, out, require_certificate=False)
    vid = new["id"]
    before = _stamps(out, vid)
    assert edit_row(row, out, mirror, out, require_certificate=False) == new
    assert _stamps(out, vid) == before
    for how in DAMAGES:
        _damage(out, vid, how)
        assert edit_row(row, out, mirror, out, require_certificate=False) == new, how
        assert _stamps(out, vid)[0] != before[0], how
        before = _stamps(out, vid)


# (d) a build owns its folder ------------------------------------------------------------------


@pytest.mark.slow
def test_a_folder_built_with_another_config_is_refused_or_replaced(clean, tmp_path):
    # issue 13 item 4: orphan videos of the old build shipped in the new build's exports
    import shutil

    out = tmp_path / "owned"
    shutil.copytree(clean, out)
    (out / "videos" / ".count-0000.mp4.abc123.tmp").write_bytes(b"half")  # a killed run's
    other = tmp_path / "other.yaml"
    other.write_text(SMALL.replace("samples_per_task: 3", "samples_per_task: 2"))
    proc = generate(other, out, fork=True)
    assert proc.returncode == 2, proc.stderr
    assert "another config" in proc.stderr and "--replace" in proc.stderr
    assert (out / "manifest.jsonl").read_bytes() == (clean / "manifest.jsonl").read_bytes()

    cmd = [sys.executable, "-m", "tempogen.cli", "generate", "--config", str(other)]
    proc = subprocess.run(
        [*cmd, "--out", str(out), "-j", "1", "-q", "--replace"],
        capture_output=True, text=True, timeout=300, cwd=REPO,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = rows_of(out)
    want = {Path(r["video"]).name for r in rows}
    assert {p.name for p in (out / "videos").iterdir()} == want  # no orphan, no temp file
    assert {p.name for p in (out / "hf" / "videos").iterdir()} == {f"{r['id']}.mp4" for r in rows}
    assert {p.stem for p in (out / "clips").iterdir()} == {r["id"] for r in rows}
    assert len(rows) < len(rows_of(clean))


@pytest.mark.slow
def test_a_rerun_cleans_temp_files_of_killed_runs(clean, small_config, tmp_path):
    import shutil

    out = tmp_path / "resumed"
    shutil.copytree(clean, out)
    junk = [out / "videos" / ".x.mp4.partial", out / "clips" / ".y.json.q1w2.tmp"]
    for p in junk:
        p.write_bytes(b"half")
    proc = generate(small_config, out, fork=True)
    assert proc.returncode == 0, proc.stderr
    assert not any(p.exists() for p in junk)
    assert (out / "manifest.jsonl").read_bytes() == (clean / "manifest.jsonl").read_bytes()
