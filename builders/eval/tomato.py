"""Score predictions on the TOMATO layout: accuracy per task and setting, and TOMATO's κ, τ, ρ."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from tempogen.builders.eval.answers import LETTERS, parse_choice
from tempogen.builders.eval.common import (
    DEFAULT_FRAMES,
    EPSILON,
    SETTING_ALIASES,
    SINGLE_FRAME_SETTINGS,
    Problems,
    accuracy,
    load_dataset_json,
    ordered_names,
    prediction_records,
    response_text,
    short_repr,
)
from tempogen.errors import InputFileError, MissingFileError
from tempogen.questions import TASKS, VARIATION_KEYS

PathLike = str | os.PathLike[str]


def _tomato_root(dataset_dir: PathLike) -> Path:
    root = Path(dataset_dir)
    if (root / "data").is_dir():
        return root
    if (root / "tomato" / "data").is_dir():
        return root / "tomato"
    raise MissingFileError(f"{root}: no TOMATO layout here (neither data/ nor tomato/data/)")


def _load_tomato(root: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """``(reasoning_type, id) -> entry`` for every ``data/*.json``."""
    entries: dict[tuple[str, str], dict[str, Any]] = {}
    files = sorted((root / "data").glob("*.json"))
    if not files:
        raise MissingFileError(f"{root / 'data'}: no reasoning-type JSON files")
    for path in files:
        data = load_dataset_json(path)
        if not isinstance(data, dict):
            raise InputFileError(f"{path}: expected a JSON object keyed by question id")
        for qid, entry in data.items():
            ok = (
                isinstance(entry, dict)
                and isinstance(entry.get("options"), list)
                and isinstance(entry.get("answer"), int)
                and 0 <= entry["answer"] < len(entry["options"])
            )
            if not ok:
                raise InputFileError(f"{path}: entry {qid!r} needs options and an answer index")
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
    root: Path, problems: Problems
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
        for where, row in prediction_records(path, problems):
            yield where, row, context


def _tomato_lines(path: Path, problems: Problems) -> Iterator[tuple[str, dict[str, Any], dict]]:
    """Lines of one predictions JSONL: task, id, response, optional frames / setting / model."""
    for where, row in prediction_records(path, problems):
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
        given = entry.get("variation")
        variation = given if isinstance(given, dict) else {}
        for flag in VARIATION_KEYS:
            if variation.get(flag):
                by_var[flag].append(ok)
    correct = sum(answers.values())
    out = accuracy(correct, len(answers))
    out["unparsable"] = unparsable
    out["missing"] = len(entries) - len(answers)
    out["per_task"] = {
        t: accuracy(sum(by_task[t]), len(by_task[t])) for t in ordered_names(by_task, TASKS)
    }
    out["per_demonstration_type"] = {
        d: accuracy(sum(by_demo[d]), len(by_demo[d]))
        for d in ordered_names(by_demo, ("human", "object", "simulated"))
    }
    out["per_variation"] = {
        f: accuracy(sum(by_var[f]), len(by_var[f])) for f in VARIATION_KEYS if by_var[f]
    }
    instance = instance_accuracy(answers, entries)
    if instance["pairs"]:
        out["instance"] = instance
    return out


def instance_accuracy(
    answers: dict[tuple[str, str], bool], entries: dict[tuple[str, str], dict[str, Any]]
) -> dict[str, Any]:
    """TimeBlind's instance accuracy: the share of minimal pairs (entries sharing a ``pair``
    id) whose two members were both answered right, overall and per task, over the pairs
    whose members the run answered both (``pairs``; ``incomplete``: only one answered)."""
    members: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for key, entry in entries.items():
        if isinstance(entry.get("pair"), str) and entry["pair"]:
            members[entry["pair"]].append(key)
    by_task: dict[str, list[bool]] = defaultdict(list)
    incomplete = 0
    for keys in members.values():
        if len(keys) != 2:
            continue
        if not all(k in answers for k in keys):
            incomplete += any(k in answers for k in keys)
            continue
        by_task[keys[0][0]].append(all(answers[k] for k in keys))
    both = [ok for oks in by_task.values() for ok in oks]
    out = accuracy(sum(both), len(both))
    out["pairs"] = out.pop("total")
    out["incomplete"] = incomplete
    out["per_task"] = {
        t: {**accuracy(sum(by_task[t]), len(by_task[t]))} for t in ordered_names(by_task, TASKS)
    }
    for v in out["per_task"].values():
        v["pairs"] = v.pop("total")
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
    problems = Problems()
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
        raise MissingFileError(f"{pred}: no such predictions file or folder")

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
        response = response_text(row)
        choice = parse_choice(response, entry["options"]) if response is not None else None
        if choice is None:
            problems.add(where, f"unparsable response {short_repr(response)}; counted wrong")
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
