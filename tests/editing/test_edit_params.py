"""Op parameters are checked before any frame is made (issue 25): through ``tempogen edit``, a
bad parameter is one line and exit 2 naming the pipeline file, the op and the parameter, and
an op that would make an absurdly long clip is refused with the estimate in the message."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from kit import run_cli

from tempogen.editing.ops import base
from tempogen.errors import EditError
from tempogen.video import write_video

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def manifest(tmp_path_factory) -> Path:
    """One external clip: 200 grey frames of 32x32 at 10 fps, its count declared."""
    d = tmp_path_factory.mktemp("params")
    write_video(d / "clip1.mp4", np.full((200, 32, 32, 3), 90, np.uint8), 10)
    row = {"id": "clip1", "video": "clip1.mp4", "labels": {"count": 2}}
    (d / "m.jsonl").write_text(json.dumps(row) + "\n")
    return d / "m.jsonl"


def _edit(
    manifest: Path, tmp_path: Path, op: str, fork: bool = False
) -> subprocess.CompletedProcess[str]:
    """``tempogen edit`` of ``manifest`` with the one-op pipeline ``op``: a fresh process, or
    (``fork``) the CLI's ``main`` in a child forked from this one (milliseconds, not seconds of
    imports; the frame-limit tests below keep the fresh process)."""
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(f"- {op}\n")
    return run_cli(
        "edit", "--manifest", manifest, "--pipeline", pipe, "--out", tmp_path / "out", "-q",
        cwd=REPO, timeout=30, fork=fork,
    )  # fmt: skip


# (op as YAML, the parameter the message must name): each a traceback, a hang, or a message
# naming no parameter on the main branch before this check
BAD = [
    ("{crop: {box: [0, 0, 32, 24], size: [0, 0]}}", "size"),  # was: LinAlgError
    ("{crop: {box: [0, 0, 32, 24], size: [40000, 30000]}}", "size"),  # was: a hang
    ("{crop: [0, 0, abc, 24]}", "box[2]"),  # was: refused per clip, no file named
    ("{concat: {gap: abc}}", "gap"),  # was: TypeError
    ("{concat: {gap: .inf}}", "gap"),  # was: OverflowError
    ("{trim: {start: .nan}}", "start"),  # was: refused per clip, no parameter named
    ("{speed: 0.00001}", "factor"),  # was: 0/1 for a minute
    ("{zoom_in: {margin: -1.0}}", "margin"),
    ("{loop: 1000000000}", "times"),  # was: a 149 GiB allocation
]
# more of the class, read the way the CLI reads a pipeline file (no process each)
MORE = [
    ("{crop: [0, 0, .inf, 24]}", "box[2]"),
    ("{crop: [8, 0, 4, 24]}", "box"),
    ("{crop: [0, 0, 24]}", "box"),
    ("{crop: {box: [0, 0, 32, 24], size: [33, 24]}}", "size"),
    ("{trim: {start: 0, end: abc}}", "end"),
    ("{trim: {start: 2.0, end: 1.0}}", "end"),
    ("{trim: {start: -1.0}}", "start"),
    ("{speed_ramp: [0.00001, 1.0]}", "start"),
    ("{speed_ramp: [1.0, 5000.0]}", "end"),
    ("{speed: 5000.0}", "factor"),
    ("{zoom_in: {margin: 1000000.0}}", "margin"),
    ("{zoom_in: {smooth: 1000000000.0}}", "smooth"),
    ("{zoom_in: {subject: 3}}", "subject"),
    ("{composite: {layout: 3}}", "layout"),
    ("{concat: {gap: .nan}}", "gap"),
    ("{concat: {gap: 1000000.0}}", "gap"),
    ("{concat: {gap: 1" + "0" * 400 + "}}", "gap"),  # an integer past any float
]


def _named(op: str, param: str) -> str:
    return f"pipe.yaml[0]: {op.strip('{').split(':')[0]}: {param}"


@pytest.mark.parametrize(("op", "param"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_parameter_names_file_op_and_parameter(manifest, tmp_path, op, param) -> None:
    proc = _edit(manifest, tmp_path, op, fork=True)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert _named(op, param) in proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists()  # refused before anything was written


@pytest.mark.parametrize(("op", "param"), MORE, ids=[b[0][:48] for b in MORE])
def test_more_bad_parameters_name_file_op_and_parameter(tmp_path, op, param) -> None:
    from tempogen.editing import load_pipelines

    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(f"- {op}\n")
    with pytest.raises(EditError) as err:
        load_pipelines(pipe)
    assert _named(op, param) in f"{pipe.name}{str(err.value).split(pipe.name, 1)[-1]}"


def test_an_edit_past_the_frame_limit_is_refused_with_the_estimate(manifest, tmp_path) -> None:
    # 200 frames slowed 1000 times: 199,001 frames, past the 144,000 a clip may have
    proc = _edit(manifest, tmp_path, "{speed: 0.001}")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert "speed(factor=0.001): about 199,001 frames of 32x32" in proc.stderr
    assert "longer than 144,000" in proc.stderr and "TEMPOGEN_ALLOW_LARGE" in proc.stderr


def test_a_join_past_the_frame_limit_is_refused_with_the_estimate(manifest, tmp_path) -> None:
    # A: 200 frames; B: 142,143 frames (each under the limit); 2,000 black frames between
    proc = _edit(manifest, tmp_path, "{concat: {other: [{speed: 0.0014}], gap: 200.0}}")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert "concat(other=({'speed': 0.0014},), gap=200.0): about 144,343 frames" in proc.stderr
    assert "longer than 144,000" in proc.stderr


def test_plugin_ops_get_the_annotation_check_and_their_validate(monkeypatch) -> None:
    """Every op, a plugin's too, goes through the check; nothing a README pipeline writes is
    refused."""
    for name, params in [
        ("crop", [0, 0, 32, 24]),
        ("crop", {"box": [0, 0, 32, 24], "size": [64, 48]}),
        ("concat", {"other": ["reverse"], "gap": 0.5}),
        ("concat", {"gap": None}),
        ("trim", {"start": 1, "end": 2.5}),
        ("speed", 0.5),
        ("speed_ramp", [1, 2]),
        ("zoom_in", {"subject": "main", "margin": 0.2}),
        ("loop", 3),
        ("mirror", "vertical"),
        ("rotate", 90),
        ("reverse", None),
    ]:
        base.make_op(name, params)
    monkeypatch.setattr(base, "OPS", base.OPS.copy())  # the registry stays as it was

    @base.register_op
    @dataclass(frozen=True)
    class Blur(base.SpaceOp):
        radius: float = 1.0
        passes: int = 1
        name: ClassVar[str] = "blur_test"

        def validate(self) -> None:
            if self.radius > 50:
                raise EditError(f"radius: at most 50, got {self.radius}")

    assert base.make_op("blur_test", {"radius": 2}).radius == 2
    for params, want in [
        ({"radius": "wide"}, "blur_test: radius: expected a number, got 'wide'"),
        ({"radius": float("nan")}, "blur_test: radius: must be a finite number"),
        ({"radius": True}, "blur_test: radius: expected a number"),
        ({"passes": 1.5}, "blur_test: passes: expected a whole number, got 1.5"),
        ({"radius": 80}, "blur_test: radius: at most 50, got 80"),
    ]:
        with pytest.raises(EditError, match=None) as err:
            base.make_op("blur_test", params)
        assert want in str(err.value), str(err.value)
