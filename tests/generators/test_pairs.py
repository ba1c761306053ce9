"""Two-event pairs of every kind: same scene in both orders, captions with the same words,
the order in the labels and readable at TOMATO's 16 samples, categories covered."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tempogen import observe
from tempogen.builders.eval.common import VINO_MAJOR, VINO_MINOR
from tempogen.errors import GenerationError
from tempogen.generators import pairs
from tempogen.generators.motion import SAMPLES
from tempogen.generators.pairs import (
    EVENT_PAIRS,
    KINDS,
    PairSpec,
    concat_name,
    observed_script,
    plan_pairs,
    plan_scene,
    render_pair,
)
from tempogen.labels import Labels
from tempogen.retrieval.audit import audit_pair
from tempogen.video import read_video

W, H, FPS = 160, 90, 12.0
KINDS_2D = [k for k in KINDS if k != "human"]


def specs_of(kind: str, n: int = 3, seed: int = 4) -> list[PairSpec]:
    return [s for s in plan_pairs(8 * n, seed, W, H, FPS) if s.kind == kind]


def test_plan_covers_every_category_and_is_deterministic() -> None:
    specs = plan_pairs(50, 5, W, H, FPS)
    assert specs == plan_pairs(50, 5, W, H, FPS)
    assert specs != plan_pairs(50, 6, W, H, FPS)
    assert len({s.seed for s in specs}) == 50
    kinds = Counter(s.kind for s in specs)
    assert set(kinds) == set(KINDS) and max(kinds.values()) - min(kinds.values()) <= 1
    assert {s.major for s in specs} == set(VINO_MAJOR)
    assert {m for s in specs for m in s.minors} == set(VINO_MINOR)
    # within a kind, event pairs cycle through all of them before any repeats
    for kind in KINDS:
        got = [s.events for s in specs if s.kind == kind]
        n = min(len(got), len(EVENT_PAIRS[kind]))
        assert len(set(got[:n])) == n
    assert all(s.num_frames >= 2 * SAMPLES for s in plan_pairs(8, 1, W, H, 10.0))


def test_every_kind_renders_with_its_categories_in_the_csv_form() -> None:
    for kind, (major, minors) in KINDS.items():
        spec = specs_of(kind, 1)[0]
        assert spec.major == major and spec.major in VINO_MAJOR
        assert set(spec.minors) <= set(VINO_MINOR)
        if kind != "object":
            assert spec.minors == minors


# What each caption verb changes, read from the labels by the test itself.
def _series(labels: Labels, verb: str, subject: str) -> np.ndarray:
    tracks = {t.name: t for t in labels.tracks}
    if verb in ("darkens", "brightens"):
        return np.asarray(labels.meta["backdrop"])
    if verb.startswith("zooms"):
        return tracks["a"].scale
    if verb.startswith("pans"):
        return tracks["a"].x + tracks["b"].x  # the midpoint: a zoom about it keeps it still
    name = _track_named(labels, subject)
    t = tracks[name]
    if verb.startswith("hits"):
        return t.x
    key = {
        "bounces": "y",
        "spins": "angle",
        "flashes": "lit",
        "grows": "scale",
        "slides right": "x",
        "slides left": "x",
        "moves left": "x",
        "moves right": "x",
        "moves up": "y",
        "moves down": "y",
    }[verb]
    return getattr(t, key).astype(float)


def _track_named(labels: Labels, subject: str) -> str:
    from tempogen.generators.motion import COLORS

    for t in labels.tracks:
        name = next(c for c, rgb in COLORS.items() if tuple(rgb) == tuple(t.color))
        if subject.startswith(f"the {name} "):
            return t.name
    raise AssertionError(f"no track is {subject!r}")


def _clauses(caption: str) -> list[tuple[str, str]]:
    """(subject, verb) per clause; a clause without a subject keeps the previous one's."""
    out: list[tuple[str, str]] = []
    for part in caption.split(" then "):
        words = part.split()
        if words[0] == "the":
            subject, verb = " ".join(words[:3]), " ".join(words[3:])
            if words[1] in ("camera", "background"):
                subject, verb = " ".join(words[:2]), " ".join(words[2:])
        else:
            subject, verb = out[-1][0], part
        out.append((subject, verb))
    return out


def _span(v: np.ndarray) -> tuple[int, int]:
    """First frame that differs from the first frame, last one that differs from the last."""
    a = np.flatnonzero(np.abs(v - v[0]) > 1e-9)
    b = np.flatnonzero(np.abs(v - v[-1]) > 1e-9)
    assert len(a) and len(b)
    return int(a[0]), int(b[-1])


