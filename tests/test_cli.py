"""The command line on bad input: one clear line on stderr, exit code 2, no traceback."""

from __future__ import annotations

import json
import re
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from kit import run_cli

from tempogen.generators.motion import motions_for
from tempogen.questions import TASKS
from tempogen.video import sha256_file

REPO = Path(__file__).resolve().parents[1]
SCRIPT = Path(sys.executable).parent / "tempogen"


# The error-path tests below run the CLI's main in a forked child (``run_cli(fork=True)``,
# milliseconds each); test_help, test_motions_lists_every_task and the disk-full runs start
# fresh processes (the console script and ``python -m tempogen.cli``).


def one_line_error(proc: subprocess.CompletedProcess, *needles: str) -> str:
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    line = lines[0]
    assert line.startswith("tempogen: error: "), line
    for n in needles:
        assert n in line, (n, line)
    return line


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_help():
    assert SCRIPT.is_file(), "the tempogen console script is not installed"
    for cmd in ([str(SCRIPT), "--help"], [sys.executable, "-m", "tempogen.cli", "--help"]):
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith("usage: tempogen")
        assert "generate" in proc.stdout and "motions" in proc.stdout
    proc = subprocess.run([str(SCRIPT), "generate", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "--config" in proc.stdout and "--jobs" in proc.stdout


def test_validate_and_plugins_options_are_listed():
    proc = run_cli("validate", "--help", fork=True)
    assert proc.returncode == 0 and "--plugins" in proc.stdout and "lmms_eval/" in proc.stdout
    for cmd in (["edit"], ["audit", "verify"]):
        proc = run_cli(*cmd, "--help", fork=True)
        assert proc.returncode == 0 and "--plugins MOD[,MOD...]" in proc.stdout, cmd


def test_plugins_must_be_module_names(tmp_path):
    proc = run_cli("validate", str(tmp_path), "--plugins", "ok_mod,not a module", fork=True)
    assert proc.returncode == 2
    assert "argument --plugins: 'not a module' is not a module name" in proc.stderr


def test_a_broken_manifest_is_one_line_naming_file_line_and_field(tmp_path):
    manifest = write(tmp_path / "m.jsonl", '{"id": "a", "video": "a.mp4"}\n{oops\n')
    one_line_error(
        run_cli("audit", "verify", "--manifest", str(manifest), "-q", fork=True),
        f"{manifest}:2: not valid JSON",
    )
    short = write(tmp_path / "short.jsonl", '{"id": "a", "video": "a.mp4"}\n')
    one_line_error(
        run_cli("audit", "validity", "--manifest", str(short), fork=True),
        f"{short}:1: task: required field is missing",
    )


def test_motions_lists_every_task():
    proc = subprocess.run([str(SCRIPT), "motions"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    header, *lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert header.split() == ["TASK", "MOTION", "RENDERER", "FROM", "FACT", "ANSWERS"]
    rows = [line.split() for line in lines]
    assert {r[0] for r in rows} == set(TASKS)
    listed = {(r[0], r[1]): r[3] for r in rows}
    for task in TASKS:
        for m in motions_for(task):
            assert listed[(task, m.name)] == "pattern"
        for m in motions_for(task, sourced=True):  # the mocap patterns, marked as such
            assert listed[(task, m.name)] == "mocap"
    assert "mocap" in listed.values()


def test_formats_lists_every_format_under_column_headers():
    from tempogen.builders.exports import FORMATS

    proc = run_cli("formats", fork=True)
    assert proc.returncode == 0, proc.stderr
    header, *lines = proc.stdout.splitlines()
    assert header.split() == ["FORMAT", "FOLDER", "DOES", "DESCRIPTION"]
    assert [line.split()[0] for line in lines] == list(FORMATS)
    for column in ("FOLDER", "DOES", "DESCRIPTION"):  # each heads its column
        at = header.index(column)
        assert all(line[at - 1] == " " and line[at] != " " for line in lines), (column, lines)
    tomato = lines[0].split()
    assert tomato[1:3] == ["tomato/", "write,validate,score,run"]


def test_no_command_is_a_usage_error():
    proc = run_cli(fork=True)
    assert proc.returncode == 2 and "usage: tempogen" in proc.stderr


def test_invalid_config(tmp_path):
    cfg = write(tmp_path / "bad.yaml", 'seed: 1\nfps: "fast"\n')
    proc = run_cli(
        "generate", "--config", str(cfg), "--out", str(tmp_path / "out"), "-q", fork=True
    )
    one_line_error(proc, str(cfg), "fps")
    assert not (tmp_path / "out").exists()


def test_unknown_task(tmp_path):
    cfg = write(tmp_path / "tasks.yaml", "tasks: [count, dancing]\n")
    proc = run_cli(
        "generate", "--config", str(cfg), "--out", str(tmp_path / "out"), "-q", fork=True
    )
    one_line_error(proc, str(cfg), "tasks[1]", "dancing")


def test_bad_yaml_and_missing_config(tmp_path):
    cfg = write(tmp_path / "syntax.yaml", "seed: 1\nsize: [64, 48]]\n")
    proc = run_cli(
        "generate", "--config", str(cfg), "--out", str(tmp_path / "out"), "-q", fork=True
    )
    one_line_error(proc, f"{cfg}:2: not valid YAML")
    missing = tmp_path / "missing.yaml"
    proc = run_cli(
        "generate", "--config", str(missing), "--out", str(tmp_path / "out"), "-q", fork=True
    )
    one_line_error(proc, str(missing))


def test_unwritable_output(tmp_path):
    cfg = write(tmp_path / "ok.yaml", "samples_per_task: 1\ntasks: [direction]\n")
    blocker = write(tmp_path / "not_a_folder", "x")
    out = blocker / "dataset"
    proc = run_cli("generate", "--config", str(cfg), "--out", str(out), "-q", fork=True)
    one_line_error(proc, str(out))
    assert blocker.read_text() == "x"


def test_jobs_must_be_positive(tmp_path):
    cfg = write(tmp_path / "ok.yaml", "samples_per_task: 1\n")
    proc = run_cli(
        "generate", "--config", str(cfg), "--out", str(tmp_path / "o"), "-j", "0", fork=True
    )
    one_line_error(proc, "-j/--jobs")
    assert not (tmp_path / "o").exists()


# disk full -----------------------------------------------------------------------------------

FSIZE = 200_000


def _limit_file_size():
    resource.setrlimit(resource.RLIMIT_FSIZE, (FSIZE, FSIZE))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def _disk_full_run(tmp_path: Path, config: str) -> tuple[subprocess.CompletedProcess, Path]:
    cfg = write(tmp_path / "cfg.yaml", config)
    out = tmp_path / "out"
    proc = run_cli("generate", "--config", str(cfg), "--out", str(out), "-j", "1", "-q",
               preexec_fn=_limit_file_size)  # fmt: skip
    return proc, out


def _unrecorded_videos(out: Path) -> list[str]:
    """Files under a final name in videos/ that no clips/ record vouches for."""
    bad = []
    videos = out / "videos"
    if not videos.is_dir():
        return bad
    for p in sorted(videos.iterdir()):
        if p.name.startswith(".") and p.name.endswith(".tmp"):
            continue
        rec = out / "clips" / f"{p.stem}.json"
        if not rec.is_file() or json.loads(rec.read_text())["video_sha256"] != sha256_file(p):
            bad.append(p.name)
    return bad


# Lossless 1280x720 noise: the very first clip's video grows past the limit while encoding.
BIG_VIDEO = """\
seed: 3
size: [1280, 720]
fps: 10
duration: [3, 4]
samples_per_task: 1
tasks: [direction]
style: {backgrounds: [noise], distractors: [0, 0]}
encode: {crf: 0}
"""

# Small videos (a few kB) but contact sheets of noise (several hundred kB): the video is in
# place when the sheet write fails.
BIG_SHEET = """\
seed: 3
size: [160, 90]
fps: 10
duration: [3, 4]
samples_per_task: 2
tasks: [direction]
style: {backgrounds: [noise]}
"""


@pytest.fixture(scope="module")
def video_disk_full(tmp_path_factory):
    return _disk_full_run(tmp_path_factory.mktemp("fullvideo"), BIG_VIDEO)


@pytest.fixture(scope="module")
def sheet_disk_full(tmp_path_factory):
    return _disk_full_run(tmp_path_factory.mktemp("fullsheet"), BIG_SHEET)


@pytest.mark.slow  # a build under a file-size limit
def test_disk_full_during_video_write_leaves_nothing_half_written(video_disk_full):
    proc, out = video_disk_full
    assert proc.returncode != 0
    assert "File too large" in proc.stderr  # the limit really was hit
    assert _unrecorded_videos(out) == []
    # the partial video was a temp file, and it was removed
    assert not (out / "videos").exists() or list((out / "videos").iterdir()) == []
    assert not (out / "manifest.jsonl").exists()


@pytest.mark.slow  # a build under a file-size limit
def test_disk_full_during_video_write_is_one_line(video_disk_full):
    proc, out = video_disk_full
    one_line_error(proc, "direction-0000.mp4")


@pytest.mark.slow  # a build under a file-size limit
def test_disk_full_during_sheet_write_is_one_line(sheet_disk_full):
    proc, out = sheet_disk_full
    line = one_line_error(proc, "sheets/direction-", ".png", "File too large")
    clip = re.search(r"sheets/(direction-\d{4})\.png", line).group(1)  # longest clips go first
    assert not (out / "clips" / f"{clip}.json").exists()
    assert not (out / "sheets" / f"{clip}.png").exists()


@pytest.mark.slow  # a build under a file-size limit
def test_disk_full_during_sheet_write_leaves_no_unrecorded_video(sheet_disk_full):
    proc, out = sheet_disk_full
    assert proc.returncode != 0
    assert _unrecorded_videos(out) == []
