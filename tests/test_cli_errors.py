"""The CLI tells a user's mistake from a bug: a TempogenError is one line and exit 2; any other
exception is a bug, shown with its traceback and exit 1 (never dressed up as a user error)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kit import run_cli

PLUGIN_BUG = '''
from tempogen.generators.motion import Motion, Scene, register_motion


@register_motion
class Broken(Motion):
    """A pattern with a bug: it divides by zero."""

    name = "broken_bug"
    task = "direction"
    fact = "direction"
    answers = (("right",), ("left",))
    question = "In which direction does {subject} move?"

    def animate(self, scene: Scene, answer) -> None:
        raise ValueError("a bug in a pattern, not the user's input: " + str(1 / len([])))
'''


def _generate(tmp_path: Path, plugins: str) -> subprocess.CompletedProcess:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "seed: 1\nsize: [160, 96]\nfps: 10\nduration: [3.0, 3.0]\nsamples_per_task: 1\n"
        f"tasks: [direction]\nplugins: [{plugins}]\nmotions: [broken_bug]\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "PYOPENGL_PLATFORM": "egl"}
    return subprocess.run(
        [sys.executable, "-m", "tempogen.cli", "generate", "--config", str(cfg), "--out",
         str(tmp_path / "out"), "--quiet", "-j", "1"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env,
    )  # fmt: skip


def test_a_bug_is_a_traceback_and_exit_1(tmp_path):
    (tmp_path / "buggy_plugin.py").write_text(PLUGIN_BUG)
    proc = _generate(tmp_path, "buggy_plugin")
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "Traceback (most recent call last)" in proc.stderr
    assert "ZeroDivisionError" in proc.stderr
    assert "tempogen: error:" not in proc.stderr


def test_a_user_error_is_one_line_and_exit_2(tmp_path):
    proc = _generate(tmp_path, "no_such_plugin_module_here")
    assert proc.returncode == 2
    assert proc.stderr.startswith("tempogen: error:")
    assert "c.yaml" in proc.stderr and "plugins[0]" in proc.stderr
    assert "Traceback" not in proc.stderr


def _human_render(tmp_path: Path, *extra: str, fork: bool = True) -> subprocess.CompletedProcess:
    """``tempogen human render`` of an 8-pose still motion: the CLI's main in a forked child
    (milliseconds), or a fresh process without ``fork``."""
    import numpy as np

    motion = tmp_path / "still.npz"
    np.savez(
        motion, poses=np.zeros((8, 156)), trans=np.zeros((8, 3)), betas=np.zeros(16),
        mocap_framerate=np.array(30.0),
    )  # fmt: skip
    return run_cli(
        "human", "render", motion, "--out", tmp_path / "o.mp4", *extra,
        timeout=120, cwd=tmp_path, env={"PYOPENGL_PLATFORM": "egl"}, fork=fork,
    )  # fmt: skip


def test_a_body_model_asked_for_and_missing_is_an_error(tmp_path):
    # issue 13 item 9: not a silent fall back to the mannequin
    proc = _human_render(tmp_path, "--body", str(tmp_path / "no_body_here"), fork=False)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.startswith("tempogen: error:") and "no_body_here" in proc.stderr
    assert not (tmp_path / "o.mp4").exists()


def test_a_bad_size_names_the_option(tmp_path):
    proc = _human_render(tmp_path, "--size", "abc")
    assert proc.returncode == 2
    assert "--size" in proc.stderr and "WIDTHxHEIGHT" in proc.stderr and "'abc'" in proc.stderr
    assert "Traceback" not in proc.stderr


# -- costs bounded up front (issue 25) ---------------------------------------------------------
HUGE = "size: [7680, 7680]\nfps: 240\nduration: [600, 600]\n"


def _tempogen(
    tmp_path: Path, *args: str, timeout: float = 60, fork: bool = True
) -> subprocess.CompletedProcess:
    """The CLI from ``tmp_path`` without TEMPOGEN_ALLOW_LARGE: in a forked child (milliseconds),
    or a fresh process without ``fork``."""
    env = {"PYOPENGL_PLATFORM": "egl", "TEMPOGEN_ALLOW_LARGE": None}
    return run_cli(*args, timeout=timeout, cwd=tmp_path, env=env, fork=fork)


def test_a_huge_config_is_refused_at_once_with_its_estimate(tmp_path):
    (tmp_path / "huge.yaml").write_text(HUGE)
    proc = _tempogen(tmp_path, "generate", "--config", "huge.yaml", "--out", "o", "-q", fork=False)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.startswith("tempogen: error: huge.yaml: about ")
    assert "frames of 7680x7680" in proc.stderr and "of one core's time" in proc.stderr
    assert "--allow-large" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "o").exists()


def test_allow_large_lets_a_huge_config_through_to_its_plan(tmp_path):
    (tmp_path / "huge.yaml").write_text(HUGE)
    proc = _tempogen(
        tmp_path, "generate", "--config", "huge.yaml", "--out", "o", "--allow-large", "--dry-run"
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "estimate: about " in proc.stdout and "frames of 7680x7680" in proc.stdout
    assert "plan: 360 clips" in proc.stdout and "nothing written" in proc.stdout
    assert not (tmp_path / "o").exists()


def test_human_render_refuses_an_extreme_frame_rate_before_allocating(tmp_path):
    for fps in ("1e7", "inf", "0"):
        proc = _human_render(tmp_path, "--fps", fps)
        assert proc.returncode == 2, proc.stderr[-2000:]
        assert "argument --fps" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "o.mp4").exists()


def test_human_render_refuses_a_clip_past_the_limit_with_its_estimate(tmp_path):
    import numpy as np

    # 1,000 poses at 1 per second: at 240 fps, 239,761 frames (and as many meshes held)
    motion = tmp_path / "long.npz"
    np.savez(
        motion, poses=np.zeros((1000, 156)), trans=np.zeros((1000, 3)), betas=np.zeros(16),
        mocap_framerate=np.array(1.0),
    )  # fmt: skip
    proc = _tempogen(
        tmp_path, "human", "render", "long.npz", "--out", "o.mp4", "--fps", "240", timeout=30
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "long.npz at --fps 240, --size 640x360: about 239,761 frames" in proc.stderr
    assert "GB of memory" in proc.stderr and "--allow-large" in proc.stderr
    assert not (tmp_path / "o.mp4").exists()


def test_audit_verify_sample_must_be_positive(tmp_path):
    for n in ("-3", "0", "abc"):
        proc = _tempogen(tmp_path, "audit", "verify", "--manifest", "m.jsonl", "--sample", n)
        assert proc.returncode == 2, proc.stderr[-2000:]
        assert "argument --sample" in proc.stderr and repr(n) in proc.stderr
