"""SIGTERM and Ctrl-C stop ``tempogen generate`` cleanly (issue 25, class 7), with a real
subprocess: the driver and its workers exit within 5 s, no temp file is left, the folder's
lock is free, stderr holds one line (no worker tracebacks), and a rerun resumes to the same
bytes an uninterrupted build writes."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.serial  # stop timings: run alone (Makefile)


def _generate(config: Path, out: Path) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "tempogen.cli", "generate", "--config", str(config)]
    env = {**os.environ, "PYOPENGL_PLATFORM": os.environ.get("PYOPENGL_PLATFORM", "egl")}
    return subprocess.Popen(
        [*cmd, "--out", str(out), "-q", "-j", "2"], cwd=REPO, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip


def _group(pgid: int) -> list[int]:
    """Live processes of a process group (its workers outlive a driver killed hard)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if fields[0] != "Z" and int(fields[2]) == pgid:
                pids.append(int(entry.name))
    return pids


def _records(out: Path) -> int:
    return len(list((out / "clips").glob("*.json"))) if (out / "clips").is_dir() else 0


def _stop(config: Path, out: Path, how: str) -> tuple[int, str, float]:
    """Start a build, wait until it commits one more clip, signal it; (exit, stderr, seconds
    from the signal to the exit of every process of the run)."""
    before = _records(out)
    proc = _generate(config, out)
    deadline = time.monotonic() + 120
    while _records(out) <= before:
        assert proc.poll() is None, f"the build ended before a clip: {proc.stderr.read()}"
        assert time.monotonic() < deadline, "no clip committed in 120 s"
        time.sleep(0.02)
    sent = time.monotonic()
    if how == "SIGTERM":
        os.kill(proc.pid, signal.SIGTERM)  # as a service manager or `kill` sends it
    else:
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole group
    _, err = proc.communicate(timeout=30)
    while _group(proc.pid) and time.monotonic() - sent < 10:
        time.sleep(0.05)
    left = _group(proc.pid)
    for pid in left:  # do not leak them into other tests
        os.kill(pid, signal.SIGKILL)
    assert not left, f"workers left after {how}: {left}"
    return proc.returncode, err, time.monotonic() - sent


def _unlocked(out: Path) -> bool:
    fd = os.open(out / ".tempogen.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


@pytest.mark.slow  # the shared small build, then three builds: make test runs it
def test_sigterm_and_ctrl_c_stop_cleanly_and_a_rerun_resumes(
    tmp_path: Path, small_build: Path, small_build_config: dict
) -> None:
    config = tmp_path / "small.yaml"
    config.write_text(yaml.safe_dump(small_build_config))
    out = tmp_path / "out"
    for how, code in (("SIGTERM", 143), ("SIGINT", 130)):
        rc, err, seconds = _stop(config, out, how)
        assert rc == code, (how, rc, err)
        assert seconds < 5, f"{how}: the run took {seconds:.1f} s to stop"
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        assert "rerun resumes" in err
        temps = [*out.rglob(".*.tmp"), *out.rglob(".*.partial")]
        assert not temps, f"{how}: temp files left: {temps}"
        assert _unlocked(out), f"{how}: the folder is still locked"
    kept = _records(out)
    assert kept >= 2
    done = _generate(config, out)
    _, err = done.communicate(timeout=600)
    assert done.returncode == 0, err
    assert (out / "manifest.jsonl").read_bytes() == (small_build / "manifest.jsonl").read_bytes()
    for rel in ("tomato/data/direction.json", "videott/videott.json", "index.html"):
        assert (out / rel).read_bytes() == (small_build / rel).read_bytes(), rel


def test_sigterm_stops_an_edit_cleanly_and_a_rerun_completes(tmp_path: Path) -> None:
    import json

    import numpy as np

    from tempogen.video import write_video

    frames = np.zeros((12, 48, 64, 3), np.uint8)
    for t in range(12):
        frames[t, 16:32, 4 + 3 * t : 20 + 3 * t] = 255
    write_video(tmp_path / "a.mp4", frames, 4)
    rec = {"video": "a.mp4", "fact": "direction", "question": "Which way?"}
    rows = [{**rec, "id": f"r{i:02d}", "labels": {"direction": ["right"]}} for i in range(40)]
    m = tmp_path / "m.jsonl"
    m.write_text("".join(json.dumps(r) + "\n" for r in rows))
    p = tmp_path / "p.yaml"
    p.write_text("{mirror: [{mirror: horizontal}], back: [reverse]}\n")
    cmd = [sys.executable, "-m", "tempogen.cli", "edit", "--manifest", str(m), "--pipeline"]
    cmd += [str(p), "-q", "--out"]
    out, whole = tmp_path / "o", tmp_path / "whole"
    proc = subprocess.Popen([*cmd, str(out)], cwd=REPO, text=True, stderr=subprocess.PIPE,
                            stdout=subprocess.PIPE, start_new_session=True)  # fmt: skip
    while _records(out) < 1:
        assert proc.poll() is None, proc.stderr.read()
        time.sleep(0.01)
    sent = time.monotonic()
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143 and time.monotonic() - sent < 5, (proc.returncode, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not [*out.rglob(".*.tmp"), *out.rglob(".*.partial")]
    assert _unlocked(out)
    assert 0 < _records(out) < 80, "stopped mid-run"
    assert subprocess.run([*cmd, str(out)], cwd=REPO, capture_output=True).returncode == 0
    assert subprocess.run([*cmd, str(whole)], cwd=REPO, capture_output=True).returncode == 0
    assert (out / "manifest.jsonl").read_bytes() == (whole / "manifest.jsonl").read_bytes()
