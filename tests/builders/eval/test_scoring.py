"""Scoring predictions on TOMATO, Vinoground and Video-TT layouts against hand-computed values."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tempogen.builders.eval.scoring import (
    EPSILON,
    format_scores,
    score_tomato,
    score_videott,
    score_vinoground,
    write_scores,
)

ROTATION = [
    "Clockwise throughout.",
    "Counter-clockwise throughout.",
    "Clockwise then counter-clockwise.",
    "Counter-clockwise then clockwise.",
    "No rotation.",
]
COUNT = ["1", "2", "3", "4"]
NO_VARIATION = {"counterfactual": 0, "composite": 0, "zoom": 0, "first_person": 0}


def _entry(key: str, options: list[str], answer: int, demo: str, **variation) -> dict:
    return {
        "question": f"question {key}?",
        "options": options,
        "answer": answer,
        "key": key,
        "video_source_url": "",
        "motion_type": "spin",
        "variation": {**NO_VARIATION, **variation},
        "demonstration_type": demo,
        "note": "",
    }


@pytest.fixture
def tomato(tmp_path) -> Path:
    """2 tasks x 3 questions. Answers: rotation 0->A, 1->B, 2->E; count 0->C ("3"), 1->A, 2->D."""
    root = tmp_path / "ds" / "tomato"
    (root / "data").mkdir(parents=True)
    data = {
        "rotation": {
            "0": _entry("rot-0", ROTATION, 0, "simulated"),
            "1": _entry("rot-1", ROTATION, 1, "simulated", counterfactual=1),
            "2": _entry("rot-2", ROTATION, 4, "human"),
        },
        "count": {
            "0": _entry("cnt-0", COUNT, 2, "simulated"),
            "1": _entry("cnt-1", COUNT, 0, "human"),
            "2": _entry("cnt-2", COUNT, 3, "human", counterfactual=1),
        },
    }
    for task, entries in data.items():
        (root / "data" / f"{task}.json").write_text(json.dumps(entries), encoding="utf-8")
    return root


def _jsonl(path: Path, rows: list) -> Path:
    """Write rows as JSONL; a str row is written verbatim (for malformed lines)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_tomato_accuracy_per_task_and_demonstration_type(tomato, tmp_path):
    preds = _jsonl(
        tmp_path / "gpt.jsonl",
        [
            {"task": "rotation", "id": "0", "response": "A"},  # right
            {"task": "rotation", "id": "1", "response": "The answer is (B)."},  # right
            {"task": "rotation", "id": "2", "response": "Clockwise throughout."},  # wrong (A)
            {"task": "count", "id": 0, "response": "It bounces three times."},  # right (int id)
            {"task": "count", "id": "1", "response": "I cannot tell."},  # unparsable -> wrong
            {"task": "count", "id": "cnt-2", "response": "(D) 4"},  # right, by entry key
        ],
    )
    scores = score_tomato(tomato, preds)
    assert scores["questions"] == 6
    run = scores["models"]["gpt"]["runs"]["uniform16"]
    # right: rot-0, rot-1, cnt-0, cnt-2 -> 4/6
    assert (run["correct"], run["total"], run["accuracy"]) == (4, 6, 66.67)
    assert run["unparsable"] == 1 and run["missing"] == 0
    # rotation 2/3, count 2/3
    assert run["per_task"]["rotation"] == {"correct": 2, "total": 3, "accuracy": 66.67}
    assert run["per_task"]["count"] == {"correct": 2, "total": 3, "accuracy": 66.67}
    assert list(run["per_task"]) == ["count", "rotation"]  # TOMATO's task order
    # simulated: rot-0 ok, rot-1 ok, cnt-0 ok -> 3/3; human: rot-2 x, cnt-1 x, cnt-2 ok -> 1/3
    assert run["per_demonstration_type"]["simulated"] == {
        "correct": 3,
        "total": 3,
        "accuracy": 100.0,
    }
    assert run["per_demonstration_type"]["human"] == {"correct": 1, "total": 3, "accuracy": 33.33}
    # counterfactual: rot-1 ok, cnt-2 ok -> 2/2
    assert run["per_variation"] == {"counterfactual": {"correct": 2, "total": 2, "accuracy": 100.0}}
    assert scores["models"]["gpt"]["metrics"] == {}
    assert [p["where"] for p in scores["problems"]] == [f"{preds}:5"]
    assert "unparsable" in scores["problems"][0]["reason"]


