"""Minimal pairs: every fact's flip, and twins that look exactly like their originals."""

from __future__ import annotations

from typing import Any

import pytest

from tempogen.facts import FACTS
from tempogen.generators.build import Spec, spec_scene, twin_key
from tempogen.generators.motion import MOTIONS, Scene, get_motion

# the only pattern whose fact refuses twins: its question names a gesture drawn with the answer
NO_TWINS = {"action_order"}
FLIPS = [
    ("direction", "left", "right"),
    ("direction", "up-left", "down-right"),
    ("direction", "none", None),
    ("rotation", "cw", "ccw"),
    ("rotation", "ccw-cw", "cw-ccw"),
    ("rotation", "none", None),
    ("speed", "accelerating", "decelerating"),
    ("speed", "constant", None),
    ("frequency", "decreasing", "increasing"),
    ("frequency", "none", None),
    ("approach", "towards-away", "away-towards"),
    ("approach", "none", None),
]


@pytest.mark.parametrize(("fact", "key", "want"), FLIPS)
def test_flip_per_fact(fact: str, key: str, want: str | None) -> None:
    assert FACTS[fact].twin(key, FACTS[fact].keys()) == want


def test_flip_stays_in_the_patterns_answers_and_is_a_bijection() -> None:
    """A twin is one of its pattern's own answers, differs from the original, and no two
    keys share a twin (so twins of balanced answers stay balanced)."""
    for motion in MOTIONS.values():
        keys = motion.keys()
        twins = {k: FACTS[motion.fact].twin(k, keys) for k in keys}
        flipped = {k: t for k, t in twins.items() if t is not None}
        assert bool(flipped) == (motion.name not in NO_TWINS), motion.name
        for k, t in flipped.items():
            assert t in keys and t != k, (motion.name, k, t)
        assert len(set(flipped.values())) == len(flipped), (motion.name, flipped)


def test_counts_flip_half_the_range_and_ties_refuse() -> None:
    count = FACTS["count"]
    assert [count.twin(str(i), [str(j) for j in range(1, 7)]) for i in range(1, 7)] == [
        "4", "5", "6", "1", "2", "3",
    ]  # fmt: skip
    assert count.twin("2", ["1", "2", "3"]) == "3"
    order = FACTS["order"]
    assert order.twin("a", ["a", "b", "same", "none"]) == "b"
    assert order.twin("same", ["a", "b", "same", "none"]) is None
    assert FACTS["trajectory"].twin("none", FACTS["trajectory"].keys()) is None


def _look(scene: Scene) -> dict[str, Any]:
    """What a viewer sees of a scene apart from the motion: every object's identity and look,
    the people's looks, the scenery's words and paints, and the question's wording."""
    labels = scene.labels()
    meta = {k: v for k, v in labels.meta.items() if k in _LOOK_META}
    decor = labels.meta.get("decor", {})
    return {
        "tracks": [
            (t.name, t.role, t.shape, tuple(t.color), t.text)
            for t in labels.tracks
            if t.role != "anchor"
        ],
        "sizes_2d": [round(float(t.size), 6) for t in labels.tracks] if scene.world is None else [],
        "distractor_places": [
            (round(float(t.x[0]), 3), round(float(t.y[0]), 3))
            for t in labels.tracks
            if t.role == "distractor"
        ],
        "meta": meta,
        "sign": (decor.get("sign") or {}).get("text"),
        "scenery": [d.get("color") for d in decor.get("distractors", [])],
        "world": type(scene.world).__name__,
        "question": get_motion(_current).question_text(labels),
    }


_LOOK_META = ("nouns", "look", "people", "person", "gloves", "paints", "props", "variation")
_current = ""


def _spec(motion: str, key: str, twin: str, seed: int) -> Spec:
    return Spec(
        id="x", task=get_motion(motion).task, motion=motion, answer_key=key, seed=seed,
        width=320, height=180, fps=15.0, num_frames=48, distractors=2, misleading_text=True,
        background="noise", answer_pos=0, crf=23, preset="ultrafast", pair="x", twin_key=twin,
    )  # fmt: skip


def twin_looks(motion: str, seed: int = 7) -> tuple[dict[str, Any], dict[str, Any], str, str]:
    """The looks of one original of ``motion`` and of its twin (labels only, no rendering)."""
    global _current
    _current = motion
    m = get_motion(motion)
    key = next(k for k in m.keys() if FACTS[m.fact].twin(k, m.keys()) is not None)
    orig = _spec(motion, key, "", seed)
    twin = FACTS[m.fact].twin(key, m.keys())
    assert twin is not None and twin_key(orig) == twin
    a, _, _ = spec_scene(_spec(motion, key, twin, seed))
    b, _, _ = spec_scene(_spec(motion, twin, key, seed))
    return _look(a), _look(b), a.labels().query.fact, b.labels().query.fact


# 3D people cost seconds each: the first always, the others in the slow run (make test)
# (patterns cut from a motion file animate only from a window, and their clips get no twin)
SOURCED = {m for m in MOTIONS if MOTIONS[m].needs_source}
HUMANS = sorted(m for m in set(MOTIONS) - NO_TWINS - SOURCED if MOTIONS[m].renderer == "human")
TWINNED = [
    pytest.param(m, marks=pytest.mark.slow) if m in HUMANS[1:] else m
    for m in sorted(set(MOTIONS) - NO_TWINS - SOURCED)
]


@pytest.mark.parametrize("motion", TWINNED)
def test_twin_looks_like_its_original(motion: str) -> None:
    """Same objects, colours, shapes, sizes, people, scenery words and question; the answer
    differs (its certificate is the twin's: make_scene refuses a wrong one)."""
    a, b, _, _ = twin_looks(motion)
    places_a, places_b = a.pop("distractor_places"), b.pop("distractor_places")
    assert len(places_a) == len(places_b)
    # 3D scenery is fitted into each clip's free space: a sign or a distractor that finds no
    # room beside one clip's motion is missing there, but never differs in words or paint
    sign_a, sign_b = a.pop("sign"), b.pop("sign")
    assert sign_a == sign_b or None in (sign_a, sign_b)
    paints_a, paints_b = a.pop("scenery"), b.pop("scenery")
    short = min(len(paints_a), len(paints_b))
    assert paints_a[:short] == paints_b[:short]
    for look in (a, b):
        for k in ("misleading_text", "distractors"):
            look["meta"].get("variation", {}).pop(k, None)
    assert a == b
