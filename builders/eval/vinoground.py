"""Score predictions on the Vinoground layout: text, video and group scores per category."""

from __future__ import annotations

import csv
import io
import os
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tempogen.builders.eval.answers import parse_choice
from tempogen.builders.eval.common import (
    VINO_MAJOR,
    VINO_MINOR,
    VINO_VIDEO_OPTIONS,
    Problems,
    load_dataset_json,
    ordered_names,
    percent,
    prediction_files,
    prediction_records,
    response_text,
    short_repr,
)
from tempogen.errors import InputFileError, MissingFileError
from tempogen.io import read_text

PathLike = str | os.PathLike[str]


def load_vinoground(root: Path) -> tuple[dict[str, dict[str, Any]], dict[tuple[str, str], dict]]:
    """Pairs (``index -> {major, minors, captions}``) and questions (``(kind, idx) -> {pair,
    gt, options}``): what the scorer and the model runner read of a Vinoground layout.

    ``vinoground.csv``: columns 0-2 are index, major, minor (``;``-separated, may be empty), as
    Vinoground's ``get_score_all.py`` reads them; captions come from ``pos_cal`` / ``neg_cal``
    when the header names them (likely, per formats.md), else from the question text.
    """
    csv_path = root / "vinoground.csv"
    if not csv_path.is_file():
        raise MissingFileError(f"{csv_path}: no such file")
    # bounded, UTF-8 named by line (tempogen.io.read_text), then CSV
    rows = list(csv.reader(io.StringIO(read_text(csv_path, "Vinoground CSV"), newline="")))
    if not rows:
        raise InputFileError(f"{csv_path}: empty")
    header = [h.strip().lower() for h in rows[0]]
    col: dict[str, int] = {
        name: header.index(name) for name in ("pos_cal", "neg_cal") if name in header
    }
    pairs: dict[str, dict[str, Any]] = {}
    for n, row in enumerate(rows[1:], 2):
        if not any(c.strip() for c in row):
            continue
        if len(row) < 2:
            raise InputFileError(f"{csv_path}:{n}: expected index, major, minor, ...")
        index = row[0].strip()
        if index in pairs:
            raise InputFileError(f"{csv_path}:{n}: pair index {index!r} is repeated")
        minor = row[2] if len(row) > 2 else ""
        pairs[index] = {
            "major": row[1].strip(),
            "minors": [m.strip() for m in minor.split(";") if m.strip()],
            "captions": {
                side: row[col[f"{side}_cal"]]
                for side in ("pos", "neg")
                if f"{side}_cal" in col and col[f"{side}_cal"] < len(row)
            },
        }
    questions: dict[tuple[str, str], dict[str, Any]] = {}
    for kind in ("text", "video"):
        path = root / f"vinoground_{kind}score.json"
        data = load_dataset_json(path)
        if not isinstance(data, list):
            raise InputFileError(f"{path}: expected a JSON list of questions")
        for i, q in enumerate(data):
            idx = q.get("idx") if isinstance(q, dict) else None
            m = re.fullmatch(r"(.+)_(pos|neg)", str(idx)) if idx is not None else None
            gt = str(q.get("GT", "")).strip().upper() if isinstance(q, dict) else ""
            if m is None or gt not in ("A", "B"):
                raise InputFileError(
                    f"{path}[{i}]: needs idx '{{i}}_pos' / '{{i}}_neg' and GT A or B"
                )
            pair, side = m.groups()
            if pair not in pairs:
                raise InputFileError(f"{path}[{i}]: pair {pair!r} is not in {csv_path.name}")
            if (kind, str(idx)) in questions:
                raise InputFileError(f"{path}[{i}]: idx {idx!r} is repeated")
            g = "AB".index(gt)
            if kind == "video":
                options = list(VINO_VIDEO_OPTIONS)
            else:
                options = _text_options(
                    pairs[pair]["captions"], side, g, str(q.get("question", ""))
                )
            questions[(kind, str(idx))] = {"pair": pair, "gt": g, "options": options}
    for pair in pairs:
        missing = [
            f"{kind} {pair}_{side}"
            for kind in ("text", "video")
            for side in ("pos", "neg")
            if (kind, f"{pair}_{side}") not in questions
        ]
        if missing:
            raise InputFileError(f"{root}: pair {pair!r} lacks question(s) {missing}")
    return pairs, questions


def _text_options(captions: dict[str, str], side: str, gt: int, question: str) -> list[str]:
    """The two captions in the order the text question lists them (for option-text matching)."""
    other = "neg" if side == "pos" else "pos"
    if side in captions and other in captions:
        options = ["", ""]
        options[gt], options[1 - gt] = captions[side], captions[other]
        return options
    m = re.search(r"\bA\.\s*(.*),\s*B\.\s*(.*?)\s*$", question, re.DOTALL)
    return [m.group(1).strip(), m.group(2).strip()] if m else ["", ""]


def _vino_kind(name: str) -> str | None:
    low = name.lower()
    has_text, has_video = "text" in low, "video" in low
    if has_text == has_video:
        return None
    return "text" if has_text else "video"