def test_tomato_dataset_root_or_tomato_layout(tomato, tmp_path):
    preds = _jsonl(tmp_path / "m.jsonl", [{"task": "rotation", "id": "0", "response": "A"}])
    a = score_tomato(tomato, preds)
    b = score_tomato(tomato.parent, preds)  # our dataset root: uses DIR/tomato
    assert a["models"] == b["models"] and a["dataset"] == b["dataset"] == str(tomato)
    run = a["models"]["m"]["runs"]["uniform16"]
    assert (run["correct"], run["total"], run["missing"]) == (1, 1, 5)
    with pytest.raises(FileNotFoundError, match="no TOMATO layout"):
        score_tomato(tmp_path / "nowhere", preds)


def _four_settings(tomato_rows: list[tuple[str, str, int]]) -> list[dict]:
    """Predictions on rotation 0-2 and count 0 (4 questions) in the four TOMATO settings.

    uniform 16 frames: 3/4 right; random1: 1/4; handpicked1: 2/4; shuffled 16: 2/4.
    """
    right = {
        "uniform": [1, 1, 1, 0],
        "random1": [1, 0, 0, 0],
        "handpicked1": [1, 1, 0, 0],
        "shuffled": [0, 1, 0, 1],
    }
    rows = []
    for setting, oks in right.items():
        for (task, qid, answer), ok in zip(tomato_rows, oks):
            letter = "ABCDE"[answer if ok else (answer + 1) % 4]
            row = {"task": task, "id": qid, "response": f"Answer: {letter}", "setting": setting}
            if setting in ("uniform", "shuffled"):
                row["frames"] = 16
            rows.append(row)
    return rows


FOUR = [("rotation", "0", 0), ("rotation", "1", 1), ("rotation", "2", 4), ("count", "0", 2)]


def test_tomato_kappa_tau_rho(tomato, tmp_path):
    scores = score_tomato(tomato, _jsonl(tmp_path / "qwen.jsonl", _four_settings(FOUR)))
    model = scores["models"]["qwen"]
    assert list(model["runs"]) == ["uniform16", "shuffled16", "random1", "handpicked1"]
    acc = {k: model["runs"][k]["accuracy"] for k in model["runs"]}
    assert acc == {"uniform16": 75.0, "shuffled16": 50.0, "random1": 25.0, "handpicked1": 50.0}
    m = model["metrics"]
    # kappa_random = 0.75 / 0.25 - 1 = 200%; kappa_handpicked = 0.75 / 0.5 - 1 = 50%
    # tau = 0.75 / 0.5 - 1 = 50%; rho = 0.5 / 0.25 - 1 = 100% (epsilon 1e-6 vanishes at 2 dp)
    assert {k: v["value"] for k, v in m.items()} == {
        "kappa_random": 200.0,
        "kappa_handpicked": 50.0,
        "tau": 50.0,
        "rho": 100.0,
    }
    assert m["kappa_random"]["numerator"] == "uniform16"
    assert m["kappa_random"]["denominator"] == "random1"
    assert m["tau"]["denominator"] == "shuffled16"
    assert all(v["questions"] == 4 for v in m.values())
    assert scores["problems"] == []


def test_tomato_metrics_use_common_questions_and_epsilon(tomato, tmp_path):
    rows = [
        {"task": "rotation", "id": q, "response": r, "setting": "uniform16"}
        for q, r in (("0", "A"), ("1", "B"), ("2", "A"))  # right, right, wrong
    ]
    # hand-picked only on rotation 0 and 1, both wrong; so on those two: uniform 2/2, handpicked 0/2
    rows += [
        {"task": "rotation", "id": q, "response": "E", "setting": "handpicked1"} for q in ("0", "1")
    ]
    rows += [{"task": "rotation", "id": "0", "response": "A", "setting": "uniform", "frames": 8}]
    scores = score_tomato(tomato, _jsonl(tmp_path / "m.jsonl", rows))
    metrics = scores["models"]["m"]["metrics"]
    k = metrics["kappa_handpicked"]
    assert (k["questions"], k["numerator_accuracy"], k["denominator_accuracy"]) == (2, 100.0, 0.0)
    # TOMATO's epsilon guard: 1.0 / (0 + 1e-6) - 1, in percent
    assert k["value"] == pytest.approx(100 * (1.0 / EPSILON - 1), rel=1e-9)
    # uniform at 8 frames gets its own, suffixed metric (1 common question, both 1/1 vs 0/1)
    assert metrics["kappa_handpicked@8"]["questions"] == 1
    assert "rho" not in metrics and "tau" not in metrics


