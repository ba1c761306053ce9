"""Score predictions on the Video-TT layout: open-ended and multiple-choice accuracy per kind."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from tempogen.builders.eval.answers import LETTERS, grade_open, normalize_text, parse_choice
from tempogen.builders.eval.common import (
    KIND_ALIASES,
    VIDEOTT_KINDS,
    VIDEOTT_OPEN,
    Problems,
    accuracy,
    load_dataset_json,
    percent,
    prediction_files,
    prediction_records,
    response_text,
    short_repr,
)
from tempogen.errors import InputFileError

PathLike = str | os.PathLike[str]


def _kind(raw: Any) -> str | None:
    if not isinstance(raw, str):
        return None
    name = re.sub(r"[\s\-]+", "_", raw.strip().lower())
    name = KIND_ALIASES.get(name, name)
    return name if name in VIDEOTT_KINDS else None


def _mc_answer(q: dict[str, Any], where: str) -> int:
    """The right option index of a multiple-choice question: ``answer_index``, else ``answer``
    as an index, a letter, or the option's text."""
    options = q.get("options")
    if not isinstance(options, list) or not options:
        raise InputFileError(f"{where}: a multiple_choice question needs a list of options")
    index = q.get("answer_index")  # builders/videott.py writes answer_index and answer text
    if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(options):
        return index
    answer = q.get("answer")
    if isinstance(answer, int) and not isinstance(answer, bool) and 0 <= answer < len(options):
        return answer
    if isinstance(answer, str):
        s = answer.strip()
        m = re.fullmatch(r"\(?([A-Za-z])\)?\.?", s)
        if m and LETTERS.index(m.group(1).upper()) < len(options):
            return LETTERS.index(m.group(1).upper())
        norm = normalize_text(s)
        hits = [i for i, o in enumerate(options) if normalize_text(str(o)) == norm]
        if len(hits) == 1:
            return hits[0]
    raise InputFileError(f"{where}: multiple_choice answer {answer!r} names no option")


def _load_videott(root: Path) -> tuple[dict[str, list[str]], dict[str, dict[str, Any]]]:
    """Videos (``video_id -> [qid]``) and questions (``qid -> question with kind, video_id``)."""
    path = root / "videott.json" if root.is_dir() else root
    data = load_dataset_json(path)
    if not isinstance(data, list):
        raise InputFileError(f"{path}: expected a JSON list of videos")
    videos: dict[str, list[str]] = {}
    questions: dict[str, dict[str, Any]] = {}
    for i, video in enumerate(data):
        where = f"{path}[{i}]"
        if not isinstance(video, dict) or not isinstance(video.get("questions"), list):
            raise InputFileError(f"{where}: a video needs video_id and a list of questions")
        vid = str(video.get("video_id", ""))
        if not vid or vid in videos:
            raise InputFileError(f"{where}: video_id {vid!r} is missing or repeated")
        videos[vid] = []
        for j, q in enumerate(video["questions"]):
            qwhere = f"{where}.questions[{j}]"
            kind = _kind(q.get("kind")) if isinstance(q, dict) else None
            if kind is None:
                raise InputFileError(f"{qwhere}: kind must be one of {VIDEOTT_KINDS}")
            qid = str(q.get("qid") or f"{vid}:{kind}")
            if qid in questions:
                raise InputFileError(f"{qwhere}: qid {qid!r} is repeated")
            entry = dict(q, kind=kind, video_id=vid, qid=qid, task=video.get("task"))
            if kind == "multiple_choice":
                entry["answer_index"] = _mc_answer(q, qwhere)
            elif not isinstance(q.get("answer"), str) or not q["answer"].strip():
                raise InputFileError(f"{qwhere}: an open-ended question needs an answer string")
            questions[qid] = entry
            videos[vid].append(qid)
    return videos, questions


def _accepted(q: dict[str, Any]) -> list[str]:
    acc = q.get("accepted")
    return [a for a in acc if isinstance(a, str)] if isinstance(acc, list) else []


