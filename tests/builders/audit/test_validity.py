"""Validity audit: certificates and ideal-observer accuracies on hand-built and generated labels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from kit import manifest_row

from tempogen.builders.audit.sampling import uniform
from tempogen.builders.audit.validity import (
    PUBLISHED,
    certificate,
    format_report,
    observer_accuracy,
    ratio_gain,
    validity_report,
)
from tempogen.config import load_config
from tempogen.facts import answer_of, get_fact
from tempogen.generators.build import labels_json, plan, question_fields, spec_labels
from tempogen.generators.motion import get_motion
from tempogen.labels import Labels, Query, Track
from tempogen.manifest import Row

FPS = 15.0
N = 61  # uniform(61, 16) is every 4th frame


def _labels(x, y=90.0, angle=0.0, shape="circle", fact="direction", kind="", extra=()):
    n = len(np.atleast_1d(x)) if np.ndim(x) else len(np.atleast_1d(angle))
    subj = Track.build("subject", n, x=x, y=y, angle=angle, shape=shape, size=10)
    objects = ("subject", *(t.name for t in extra))
    return Labels(320, 180, FPS, (subj, *extra), Query(fact, objects, kind))


def slide_left() -> Labels:
    return _labels(np.linspace(250, 70, N))


def left_then_up() -> Labels:
    """Left for 30 frames, then up for 30: the corner is frame 30."""
    f = np.arange(N)
    x = 250 - 6.0 * np.minimum(f, 30)
    y = 150 - 4.0 * np.maximum(f - 30, 0)
    return _labels(x, y)


def still() -> Labels:
    return _labels(np.full(N, 120.0))


def spin(deg_per_frame: float, n: int = 151, shape: str = "square") -> Labels:
    """A spin in place; with 151 frames the 16 samples are every 10th frame."""
    return _labels(
        np.full(n, 160.0),
        angle=deg_per_frame * np.arange(n),
        shape=shape,
        fact="rotation",
        kind="spin",
    )


def test_slide_left_needs_two_frames_and_no_single_one():
    c = certificate(slide_left())
    assert c["true_key"] == c["full_key"] == c["key_16"] == "left"
    assert c["answerable_16"] and c["videott_80"] and c["aliasing_ok"]
    assert c["minimal_m"] == 2  # first and last frame already show "left"
    assert c["single_frame_determines"] is False
    assert c["shuffled_determines"] < 1  # a shuffled slide jumps left and right


def test_two_leg_slide_needs_the_corner_and_the_order():
    c = certificate(left_then_up())
    assert c["true_key"] == "left-up" and c["answerable_16"]
    # m=2 sees one diagonal step (no dominant direction); m=3 samples frames 0, 30, 60
    assert answer_of(left_then_up(), uniform(N, 2)) == ()
    assert c["minimal_m"] == 3
    assert c["shuffled_determines"] == 0.0


def test_a_still_object_survives_shuffling():
    c = certificate(still())
    assert c["true_key"] == "none" and c["minimal_m"] == 2
    assert c["shuffled_determines"] == 1.0


def test_explicit_true_key_that_frames_contradict():
    c = certificate(slide_left(), "direction", true_key="right")
    assert c["answerable_16"] is False and c["minimal_m"] is None and not c["videott_80"]


def test_single_frame_is_checked_on_every_frame(monkeypatch):
    """A future observer that reads the answer off the last frame alone is caught."""
    direction = get_fact("direction")
    real = direction.derive

    def peeking(labels, idx=None):
        if idx is not None and len(idx) == 1:
            return ("left",) if int(idx[0]) == labels.num_frames - 1 else None
        return real(labels, idx)

    monkeypatch.setattr(direction, "derive", peeking)
    assert certificate(slide_left())["single_frame_determines"] is True
    assert certificate(left_then_up())["single_frame_determines"] is False  # wrong key


def test_spin_over_90_degrees_a_sample_is_aliasing():
    # 100 deg/sample on a square reads as 10 deg cw (period 90): the same sense, but the
    # true turn is over 90 degrees between two samples.
    c = certificate(spin(10.0))
    assert c["key_16"] == c["full_key"] == "cw"
    assert c["max_turn"] == 100.0 and c["aliasing_ok"] is False


def test_wagon_wheel_spin_fails_aliasing_and_answerability():
    # 60 deg/sample on a square is seen as 30 deg back: ccw from 16 frames, cw from all.
    c = certificate(spin(6.0))
    assert c["full_key"] == "cw" and c["key_16"] == "ccw"
    assert c["aliasing_ok"] is False and c["answerable_16"] is False


def test_slow_spin_and_orbit_pass_aliasing():
    c = certificate(spin(3.0))
    assert c["aliasing_ok"] is True and c["max_turn"] == 30.0 and c["key_16"] == "cw"
    n = 151
    theta = np.radians(2.0 * np.arange(n))  # 20 deg per sample around the planet
    planet = Track.build("planet", n, x=160.0, y=90.0, role="prop", size=20)
    orbit = _labels(
        160 + 60 * np.cos(theta),
        90 + 60 * np.sin(theta),
        fact="rotation",
        kind="orbit",
        extra=(planet,),
    )
    c = certificate(orbit)
    assert c["key_16"] == "cw" and c["aliasing_ok"] and c["max_turn"] == pytest.approx(20.0)


def test_non_rotation_questions_have_no_aliasing_check():
    assert certificate(slide_left())["aliasing_ok"] is True
    assert certificate(slide_left())["max_turn"] == 0.0


def test_observer_accuracy_by_hand():
    lab = slide_left()
    assert observer_accuracy(lab, "direction", "left", "uniform16") == 1.0
    # one frame shows no motion: a guess among the 6 direction options
    assert observer_accuracy(lab, "direction", "left", "random1", seed=5) == pytest.approx(1 / 6)
    assert observer_accuracy(lab, "direction", "left", "handpicked1") == pytest.approx(1 / 6)
    assert observer_accuracy(lab, None, "left", "random1", num_options=4) == 0.25
    # a determined wrong answer it can pick scores 0
    assert observer_accuracy(lab, "direction", "right", "uniform16") == 0.0
    # shuffled: a zigzag no option offers is a guess when the options are known, else wrong
    opts = ["left", "right", "up", "none"]
    assert observer_accuracy(lab, "direction", "left", "shuffled16", seed=1) == 0.0
    got = observer_accuracy(lab, "direction", "left", "shuffled16", seed=1, option_keys=opts)
    assert got == pytest.approx(1 / 6)
    assert observer_accuracy(still(), "direction", "none", "shuffled16", seed=1) == 1.0


def test_ratio_gain_is_tomatos_formula():
    assert ratio_gain(1.0, 0.25) == pytest.approx(300.0, rel=1e-4)
    assert ratio_gain(0.5, 0.4) == pytest.approx(25.0, rel=1e-4)
    assert ratio_gain(0.4, 0.5) == pytest.approx(-20.0, rel=1e-4)
    assert np.isfinite(ratio_gain(0.5, 0.0))


def _row(rid: str, labels: Labels, key: str, option_keys: list[str], task="direction") -> Row:
    options = [k.title() + "." for k in option_keys]
    answer = option_keys.index(key) if key in option_keys else 0
    return manifest_row(
        id=rid, task=task, options=options, option_keys=option_keys, answer=answer,
        answer_key=key, labels=labels.to_json(),
    )  # fmt: skip


def test_report_arithmetic_by_hand():
    """Still (key none) and slide left, 4 options each.

    still: U16 1, S16 1, R1 1/4, H1 1/4; slide: U16 1, S16 1/4 (zigzag: guess), R1 1/4, H1 1/4.
    Means: U16 1, S16 0.625, R1 = H1 = 0.25, so kappa = 1/0.25 - 1 = 300%, tau = 1/0.625 - 1
    = 60%, rho = 0.
    """
    opts = ["left", "right", "up", "none"]
    rows = [
        _row("still", still(), "none", opts),
        _row("slide", slide_left(), "left", opts),
        manifest_row(id="ext", labels={"direction": ["left"]}, options=opts),
    ]
    rep = validity_report(rows, seed=0)
    assert rep["audited"] == 2 and rep["skipped"] == 1
    o = rep["overall"]
    assert o["accuracy"] == {
        "uniform16": 100.0,
        "shuffled16": 62.5,
        "random1": 25.0,
        "handpicked1": 25.0,
    }
    assert o["kappa_random"] == pytest.approx(300.0, abs=0.01)
    assert o["kappa_handpicked"] == pytest.approx(300.0, abs=0.01)
    assert o["tau"] == pytest.approx(60.0, abs=0.01)
    assert o["rho"] == 0.0
    assert o["certificates"]["minimal_m_mean"] == 2.0
    assert o["certificates"]["shuffled_determines"] == 50.0
    assert rep["tasks"]["direction"]["count"] == 2
    assert rep["problems"] == []


def test_report_lists_problems():
    rows = [_row("spin", spin(6.0), "cw", ["cw", "ccw", "none"], task="rotation")]
    rep = validity_report(rows)
    assert rep["overall"]["certificates"]["aliasing_ok"] == 0.0
    (p,) = rep["problems"]
    assert p["id"] == "spin" and any("aliasing" in s for s in p["problems"])
    assert "spin (rotation)" in format_report(rep)


@pytest.fixture(scope="module")
def generated_rows() -> list[Row]:
    """Manifest-like rows of the tiny config's 24 clips, labels only (nothing rendered)."""
    cfg = load_config(Path(__file__).resolve().parents[3] / "configs" / "tiny.yaml")
    rows = []
    for spec in plan(cfg):
        labels, _, opt_rng = spec_labels(spec)
        motion = get_motion(spec.motion)
        q = question_fields(motion, labels, spec.answer_key, opt_rng, spec.answer_pos)
        rows.append(manifest_row(id=spec.id, task=spec.task, **q, labels=labels_json(labels)))
    return rows