def test_tomato_results_folder(tomato, tmp_path):
    """TOMATO's own results tree: {type}+{demo}/{frames}/{model}.jsonl, shuffle_ prefix."""
    res = tmp_path / "TOMATO" / "results"

    def line(qid: str, response: str, gt: str | None = None) -> dict:
        row = {"id": qid, "question": "q", "response": response, "all_choices": ["A", "B"]}
        if gt is not None:
            row["gt"] = gt
        return row

    _jsonl(
        res / "rotation+simulated" / "16" / "gpt-4o.jsonl",
        [line("0", "A. Clockwise throughout.", "A. Clockwise throughout."), line("1", "A")],
    )
    _jsonl(res / "rotation+human" / "16" / "gpt-4o.jsonl", [line("2", "E")])
    _jsonl(res / "count+simulated" / "16" / "gpt-4o.jsonl", [line("0", "C", "B. 2")])
    _jsonl(res / "rotation+simulated" / "1" / "gpt-4o.jsonl", [line("0", "B"), line("1", "B")])
    _jsonl(res / "shuffle_rotation+simulated" / "16" / "gpt-4o.jsonl", [line("0", "A")])
    _jsonl(res / "rotation+simulated" / "16" / "qwen.jsonl", [line("0", "B")])
    _jsonl(res / "rotation+human" / "16" / "qwen.jsonl", [line("0", "A")])  # 0 is simulated
    _jsonl(res / "stray.jsonl", [line("0", "A")])

    # the folder holding results/ works as well as results/ itself
    scores = score_tomato(tomato, tmp_path / "TOMATO")
    assert score_tomato(tomato, res)["models"] == scores["models"]
    gpt = scores["models"]["gpt-4o"]
    # uniform16: rot-0 A ok, rot-1 A x, rot-2 E ok, cnt-0 C ok -> 3/4
    assert (gpt["runs"]["uniform16"]["correct"], gpt["runs"]["uniform16"]["total"]) == (3, 4)
    # random1 ("1" frames folder): rot-0 B x, rot-1 B ok -> 1/2
    assert gpt["runs"]["random1"]["accuracy"] == 50.0
    assert gpt["runs"]["shuffled16"]["accuracy"] == 100.0
    # kappa_random on rot-0, rot-1: uniform 1/2, random 1/2 -> 0%; tau on rot-0: 1/1 vs 1/1 -> 0%
    assert gpt["metrics"]["kappa_random"]["value"] == 0.0
    assert gpt["metrics"]["tau"]["value"] == 0.0
    # files are read in sorted order: rotation+human (A, right) comes first and is kept, though
    # its folder names the wrong demonstration type; rotation+simulated's B is the duplicate
    qwen = scores["models"]["qwen"]["runs"]["uniform16"]
    assert (qwen["correct"], qwen["total"]) == (1, 1)
    reasons = {p["where"]: p["reason"] for p in scores["problems"]}
    assert "gt 'B'" in reasons[f"{res / 'count+simulated' / '16' / 'gpt-4o.jsonl'}:1"]
    assert "demonstration type 'simulated'" in reasons[f"{res / 'rotation+human/16/qwen.jsonl'}:1"]
    assert "duplicate" in reasons[f"{res / 'rotation+simulated/16/qwen.jsonl'}:1"]
    assert "not in TOMATO's results layout" in reasons[str(res / "stray.jsonl")]


