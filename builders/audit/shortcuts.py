"""Blind baselines: how well a reader that never watches a clip answers its question.

A temporal benchmark is worth only what its shortcuts leave (TVBench's text-only baselines,
VBenchComp's "answerable without video" tags). Each baseline here answers from what a
question shows besides the video: where the right option tends to sit (``position``), how it
ranks among the options sorted by value or by length (``rank``), what the words say
(``text``: question and option embedded with the sentence-transformers model we ship, a
logistic regression on top) and what the file says (``metadata``: duration, frame rate,
size, generator). Every baseline learns on some clips and is scored on others
(cross-validation in folds grouped by source clip, so an edited variant never scores on what
its source taught), per task and overall, with Wilson intervals. A baseline is *above
chance* when its lower 99% bound exceeds the mean chance of the questions it answered
(1 / options): many rules are tried, hence the wider bound. Fewer than ``MIN_JUDGED``
questions (a tiny trial build) are reported but not judged.
"""

from __future__ import annotations

import math
import os
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tempogen.errors import ConfigurationError
from tempogen.manifest import Row, RowLike, as_rows

FOLDS = 5
Z95, Z99 = 1.959964, 2.575829
BASELINES = ("position", "rank", "text", "metadata")
MIN_TEXT = 60  # fewer questions than this: the text classifier is skipped (too few to learn)
MIN_JUDGED = 30  # a task with fewer questions is reported, not judged above chance

# The metadata baseline also reads the video's size, ``row.extra["video_bytes"]``
# (:func:`with_sizes`), which no manifest field holds.
VIDEO_BYTES = "video_bytes"
Predictor = Callable[[Row], int]


def wilson(correct: int, n: int, z: float) -> tuple[float, float]:
    """Wilson score interval of a proportion ``correct / n`` at normal quantile ``z``."""
    if n == 0:
        return 0.0, 1.0
    p = correct / n
    denom = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, mid - half), min(1.0, mid + half)


def group_of(row: Row) -> str:
    """The source clip a row comes from: an edited variant (``id~pipeline``) shares its
    source's group, so no fold trains on a clip another fold scores."""
    return row.id.split("~", 1)[0]


def fold_of(row: Row, folds: int = FOLDS) -> int:
    """A fold fixed by the row's group (the same manifest always splits the same way)."""
    return zlib.crc32(group_of(row).encode()) % folds


def _numbers(options: Sequence[str]) -> list[float] | None:
    """The options as numbers when every one is a number (counts), else None."""
    try:
        return [float(str(o).strip().rstrip(".")) for o in options]
    except ValueError:
        return None


def option_ranks(options: Sequence[str]) -> list[int]:
    """Each option's rank (0 = smallest) among the options sorted by value when they are all
    numbers, else by length in characters (ties by text): what a reader can rank blind."""
    nums = _numbers(options)
    keys = [(v, str(o)) for v, o in zip(nums, options)] if nums else [(len(o), o) for o in options]
    order = sorted(range(len(options)), key=lambda i: keys[i])
    ranks = [0] * len(options)
    for r, i in enumerate(order):
        ranks[i] = r
    return ranks


def _task_majority(train: list[Row], value: Callable[[Row], Any]) -> dict[tuple[str, int], Any]:
    """Per (task, number of options): the most common ``value`` among training rows."""
    counts: dict[tuple[str, int], Counter[Any]] = defaultdict(Counter)
    for r in train:
        counts[(r.task, len(r.options))][value(r)] += 1
    return {
        k: sorted(c.items(), key=lambda kv: (-kv[1], str(kv[0])))[0][0] for k, c in counts.items()
    }


def fit_position(train: list[Row]) -> Predictor:
    """Always the option position the right answer held most often in training."""
    best = _task_majority(train, lambda r: r.answer)
    return lambda r: int(best.get((r.task, len(r.options)), 0))


def fit_rank(train: list[Row]) -> Predictor:
    """Always the option of the rank (by value or length) the right answer held most often."""
    best = _task_majority(train, lambda r: option_ranks(r.options)[r.answer])

    def predict(r: Row) -> int:
        want = best.get((r.task, len(r.options)), 0)
        return option_ranks(r.options).index(min(want, len(r.options) - 1))

    return predict


def _pair_text(row: Row, option: str) -> str:
    return f"{row.question} Answer: {option}"