@pytest.mark.parametrize("kind", KINDS_2D)
def test_labels_show_the_captions_events_in_order(kind: str) -> None:
    for spec in specs_of(kind, 2):
        scene = plan_scene(spec)
        for labels, caption in (
            (scene.pos_labels, scene.pos_caption),
            (scene.neg_labels, scene.neg_caption),
        ):
            clauses = _clauses(caption)
            spans = [_span(_series(labels, verb, subj)) for subj, verb in clauses]
            if kind == "cyclical":  # each object acts twice: its span runs from 1st to 2nd
                (a0, a1), (b0, b1) = spans[0], spans[1]
                assert a0 < b0 < a1 < b1, (caption, spans)
            else:
                (a0, a1), (b0, b1) = spans
                assert a0 <= a1 < b0 <= b1, (caption, spans)
                assert a1 < labels.num_frames / 2 <= b0


@pytest.mark.parametrize("kind", KINDS_2D)
def test_certificate_and_captions(kind: str) -> None:
    for spec in specs_of(kind, 2):
        _check_certificate(kind, spec, plan_scene(spec))


def _check_certificate(kind: str, spec: PairSpec, scene: pairs.PairScene) -> None:
    pos, neg = scene.pos_caption, scene.neg_caption
    assert pos != neg and Counter(pos.split()) == Counter(neg.split())
    verdict = audit_pair((pos, neg))
    assert verdict.ok, (pos, neg, verdict.messages)
    cert = scene.certificate
    for side in ("pos", "neg"):
        c = cert[side]
        assert c["sampled"] == c["full"] == c["expected"] and c["expected"]
        assert not c["first_only"] and c["max_turn"] <= 90.0
    assert cert["pos"]["expected"] != cert["neg"]["expected"]
    assert cert["same_ends"]
    # the certificate's reading, redone here at TOMATO's samples
    lab = scene.pos_labels
    idx = observe.uniform_indices(lab.num_frames, SAMPLES)
    if kind == "human":
        assert observe.gestures(lab, idx) == tuple(spec.events)
        assert observe.gestures(scene.neg_labels, idx) == tuple(spec.events[::-1])
    else:
        assert observed_script(lab, idx) == observed_script(lab, np.arange(lab.num_frames))
        assert observed_script(lab, idx) != observed_script(scene.neg_labels, idx)
        assert observed_script(lab, idx[:1]) == ()


def test_events_that_overlap_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = specs_of("spatial", 1)[0]
    plan_scene(spec)
    # both moves at once for part of the clip: no order to read, so no pair
    monkeypatch.setitem(pairs.SLOTS, 2, ((1, 9), (6, 14)))
    with pytest.raises(GenerationError, match="does not show its events in order"):
        plan_scene(spec)


def test_bad_specs_are_refused() -> None:
    spec = specs_of("action", 1)[0]
    with pytest.raises(ValueError, match="not a action pair"):
        plan_scene(PairSpec(0, 1, W, H, FPS, kind="action", events=("spins", "flashes")))
    with pytest.raises(
        ValueError, match="pair 0: unknown pair kind 'bogus'; known: object, action, "
    ):
        plan_scene(PairSpec(0, 1, W, H, FPS, kind="bogus"))
    with pytest.raises(ValueError, match="fewer than 32"):
        plan_scene(PairSpec(0, 1, W, H, 8.0, kind="action", events=spec.events))


def _render_and_check(spec: PairSpec, out: Path) -> None:
    rec = render_pair(spec, out)
    assert rec["pos_video"] == f"videos/pair{spec.index}_pos.mp4"
    assert rec["major"] == spec.major and rec["minor"] == ";".join(spec.minors)
    pos, neg = read_video(out / rec["pos_video"]), read_video(out / rec["neg_video"])
    assert len(pos) == len(neg) == rec["num_frames"] == spec.num_frames
    # same first and last frame (up to the codec), different in between
    differ = (np.abs(pos.astype(int) - neg.astype(int)).max(axis=3) > 60).sum(axis=(1, 2))
    assert differ[0] == 0 and differ[-1] == 0 and differ.max() > 20, differ
    both = read_video(out / concat_name(spec.index))
    gap = int(round(2.0 * spec.fps))
    assert len(both) == 2 * len(pos) + gap
    assert both[len(pos) : len(pos) + gap].max() < 20
    assert np.abs(both[: len(pos)].astype(int) - pos.astype(int)).mean() < 2.0
    assert not list(out.rglob("*.tmp"))


@pytest.mark.parametrize("kind", KINDS_2D)
def test_render_one_pair(kind: str, tmp_path: Path) -> None:
    spec = specs_of(kind, 1)[0]
    _render_and_check(spec, tmp_path)
    again = tmp_path / "again"
    render_pair(spec, again)
    for side in ("pos", "neg"):
        name = f"videos/pair{spec.index}_{side}.mp4"
        assert (again / name).read_bytes() == (tmp_path / name).read_bytes()


@pytest.mark.slow
def test_human_pair(tmp_path: Path) -> None:
    """Certificate, captions and rendering of a simulated person's two gestures (3D)."""
    spec = specs_of("human", 1)[0]
    _check_certificate("human", spec, plan_scene(spec))
    _render_and_check(spec, tmp_path)