def test_tomato_bad_lines_are_listed_and_the_rest_scored(tomato, tmp_path):
    preds = _jsonl(
        tmp_path / "m.jsonl",
        [
            {"task": "rotation", "id": "0", "response": "A"},  # 1 right
            "{not json",  # 2 malformed
            {"task": "rotation", "id": "7", "response": "A"},  # 3 unknown id
            {"task": "rotation", "id": "0", "response": "B"},  # 4 duplicate: first kept
            {"task": "rotation", "id": "1", "response": "no idea"},  # 5 unparsable: wrong
            {"task": "spin", "id": "0", "response": "A"},  # 6 unknown task
            {"task": "count", "id": "0", "response": "C", "setting": "sideways"},  # 7 bad setting
            {"task": "count", "id": "0", "response": "C", "setting": "random1", "frames": 16},  # 8
            [1, 2],  # 9 not an object
            "",  # blank lines are skipped
            {"task": "count", "response": "C"},  # 11 no id
            {"task": "count", "id": "2", "response": None},  # 12 no response: unparsable
            {"task": "count", "id": "1", "response": "A", "setting": "shuffled"},  # 13 right
        ],
    )
    scores = score_tomato(tomato, preds)
    where = [p["where"] for p in scores["problems"]]
    assert where == [f"{preds}:{n}" for n in (2, 3, 4, 5, 6, 7, 8, 9, 11, 12)]
    reasons = [p["reason"] for p in scores["problems"]]
    assert reasons[0].startswith("not valid JSON")
    assert reasons[1].startswith("unknown id '7'")
    assert reasons[2].startswith("duplicate")
    assert reasons[3].startswith("unparsable")
    assert reasons[5].startswith("unknown setting")
    assert "one frame" in reasons[6]
    uniform = scores["models"]["m"]["runs"]["uniform16"]
    # rot-0 right, rot-1 unparsable, cnt-2 no response -> 1/3
    assert (uniform["correct"], uniform["total"], uniform["unparsable"]) == (1, 3, 2)
    assert scores["models"]["m"]["runs"]["shuffled16"]["accuracy"] == 100.0


# ---------------------------------------------------------------------------------------------
# Vinoground

CAPTIONS = {
    "0": ("the man eats then watches tv", "the man watches tv then eats"),
    "1": ("water turns into ice", "ice turns into water"),
    "2": ("the car drives left then right", "the car drives right then left"),
}


@pytest.fixture
def vino(tmp_path) -> Path:
    """3 pairs: 0 object (interaction;cyclical), 1 action (no minor), 2 viewpoint (cyclical).

    GT letters: text 0_pos A, 0_neg B, 1_pos B, 1_neg A, 2_pos A, 2_neg A; video pos A, neg B.
    """
    root = tmp_path / "vino"
    root.mkdir()
    with open(root / "vinoground.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(
            ["index", "major", "minor", "pos_vid", "pos_start", "pos_end", "pos_cal"]
            + ["neg_vid", "neg_start", "neg_end", "neg_cal"]
        )
        for i, major, minor in (("0", "object", "interaction;cyclical"), ("1", "action", "")):
            pos, neg = CAPTIONS[i]
            w.writerow([i, major, minor, "yt", 0, 5, pos, "yt2", 0, 5, neg])
        pos, neg = CAPTIONS["2"]
        w.writerow(["2", "viewpoint", "cyclical", "yt", 0, 5, pos, "yt2", 0, 5, neg])
    gts = {"0": ("A", "B"), "1": ("B", "A"), "2": ("A", "A")}
    text, video = [], []
    for i, (pos, neg) in CAPTIONS.items():
        for side, caption, gt in (("pos", pos, gts[i][0]), ("neg", neg, gts[i][1])):
            other = neg if side == "pos" else pos
            a, b = (caption, other) if gt == "A" else (other, caption)
            text.append(
                {
                    "idx": f"{i}_{side}",
                    "question": f"Which caption best describes this video? A. {a}, B. {b}",
                    "video_name": f"{i}_{side}.mp4",
                    "GT": gt,
                }
            )
            video.append(
                {
                    "idx": f"{i}_{side}",
                    "question": f"Which video segment matches this caption? Caption: {caption}. "
                    "A. First segment (before black frame), B. Second segment (after black frame)",
                    "video_name": f"{i}.mp4",
                    "GT": "A" if side == "pos" else "B",
                }
            )
    (root / "vinoground_textscore.json").write_text(json.dumps(text), encoding="utf-8")
    (root / "vinoground_videoscore.json").write_text(json.dumps(video), encoding="utf-8")
    return root