def fit_text(train: list[Row], embed: Callable[[list[str]], np.ndarray]) -> Predictor:
    """A logistic regression on embedded (question, option) texts, trained to tell right
    options from wrong ones; the highest-scoring option is the answer."""
    from sklearn.linear_model import LogisticRegression

    texts = [_pair_text(r, o) for r in train for o in r.options]
    y = [int(i == r.answer) for r in train for i in range(len(r.options))]
    if len(set(y)) < 2:
        return lambda r: 0
    model = LogisticRegression(max_iter=2000, C=1.0, class_weight="balanced")
    model.fit(embed(texts), y)

    def predict(r: Row) -> int:
        scores = model.decision_function(embed([_pair_text(r, o) for o in r.options]))
        return int(np.argmax(scores))

    return predict


def metadata_features(row: Row, generators: list[str]) -> np.ndarray:
    """What a file says without being watched: duration, frame rate, frame count, size in
    bytes per second, and which generator made it (one-hot)."""
    fps = float(row.fps or 0.0)
    frames = float(row.num_frames or 0.0)
    duration = frames / fps if fps else 0.0
    size = float(row.extra.get(VIDEO_BYTES) or 0.0)
    gen = [float(row.generator == g) for g in generators]
    return np.array([duration, fps, frames / 100.0, size / max(duration, 1e-9) / 1e5, *gen])


def fit_metadata(train: list[Row]) -> Predictor:
    """Per task, a multinomial logistic regression from the file's metadata to the answer
    key; the option with that key is the answer (the first option when none has it)."""
    from sklearn.linear_model import LogisticRegression

    generators = sorted({r.generator for r in train})
    models: dict[str, Any] = {}
    for task in sorted({r.task for r in train}):
        rows = [r for r in train if r.task == task and r.answer_key is not None]
        keys = [str(r.answer_key) for r in rows]
        if len(set(keys)) < 2:
            continue
        x = np.stack([metadata_features(r, generators) for r in rows])
        mu, sd = x.mean(0), x.std(0) + 1e-9
        m = LogisticRegression(max_iter=2000).fit((x - mu) / sd, keys)
        models[task] = (m, mu, sd)

    def predict(r: Row) -> int:
        got = models.get(r.task)
        keys = [str(k) for k in r.option_keys or ()]
        if got is None or not keys:
            return 0
        m, mu, sd = got
        proba = m.predict_proba(((metadata_features(r, generators) - mu) / sd)[None])[0]
        score = {str(c): p for c, p in zip(m.classes_, proba)}
        return int(np.argmax([score.get(k, 0.0) for k in keys]))

    return predict


def _cross_validate(
    rows: list[Row], fit: Callable[[list[Row]], Predictor], folds: int
) -> list[bool]:
    """Whether each row is answered right by a baseline fitted on the other folds."""
    hits = [False] * len(rows)
    fold = [fold_of(r, folds) for r in rows]
    for k in range(folds):
        test = [i for i, f in enumerate(fold) if f == k]
        if not test:
            continue
        predict = fit([r for r, f in zip(rows, fold) if f != k])
        for i in test:
            hits[i] = predict(rows[i]) == rows[i].answer
    return hits


def _score(rows: list[Row], hits: list[bool]) -> dict[str, Any]:
    n, correct = len(rows), int(sum(hits))
    chance = float(np.mean([1.0 / len(r.options) for r in rows])) if rows else 0.0
    lo95, hi95 = wilson(correct, n, Z95)
    lo99, hi99 = wilson(correct, n, Z99)
    return {
        "n": n,
        "correct": correct,
        "accuracy": correct / n if n else 0.0,
        "chance": chance,
        "ci95": [lo95, hi95],
        "ci99": [lo99, hi99],
        "above_chance": bool(n >= MIN_JUDGED and lo99 > chance),
    }


