"""Frames from another GL: two rows an NVIDIA H200 rendered, which `audit verify` called
DISAGREE although their labels were exact (tests/data/gpu_h200/README.md says how they were
made). One was the reader's fault (a dithered dark sky inside a paint's mask), one the
pattern's (a count of laps that ended exactly on a whole lap)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tempogen import observe
from tempogen.builders.audit.pixels3d import MIN_CHROMA, hue_mask, painted
from tempogen.builders.audit.verify import verify_row
from tempogen.builders.dataset.certify_edits import uncertified_reason
from tempogen.generators.motion import LAP_MARGIN, Style, certify, get_motion, make_labels
from tempogen.labels import Labels, Query, Track

DATA = Path(__file__).resolve().parents[2] / "data" / "gpu_h200"
ROWS = {r["id"]: r for r in map(json.loads, (DATA / "manifest.jsonl").read_text().splitlines())}


def test_a_dithered_dark_sky_is_not_read_as_paint() -> None:
    # the GPU clip's cube spins counter-clockwise throughout; its violet mark's mask took in
    # sky pixels (34, 30, 54) and the reader saw ccw-cw-ccw-cw-ccw-cw
    verdict = verify_row(ROWS["rotation-0108"], DATA)
    assert verdict is not None
    assert (verdict.expected, verdict.seen) == ("ccw", "ccw"), verdict


def test_chroma_floor_keeps_paint_and_drops_sky() -> None:
    sky = (34, 30, 54)  # saturation 113 and value 54: over both of the reader's other floors
    violet = (147, 51, 234)
    shaded = tuple(int(0.3 * c) for c in (219, 39, 119))  # a paint in ambient light only
    frame = np.array([[sky, violet, shaded]], np.uint8)
    hsv = cv2.cvtColor(frame, cv2.COLOR_RGB2HSV)
    assert painted(hsv).tolist() == [[False, True, True]]
    assert hue_mask(frame, violet, [(219, 39, 119)]).tolist() == [[False, True, False]]
    # the floor is a bound, not a guess: the sky's chroma by construction is at most 24
    assert MIN_CHROMA > 24
    # chroma = S * V / 255: exactly MIN_CHROMA (120 * 85 / 255 = 40) is not paint, 40.1 is
    edge = np.array([[[0, 120, 85], [0, 140, 73]]], np.uint8)
    assert painted(edge).tolist() == [[False, True]]


def test_a_count_of_laps_ending_on_a_whole_lap_is_not_certified() -> None:
    row = ROWS["count-0101"]
    labels = Labels.from_json(row["labels"])
    cert = certify(labels)
    assert cert.sampled == 3 and cert.lap_margin is not None and cert.lap_margin < 0.01
    assert not cert.ok("count", "3")
    assert "from a whole lap (under 10)" in uncertified_reason(cert, "count")
    # and what the pixels of that ending show is one lap fewer: why it must not ship
    verdict = verify_row(row, DATA)
    assert verdict is not None and verdict.seen == "2"


def _orbit(total: float, n: int = 46) -> Labels:
    """A point circling a post ``total`` degrees at a constant rate."""
    a = np.radians(np.linspace(0.0, total, n))
    moon = Track.build("subject", n, x=100 + 50 * np.cos(a), y=90 + 50 * np.sin(a))
    post = Track.build("post", n, x=100.0, y=90.0, role="prop")
    return Labels(200, 180, 15.0, (moon, post), Query("count", ("subject", "post"), "loop"))


@pytest.mark.parametrize(
    ("total", "margin", "ok"),
    [(720.0, 0.0, False), (725.0, 5.0, False), (710.0, 10.0, True), (750.0, 30.0, True)],
)
def test_lap_margin_is_the_distance_to_the_nearest_whole_lap(total, margin, ok) -> None:
    cert = certify(_orbit(total))
    assert cert.lap_margin == pytest.approx(margin, abs=1e-6)
    key = "2" if total >= 720 else "1"
    assert cert.ok("count", key) is ok


def test_margin_is_only_asked_of_lap_counts() -> None:
    labels = _orbit(720.0)
    spin = Labels(200, 180, 15.0, labels.tracks, Query("rotation", ("subject", "post"), "orbit"))
    assert certify(spin).lap_margin is None


@pytest.mark.parametrize("answer", ["1", "2", "3"])
def test_moon_laps_ends_clear_of_a_whole_lap(answer: str) -> None:
    labels = make_labels(
        get_motion("moon_laps3d"),
        answer,
        np.random.default_rng(int(answer)),
        width=320,
        height=180,
        fps=15.0,
        num_frames=60,
        style=Style(),
    )
    cert = certify(labels)
    assert cert.ok("count", answer) and cert.lap_margin >= LAP_MARGIN
    idx = observe.uniform_indices(labels.num_frames, 16)
    assert abs(observe.turn_steps(labels, idx)).max() < 90.0
