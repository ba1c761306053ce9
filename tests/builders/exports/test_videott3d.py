"""Video-TT question sets for 3D clips: who acts, and from where a turn is seen."""

from __future__ import annotations

import pytest

from tempogen.builders.exports.videott import question_set
from tempogen.config import config_from_dict
from tempogen.generators.build import labels_json, plan, question_fields, spec_labels
from tempogen.generators.motion import get_motion


def _row(name: str) -> dict:
    m = get_motion(name)
    cfg = config_from_dict(
        {
            "tasks": [m.task],
            "motions": [name],
            "samples_per_task": 1,
            "size": [320, 180],
            "fps": 15,
            "scenes3d": {"humans": 0.5, "objects": 0.5, "duration": [3, 4]},
        }
    )
    spec = plan(cfg)[0]
    labels, _, opt_rng = spec_labels(spec)
    return {
        "id": spec.id,
        "video": f"videos/{spec.id}.mp4",
        "task": spec.task,
        "generator": name,
        "labels": labels_json(labels),
        "num_frames": spec.num_frames,
        "fps": spec.fps,
        "edits": [],
        **question_fields(m, labels, spec.answer_key, opt_rng, None),
    }


@pytest.mark.parametrize("name", ["jumps", "squats", "claps", "waves"])
def test_the_person_is_who_counts(name: str) -> None:
    qs = question_set(_row(name))
    primary = next(q for q in qs["questions"] if q["kind"] == "primary")
    assert primary["question"].startswith("How many times does the person ")
    assert qs["rationale"].startswith("The person ")


@pytest.mark.parametrize("name", ["body_turn", "top_spin"])
def test_a_yaw_is_asked_seen_from_above(name: str) -> None:
    qs = question_set(_row(name))
    primary = next(q for q in qs["questions"] if q["kind"] == "primary")
    assert primary["question"].startswith("Seen from above")
    assert "viewer" not in primary["question"]


def test_a_walk_in_depth_is_told_by_its_size() -> None:
    """An ``approach`` question: the answer and the rationale name the way in depth."""
    row = _row("walk_depth")
    qs = question_set(row)
    primary = next(q for q in qs["questions"] if q["kind"] == "primary")
    assert primary["question"].endswith("towards the camera or away from it?")
    words = {"towards": "towards the camera", "away": "away from the camera"}
    key = row["answer_key"]
    if key != "none":
        assert words[key.split("-")[0]] in primary["answer"].lower()
        assert "times as big" in qs["rationale"]