# Pair 0: text right, right; video right, right   -> text, video, group
# Pair 1: text right, right; video right, WRONG   -> text only
# Pair 2: text right, WRONG; video right, right   -> video only
VINO_TEXT = {
    "0_pos": "A",
    "0_neg": "B. the man watches tv then eats",
    "1_pos": "water turns into ice",  # the caption itself: option B
    "1_neg": ["A"],  # Qwen's scripts write a list
    "2_pos": "(A)",
    "2_neg": "B",  # wrong: GT A
}
VINO_VIDEO = {
    "0_pos": "A",
    "0_neg": "The second segment.",
    "1_pos": "First segment",
    "1_neg": "A",  # wrong: GT B
    "2_pos": "a",
    "2_neg": "Answer: B",
}


def _check_vino(res: dict) -> None:
    # text 2/3, video 2/3, group 1/3
    assert (res["pairs"], res["text"], res["video"], res["group"]) == (3, 66.67, 66.67, 33.33)
    assert (res["text_correct"], res["video_correct"], res["group_correct"]) == (2, 2, 1)
    major = {c: (g["text"], g["video"], g["group"]) for c, g in res["per_major"].items()}
    assert major == {
        "object": (100.0, 100.0, 100.0),
        "action": (100.0, 0.0, 0.0),
        "viewpoint": (0.0, 100.0, 0.0),
    }
    minor = {
        c: (g["pairs"], g["text"], g["video"], g["group"]) for c, g in res["per_minor"].items()
    }
    # interaction: pair 0 only; cyclical: pairs 0 and 2 -> text 1/2, video 2/2, group 1/2
    assert minor == {"interaction": (1, 100.0, 100.0, 100.0), "cyclical": (2, 50.0, 100.0, 50.0)}


def test_vinoground_single_jsonl(vino, tmp_path):
    rows = [{"idx": i, "kind": "text", "response": r} for i, r in VINO_TEXT.items()]
    rows += [{"idx": i, "kind": "video", "response": r} for i, r in VINO_VIDEO.items()]
    scores = score_vinoground(vino, _jsonl(tmp_path / "llava.jsonl", rows))
    assert scores["pairs"] == 3 and scores["problems"] == []
    res = scores["models"]["llava"]
    _check_vino(res)
    assert res["questions"]["text"] == {"answered": 6, "correct": 5, "unparsable": 0, "missing": 0}


def test_vinoground_own_output_folder(vino, tmp_path):
    """Vinoground's eval scripts: outputs/{model}/textscore-response.jsonl and videoscore-..."""
    out = tmp_path / "outputs"
    _jsonl(
        out / "qwen" / "textscore-response.jsonl",
        [{"idx": i, "response": r} for i, r in VINO_TEXT.items()],
    )
    _jsonl(
        out / "qwen" / "videoscore-response.jsonl",
        [{"idx": i, "response": r} for i, r in VINO_VIDEO.items()],
    )
    _jsonl(out / "qwen" / "textscore-frame8-response.jsonl", [{"idx": "0_pos", "response": "A"}])
    scores = score_vinoground(vino, out)
    _check_vino(scores["models"]["qwen"])
    # a second run of the same model, named by what else its file name says
    frame8 = scores["models"]["qwen [frame8]"]
    assert (frame8["text"], frame8["questions"]["text"]["missing"]) == (0.0, 5)
    # the pair of files, given directly
    pair = [out / "qwen" / "textscore-response.jsonl", out / "qwen" / "videoscore-response.jsonl"]
    assert score_vinoground(vino, pair)["models"]["qwen"] == scores["models"]["qwen"]


def test_vinoground_bad_lines(vino, tmp_path):
    rows = [{"idx": i, "kind": "text", "response": r} for i, r in VINO_TEXT.items()]
    rows += [{"idx": i, "kind": "video", "response": r} for i, r in VINO_VIDEO.items()]
    rows[0] = {"idx": "0_pos", "kind": "text", "response": "Either one, really."}  # 1 unparsable
    rows += [
        {"idx": "9_pos", "kind": "text", "response": "A"},  # 13 unknown
        {"idx": "2_neg", "kind": "text", "response": "A"},  # 14 duplicate: first (wrong) kept
        {"idx": "2_neg", "kind": "audio", "response": "A"},  # 15 bad kind
        "nope",  # 16 malformed
    ]
    preds = _jsonl(tmp_path / "m.jsonl", rows)
    scores = score_vinoground(vino, preds)
    assert [p["where"] for p in scores["problems"]] == [f"{preds}:{n}" for n in (1, 13, 14, 15, 16)]
    res = scores["models"]["m"]
    # pair 0 text now wrong: text 1/3 (pair 1), video 2/3, group 0/3
    assert (res["text"], res["video"], res["group"]) == (33.33, 66.67, 0.0)
    assert res["questions"]["text"]["unparsable"] == 1