def _embedder(model: str | None) -> Callable[[list[str]], np.ndarray]:
    """Texts to vectors with the shipped sentence-transformers model, each text once."""
    from tempogen.retrieval.embed import shared_encoder

    enc = shared_encoder(model)
    memo: dict[str, np.ndarray] = {}

    def embed(texts: list[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in memo]
        if new:
            memo.update(zip(new, enc.encode(new)))
        return np.stack([memo[t] for t in texts])

    return embed


def shortcut_report(
    rows: Sequence[RowLike],
    baselines: Sequence[str] = BASELINES,
    *,
    folds: int = FOLDS,
    model: str | None = None,
) -> dict[str, Any]:
    """Every blind baseline's cross-validated accuracy on ``rows`` (manifest rows with
    ``question``, ``options``, ``answer``, ``task``), overall and per task, with Wilson
    intervals and whether it is above chance; ``passed`` when none is."""
    unknown = [b for b in baselines if b not in BASELINES]
    if unknown:
        raise ConfigurationError(
            f"unknown baseline(s) {', '.join(unknown)}; known: {', '.join(BASELINES)}"
        )
    usable = [r for r in as_rows(rows) if r.options]
    fits: dict[str, Callable[[list[Row]], Predictor]] = {
        "position": fit_position,
        "rank": fit_rank,
        "metadata": fit_metadata,
    }
    out: dict[str, Any] = {"folds": folds, "questions": len(usable), "baselines": {}}
    if "text" in baselines and len(usable) < MIN_TEXT:
        baselines = [b for b in baselines if b != "text"]
        out["skipped"] = {"text": f"{len(usable)} questions, fewer than {MIN_TEXT}"}
    if "text" in baselines:
        embed = _embedder(model)
        fits["text"] = lambda train: fit_text(train, embed)
    tasks = sorted({r.task for r in usable})
    for name in baselines:
        hits = _cross_validate(usable, fits[name], folds)
        per_task = {
            t: _score(
                [r for r in usable if r.task == t],
                [h for r, h in zip(usable, hits) if r.task == t],
            )
            for t in tasks
        }
        out["baselines"][name] = {"overall": _score(usable, hits), "tasks": per_task}
    out["passed"] = not any(
        s["above_chance"]
        for b in out["baselines"].values()
        for s in [b["overall"], *b["tasks"].values()]
    )
    return out


def format_shortcuts(report: dict[str, Any]) -> str:
    """The report as a table: per baseline and task, accuracy against chance, the 95%
    interval, and a flag where the lower 99% bound is above chance."""
    lines = [
        f"blind baselines, {report['questions']} questions, {report['folds']}-fold "
        "cross-validation grouped by source clip",
        f"{'baseline':10s} {'task':20s} {'n':>5s} {'acc':>6s} {'chance':>7s} {'95% CI':>15s}",
    ]
    for name, b in report["baselines"].items():
        for task, s in [("all", b["overall"]), *sorted(b["tasks"].items())]:
            lo, hi = s["ci95"]
            flag = "  ABOVE CHANCE" if s["above_chance"] else ""
            lines.append(
                f"{name:10s} {task:20s} {s['n']:5d} {100 * s['accuracy']:5.1f}% "
                f"{100 * s['chance']:6.1f}% {100 * lo:6.1f}-{100 * hi:5.1f}%{flag}"
            )
    lines.append(
        "passed: no blind baseline above chance"
        if report["passed"]
        else "FAILED: a blind baseline is above chance (lower 99% bound over chance)"
    )
    return "\n".join(lines)


def with_sizes(rows: Sequence[RowLike], root: Path) -> list[Row]:
    """Rows with their video's size in bytes as ``extra["video_bytes"]`` (``video`` relative
    to ``root``; 0 if absent)."""
    out = []
    for row in as_rows(rows):
        video = root / row.video
        size = video.stat().st_size if video.is_file() else 0
        out.append(row.edited(extra={**row.extra, VIDEO_BYTES: size}))
    return out


def manifest_shortcuts(
    manifest: str | os.PathLike[str],
    baselines: Sequence[str] = BASELINES,
    *,
    model: str | None = None,
) -> dict[str, Any]:
    """:func:`shortcut_report` on a manifest; each row's video size (beside the manifest)
    joins its metadata."""
    from tempogen.manifest import read_manifest

    path = Path(manifest)
    return shortcut_report(with_sizes(read_manifest(path), path.parent), baselines, model=model)


def above_chance(report: dict[str, Any]) -> list[str]:
    """Where a baseline is above chance, as ``baseline (task): accuracy vs chance``."""
    out = []
    for name, b in report["baselines"].items():
        for task, s in [("all tasks", b["overall"]), *sorted(b["tasks"].items())]:
            if s["above_chance"]:
                out.append(
                    f"{name} ({task}): {100 * s['accuracy']:.1f}% vs chance "
                    f"{100 * s['chance']:.1f}% (99% lower bound {100 * s['ci99'][0]:.1f}%)"
                )
    return out
