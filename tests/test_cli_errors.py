"""The CLI tells a user's mistake from a bug: a TempogenError is one line and exit 2; any other
exception is a bug, shown with its traceback and exit 1 (never dressed up as a user error)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PLUGIN_BUG = '''
from tempogen.generators.motion import Motion, Scene, register_motion


@register_motion
class Broken(Motion):
    """A pattern with a bug: it divides by zero."""

    name = "broken_bug"
    task = "direction"
    fact = "direction"
    answers = (("right",),)
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


def _human_render(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    import numpy as np

    motion = tmp_path / "still.npz"
    np.savez(
        motion, poses=np.zeros((8, 156)), trans=np.zeros((8, 3)), betas=np.zeros(16),
        mocap_framerate=np.array(30.0),
    )  # fmt: skip
    env = {**os.environ, "PYOPENGL_PLATFORM": "egl"}
    return subprocess.run(
        [sys.executable, "-m", "tempogen.cli", "human", "render", str(motion), "--out",
         str(tmp_path / "o.mp4"), *extra],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env,
    )  # fmt: skip


def test_a_body_model_asked_for_and_missing_is_an_error(tmp_path):
    # issue 13 item 9: not a silent fall back to the mannequin
    proc = _human_render(tmp_path, "--body", str(tmp_path / "no_body_here"))
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.startswith("tempogen: error:") and "no_body_here" in proc.stderr
    assert not (tmp_path / "o.mp4").exists()


def test_a_bad_size_names_the_option(tmp_path):
    proc = _human_render(tmp_path, "--size", "abc")
    assert proc.returncode == 2
    assert "--size" in proc.stderr and "WIDTHxHEIGHT" in proc.stderr and "'abc'" in proc.stderr
    assert "Traceback" not in proc.stderr