def test_vinoground_captions_from_the_question_text(vino, tmp_path):
    """Without caption columns in the CSV, the text options come from the question."""
    rows = list(csv.reader((vino / "vinoground.csv").read_text(encoding="utf-8").splitlines()))
    with open(vino / "vinoground.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(r[:3] for r in rows)
    preds = [{"idx": i, "kind": "text", "response": r} for i, r in VINO_TEXT.items()]
    res = score_vinoground(vino, _jsonl(tmp_path / "m.jsonl", preds))["models"]["m"]
    assert (res["text"], res["text_correct"]) == (66.67, 2)  # as with the CSV's captions


def test_vinoground_missing_predictions_count_as_wrong(vino, tmp_path):
    rows = [{"idx": i, "kind": "text", "response": r} for i, r in VINO_TEXT.items()]
    scores = score_vinoground(vino, _jsonl(tmp_path / "m.jsonl", rows))
    res = scores["models"]["m"]
    assert (res["text"], res["video"], res["group"]) == (66.67, 0.0, 0.0)
    assert res["questions"]["video"]["missing"] == 6


# ---------------------------------------------------------------------------------------------
# Video-TT


def _q(qid, kind, question, answer, **extra) -> dict:
    return {"qid": qid, "kind": kind, "question": question, "answer": answer, **extra}


@pytest.fixture
def videott(tmp_path) -> Path:
    root = tmp_path / "vtt"
    root.mkdir()
    turn = ["Clockwise", "Counter-clockwise", "It does not turn"]
    videos = [
        {
            "video_id": "fan",
            "video": "videos/fan.mp4",
            "questions": [
                _q("fan-p", "primary", "Which way does the fan turn?", "Counter-clockwise"),
                _q("fan-r", "rephrased", "In which direction does the fan spin?", "Counter-clockwise"),
                _q("fan-c", "correctly_led", "The fan seems to go counter-clockwise; which way does it turn?", "Counter-clockwise"),
                _q("fan-w", "wrongly_led", "Why does the fan turn clockwise?", "No, it turns counter-clockwise."),
                _q("fan-m", "multiple_choice", "Which way does the fan turn?", "B", options=turn),
            ],
        },
        {
            "video_id": "ball",
            "video": "videos/ball.mp4",
            "questions": [
                _q("ball-p", "primary", "How many times does the ball bounce?", "3 times"),
                _q("ball-r", "rephrased", "How often does the ball hit the floor?", "3 times"),
                _q("ball-c", "correctly-led", "Count each bounce: how many are there?", "Three", accepted=["three bounces"]),
                _q("ball-w", "wrongly_led", "Why does the ball bounce twice?", "No, it bounces three times."),
                _q("ball-m", "multiple_choice", "How many bounces?", 2, options=["1", "2", "3", "4"]),
            ],
        },
        {
            "video_id": "car",
            "video": "videos/car.mp4",
            "questions": [
                _q("car-p", "primary", "What colour is the car that leaves first?", "red"),
                _q("car-r", "rephrased", "Which car, by colour, drives off first?", "The red car"),
                _q("car-c", "correctly_led", "A car leaves before the other; what colour is it?", "red"),
                _q("car-w", "wrongly_led", "Why does the blue car leave first?", "No, the red car leaves first."),
                _q("car-m", "multiple_choice", "Which car leaves first?", "The red car.", options=["The blue car.", "The red car."]),
            ],
        },
    ]  # fmt: skip
    (root / "videott.json").write_text(json.dumps(videos), encoding="utf-8")
    return root


VTT_RESPONSES = {
    # fan: all five right
    "fan-p": "The fan turns counterclockwise.",
    "fan-r": "Anti-clockwise.",
    "fan-c": "Yes, counter clockwise.",
    "fan-w": "It does not turn clockwise; it turns counter-clockwise.",
    "fan-m": "(B) Counter-clockwise",
    # ball: primary right, wrongly-led wrong
    "ball-p": "It bounces three times.",
    "ball-r": "3",
    "ball-c": "three bounces",
    "ball-w": "Because it hits the floor twice.",
    "ball-m": "Answer: C",
    # car: primary wrong, the rest right
    "car-p": "The blue car.",
    "car-r": "The red car does.",
    "car-c": "Red.",
    "car-w": "It doesn't; the red car leaves first.",
    "car-m": "B",
}


def test_videott_per_kind_and_robustness(videott, tmp_path):
    preds = _jsonl(
        tmp_path / "gemini.jsonl", [{"qid": q, "response": r} for q, r in VTT_RESPONSES.items()]
    )
    scores = score_videott(videott, preds)
    assert (scores["videos"], scores["questions"], scores["problems"]) == (3, 15, [])
    res = scores["models"]["gemini"]
    acc = {k: (v["correct"], v["total"], v["accuracy"]) for k, v in res["per_kind"].items()}
    assert acc == {
        "primary": (2, 3, 66.67),  # fan, ball
        "rephrased": (3, 3, 100.0),
        "correctly_led": (3, 3, 100.0),
        "wrongly_led": (2, 3, 66.67),  # ball wrong
        "multiple_choice": (3, 3, 100.0),
    }
    # primary right: fan, ball; all five right: fan -> 1/2
    assert res["robustness"] == {"all_correct": 1, "primary_correct": 2, "score": 50.0}
    assert res["overall"] == {"correct": 13, "total": 15, "accuracy": 86.67}
    # (66.67 + 100 + 100 + 66.67 + 100) / 5
    assert res["average"] == 86.67


def test_videott_video_id_and_kind_keys_and_bad_lines(videott, tmp_path):
    rows: list = [
        {"video_id": "fan", "kind": "primary", "response": "Counter-clockwise."},  # 1
        {"video_id": "fan", "kind": "multiple-choice", "response": "maybe?"},  # 2 unparsable
        {"qid": "fan-zz", "response": "x"},  # 3 unknown qid
        {"video_id": "dog", "kind": "primary", "response": "x"},  # 4 unknown video
        {"qid": "fan-p", "response": "Clockwise."},  # 5 duplicate (first kept: right)
        "[broken",  # 6 malformed
        {"qid": "ball-p", "response": ""},  # 7 empty: wrong
        {"qid": "ball-p", "model": "other", "response": "three times"},  # 8 another model
    ]
    preds = _jsonl(tmp_path / "m.jsonl", rows)
    scores = score_videott(videott, preds)
    assert [p["where"] for p in scores["problems"]] == [f"{preds}:{n}" for n in (2, 3, 4, 5, 6, 7)]
    res = scores["models"]["m"]
    assert res["per_kind"]["primary"]["correct"] == 1
    assert res["per_kind"]["multiple_choice"]["correct"] == 0
    # fan primary right but its other questions missing: 0 of 1
    assert res["robustness"] == {"all_correct": 0, "primary_correct": 1, "score": 0.0}
    assert (res["answered"], res["missing"], res["unparsable"]) == (3, 12, 2)
    assert scores["models"]["other"]["robustness"]["primary_correct"] == 1


def test_videott_other_answers_of_the_task_are_wrong_answers(tmp_path):
    """With a task named, "Left, then up" does not pass for "Left" though it contains it."""

    def video(vid: str, answer: str, accepted: list[str]) -> dict:
        q = "Which way does the square move?"
        return {
            "video_id": vid,
            "task": "direction",
            "questions": [_q(f"{vid}-p", "primary", q, answer, accepted=accepted)],
        }

    videos = [
        video("a", "Left.", ["left", "leftwards"]),
        video("b", "Left, then up.", ["left then up", "leftwards then upwards"]),
    ]
    (tmp_path / "videott.json").write_text(json.dumps(videos), encoding="utf-8")
    rows = [
        {"qid": "a-p", "response": "Left, then up."},  # wrong: video b's answer
        {"qid": "b-p", "response": "It goes left and then up."},  # right
        {"qid": "a-p", "model": "m2", "response": "Leftwards."},  # right
        {"qid": "b-p", "model": "m2", "response": "Left."},  # wrong: says less
    ]
    scores = score_videott(tmp_path, _jsonl(tmp_path / "m1.jsonl", rows))
    assert scores["models"]["m1"]["per_kind"]["primary"]["correct"] == 1
    assert scores["models"]["m2"]["per_kind"]["primary"]["correct"] == 1
    assert scores["models"]["m1"]["robustness"] == {
        "all_correct": 1,
        "primary_correct": 1,
        "score": 100.0,
    }


def test_videott_bad_dataset(tmp_path):
    (tmp_path / "videott.json").write_text(
        json.dumps([{"video_id": "v", "questions": [{"kind": "sideways", "answer": "x"}]}])
    )
    with pytest.raises(ValueError, match=r"questions\[0\]: kind must be"):
        score_videott(tmp_path, tmp_path / "videott.json")
    (tmp_path / "videott.json").write_text(
        json.dumps(
            [
                {
                    "video_id": "v",
                    "questions": [{"kind": "mc", "answer": "Z", "options": ["a", "b"]}],
                }
            ]
        )
    )
    with pytest.raises(ValueError, match="names no option"):
        score_videott(tmp_path, tmp_path / "videott.json")


# ---------------------------------------------------------------------------------------------
# output


def test_write_and_format_scores(tomato, vino, videott, tmp_path):
    tomato_scores = score_tomato(tomato, _jsonl(tmp_path / "qwen.jsonl", _four_settings(FOUR)))
    out = tmp_path / "out" / "scores.json"
    write_scores(out, tomato_scores)
    assert json.loads(out.read_text()) == tomato_scores
    assert [p.name for p in out.parent.iterdir()] == ["scores.json"]

    text = format_scores(tomato_scores)
    assert "model qwen" in text and "uniform16" in text
    assert "κ random frame" in text and "200.00%" in text
    assert "problems: none" in text

    rows = [{"idx": i, "kind": "text", "response": r} for i, r in VINO_TEXT.items()]
    rows += [{"idx": i, "kind": "video", "response": r} for i, r in VINO_VIDEO.items()]
    rows.append({"idx": "5_pos", "kind": "text", "response": "A"})
    text = format_scores(score_vinoground(vino, _jsonl(tmp_path / "v.jsonl", rows)))
    assert "cyclical" in text and "66.67" in text and "problems (1):" in text

    preds = _jsonl(
        tmp_path / "g.jsonl", [{"qid": q, "response": r} for q, r in VTT_RESPONSES.items()]
    )
    text = format_scores(score_videott(videott, preds))
    assert "robustness" in text and "50.00 (1/2)" in text

    with pytest.raises(
        ValueError, match="unknown format 'nope'; known: tomato, vinoground, videott"
    ):
        format_scores({"benchmark": "nope"})


def test_predictions_that_match_nothing_are_an_error_naming_the_file(
    tomato, vino, videott, tmp_path
):
    # issue 13 item 7: a wrong-format prediction file scored nothing and exited 0
    from kit import run_cli

    from tempogen.builders.eval.scoring import require_matches
    from tempogen.errors import InputFileError

    wrong = _jsonl(tmp_path / "wrong.jsonl", [{"question": "q", "answer": "A"}])
    for bench, root in (("tomato", tomato), ("vinoground", vino), ("videott", videott)):
        score = {"tomato": score_tomato, "vinoground": score_vinoground}.get(bench, score_videott)
        scores = score(root, wrong)
        with pytest.raises(InputFileError, match=r"wrong\.jsonl: no prediction matched.*expected"):
            require_matches(scores)
        # the first through a fresh process, the others in forked children (milliseconds)
        res = run_cli("eval", bench, "--dataset", root, "--predictions", wrong, timeout=120,
                      fork=bench != "tomato")  # fmt: skip
        assert res.returncode == 2, (bench, res.stdout, res.stderr)
        assert "wrong.jsonl: no prediction matched" in res.stderr and "wrong.jsonl:1" in res.stderr
    ok = _jsonl(tmp_path / "ok.jsonl", [{"task": "rotation", "id": "0", "response": "A"}])
    require_matches(score_tomato(tomato, ok))  # one match is enough
