"""Two-event pairs: same scene in both orders, captions with the same words, order in labels."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from tempogen.generators.motion import SAMPLES, Scene
from tempogen.generators.pairs import EVENTS, plan_pairs, plan_scene, render_pair
from tempogen.generators.render2d import Compositor
from tempogen.labels import Labels, Track
from tempogen.video import probe, read_video


def first_change(track: Track) -> int:
    """First frame where any state of the track differs from its first frame."""
    changed = np.zeros(track.num_frames, bool)
    for k in ("x", "y", "angle", "scale", "visible", "lit"):
        a = getattr(track, k)
        changed |= a != a[0]
    hits = np.flatnonzero(changed)
    assert len(hits), f"track {track.name} never changes"
    return int(hits[0])


def interval(labels: Labels) -> float:
    return Scene(np.random.default_rng(0), 2, 2, labels.fps, labels.num_frames).interval


def test_plan_is_deterministic_and_balanced() -> None:
    specs = plan_pairs(24, 5, 160, 90, 10.0)
    assert specs == plan_pairs(24, 5, 160, 90, 10.0)
    assert specs != plan_pairs(24, 6, 160, 90, 10.0)
    assert len({s.seed for s in specs}) == 24
    for pos in (0, 1):
        counts = Counter(s.kinds[pos] for s in specs)
        assert counts == {k: 6 for k in EVENTS}
    assert all(s.kinds[0] != s.kinds[1] for s in specs)


def test_captions_are_the_same_words_in_another_order() -> None:
    for spec in plan_pairs(12, 3, 160, 90, 10.0):
        scene = plan_scene(spec)
        assert scene.pos_caption != scene.neg_caption
        assert Counter(scene.pos_caption.split()) == Counter(scene.neg_caption.split())
        a, b = scene.pos_caption.split(" then ")
        assert scene.neg_caption == f"{b} then {a}"


def test_order_of_events_in_labels() -> None:
    for spec in plan_pairs(12, 4, 160, 90, 10.0):
        scene = plan_scene(spec)
        pos, neg = scene.pos_labels, scene.neg_labels
        step = interval(pos)
        a_pos, b_pos = first_change(pos.track("a")), first_change(pos.track("b"))
        a_neg, b_neg = first_change(neg.track("a")), first_change(neg.track("b"))
        assert a_pos < b_pos and b_neg < a_neg
        # Events sit in their own halves, at least 2 of the 16 sample intervals apart.
        assert b_pos - a_pos >= 2 * step and a_neg - b_neg >= 2 * step
        assert max(a_pos, b_neg) < pos.num_frames / 2 <= min(b_pos, a_neg)
        # Same objects, same start.
        for name in ("a", "b"):
            tp, tn = pos.track(name), neg.track(name)
            assert (tp.shape, tp.color, tp.size) == (tn.shape, tn.color, tn.size)
            assert (tp.x[0], tp.y[0], tp.angle[0], tp.lit[0]) == (
                tn.x[0],
                tn.y[0],
                tn.angle[0],
                tn.lit[0],
            )
        assert pos.track("a").color != pos.track("b").color
        assert pos.track("a").size != pos.track("b").size
        assert pos.num_frames >= SAMPLES


def test_render_pair_same_first_frame_and_colours(tmp_path: Path) -> None:
    spec = plan_pairs(1, 9, 160, 90, 10.0)[0]
    rec = render_pair(spec, tmp_path)
    assert rec["pos_video"] == "videos/pair0_pos.mp4" and rec["neg_video"] == "videos/pair0_neg.mp4"
    assert rec["major"] == "action" and rec["pos_caption"] != rec["neg_caption"]
    scene = plan_scene(spec)
    # Rendered (pre-codec) first frames are identical; decoded ones nearly so.
    f_pos = Compositor(scene.pos_labels, scene.background).frame(0).copy()
    f_neg = Compositor(scene.neg_labels, scene.background).frame(0).copy()
    assert np.array_equal(f_pos, f_neg)
    pos = read_video(tmp_path / rec["pos_video"])
    neg = read_video(tmp_path / rec["neg_video"])
    assert (
        len(pos) == len(neg) == rec["num_frames"] == probe(tmp_path / rec["pos_video"]).num_frames
    )
    assert np.abs(pos[0].astype(int) - neg[0].astype(int)).mean() < 1.0
    colours = {t.color for t in scene.pos_labels.tracks}
    assert colours == {t.color for t in scene.neg_labels.tracks} and len(colours) == 2
    # The clips differ somewhere (the events happen at different times).
    assert np.abs(pos.astype(int) - neg.astype(int)).max() > 40
    assert not list(tmp_path.rglob("*.tmp"))
