"""Score model predictions on TOMATO, Vinoground and Video-TT layouts, with each paper's metrics.

Each ``score_*`` function reads a dataset folder and a predictions file (or folder), parses
every response (``tempogen.builders.answers``), and returns one JSON-ready dict. Bad input
never stops scoring: malformed lines, unknown or duplicated ids and unparsable responses are
listed under ``problems`` (``where`` is ``file:line``), and everything else is scored. An
unparsable response counts as wrong; an unknown id is skipped; of duplicates the first wins.
Percentages are rounded to 2 decimals; the counts beside them are exact.

Denominators follow each benchmark's own scorer. TOMATO: the questions a run answered
(TOMATO's ``get_score.py`` averages over its results lines; single-frame runs often cover a
subset). Vinoground and Video-TT: every pair or question in the dataset, a missing prediction
counting as wrong (Vinoground's ``get_score_all.py`` does the same).
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tempogen.builders.answers import LETTERS, grade_open, normalize_text, parse_choice
from tempogen.io import write_json
from tempogen.questions import TASKS, VARIATION_KEYS

PathLike = str | os.PathLike[str]

EPSILON = 1e-6  # TOMATO's ε in κ, τ, ρ (accuracies as fractions); keeps a 0 denominator finite
DEFAULT_FRAMES = 16
SINGLE_FRAME_SETTINGS = ("random1", "handpicked1")
SETTING_ALIASES = {
    "uniform": "uniform",
    "ordered": "uniform",
    "shuffled": "shuffled",
    "shuffle": "shuffled",
    "random": "random1",
    "random1": "random1",
    "handpicked": "handpicked1",
    "handpicked1": "handpicked1",
    "hand_picked": "handpicked1",
}

VINO_MAJOR = ("object", "action", "viewpoint")
VINO_MINOR = ("interaction", "cyclical", "spatial", "contextual")
VINO_VIDEO_OPTIONS = ["First segment", "Second segment"]

VIDEOTT_KINDS = ("primary", "rephrased", "correctly_led", "wrongly_led", "multiple_choice")
VIDEOTT_OPEN = frozenset(VIDEOTT_KINDS[:4])
KIND_ALIASES = {
    "paraphrased": "rephrased",
    "rephrase": "rephrased",
    "correct_led": "correctly_led",
    "correctlyled": "correctly_led",
    "wrong_led": "wrongly_led",
    "wronglyled": "wrongly_led",
    "misleading": "wrongly_led",
    "mc": "multiple_choice",
    "mcq": "multiple_choice",
    "multi_choice": "multiple_choice",
    "multichoice": "multiple_choice",
    "multiplechoice": "multiple_choice",
}


# ---------------------------------------------------------------------------------------------
# shared helpers


class _Problems(list):
    """``problems`` entries: where (``file:line`` or a path) and reason."""

    def add(self, where: Any, reason: str) -> None:
        self.append({"where": str(where), "reason": reason})


def _pct(num: float, den: float) -> float | None:
    return round(100.0 * num / den, 2) if den else None


def _acc(correct: int, total: int) -> dict[str, Any]:
    return {"correct": correct, "total": total, "accuracy": _pct(correct, total)}


def _records(path: Path, problems: _Problems) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, row)`` for each JSON object in a JSONL file, or in a ``.json`` list.

    A ``.json`` file that is not one JSON document is read as JSONL. Malformed lines and
    non-objects become problems.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.add(path, f"cannot read: {exc}")
        return
    if path.suffix.lower() == ".json":
        try:
            doc = json.loads(text)
        except json.JSONDecodeError:
            doc = None
        if isinstance(doc, list):
            for i, row in enumerate(doc):
                if isinstance(row, dict):
                    yield f"{path}[{i}]", row
                else:
                    problems.add(
                        f"{path}[{i}]", f"expected a JSON object, got {type(row).__name__}"
                    )
            return
        if isinstance(doc, dict):
            yield f"{path}:1", doc
            return
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.add(f"{path}:{n}", f"not valid JSON: {exc.msg}")
            continue
        if not isinstance(row, dict):
            problems.add(f"{path}:{n}", f"expected a JSON object, got {type(row).__name__}")
            continue
        yield f"{path}:{n}", row


def _response(row: dict[str, Any]) -> str | None:
    """The response text; a list (Qwen's scripts write ``[text]``) gives its first string."""
    value = row.get("response")
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str)), None)
    return value if isinstance(value, str) else None