def _vino_lines(
    predictions: PathLike | Sequence[PathLike], problems: Problems
) -> Iterator[tuple[str, dict[str, Any], str, str | None]]:
    """``(where, row, run, kind-from-file-name)`` for every predictions line.

    One JSONL file: lines carry ``idx``, ``kind`` (text / video), ``response`` and optionally
    ``model``. A folder or a list of files: Vinoground's own scripts (``eval/*.py``) write
    ``{output}/{model}/textscore[-frame32]-response.jsonl`` and ``videoscore[...]``; likely
    layout per formats.md: files are told apart by ``text`` / ``video`` in their names, a run is
    the folder plus what else the name says (``frame32``).
    """
    if isinstance(predictions, str | os.PathLike):
        base = Path(predictions)
        if base.is_file() and _vino_kind(base.name) is None:
            for where, row in prediction_records(base, problems):
                yield where, row, str(row.get("model", base.stem)), None
            return
        files = prediction_files(base, problems)
        root = base if base.is_dir() else base.parent
    else:
        files = [Path(p) for p in predictions]
        for p in files:
            if not p.is_file():
                raise MissingFileError(f"{p}: no such predictions file")
        root = Path(os.path.commonpath([p.parent for p in files])) if files else Path(".")
    for path in files:
        kind = _vino_kind(path.name)
        if kind is None:
            problems.add(path, "file name says neither 'text' nor 'video'; skipped")
            continue
        model = path.parent.relative_to(root).as_posix() if path.parent != root else root.name
        variant = re.sub(r"(?i)textscore|videoscore|text|video|response|results?", "", path.stem)
        variant = re.sub(r"[-_.\s]+", "-", variant).strip("-")
        run = f"{model} [{variant}]" if variant else model
        for where, row in prediction_records(path, problems):
            yield where, row, run, kind


def _vino_group(pairs: list[tuple[bool, bool]]) -> dict[str, Any]:
    text = sum(t for t, _ in pairs)
    video = sum(v for _, v in pairs)
    group = sum(t and v for t, v in pairs)
    n = len(pairs)
    return {
        "pairs": n,
        "text": percent(text, n),
        "video": percent(video, n),
        "group": percent(group, n),
        "text_correct": text,
        "video_correct": video,
        "group_correct": group,
    }


def score_vinoground(
    dataset_dir: PathLike, predictions: PathLike | Sequence[PathLike]
) -> dict[str, Any]:
    """Vinoground's text, video and group scores (Sec. 4.1), overall and per category.

    A pair's text score is 1 when both its text questions are right, video score likewise,
    group score when all four are; each is the percentage of pairs. ``dataset_dir`` holds
    ``vinoground.csv``, ``vinoground_textscore.json`` and ``vinoground_videoscore.json``.
    ``predictions``: one JSONL with ``idx``, ``kind`` and ``response`` (optionally ``model``),
    or Vinoground's own output folder / a pair of ``*text*`` and ``*video*`` files.
    """
    root = Path(dataset_dir)
    pairs, questions = load_vinoground(root)
    problems = Problems()
    answers: dict[str, dict[tuple[str, str], bool]] = defaultdict(dict)
    unparsable: dict[tuple[str, str], int] = defaultdict(int)
    for where, row, run, file_kind in _vino_lines(predictions, problems):
        kind = row.get("kind", file_kind)
        kind = str(kind).strip().lower() if kind is not None else None
        if kind not in ("text", "video"):
            problems.add(where, f"'kind' must be text or video, got {row.get('kind')!r}")
            continue
        idx = row.get("idx")
        key = (kind, str(idx))
        if idx is None or key not in questions:
            problems.add(where, f"unknown {kind} question idx {idx!r}; skipped")
            continue
        if key in answers[run]:
            problems.add(where, f"duplicate prediction for {kind} {idx} in {run}; kept the first")
            continue
        q = questions[key]
        response = response_text(row)
        choice = parse_choice(response, q["options"]) if response is not None else None
        if choice is None:
            problems.add(where, f"unparsable response {short_repr(response)}; counted wrong")
            unparsable[(run, kind)] += 1
        answers[run][key] = choice == q["gt"]

    runs: dict[str, Any] = {}
    for run in sorted(answers):
        got = answers[run]

        def right(kind: str, pair: str, got: dict = got) -> bool:
            return got.get((kind, f"{pair}_pos"), False) and got.get((kind, f"{pair}_neg"), False)

        results = {p: (right("text", p), right("video", p)) for p in pairs}
        by_major: dict[str, list] = defaultdict(list)
        by_minor: dict[str, list] = defaultdict(list)
        for p, info in pairs.items():
            by_major[info["major"]].append(results[p])
            for minor in info["minors"]:
                by_minor[minor].append(results[p])
        summary = _vino_group(list(results.values()))
        summary["questions"] = {
            kind: {
                "answered": sum(1 for k in got if k[0] == kind),
                "correct": sum(ok for k, ok in got.items() if k[0] == kind),
                "unparsable": unparsable[(run, kind)],
                "missing": sum(1 for k in questions if k[0] == kind and k not in got),
            }
            for kind in ("text", "video")
        }
        summary["per_major"] = {
            c: _vino_group(by_major[c]) for c in ordered_names(by_major, VINO_MAJOR)
        }
        summary["per_minor"] = {
            c: _vino_group(by_minor[c]) for c in ordered_names(by_minor, VINO_MINOR)
        }
        runs[run] = summary
    return {
        "benchmark": "vinoground",
        "dataset": str(root),
        "predictions": str(predictions)
        if isinstance(predictions, str | os.PathLike)
        else [str(p) for p in predictions],
        "pairs": len(pairs),
        "models": runs,
        "problems": list(problems),
    }