@pytest.mark.slow  # generates and scores clips
def test_generated_questions_are_temporal(generated_rows):
    rep = validity_report(generated_rows, seed=0)
    o = rep["overall"]
    assert rep["audited"] == len(generated_rows) == 24
    assert o["accuracy"]["uniform16"] == 100.0
    assert o["kappa_random"] > 0 and o["kappa_handpicked"] > 0 and o["tau"] > 0
    c = o["certificates"]
    assert c["answerable_16"] == c["not_single_frame"] == c["aliasing_ok"] == 100.0
    assert c["minimal_m_missing"] == 0 and 2 <= c["minimal_m_mean"] <= 16
    assert set(rep["tasks"]) == {r.task for r in generated_rows}
    assert validity_report(generated_rows, seed=0) == rep  # deterministic


def test_format_report_shows_tables_and_published_values(generated_rows):
    text = format_report(validity_report(generated_rows))
    for word in ("overall", "count", "visual_cues", "kappa_random", "tau", "rho", "TOMATO"):
        assert word in text
    assert "81.0" in text and "34.1" in text  # TOMATO's kappa (random) and tau
    assert PUBLISHED["kappa_handpicked"]["ReXTime"] == -7.1
    assert PUBLISHED["rho"]["TOMATO"] == 4.6


def test_report_is_json_and_bad_rows_are_named():
    import json

    opts = ["left", "right", "up", "none"]
    rep = validity_report([_row("slide", slide_left(), "left", opts)])
    assert json.loads(json.dumps(rep)) == rep
    bad = _row("broken", slide_left(), "left", opts)
    bad.labels["query"]["fact"] = "colour"
    with pytest.raises(ValueError, match="broken"):
        validity_report([bad])


def test_an_undetermined_question_passes_nothing():
    # speed growing 1.0 -> 1.3: too fast for "constant", too slow for "accelerating"
    x = 60 + np.cumsum(np.linspace(2.0, 2.6, N))
    lab = _labels(x, fact="speed", kind="position")
    assert answer_of(lab) is None
    c = certificate(lab)
    assert c["true_key"] is None and c["minimal_m"] is None
    assert not (c["answerable_16"] or c["single_frame_determines"] or c["videott_80"])
    assert c["shuffled_determines"] == 0.0
