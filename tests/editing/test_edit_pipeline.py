"""Edit pipelines declared in YAML: list and mapping files, and malformed entries."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tempogen.editing import (
    Clip,
    Crop,
    EditError,
    Mirror,
    Reverse,
    Rotate,
    Speed,
    SpeedRamp,
    Trim,
    ZoomIn,
    load_pipelines,
    parse_pipeline,
    run_pipeline,
)

SPEC = "[reverse, {mirror: horizontal}, {zoom_in: {subject: main, margin: 0.2}}]\n"
EXPECTED = [Reverse(), Mirror("horizontal"), ZoomIn(subject="main", margin=0.2)]


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_list_file_is_named_after_the_file(tmp_path) -> None:
    assert load_pipelines(_write(tmp_path, "flip.yaml", SPEC)) == {"flip": EXPECTED}


def test_mapping_file(tmp_path) -> None:
    text = (
        f"both: {SPEC}"
        "rev: [reverse]\n"
        "fast: [{speed: 2}, {rotate: 270}]\n"
        "ramp: [{speed_ramp: [0.6, 1.6]}, {trim: {start: 0.5, end: 2}}]\n"
        "box: [{crop: [8, 4, 56, 36]}]\n"
    )
    got = load_pipelines(_write(tmp_path, "p.yaml", text))
    assert list(got) == ["both", "rev", "fast", "ramp", "box"]  # file order kept
    assert got["both"] == EXPECTED
    assert got["rev"] == [Reverse()]
    assert got["fast"] == [Speed(2), Rotate(270)]
    assert got["ramp"] == [SpeedRamp(0.6, 1.6), Trim(0.5, 2)]
    assert got["box"] == [Crop([8, 4, 56, 36])]


def test_loaded_pipeline_runs(tmp_path, tiny, keys) -> None:
    (ops,) = load_pipelines(_write(tmp_path, "p.yaml", SPEC)).values()
    out = run_pipeline(tiny, ops)
    assert [e["op"] for e in out.edits] == ["reverse", "mirror", "zoom_in"]
    assert out.variation == ("counterfactual", "zoom")
    assert keys.labels(out) == "right"  # reversed (left) then mirrored (right)
    assert run_pipeline(tiny, []) is tiny


def test_parse_accepts_scalars_and_none() -> None:
    ops = parse_pipeline([{"speed": 0.5}, {"reverse": None}, {"rotate": 90}, "mirror"])
    assert ops == [Speed(0.5), Reverse(), Rotate(90), Mirror("horizontal")]
    assert parse_pipeline([]) == []


@pytest.mark.parametrize(
    "text,match",
    [
        ("", "expected a list of ops or a mapping of variant name to list"),
        ("{}\n", "expected a list of ops or a mapping of variant name to list"),
        ("reverse\n", "expected a list of ops or a mapping of variant name to list"),
        ("[reverse, [mirror]\n", "not valid YAML"),
        ("a: reverse\n", r"p.yaml:1: a: expected a list of ops, got str"),
        (
            "[{mirror: horizontal, reverse: null}]\n",
            r"p.yaml\[0\]: expected an op name or a one-key mapping",
        ),
        ("[reverse, 3]\n", r"p.yaml\[1\]: expected an op name or a one-key mapping, got 3"),
        (
            "[reverse, {spin: 2}]\n",
            r"p.yaml\[1\]: unknown op 'spin'; known: mirror, rotate, concat, composite, loop",
        ),
        ("[{speed: 0}]\n", r"p.yaml\[0\]: speed: factor must be a positive number, got 0"),
        (
            "[{speed: {fast: 2}}]\n",
            r"p.yaml\[0\]: speed: unknown parameter\(s\) \['fast'\]; parameters: factor",
        ),
        ("[{rotate: [90, 180]}]\n", r"p.yaml\[0\]: rotate: bad parameters \[90, 180\]"),
        ("[{rotate: 45}]\n", r"p.yaml\[0\]: rotate: degrees must be 90, 180 or 270"),
        ("[{mirror: diagonal}]\n", r"p.yaml\[0\]: mirror: axis must be"),
        ("v: [reverse, {loop: 0}]\n", r"p.yaml:1: v\[1\]: loop: times must be a positive integer"),
    ],
)
def test_malformed(tmp_path, text, match) -> None:
    with pytest.raises(EditError, match=match):
        load_pipelines(_write(tmp_path, "p.yaml", text))


def test_crop_from_yaml_is_the_same_frozen_value() -> None:
    (op,) = parse_pipeline([{"crop": [8, 4, 56, 36]}])
    assert op == Crop((8, 4, 56, 36))
    assert hash(op) == hash(Crop((8, 4, 56, 36)))


def test_missing_file(tmp_path) -> None:
    with pytest.raises(EditError, match=r"nope.yaml: cannot read pipeline"):
        load_pipelines(tmp_path / "nope.yaml")


def test_parse_needs_a_list() -> None:
    with pytest.raises(EditError, match="variant: expected a list of ops, got dict"):
        parse_pipeline({"reverse": None}, "variant")


def test_same_spec_same_ops_same_output(tmp_path, tiny) -> None:
    a = load_pipelines(_write(tmp_path, "a.yaml", SPEC))["a"]
    b = load_pipelines(_write(tmp_path, "b.yaml", SPEC))["b"]
    assert a == b
    np.testing.assert_array_equal(
        run_pipeline(tiny, a).to_array(), run_pipeline(tiny, b).to_array()
    )


def test_concat_and_composite_in_yaml(tmp_path, generated, keys) -> None:
    """Two-clip ops take the input clip and the same clip through their ``other`` ops."""
    (tmp_path / "p.yaml").write_text(
        "there_and_back: [{concat: {other: [reverse], gap: 0.5}}]\n"
        "pip: [{composite: {other: [{mirror: vertical}], layout: picture_in_picture}}]\n",
        encoding="utf-8",
    )
    pipes = load_pipelines(tmp_path / "p.yaml")
    clip = generated("slide", "left")
    joined = run_pipeline(clip, pipes["there_and_back"])
    assert joined.num_frames == 2 * clip.num_frames + round(0.5 * clip.fps)
    assert keys.labels(joined) == "left-right" and "composite" in joined.variation
    pip = run_pipeline(clip, pipes["pip"])
    assert pip.num_frames == clip.num_frames and keys.labels(pip) == "left"
    assert [t.name for t in pip.labels.tracks if t.name.startswith("b:")]


def test_two_clip_op_errors_name_the_inner_op(tmp_path) -> None:
    with pytest.raises(EditError, match=r"concat.other\[0\]: unknown op 'rewind'"):
        run_pipeline(
            Clip.from_array(np.zeros((4, 8, 8, 3), np.uint8), 4.0),
            parse_pipeline([{"concat": {"other": ["rewind"]}}]),
        )
