"""What every scorer shares: the benchmarks' constants, prediction readers and problem lists."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tempogen.errors import InputFileError, MissingFileError
from tempogen.io import parse_json, read_json, read_text

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
# shared helpers (public: the per-benchmark scorers use them)


class Problems(list):
    """``problems`` entries: where (``file:line`` or a path) and reason."""

    def add(self, where: Any, reason: str) -> None:
        self.append({"where": str(where), "reason": reason})


def percent(num: float, den: float) -> float | None:
    """``num / den`` in percent to two places; ``None`` for an empty denominator."""
    return round(100.0 * num / den, 2) if den else None


def accuracy(correct: int, total: int) -> dict[str, Any]:
    """A score entry: correct, total and accuracy in percent."""
    return {"correct": correct, "total": total, "accuracy": percent(correct, total)}


def prediction_records(path: Path, problems: Problems) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, row)`` for each JSON object in a JSONL file, or in a ``.json`` list.

    A ``.json`` file that is not one JSON document is read as JSONL. Malformed lines and
    non-objects become problems.
    """
    try:
        text = read_text(path, "predictions")
    except InputFileError as exc:
        problems.add(path, str(exc).removeprefix(f"{path}: "))
        return
    if path.suffix.lower() == ".json":
        try:
            doc = parse_json(text, path)
        except InputFileError:
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
            row = parse_json(line, path, n)
        except InputFileError as exc:
            problems.add(f"{path}:{n}", str(exc).removeprefix(f"{path}:{n}: "))
            continue
        if not isinstance(row, dict):
            problems.add(f"{path}:{n}", f"expected a JSON object, got {type(row).__name__}")
            continue
        yield f"{path}:{n}", row


def response_text(row: dict[str, Any]) -> str | None:
    """The response text; a list (Qwen's scripts write ``[text]``) gives its first string."""
    value = row.get("response")
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str)), None)
    return value if isinstance(value, str) else None


def short_repr(text: str | None, n: int = 60) -> str:
    """``repr(text)`` cut to ``n`` characters, for problem messages."""
    text = repr(text)
    return text if len(text) <= n else text[: n - 3] + "..."


def load_dataset_json(path: Path) -> Any:
    """A dataset JSON file (:func:`tempogen.io.read_json`); errors name the file and line."""
    if not path.is_file():
        raise MissingFileError(f"{path}: no such file")
    return read_json(path, "dataset file")


def ordered_names(keys: Iterable[str], first: Sequence[str]) -> list[str]:
    """Known names in their canonical order, then the rest sorted."""
    keys = set(keys)
    return [k for k in first if k in keys] + sorted(keys - set(first))


def prediction_files(path: Path, problems: Problems) -> list[Path]:
    """The prediction files a path names: the file itself, or a folder's JSONL / JSON files."""
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix.lower() in (".jsonl", ".json"))
        if not files:
            problems.add(path, "no .jsonl or .json prediction files in this folder")
        return files
    if not path.is_file():
        raise MissingFileError(f"{path}: no such predictions file or folder")
    return [path]


# ---------------------------------------------------------------------------------------------
# TOMATO


EXPECTED = {
    "tomato": "JSONL lines with 'task', 'id' and 'response' (or TOMATO's results folder)",
    "vinoground": "JSONL lines with 'idx', 'kind' (text|video) and 'response'",
    "videott": "JSONL lines with 'qid' (or 'video_id' and 'kind') and 'response'",
}


def require_matches(scores: dict[str, Any]) -> None:
    """Refuse a score that no prediction contributed to: a wrong file or format is an error
    naming the file, what was expected and the first problems, never an empty exit 0."""
    if scores.get("models"):
        return
    bench = scores.get("benchmark", "")
    first = "; ".join(f"{p['where']}: {p['reason']}" for p in scores.get("problems", [])[:3])
    raise InputFileError(
        f"{scores.get('predictions')}: no prediction matched a question of {scores.get('dataset')} "
        f"(expected {EXPECTED.get(bench, 'predictions for this dataset')})"
        + (f"; first problems: {first}" if first else "; the file holds no predictions")
    )