def _distractors(questions: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """For each open question, the answers (and accepted phrasings) of the other questions of
    its kind within its task, less the phrasings it accepts itself: wrong answers a response
    must not state (``grade_open``'s ``rejected``), so that "Left, then up" does not pass for
    "Left". Videos without a ``task`` get none."""
    groups: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    for q in questions.values():
        if q["kind"] in VIDEOTT_OPEN and isinstance(q.get("task"), str):
            for phrase in [q["answer"], *_accepted(q)]:
                groups[(q["task"], q["kind"])].setdefault(normalize_text(phrase), phrase)
    out: dict[str, list[str]] = {}
    for qid, q in questions.items():
        if q["kind"] not in VIDEOTT_OPEN or not isinstance(q.get("task"), str):
            continue
        own = {normalize_text(a) for a in [q["answer"], *_accepted(q)]}
        group = groups[(q["task"], q["kind"])]
        out[qid] = [group[norm] for norm in sorted(group) if norm not in own]
    return out


def score_videott(dataset_dir: PathLike, predictions: PathLike) -> dict[str, Any]:
    """Video-TT accuracy per question kind and its robustness score.

    Robustness = |videos with all five questions right| / |videos with the primary right|
    (Video-TT, Supp. 2). ``dataset_dir`` holds ``videott.json`` (a list of videos, each with
    ``video_id`` and ``questions`` of kind primary, rephrased, correctly_led, wrongly_led,
    multiple_choice). Predictions: JSONL with ``qid`` (or ``video_id`` + ``kind``), ``response``
    and optionally ``model``. Open-ended answers are graded by ``grade_open`` (key words of the
    answer or of an ``accepted`` phrasing, and none of the other answers of that kind in the
    video's ``task``, when videos name one); multiple choice by ``parse_choice``.
    """
    root = Path(dataset_dir)
    videos, questions = _load_videott(root)
    by_video_kind: dict[tuple[str, str], list[str]] = defaultdict(list)
    for qid, q in questions.items():
        by_video_kind[(q["video_id"], q["kind"])].append(qid)
    rejected = _distractors(questions)
    problems = Problems()
    answers: dict[str, dict[str, bool]] = defaultdict(dict)
    unparsable: dict[str, int] = defaultdict(int)
    for path in prediction_files(Path(predictions), problems):
        for where, row in prediction_records(path, problems):
            given = row.get("qid")
            if given is not None:
                qid = str(given)
                if qid not in questions:
                    problems.add(where, f"unknown qid {qid!r}; skipped")
                    continue
            else:
                vid, kind = row.get("video_id"), _kind(row.get("kind"))
                hits = by_video_kind.get((str(vid), kind), []) if kind else []
                if len(hits) != 1:
                    reason = "unknown" if not hits else "ambiguous"
                    problems.add(
                        where,
                        f"{reason} question video_id={vid!r} kind={row.get('kind')!r} "
                        "(give qid); skipped",
                    )
                    continue
                qid = hits[0]
            model = str(row.get("model", Path(path).stem))
            if qid in answers[model]:
                problems.add(where, f"duplicate prediction for {qid} in {model}; kept the first")
                continue
            q = questions[qid]
            response = response_text(row)
            if q["kind"] == "multiple_choice":
                choice = parse_choice(response, q["options"]) if response is not None else None
                if choice is None:
                    problems.add(
                        where, f"unparsable response {short_repr(response)}; counted wrong"
                    )
                    unparsable[model] += 1
                ok = choice == q["answer_index"]
            else:
                if response is None or not response.strip():
                    problems.add(where, "empty or missing response; counted wrong")
                    unparsable[model] += 1
                ok = response is not None and grade_open(
                    response, q["answer"], _accepted(q), rejected.get(qid)
                )
            answers[model][qid] = ok

    models: dict[str, Any] = {}
    for model in sorted(answers):
        got = answers[model]
        per_kind = {}
        for kind in VIDEOTT_KINDS:
            qids = [qid for qid, q in questions.items() if q["kind"] == kind]
            if qids:
                per_kind[kind] = accuracy(sum(got.get(q, False) for q in qids), len(qids))
        primary_right = all_right = 0
        for qids in videos.values():
            primary = [q for q in qids if questions[q]["kind"] == "primary"]
            if primary and all(got.get(q, False) for q in primary):
                primary_right += 1
                if all(got.get(q, False) for q in qids):
                    all_right += 1
        accs = [v["accuracy"] for v in per_kind.values() if v["accuracy"] is not None]
        overall = accuracy(sum(got.get(q, False) for q in questions), len(questions))
        models[model] = {
            "overall": overall,
            "average": round(sum(accs) / len(accs), 2) if accs else None,
            "per_kind": per_kind,
            "robustness": {
                "all_correct": all_right,
                "primary_correct": primary_right,
                "score": percent(all_right, primary_right),
            },
            "answered": len(got),
            "missing": len(questions) - len(got),
            "unparsable": unparsable[model],
        }
    return {
        "benchmark": "videott",
        "dataset": str(root),
        "predictions": str(predictions),
        "videos": len(videos),
        "questions": len(questions),
        "models": models,
        "problems": list(problems),
    }


# ---------------------------------------------------------------------------------------------
# output
