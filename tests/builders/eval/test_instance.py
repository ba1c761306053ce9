"""Instance accuracy (TimeBlind): a minimal pair counts only when both members are right."""

from __future__ import annotations

import json
from pathlib import Path

from tempogen.builders.eval.scoring import format_scores, score_tomato
from tempogen.cli import main

ROTATION = ["Clockwise throughout.", "Counter-clockwise throughout.", "No rotation."]
NO_VARIATION = {"counterfactual": 0, "composite": 0, "zoom": 0, "first_person": 0}


def _entry(key: str, answer: int, pair: str | None) -> dict:
    entry = {
        "question": "Which way does it turn?",
        "options": ROTATION,
        "answer": answer,
        "key": key,
        "video_source_url": "",
        "motion_type": "spin",
        "variation": NO_VARIATION,
        "demonstration_type": "simulated",
        "note": "",
    }
    if pair:
        entry["pair"] = pair
    return entry


def _dataset(tmp_path: Path) -> Path:
    """Rotation: pair p1 (a, a-twin), pair p2 (b, b-twin), one lone question; count: pair p3."""
    root = tmp_path / "ds" / "tomato"
    (root / "data").mkdir(parents=True)
    data = {
        "rotation": {
            "a": _entry("a", 0, "a"),
            "a-twin": _entry("a-twin", 1, "a"),
            "b": _entry("b", 0, "b"),
            "b-twin": _entry("b-twin", 1, "b"),
            "c": _entry("c", 2, None),
        },
        "count": {"n": _entry("n", 0, "n"), "n-twin": _entry("n-twin", 1, "n")},
    }
    for task, entries in data.items():
        (root / "data" / f"{task}.json").write_text(json.dumps(entries), encoding="utf-8")
    return root


def _preds(tmp_path: Path, answers: dict[tuple[str, str], str]) -> Path:
    path = tmp_path / "model.jsonl"
    rows = [{"task": t, "id": i, "response": r} for (t, i), r in answers.items()]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_one_pair_half_right_scores_instance_zero(tmp_path: Path) -> None:
    root = _dataset(tmp_path)
    preds = _preds(tmp_path, {("rotation", "a"): "A", ("rotation", "a-twin"): "A"})
    run = score_tomato(root, preds)["models"]["model"]["runs"]["uniform16"]
    assert run["accuracy"] == 50.0
    assert run["instance"]["accuracy"] == 0.0
    assert (run["instance"]["correct"], run["instance"]["pairs"]) == (0, 1)


def test_instance_accuracy_per_task_beside_accuracy(tmp_path: Path) -> None:
    root = _dataset(tmp_path)
    preds = _preds(
        tmp_path,
        {
            ("rotation", "a"): "A",  # pair a: both right
            ("rotation", "a-twin"): "(B)",
            ("rotation", "b"): "A",  # pair b: twin wrong
            ("rotation", "b-twin"): "C",
            ("rotation", "c"): "C",  # in no pair
            ("count", "n"): "A",  # pair n: only one member answered
        },
    )
    run = score_tomato(root, preds)["models"]["model"]["runs"]["uniform16"]
    assert (run["correct"], run["total"]) == (5, 6)
    inst = run["instance"]
    assert (inst["correct"], inst["pairs"], inst["accuracy"], inst["incomplete"]) == (1, 2, 50.0, 1)
    assert inst["per_task"] == {"rotation": {"correct": 1, "pairs": 2, "accuracy": 50.0}}
    text = format_scores(score_tomato(root, preds))
    assert "instance accuracy" in text and "50.0 (1/2 pairs)" in text


def test_no_pairs_no_instance_field(tmp_path: Path) -> None:
    root = _dataset(tmp_path)
    preds = _preds(tmp_path, {("rotation", "c"): "C"})
    assert "instance" not in score_tomato(root, preds)["models"]["model"]["runs"]["uniform16"]


def test_cli_reports_instance_accuracy(tmp_path: Path, capsys) -> None:
    root = _dataset(tmp_path)
    preds = _preds(tmp_path, {("rotation", "b"): "A", ("rotation", "b-twin"): "B"})
    out = tmp_path / "scores.json"
    args = ["eval", "tomato", "--dataset", str(root), "--predictions", str(preds)]
    assert main([*args, "--out", str(out)]) == 0
    assert "100.0 (1/1 pairs)" in capsys.readouterr().out
    run = json.loads(out.read_text())["models"]["model"]["runs"]["uniform16"]
    assert run["instance"]["accuracy"] == 100.0