def _short(text: str | None, n: int = 60) -> str:
    text = repr(text)
    return text if len(text) <= n else text[: n - 3] + "..."


def _load_json(path: Path) -> Any:
    """A dataset JSON file; errors name the file."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON: {exc.msg} (line {exc.lineno})") from exc


def _ordered(keys: Iterable[str], first: Sequence[str]) -> list[str]:
    """Known names in their canonical order, then the rest sorted."""
    keys = set(keys)
    return [k for k in first if k in keys] + sorted(keys - set(first))


def _prediction_files(path: Path, problems: _Problems) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix.lower() in (".jsonl", ".json"))
        if not files:
            problems.add(path, "no .jsonl or .json prediction files in this folder")
        return files
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such predictions file or folder")
    return [path]


# ---------------------------------------------------------------------------------------------
# TOMATO


def _tomato_root(dataset_dir: PathLike) -> Path:
    root = Path(dataset_dir)
    if (root / "data").is_dir():
        return root
    if (root / "tomato" / "data").is_dir():
        return root / "tomato"
    raise FileNotFoundError(f"{root}: no TOMATO layout here (neither data/ nor tomato/data/)")


def _load_tomato(root: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """``(reasoning_type, id) -> entry`` for every ``data/*.json``."""
    entries: dict[tuple[str, str], dict[str, Any]] = {}
    files = sorted((root / "data").glob("*.json"))
    if not files:
        raise FileNotFoundError(f"{root / 'data'}: no reasoning-type JSON files")
    for path in files:
        data = _load_json(path)
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a JSON object keyed by question id")
        for qid, entry in data.items():
            ok = (
                isinstance(entry, dict)
                and isinstance(entry.get("options"), list)
                and isinstance(entry.get("answer"), int)
                and 0 <= entry["answer"] < len(entry["options"])
            )
            if not ok:
                raise ValueError(f"{path}: entry {qid!r} needs options and an answer index")
            entries[(path.stem, str(qid))] = entry
    return entries


def _frames(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        value = int(value)
    if isinstance(value, int) and (value >= 1 or value == -1):
        return value
    return None


def _setting(raw: Any, frames_raw: Any) -> tuple[str, int] | str:
    """``(setting, frames)`` from a predictions line, or the reason it is invalid.

    ``uniform16`` / ``shuffled8`` carry their frame count (as ``builders/sampling.py`` names
    settings); ``random1`` and ``handpicked1`` are one frame by definition.
    """
    name = "uniform" if raw is None else str(raw).strip().lower().replace("-", "_")
    m = re.fullmatch(r"(uniform|ordered|shuffled?)_?(\d+)", name)
    named_frames = None
    if m:
        name, named_frames = m.group(1), int(m.group(2))
    setting = SETTING_ALIASES.get(name)
    if setting is None:
        return f"unknown setting {raw!r} (uniform, shuffled, random1 or handpicked1)"
    frames = None
    if frames_raw is not None:
        frames = _frames(frames_raw)
        if frames is None:
            return f"frames must be a positive integer (or -1), got {frames_raw!r}"
    if named_frames is not None:
        if frames is not None and frames != named_frames:
            return f"setting {raw!r} disagrees with frames={frames}"
        frames = named_frames
    if setting in SINGLE_FRAME_SETTINGS:
        if frames not in (None, 1):
            return f"setting {setting} uses one frame, got frames={frames}"
        return setting, 1
    return setting, DEFAULT_FRAMES if frames is None else frames


def _run_key(setting: str, frames: int) -> str:
    return setting if setting in SINGLE_FRAME_SETTINGS else f"{setting}{frames}"


_TOMATO_DIR = re.compile(
    r"(?:(?P<prefix>shuffle|shuffled|handpicked|random)_)?(?P<rt>[^+]+)\+(?P<dt>[^+]+)"
)


def _tomato_results(
    root: Path, problems: _Problems
) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Lines of TOMATO's results tree as ``(where, row, context)``.

    Layout (TOMATO's ``src/evaluate.py``): ``{reasoning_type}+{demonstration_type}/{frames}/
    {model}.jsonl``. TOMATO's ``get_categorized_score.py`` reads shuffled runs from folders
    named ``shuffle_{reasoning_type}+{demonstration_type}``; we also accept ``shuffled_``, and
    ``handpicked_`` / ``random_`` for the single-frame controls (our convention: TOMATO's public
    code has no hand-picked runner). A ``1`` frames folder without a prefix is ``random1``
    (TOMATO's ``read_video`` then takes one frame without choosing it by content).
    """
    for path in sorted(root.rglob("*.jsonl")):
        rel = path.relative_to(root).parts
        m = _TOMATO_DIR.fullmatch(rel[0]) if len(rel) == 3 else None
        frames = _frames(rel[1]) if m else None
        if m is None or frames is None:
            problems.add(
                path,
                "not in TOMATO's results layout "
                "{reasoning_type}+{demonstration_type}/{frames}/{model}.jsonl; skipped",
            )
            continue
        prefix = m.group("prefix")
        if prefix in ("shuffle", "shuffled"):
            setting = "shuffled"
        elif prefix == "handpicked":
            setting = "handpicked1"
        elif prefix == "random" or frames == 1:
            setting = "random1"
        else:
            setting = "uniform"
        if setting in SINGLE_FRAME_SETTINGS and frames != 1:
            problems.add(path, f"{setting} results must be in a '1' frames folder; skipped")
            continue
        context = {
            "model": path.stem,
            "task": m.group("rt"),
            "demonstration_type": m.group("dt"),
            "setting": setting,
            "frames": frames,
        }
        for where, row in _records(path, problems):
            yield where, row, context


def _tomato_lines(path: Path, problems: _Problems) -> Iterator[tuple[str, dict[str, Any], dict]]:
    """Lines of one predictions JSONL: task, id, response, optional frames / setting / model."""
    for where, row in _records(path, problems):
        parsed = _setting(row.get("setting"), row.get("frames"))
        if isinstance(parsed, str):
            problems.add(where, parsed)
            continue
        setting, frames = parsed
        model = row.get("model", path.stem)
        context = {
            "model": str(model),
            "task": row.get("task"),
            "setting": setting,
            "frames": frames,
        }
        yield where, row, context


def _tomato_summary(
    answers: dict[tuple[str, str], bool],
    unparsable: int,
    entries: dict[tuple[str, str], dict[str, Any]],
) -> dict[str, Any]:
    """Accuracy of one run overall, per task, per demonstration type and per variation flag."""
    by_task: dict[str, list[bool]] = defaultdict(list)
    by_demo: dict[str, list[bool]] = defaultdict(list)
    by_var: dict[str, list[bool]] = defaultdict(list)
    for key, ok in answers.items():
        entry = entries[key]
        by_task[key[0]].append(ok)
        by_demo[str(entry.get("demonstration_type", "unknown"))].append(ok)
        variation = entry.get("variation") if isinstance(entry.get("variation"), dict) else {}
        for flag in VARIATION_KEYS:
            if variation.get(flag):
                by_var[flag].append(ok)
    correct = sum(answers.values())
    out = _acc(correct, len(answers))
    out["unparsable"] = unparsable
    out["missing"] = len(entries) - len(answers)
    out["per_task"] = {t: _acc(sum(by_task[t]), len(by_task[t])) for t in _ordered(by_task, TASKS)}
    out["per_demonstration_type"] = {
        d: _acc(sum(by_demo[d]), len(by_demo[d]))
        for d in _ordered(by_demo, ("human", "object", "simulated"))
    }
    out["per_variation"] = {
        f: _acc(sum(by_var[f]), len(by_var[f])) for f in VARIATION_KEYS if by_var[f]
    }
    return out


def _ratio_metric(
    runs: dict[str, dict[tuple[str, str], bool]], num: str, den: str
) -> dict[str, Any] | None:
    """TOMATO's ``Acc(num) / (Acc(den) + ε) - 1`` in percent, over the questions both runs
    answered (as TOMATO's Table 2 recomputes 16-frame accuracy on its 200 hand-picked ones)."""
    if num not in runs or den not in runs:
        return None
    common = sorted(set(runs[num]) & set(runs[den]))
    if not common:
        return None
    a = sum(runs[num][k] for k in common) / len(common)
    b = sum(runs[den][k] for k in common) / len(common)
    return {
        "value": round(100.0 * (a / (b + EPSILON) - 1.0), 2),
        "numerator": num,
        "denominator": den,
        "numerator_accuracy": round(100.0 * a, 2),
        "denominator_accuracy": round(100.0 * b, 2),
        "questions": len(common),
    }


def _tomato_metrics(runs: dict[str, dict[tuple[str, str], bool]]) -> dict[str, Any]:
    """κ (random and hand-picked), τ for each uniform frame count m, and ρ.

    Names: ``kappa_random``, ``kappa_handpicked``, ``tau`` for m = 16 (TOMATO's m), with an
    ``@m`` suffix for any other m; ``rho`` needs no m.
    """
    metrics: dict[str, Any] = {}
    uniform = sorted(int(k[len("uniform") :]) for k in runs if k.startswith("uniform"))
    for m in uniform:
        suffix = "" if m == DEFAULT_FRAMES else f"@{m}"
        for name, den in (
            ("kappa_random", "random1"),
            ("kappa_handpicked", "handpicked1"),
            ("tau", f"shuffled{m}"),
        ):
            value = _ratio_metric(runs, f"uniform{m}", den)
            if value is not None:
                metrics[name + suffix] = value
    rho = _ratio_metric(runs, "handpicked1", "random1")
    if rho is not None:
        metrics["rho"] = rho
    return metrics


def _run_order(key: str) -> tuple[int, int, str]:
    m = re.fullmatch(r"(uniform|shuffled)(-?\d+)", key)
    if m:
        return (0 if m.group(1) == "uniform" else 1, -int(m.group(2)), key)
    return (2 if key == "random1" else 3, 0, key)


def score_tomato(dataset_dir: PathLike, predictions: PathLike) -> dict[str, Any]:
    """Accuracy and TOMATO's κ / τ / ρ for predictions on a TOMATO-layout dataset.

    ``dataset_dir`` is a TOMATO root (``data/*.json``) or our dataset root (its ``tomato/``).
    ``predictions`` is TOMATO's own results folder (``results/{type}+{demo}/{frames}/{model}
    .jsonl``, lines with ``id`` and ``response``; the folder holding ``results/`` works too),
    or one JSONL whose lines have ``task``, ``id`` (the key into ``data/{task}.json``, or the
    entry's ``key``), ``response``, and optionally ``frames`` (default 16), ``setting``
    (``uniform`` default, ``shuffled``, ``random1``, ``handpicked1``) and ``model`` (default:
    the file name). Returns per model: ``runs`` keyed ``uniform16`` / ``shuffled16`` /
    ``random1`` / ``handpicked1`` (accuracy overall, per task, per demonstration type) and
    ``metrics`` (κ, τ, ρ in percent); plus ``problems``.
    """
    root = _tomato_root(dataset_dir)
    entries = _load_tomato(root)
    by_key = {(t, str(e.get("key"))): (t, qid) for (t, qid), e in entries.items()}
    problems = _Problems()
    pred = Path(predictions)
    if pred.is_dir():
        for sub in ("results", "parsed_results"):
            if (pred / sub).is_dir():
                pred = pred / sub
                break
        lines: Iterable[tuple[str, dict, dict]] = _tomato_results(pred, problems)
    elif pred.is_file():
        lines = _tomato_lines(pred, problems)
    else:
        raise FileNotFoundError(f"{pred}: no such predictions file or folder")

    answers: dict[str, dict[str, dict[tuple[str, str], bool]]] = defaultdict(dict)
    unparsable: dict[tuple[str, str], int] = defaultdict(int)
    for where, row, ctx in lines:
        task = ctx["task"]
        if not isinstance(task, str) or not task:
            problems.add(where, "missing 'task' (the reasoning type)")
            continue
        raw_id = row.get("id")
        if raw_id is None or isinstance(raw_id, bool | float | dict | list):
            problems.add(where, f"missing or invalid 'id': {raw_id!r}")
            continue
        key = (task, str(raw_id))
        if key not in entries:
            key = by_key.get(key, key)
        if key not in entries:
            problems.add(where, f"unknown id {raw_id!r} for task {task!r}; skipped")
            continue
        entry = entries[key]
        demo = ctx.get("demonstration_type")
        if demo is not None and demo != entry.get("demonstration_type"):
            problems.add(
                where,
                f"id {raw_id!r} is demonstration type {entry.get('demonstration_type')!r} in the "
                f"dataset, but the results folder says {demo!r}",
            )
        run = _run_key(ctx["setting"], ctx["frames"])
        model = ctx["model"]
        if key in answers[model].setdefault(run, {}):
            problems.add(
                where, f"duplicate prediction for {task}/{key[1]} in {model} {run}; kept the first"
            )
            continue
        response = _response(row)
        choice = parse_choice(response, entry["options"]) if response is not None else None
        if choice is None:
            problems.add(where, f"unparsable response {_short(response)}; counted wrong")
            unparsable[(model, run)] += 1
        gt = row.get("gt")
        if isinstance(gt, list) and gt:
            gt = gt[0]
        if isinstance(gt, str) and gt[:1].isalpha() and (len(gt) == 1 or not gt[1].isalpha()):
            want = LETTERS[entry["answer"]]
            if gt[0].upper() != want:
                problems.add(
                    where,
                    f"the line's gt {gt[:1]!r} disagrees with the dataset's answer {want!r} "
                    "(results from another dataset version?); scored against the dataset",
                )
        answers[model][run][key] = choice == entry["answer"]

    models: dict[str, Any] = {}
    for model in sorted(answers):
        runs = answers[model]
        models[model] = {
            "runs": {
                run: _tomato_summary(runs[run], unparsable[(model, run)], entries)
                for run in sorted(runs, key=_run_order)
            },
            "metrics": _tomato_metrics(runs),
        }
    return {
        "benchmark": "tomato",
        "dataset": str(root),
        "predictions": str(predictions),
        "questions": len(entries),
        "epsilon": EPSILON,
        "models": models,
        "problems": list(problems),
    }


# ---------------------------------------------------------------------------------------------
# Vinoground


def _load_vinoground(root: Path) -> tuple[dict[str, dict[str, Any]], dict[tuple[str, str], dict]]:
    """Pairs (``index -> {major, minors}``) and questions (``(kind, idx) -> {pair, gt, options}``).

    ``vinoground.csv``: columns 0-2 are index, major, minor (``;``-separated, may be empty), as
    Vinoground's ``get_score_all.py`` reads them; captions come from ``pos_cal`` / ``neg_cal``
    when the header names them (likely, per formats.md), else from the question text.
    """
    csv_path = root / "vinoground.csv"
    if not csv_path.is_file():
        raise FileNotFoundError(f"{csv_path}: no such file")
    with open(csv_path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise ValueError(f"{csv_path}: empty")
    header = [h.strip().lower() for h in rows[0]]
    col = {name: header.index(name) for name in ("pos_cal", "neg_cal") if name in header}
    pairs: dict[str, dict[str, Any]] = {}
    for n, row in enumerate(rows[1:], 2):
        if not any(c.strip() for c in row):
            continue
        if len(row) < 2:
            raise ValueError(f"{csv_path}:{n}: expected index, major, minor, ...")
        index = row[0].strip()
        if index in pairs:
            raise ValueError(f"{csv_path}:{n}: pair index {index!r} is repeated")
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
        data = _load_json(path)
        if not isinstance(data, list):
            raise ValueError(f"{path}: expected a JSON list of questions")
        for i, q in enumerate(data):
            idx = q.get("idx") if isinstance(q, dict) else None
            m = re.fullmatch(r"(.+)_(pos|neg)", str(idx)) if idx is not None else None
            gt = str(q.get("GT", "")).strip().upper() if isinstance(q, dict) else ""
            if m is None or gt not in ("A", "B"):
                raise ValueError(f"{path}[{i}]: needs idx '{{i}}_pos' / '{{i}}_neg' and GT A or B")
            pair, side = m.groups()
            if pair not in pairs:
                raise ValueError(f"{path}[{i}]: pair {pair!r} is not in {csv_path.name}")
            if (kind, str(idx)) in questions:
                raise ValueError(f"{path}[{i}]: idx {idx!r} is repeated")
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
            raise ValueError(f"{root}: pair {pair!r} lacks question(s) {missing}")
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
    predictions: PathLike | Sequence[PathLike], problems: _Problems
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
            for where, row in _records(base, problems):
                yield where, row, str(row.get("model", base.stem)), None
            return
        files = _prediction_files(base, problems)
        root = base if base.is_dir() else base.parent
    else:
        files = [Path(p) for p in predictions]
        for p in files:
            if not p.is_file():
                raise FileNotFoundError(f"{p}: no such predictions file")
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
        for where, row in _records(path, problems):
            yield where, row, run, kind


def _vino_group(pairs: list[tuple[bool, bool]]) -> dict[str, Any]:
    text = sum(t for t, _ in pairs)
    video = sum(v for _, v in pairs)
    group = sum(t and v for t, v in pairs)
    n = len(pairs)
    return {
        "pairs": n,
        "text": _pct(text, n),
        "video": _pct(video, n),
        "group": _pct(group, n),
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
    pairs, questions = _load_vinoground(root)
    problems = _Problems()
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
        response = _response(row)
        choice = parse_choice(response, q["options"]) if response is not None else None
        if choice is None:
            problems.add(where, f"unparsable response {_short(response)}; counted wrong")
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
        summary["per_major"] = {c: _vino_group(by_major[c]) for c in _ordered(by_major, VINO_MAJOR)}
        summary["per_minor"] = {c: _vino_group(by_minor[c]) for c in _ordered(by_minor, VINO_MINOR)}
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


# ---------------------------------------------------------------------------------------------
# Video-TT


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
        raise ValueError(f"{where}: a multiple_choice question needs a list of options")
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
    raise ValueError(f"{where}: multiple_choice answer {answer!r} names no option")


def _load_videott(root: Path) -> tuple[dict[str, list[str]], dict[str, dict[str, Any]]]:
    """Videos (``video_id -> [qid]``) and questions (``qid -> question with kind, video_id``)."""
    path = root / "videott.json" if root.is_dir() else root
    data = _load_json(path)
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of videos")
    videos: dict[str, list[str]] = {}
    questions: dict[str, dict[str, Any]] = {}
    for i, video in enumerate(data):
        where = f"{path}[{i}]"
        if not isinstance(video, dict) or not isinstance(video.get("questions"), list):
            raise ValueError(f"{where}: a video needs video_id and a list of questions")
        vid = str(video.get("video_id", ""))
        if not vid or vid in videos:
            raise ValueError(f"{where}: video_id {vid!r} is missing or repeated")
        videos[vid] = []
        for j, q in enumerate(video["questions"]):
            qwhere = f"{where}.questions[{j}]"
            kind = _kind(q.get("kind")) if isinstance(q, dict) else None
            if kind is None:
                raise ValueError(f"{qwhere}: kind must be one of {VIDEOTT_KINDS}")
            qid = str(q.get("qid") or f"{vid}:{kind}")
            if qid in questions:
                raise ValueError(f"{qwhere}: qid {qid!r} is repeated")
            entry = dict(q, kind=kind, video_id=vid, qid=qid, task=video.get("task"))
            if kind == "multiple_choice":
                entry["answer_index"] = _mc_answer(q, qwhere)
            elif not isinstance(q.get("answer"), str) or not q["answer"].strip():
                raise ValueError(f"{qwhere}: an open-ended question needs an answer string")
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
    problems = _Problems()
    answers: dict[str, dict[str, bool]] = defaultdict(dict)
    unparsable: dict[str, int] = defaultdict(int)
    for path in _prediction_files(Path(predictions), problems):
        for where, row in _records(path, problems):
            qid = row.get("qid")
            if qid is not None:
                qid = str(qid)
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
            response = _response(row)
            if q["kind"] == "multiple_choice":
                choice = parse_choice(response, q["options"]) if response is not None else None
                if choice is None:
                    problems.add(where, f"unparsable response {_short(response)}; counted wrong")
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
                per_kind[kind] = _acc(sum(got.get(q, False) for q in qids), len(qids))
        primary_right = all_right = 0
        for qids in videos.values():
            primary = [q for q in qids if questions[q]["kind"] == "primary"]
            if primary and all(got.get(q, False) for q in primary):
                primary_right += 1
                if all(got.get(q, False) for q in qids):
                    all_right += 1
        accs = [v["accuracy"] for v in per_kind.values() if v["accuracy"] is not None]
        overall = _acc(sum(got.get(q, False) for q in questions), len(questions))
        models[model] = {
            "overall": overall,
            "average": round(sum(accs) / len(accs), 2) if accs else None,
            "per_kind": per_kind,
            "robustness": {
                "all_correct": all_right,
                "primary_correct": primary_right,
                "score": _pct(all_right, primary_right),
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


def write_scores(path: PathLike, scores: dict[str, Any]) -> None:
    """Write scores as indented JSON, atomically (complete under its name or absent)."""
    write_json(path, scores)


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]], indent: str = "  ") -> str:
    cells = [[str(h) for h in headers]] + [["-" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(r: Sequence[str]) -> str:
        parts = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]
        return (indent + "  ".join(parts)).rstrip()

    rule = indent + "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), rule, *(line(r) for r in cells[1:])])


def _cell(acc: dict[str, Any] | None) -> str:
    if not acc or not acc.get("total"):
        return "-"
    return f"{acc['accuracy']:.1f} ({acc['correct']}/{acc['total']})"


def _num(value: float | None, unit: str = "") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.2f}{unit}"


def _format_problems(problems: list[dict[str, str]], limit: int) -> list[str]:
    if not problems:
        return ["problems: none"]
    out = [f"problems ({len(problems)}):"]
    out += [f"  {p['where']}: {p['reason']}" for p in problems[:limit]]
    if len(problems) > limit:
        out.append(f"  ... and {len(problems) - limit} more (see the JSON)")
    return out


METRIC_LABELS = {
    "kappa_random": "κ random frame",
    "kappa_handpicked": "κ hand-picked frame",
    "tau": "τ frame order",
    "rho": "ρ frame disparity",
}


def _format_tomato(scores: dict[str, Any]) -> list[str]:
    out = [f"TOMATO: {scores['questions']} questions in {scores['dataset']}"]
    for model, res in scores["models"].items():
        runs = res["runs"]
        out += ["", f"model {model}"]
        out.append(
            _table(
                ["run", "accuracy %", "correct", "answered", "unparsable", "missing"],
                [
                    [
                        k,
                        _num(r["accuracy"]),
                        r["correct"],
                        r["total"],
                        r["unparsable"],
                        r["missing"],
                    ]
                    for k, r in runs.items()
                ],
            )
        )
        for title, field in (
            ("task", "per_task"),
            ("demonstration type", "per_demonstration_type"),
            ("variation", "per_variation"),
        ):
            names = list(dict.fromkeys(n for r in runs.values() for n in r[field]))
            if not names:
                continue
            out.append("")
            out.append(
                _table(
                    [title, *runs],
                    [[n, *(_cell(r[field].get(n)) for r in runs.values())] for n in names],
                )
            )
        if res["metrics"]:
            out.append("")
            rows = []
            for name, m in res["metrics"].items():
                base, _, frames = name.partition("@")
                label = METRIC_LABELS.get(base, base) + (f" (m={frames})" if frames else "")
                rows.append(
                    [
                        label,
                        _num(m["value"], "%"),
                        f"{m['numerator']} {m['numerator_accuracy']:.1f}",
                        f"{m['denominator']} {m['denominator_accuracy']:.1f}",
                        m["questions"],
                    ]
                )
            out.append(
                _table(["metric", "value", "numerator %", "denominator %", "questions"], rows)
            )
    return out


def _format_vinoground(scores: dict[str, Any]) -> list[str]:
    out = [f"Vinoground: {scores['pairs']} pairs in {scores['dataset']} (chance 25 / 25 / 16.67)"]
    for model, res in scores["models"].items():
        out += ["", f"model {model}"]
        rows = [["all", res["pairs"], _num(res["text"]), _num(res["video"]), _num(res["group"])]]
        for field in ("per_major", "per_minor"):
            for cat, g in res[field].items():
                rows.append([cat, g["pairs"], _num(g["text"]), _num(g["video"]), _num(g["group"])])
        out.append(_table(["category", "pairs", "text %", "video %", "group %"], rows))
        qs = res["questions"]
        out.append(
            "  questions: "
            + "; ".join(
                f"{k} {v['correct']}/{v['answered']} right, {v['unparsable']} unparsable, "
                f"{v['missing']} missing"
                for k, v in qs.items()
            )
        )
    return out


def _format_videott(scores: dict[str, Any]) -> list[str]:
    out = [
        f"Video-TT: {scores['videos']} videos, {scores['questions']} questions in "
        f"{scores['dataset']}"
    ]
    for model, res in scores["models"].items():
        out += ["", f"model {model}"]
        rows = [[k, _cell(v)] for k, v in res["per_kind"].items()]
        rows.append(["average of kinds", _num(res["average"])])
        rows.append(["all questions", _cell(res["overall"])])
        rb = res["robustness"]
        rows.append(
            ["robustness", f"{_num(rb['score'])} ({rb['all_correct']}/{rb['primary_correct']})"]
        )
        out.append(_table(["kind", "accuracy % (right/total)"], rows))
        out.append(
            f"  answered {res['answered']}, missing {res['missing']}, "
            f"unparsable {res['unparsable']}"
        )
    return out


def format_scores(scores: dict[str, Any], max_problems: int = 20) -> str:
    """Human-readable tables for the output of any ``score_*`` function."""
    kind = scores.get("benchmark")
    formatter = {
        "tomato": _format_tomato,
        "vinoground": _format_vinoground,
        "videott": _format_videott,
    }.get(kind)
    if formatter is None:
        raise ValueError(f"unknown benchmark {kind!r} in scores")
    lines = formatter(scores)
    if not scores["models"]:
        lines.append("no predictions were scored")
    lines += ["", *_format_problems(scores["problems"], max_problems)]
    return "\n".join(lines) + "\n"
