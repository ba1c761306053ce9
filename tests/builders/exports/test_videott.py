"""Video-TT question sets: five questions per clip, rationales with times from the states,
complexity factors the clip really has, and a validated ``videott.json`` round trip."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tempogen.builders.exports.videott import (
    FACTORS,
    KINDS,
    complexity_factors,
    export_videott,
    question_set,
    read_videott,
)
from tempogen.config import config_from_dict
from tempogen.facts import FACTS, answer_of
from tempogen.generators.build import labels_json, plan, question_fields, render_spec, spec_labels
from tempogen.generators.motion import get_motion
from tempogen.labels import Labels, Query, Track
from tempogen.questions import answer_key, option_text

REJECTIONS = ("It does not", "It never", "They do not", "None")


def planned_rows(samples: int = 10, seed: int = 3, **extra) -> list[dict]:
    """Manifest-like rows for every task (or ``extra``'s config) from labels alone."""
    cfg = config_from_dict(
        {
            "size": [320, 180],
            "fps": 15,
            "duration": [3, 5],
            "samples_per_task": samples,
            "seed": seed,
            **extra,
        }
    )
    rows = []
    for spec in plan(cfg):
        labels, _, opt_rng = spec_labels(spec)
        q = question_fields(get_motion(spec.motion), labels, spec.answer_key, opt_rng, None)
        rows.append(
            {
                "id": spec.id,
                "task": spec.task,
                "generator": spec.motion,
                "video": f"videos/{spec.id}.mp4",
                **q,
                "labels": labels_json(labels),
                "edits": [],
            }
        )
    return rows


def hand_row(
    tracks: list[Track],
    query: Query,
    nouns: dict[str, str],
    fps: float = 10.0,
    size: tuple[int, int] = (320, 180),
    edits: list | None = None,
) -> dict:
    """A row around hand-made states; the answer key and options come from the states."""
    labels = Labels(size[0], size[1], fps, tuple(tracks), query, {"nouns": nouns})
    key = answer_key(query.fact, answer_of(labels))
    options = [option_text(query.fact, key, labels), "Something else."]
    return {
        "id": "hand-0000",
        "task": "rotation",
        "generator": "hand",
        "video": "videos/hand-0000.mp4",
        "question": "What happens?",
        "options": options,
        "answer": 0,
        "answer_text": options[0],
        "answer_key": key,
        "labels": labels_json(labels),
        "edits": edits or [],
    }


def by_kind(qs: dict) -> dict[str, dict]:
    return {q["kind"]: q for q in qs["questions"]}


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    # the default plan has no two-person comparisons (facts "more", "faster"): plan them
    return (
        planned_rows()
        + planned_rows(2, tasks=["count"], motions=["jump_compare"])
        + planned_rows(2, tasks=["velocity&frequency"], motions=["walk_faster"])
    )


@pytest.mark.slow  # renders every generated clip
def test_every_generated_clip_gets_five_consistent_questions(rows) -> None:
    facts = set()
    for row in rows:
        qs = question_set(row)
        facts.add(row["labels"]["query"]["fact"])
        assert qs["video_id"] == row["id"] and qs["answer_key"] == row["answer_key"]
        assert [q["kind"] for q in qs["questions"]] == list(KINDS)
        q = by_kind(qs)
        for kind, item in q.items():
            assert item["qid"] == f"{row['id']}/{kind}"
            assert item["question"] and item["answer"] and item["accepted"]
            assert all(a == a.lower() for a in item["accepted"])
        assert q["primary"]["answer"] == q["rephrased"]["answer"]
        assert q["primary"]["question"] != q["rephrased"]["question"]
        assert q["wrongly_led"]["answer"].startswith(REJECTIONS), q["wrongly_led"]
        assert q["primary"]["rationale"] == qs["rationale"] and " s" in qs["rationale"]
        mc = q["multiple_choice"]
        assert mc["options"] == row["options"] and mc["answer_index"] == row["answer"]
        assert mc["answer"] == row["answer_text"] and mc["question"] == row["question"]
        assert set(qs["complexity_factors"]) <= set(FACTORS)
        assert qs["sampling_check"]["answerable"] is True
        json.dumps(qs)  # JSON-ready
    assert facts == set(tuple(FACTS))


def spin_row(steps: np.ndarray, shape: str = "star", edits: list | None = None) -> dict:
    angle = np.concatenate([[0.0], np.cumsum(steps)])
    tr = Track.build("subject", len(angle), x=160, y=90, shape=shape, size=30, angle=angle)
    return hand_row(
        [tr], Query("rotation", ("subject",), "spin"), {"subject": "the red star"}, edits=edits
    )


def test_rotation_rationale_and_led_questions_come_from_the_states() -> None:
    row = spin_row(np.array([6.0] * 20 + [-6.0] * 30))  # 51 frames at 10 fps
    qs = question_set(row)
    q = by_kind(qs)
    assert q["primary"]["question"] == (
        "Which way does the red star rotate over the video, from the viewer's perspective?"
    )
    assert q["primary"]["answer"] == "Clockwise, then counter-clockwise."
    assert "clockwise then counter-clockwise" in q["primary"]["accepted"]
    assert "clockwise for 2.0 s (0.0 s to 2.0 s, about 120 degrees)" in qs["rationale"]
    assert "then counter-clockwise for 3.0 s (2.0 s to 5.0 s, about 180 degrees)" in qs["rationale"]
    assert q["correctly_led"]["question"].startswith("The red star first turns clockwise.")
    assert q["correctly_led"]["answer"] == "Counter-clockwise."
    assert q["wrongly_led"]["question"] == (
        "Why does the red star keep turning clockwise for the whole video?"
    )
    assert q["wrongly_led"]["answer"] == "It does not; it turns clockwise, then counter-clockwise."
    assert "illusions" in qs["complexity_factors"]  # a star looks the same every 72 degrees


def test_flash_times_and_count() -> None:
    lit = np.zeros(40, bool)
    for a, b in ((5, 7), (12, 14), (20, 22), (35, 36)):
        lit[a:b] = True
    tr = Track.build("subject", 40, x=100, y=90, role="cue", shape="circle", size=20, lit=lit)
    row = hand_row([tr], Query("count", ("subject",), "flash"), {"subject": "the blue circle"})
    qs = question_set(row)
    assert qs["answer_key"] == "4"
    assert "flashes 4 times, at 0.5 s, 1.2 s, 2.0 s and 3.5 s" in qs["rationale"]
    q = by_kind(qs)
    assert q["primary"]["answer"] == "4." and "four" in q["primary"]["accepted"]
    assert "first time at 0.5 s" in q["correctly_led"]["question"]
    assert q["wrongly_led"]["question"] == "Why does the blue circle flash 5 times?"


def test_direction_runs_with_durations() -> None:
    x = np.concatenate([160 - 4.0 * np.arange(20), np.full(21, 160 - 4.0 * 19)])
    y = np.concatenate([np.full(20, 90.0), 90 - 3.0 * np.arange(1, 22)])
    tr = Track.build("subject", 41, x=x, y=y, shape="circle", size=10)
    qs = question_set(hand_row([tr], Query("direction", ("subject",)), {"subject": "the dot"}))
    assert qs["answer_key"] == "left-up"
    assert "The dot moves left for 1.9 s (0.0 s to 1.9 s" in qs["rationale"]
    assert "then up for 2.1 s (1.9 s to 4.0 s" in qs["rationale"]
    q = by_kind(qs)
    assert q["correctly_led"]["answer"] == "Up."
    assert q["wrongly_led"]["answer"] == "It does not; it moves left first, then up."


def test_order_names_who_starts_when() -> None:
    n = 40
    a = Track.build("obj1", n, x=np.where(np.arange(n) >= 20, 100 + np.arange(n) - 20, 100.0), y=50)
    b = Track.build("obj2", n, x=np.where(np.arange(n) >= 10, 200 + np.arange(n) - 10, 200.0), y=50)
    nouns = {"obj1": "the red star", "obj2": "the blue circle"}
    qs = question_set(hand_row([a, b], Query("order", ("obj1", "obj2"), "move"), nouns))
    q = by_kind(qs)
    assert q["primary"]["answer"] == "The blue circle."
    assert qs["rationale"].startswith("The red star starts moving at 2.1 s")
    assert "the blue circle starts moving at 1.1 s" in qs["rationale"]
    assert (
        q["wrongly_led"]["question"] == "Why does the red star start moving before the blue circle?"
    )
    assert "spatial_temporal_arrangement" in qs["complexity_factors"]


def test_answer_key_that_disagrees_with_states_is_refused() -> None:
    row = spin_row(np.full(30, 5.0))
    row["answer_key"] = "ccw"
    with pytest.raises(ValueError, match="disagrees with the labels"):
        question_set(row)


def test_complexity_factors_are_computed() -> None:
    slow = spin_row(np.full(30, 2.0), shape="arrow")
    assert complexity_factors(slow) == {}  # an arrow has no symmetry; turns are small
    aliasing = spin_row(np.full(45, 25.0), shape="arrow")  # ~75 degrees per sampled step
    assert "wagon-wheel" in complexity_factors(aliasing)["illusions"]
    assert "technical_editing" in complexity_factors(
        spin_row(np.full(30, 2.0), "arrow", [{"op": "reverse"}])
    )
    joined = {"op": "concat", "gap": None, "parts": [[{"op": "mirror", "axis": "horizontal"}], []]}
    f = complexity_factors(spin_row(np.full(30, 2.0), "arrow", [joined]))
    assert set(f) == {"narrative_editing", "technical_editing"}
    # misleading text on the subject, a fast subject
    n = 12
    fast = Track.build("subject", n, x=10 + 25.0 * np.arange(n), y=90, shape="block", text="LEFT")
    row = hand_row([fast], Query("direction", ("subject",)), {"subject": "the block"})
    f = complexity_factors(row)
    assert "'LEFT'" in f["unclear_content"]
    assert "0.68 frame diagonals per second" in f["movement_speed"]  # 250 px/s, 367 px diagonal
    slow_dot = Track.build("subject", n, x=100 + 0.5 * np.arange(n), y=90, shape="circle")
    f = complexity_factors(hand_row([slow_dot], Query("direction", ("subject",)), {}))
    assert "movement_speed" not in f and "unclear_content" not in f


def test_rows_without_states_are_skipped(tmp_path) -> None:
    external = {
        "id": "clip1",
        "video": "clip1.mp4",
        "question": "Which way?",
        "labels": {"rotation": ["cw"]},
    }
    with pytest.raises(ValueError, match="no per-frame states"):
        question_set(external)
    path = export_videott([external], tmp_path / "videott")
    assert read_videott(path) == []


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> tuple[Path, list[dict]]:
    out = tmp_path_factory.mktemp("vtt")
    cfg = config_from_dict(
        {"size": [160, 90], "fps": 10, "duration": [3, 3], "samples_per_task": 1}
    )
    return out, [render_spec(s, out) for s in plan(cfg)]


def test_export_and_read_back(rendered, tmp_path) -> None:
    ds, rows = rendered
    path = export_videott(rows, ds / "videott")
    assert path == ds / "videott" / "videott.json"
    first = path.read_bytes()
    entries = read_videott(path, check_videos=True)
    assert [e["video_id"] for e in entries] == [r["id"] for r in rows]
    assert all(e["video"] == f"../videos/{e['video_id']}.mp4" for e in entries)
    assert export_videott(rows, ds / "videott") == path and path.read_bytes() == first
    elsewhere = export_videott(rows, tmp_path / "vt", dataset_dir=ds)
    assert len(read_videott(elsewhere, check_videos=True)) == len(rows)


@pytest.mark.parametrize(
    "break_it, message",
    [
        (lambda d: d[0]["questions"].pop(3), "questions must be"),
        (lambda d: d[0]["questions"][0].__setitem__("qid", "x/primary"), "qid 'x/primary'"),
        (lambda d: d[0]["questions"][4].__setitem__("answer_index", 9), "answer_index"),
        (lambda d: d[0]["questions"][1].__setitem__("accepted", []), "accepted"),
        (lambda d: d[0]["complexity_factors"].append("plot_twist"), "unknown complexity factor"),
        (lambda d: d.append(d[0]), "duplicated"),
        (lambda d: d[0].pop("video"), "field 'video'"),
    ],
)
def test_read_rejects_broken_files(rendered, tmp_path, break_it, message) -> None:
    ds, rows = rendered
    data = json.loads(export_videott(rows, ds / "videott").read_text())
    break_it(data)
    bad = tmp_path / "videott.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=message) as exc:
        read_videott(bad)
    assert "entry " in str(exc.value)


def test_read_rejects_non_list_and_bad_json(tmp_path) -> None:
    p = tmp_path / "videott.json"
    p.write_text("{}")
    with pytest.raises(ValueError, match="expected a JSON list"):
        read_videott(p)
    p.write_text("[")
    with pytest.raises(ValueError, match="not valid JSON"):
        read_videott(p)
