"""Validity audit: per-question certificates and an ideal observer, from labels alone.

TOMATO asks whether a benchmark's questions need many frames, in order: it compares accuracy
on 16 uniform frames with one random frame (multi-frame gain, kappa), with one hand-picked
frame, with the 16 frames shuffled (order sensitivity, tau), and the hand-picked frame with
the random one (information disparity, rho). Here the "model" is the ideal observer of
:mod:`tempogen.observe` run on the exact per-frame states, so the numbers say what the
questions themselves allow; no video is decoded, so the audit of a dataset takes seconds.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.builders.audit.sampling import SAMPLES, SETTINGS, setting_indices, shuffled, uniform
from tempogen.facts import answer_of
from tempogen.generators.motion import MAX_TURN_PER_SAMPLE as MAX_TURN
from tempogen.generators.motion import VIDEOTT_SAMPLES as VIDEOTT_FRAMES
from tempogen.labels import Labels
from tempogen.manifest import Row
from tempogen.questions import TASKS, answer_key, num_options

M_MAX = VIDEOTT_FRAMES  # largest sample count searched for the minimal m
SHUFFLE_SEEDS = tuple(range(8))  # orders tried for a certificate's shuffled fraction
EPS = 1e-6  # keeps TOMATO's accuracy ratios finite when a denominator is 0

# TOMATO (Shangguan et al., 2024), Tables 1-4: mean of GPT-4o and Qwen2-VL, in percent.
PUBLISHED: dict[str, dict[str, float]] = {
    "kappa_random": {
        "VITATECS": 23.4,
        "MVBench": 33.3,
        "TempCompass": 47.1,
        "ReXTime": 27.4,
        "TOMATO": 81.0,
    },
    "kappa_handpicked": {
        "VITATECS": 1.5,
        "MVBench": 6.7,
        "TempCompass": 17.6,
        "ReXTime": -7.1,
        "TOMATO": 66.3,
    },
    "tau": {"VITATECS": 3.2, "MVBench": 5.8, "TempCompass": 22.3, "ReXTime": 0.3, "TOMATO": 34.1},
    "rho": {"VITATECS": 21.6, "MVBench": 25.0, "TempCompass": 24.9, "ReXTime": 37.2, "TOMATO": 4.6},
}
METRICS = ("kappa_random", "kappa_handpicked", "tau", "rho")
METRIC_FORMULA = {
    "kappa_random": "Acc16 / Acc1random - 1",
    "kappa_handpicked": "Acc16 / Acc1handpicked - 1",
    "tau": "Acc16 / Acc16shuffled - 1",
    "rho": "Acc1handpicked / Acc1random - 1",
}


class _Keys:
    """Answer keys of one clip's question as the observer reads chosen frames, memoized."""

    def __init__(self, labels: Labels, fact: str | None = None) -> None:
        self.labels = labels
        self.fact = fact or labels.query.fact
        self.n = labels.num_frames
        self._memo: dict[tuple[int, ...], str | None] = {}

    def raw(self, idx: np.ndarray) -> str | None:
        """The key from the states at ``idx`` in time order, not memoized."""
        value = answer_of(self.labels, np.asarray(idx, dtype=np.int64))
        return None if value is None else answer_key(self.fact, value)

    def __call__(self, idx: np.ndarray) -> str | None:
        t = tuple(int(i) for i in idx)
        if t not in self._memo:
            self._memo[t] = self.raw(np.asarray(t, dtype=np.int64))
        return self._memo[t]

    def believed(self, shown: np.ndarray) -> str | None:
        """The key when frames ``shown`` are presented in that order as the sorted times.

        The observer takes the k-th frame shown to be the k-th in time, so a shuffled set is
        read as a (scrambled) motion, not quietly re-sorted by its true frame numbers.
        """
        shown = np.asarray(shown, dtype=np.int64)
        times = np.sort(shown)
        if np.array_equal(times, shown):
            return self(shown)
        take = np.arange(self.n)
        take[times] = shown
        q = self.labels.query
        moved = self.labels.with_tracks(tuple(self.labels.track(o).take(take) for o in q.objects))
        value = answer_of(moved, times)
        return None if value is None else answer_key(self.fact, value)


def _true_turns(labels: Labels, idx: np.ndarray) -> np.ndarray:
    """Degrees really turned between consecutive frames of ``idx`` (before a viewer wraps them)."""
    q = labels.query
    subj = labels.subject
    if q.kind in ("orbit", "loop"):
        per_frame = observe.turn_steps(labels, np.arange(labels.num_frames))
        cum = np.concatenate([[0.0], np.cumsum(per_frame)])
        return np.diff(cum[idx])
    return np.diff(subj.angle[idx])


def _aliasing(labels: Labels, idx: np.ndarray, same_as_full: bool) -> tuple[bool, float]:
    """(ok, max true turn): turns under 90 degrees a sample, read as turned, same answer."""
    if not labels.query.about_turning:
        return True, 0.0
    true = _true_turns(labels, idx)
    seen = observe.turn_steps(labels, idx)
    max_turn = float(np.abs(true).max()) if len(true) else 0.0
    read_right = bool(np.allclose(seen, true, atol=1e-6))  # no wagon-wheel wrap
    return (max_turn <= MAX_TURN and read_right and same_as_full), max_turn


def _minimal_m(keys: _Keys, truth: str | None) -> int | None:
    """Fewest uniform samples m (2..80) giving ``truth`` such that every m' in [m, 16] does too."""
    n = keys.n
    top = min(M_MAX, n)
    stable = min(SAMPLES, top)

    def ok(m: int) -> bool:
        return keys(uniform(n, m)) == truth

    if truth is None:
        return None
    if stable >= 2 and ok(stable):
        m = stable
        while m > 2 and ok(m - 1):
            m -= 1
        return m
    for m in range(stable + 1, top + 1):
        if ok(m):
            return m
    return None


def _certificate(keys: _Keys, true_key: str | None, seeds: Iterable[int]) -> dict[str, Any]:
    labels, n = keys.labels, keys.n
    full = keys(np.arange(n))
    truth = full if true_key is None else true_key

    def hit(key: str | None) -> bool:
        return key is not None and key == truth

    idx16 = uniform(n, SAMPLES)
    key16 = keys(idx16)
    single = any(hit(keys.raw(np.array([i]))) for i in range(n))
    hits = [hit(keys.believed(shuffled(n, SAMPLES, s))) for s in seeds]
    alias_ok, max_turn = _aliasing(labels, idx16, key16 == full)
    return {
        "true_key": truth,
        "full_key": full,
        "key_16": key16,
        "answerable_16": hit(key16),
        "minimal_m": _minimal_m(keys, truth),
        "single_frame_determines": single,
        "shuffled_determines": float(np.mean(hits)) if hits else 0.0,
        "aliasing_ok": alias_ok,
        "max_turn": round(max_turn, 2),
        "videott_80": hit(keys(uniform(n, min(VIDEOTT_FRAMES, n)))),
    }


def certificate(
    labels: Labels,
    fact: str | None = None,
    *,
    true_key: str | None = None,
    seeds: Iterable[int] = SHUFFLE_SEEDS,
) -> dict[str, Any]:
    """Why a question is (or is not) a temporal one, from its labels.

    ``true_key`` defaults to the answer from every frame. Fields: ``minimal_m``,
    ``single_frame_determines``, ``shuffled_determines`` (fraction of ``seeds`` whose shuffled
    order still gives the key), ``aliasing_ok``, ``videott_80``, ``answerable_16``, and the
    keys and turn they rest on.
    """
    return _certificate(_Keys(labels, fact), true_key, seeds)


def _accuracy(
    keys: _Keys,
    true_key: str,
    setting: str,
    seed: int,
    k: int,
    option_keys: Sequence[str] | None,
) -> float:
    got = keys.believed(setting_indices(setting, keys.labels, seed))
    if got is not None and got == true_key:
        return 1.0
    if got is None or (option_keys is not None and got not in option_keys):
        return 1.0 / k
    return 0.0


def observer_accuracy(
    labels: Labels,
    fact: str | None,
    true_key: str,
    setting: str,
    seed: int = 0,
    *,
    num_options: int | None = None,
    option_keys: Sequence[str] | None = None,
) -> float:
    """Expected accuracy of the ideal observer on one question in one of :data:`SETTINGS`.

    1 when the frames (in the order shown) give ``true_key``; ``1/num_options`` when they
    determine nothing, or, with ``option_keys``, an answer no option offers (it must guess);
    0 for a wrong answer it can pick. ``num_options`` defaults to the question's usual count.
    """
    keys = _Keys(labels, fact)
    k = num_options or _default_options(keys)
    return _accuracy(keys, true_key, setting, seed, k, option_keys)


def _default_options(keys: _Keys) -> int:
    return num_options(keys.fact, keys.labels.query.objects, keys.labels.meta.get("answer_keys"))


def ratio_gain(a: float, b: float) -> float:
    """TOMATO's metrics: ``a / b - 1`` in percent, ``b`` padded by a small epsilon."""
    return 100.0 * (a / (b + EPS) - 1.0)


def row_seed(seed: int, row_id: str) -> int:
    """A per-question seed: different rows get different random frames and orders (the audit
    and the model runner show the same frames)."""
    return zlib.crc32(f"{seed}:{row_id}".encode())


def _problems(cert: dict[str, Any]) -> list[str]:
    out = []
    if cert["full_key"] != cert["true_key"]:
        out.append(f"every-frame answer {cert['full_key']!r} is not the key")
    if not cert["answerable_16"]:
        out.append(f"16 frames answer {cert['key_16']!r}")
    if cert["single_frame_determines"]:
        out.append("one frame determines the answer")
    if not cert["aliasing_ok"]:
        out.append(f"rotation aliasing (max turn {cert['max_turn']} deg/sample)")
    if not cert["videott_80"]:
        out.append("80 frames give another answer")
    if cert["minimal_m"] is None:
        out.append("no stable minimal frame count")
    return out


def _summary(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracies, TOMATO's ratios and certificate pass rates over some audited rows."""
    if not items:
        return {"count": 0}

    def pct(values: Iterable[float]) -> float:
        return round(100.0 * float(np.mean(list(values))), 2)

    a = {s: float(np.mean([it["accuracy"][s] for it in items])) for s in SETTINGS}
    acc = {s: round(100.0 * v, 2) for s, v in a.items()}

    def gain(x: str, y: str) -> float:
        return round(ratio_gain(a[x], a[y]), 2) + 0.0  # + 0.0: no "-0.0" from the epsilon

    certs = [it["certificate"] for it in items]
    ms = [c["minimal_m"] for c in certs if c["minimal_m"] is not None]
    return {
        "count": len(items),
        "accuracy": acc,
        "kappa_random": gain("uniform16", "random1"),
        "kappa_handpicked": gain("uniform16", "handpicked1"),
        "tau": gain("uniform16", "shuffled16"),
        "rho": gain("handpicked1", "random1"),
        "certificates": {
            "answerable_16": pct(c["answerable_16"] for c in certs),
            "not_single_frame": pct(not c["single_frame_determines"] for c in certs),
            "aliasing_ok": pct(c["aliasing_ok"] for c in certs),
            "videott_80": pct(c["videott_80"] for c in certs),
            "shuffled_determines": pct(c["shuffled_determines"] for c in certs),
            "minimal_m_mean": round(float(np.mean(ms)), 2) if ms else None,
            "minimal_m_max": max(ms) if ms else None,
            "minimal_m_missing": len(certs) - len(ms),
        },
    }


def audit_row(row: Row, seed: int = 0) -> dict[str, Any] | None:
    """Certificate and the four observer accuracies of one manifest row (None without tracks)."""
    if "tracks" not in row.labels:
        return None
    try:
        labels = Labels.from_json(row.labels)
        keys = _Keys(labels)
        cert = _certificate(keys, row.answer_key, SHUFFLE_SEEDS)
        truth = cert["true_key"]
        k = len(row.options) if row.options else _default_options(keys)
        rs = row_seed(seed, row.id)
        option_keys = list(row.option_keys) if row.option_keys is not None else None
        acc = {s: _accuracy(keys, truth, s, rs, k, option_keys) for s in SETTINGS}
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"row {row.id!r}: cannot audit its labels: {exc}") from exc
    return {
        "id": row.id,
        "task": str(row.task),
        "generator": row.generator,
        "certificate": cert,
        "accuracy": acc,
        "problems": _problems(cert),
    }


def dataset_seed(manifest: str | os.PathLike[str]) -> int:
    """The seed a build audited its dataset with (its ``config.json``), else 0: so that
    ``tempogen audit validity`` on a built dataset gives the figures of its report."""
    config = Path(manifest).parent / "config.json"
    try:
        return int(json.loads(config.read_text(encoding="utf-8")).get("seed", 0))
    except (OSError, ValueError, AttributeError):
        return 0


def validity_report(rows: Sequence[Row], seed: int = 0) -> dict[str, Any]:
    """Audit every row with per-frame tracks: per task and overall, with TOMATO's numbers.

    Rows of external clips (labels without tracks) are counted as skipped.
    """
    audited = []
    for row in rows:
        item = audit_row(row, seed)
        if item is not None:
            audited.append(item)
    tasks = sorted({it["task"] for it in audited}, key=_task_order)
    return {
        "seed": seed,
        "audited": len(audited),
        "skipped": len(rows) - len(audited),
        "tasks": {t: _summary([it for it in audited if it["task"] == t]) for t in tasks},
        "overall": _summary(audited),
        "published": PUBLISHED,
        "problems": [
            {"id": it["id"], "task": it["task"], "problems": it["problems"]}
            for it in audited
            if it["problems"]
        ],
        "rows": [{k: it[k] for k in ("id", "task", "certificate", "accuracy")} for it in audited],
    }


def _task_order(task: str) -> tuple[int, str]:
    return (TASKS.index(task) if task in TASKS else len(TASKS), task)


def _fmt(v: Any, width: int, digits: int = 1) -> str:
    if v is None:
        return "-".rjust(width)
    if isinstance(v, float):
        return f"{v:.{digits}f}".rjust(width)
    return str(v).rjust(width)


def format_report(report: dict[str, Any], max_problems: int = 20) -> str:
    """A plain-text report: accuracies, TOMATO's ratios beside published ones, pass rates."""
    lines = [
        f"validity audit: {report['audited']} questions with per-frame labels"
        f" (skipped {report['skipped']} without them), seed {report['seed']}",
        "ideal observer accuracy (%) by frames shown; TOMATO's ratios (%)",
    ]
    head = (
        f"{'task':<20}{'n':>5}{'U16':>7}{'S16':>7}{'R1':>7}{'H1':>7}"
        f"{'kappaR':>9}{'kappaH':>9}{'tau':>8}{'rho':>8}"
    )
    lines += [head, "-" * len(head)]
    groups = [*report["tasks"].items(), ("overall", report["overall"])]
    for name, s in groups:
        if not s.get("count"):
            lines.append(f"{name:<20}{0:>5}")
            continue
        a = s["accuracy"]
        lines.append(
            f"{name:<20}{s['count']:>5}"
            + "".join(_fmt(a[k], 7) for k in SETTINGS)
            + _fmt(s["kappa_random"], 9)
            + _fmt(s["kappa_handpicked"], 9)
            + _fmt(s["tau"], 8)
            + _fmt(s["rho"], 8)
        )
    lines += ["", "beside TOMATO's Tables 1-4 (mean of GPT-4o and Qwen2-VL, %)"]
    benches = list(PUBLISHED["tau"])
    head = f"{'metric':<18}{'formula':<30}{'ours':>8}" + "".join(f"{b:>12}" for b in benches)
    lines += [head, "-" * len(head)]
    overall = report["overall"]
    for m in METRICS:
        lines.append(
            f"{m:<18}{METRIC_FORMULA[m]:<30}{_fmt(overall.get(m), 8)}"
            + "".join(_fmt(PUBLISHED[m][b], 12) for b in benches)
        )
    lines += ["", "certificate pass rates (%)"]
    head = (
        f"{'task':<20}{'n':>5}{'ans16':>7}{'not1f':>7}{'alias':>7}{'vtt80':>7}"
        f"{'shuf':>7}{'mean m':>8}{'max m':>7}"
    )
    lines += [head, "-" * len(head)]
    for name, s in groups:
        if not s.get("count"):
            continue
        c = s["certificates"]
        lines.append(
            f"{name:<20}{s['count']:>5}"
            + "".join(
                _fmt(c[k], 7)
                for k in (
                    "answerable_16",
                    "not_single_frame",
                    "aliasing_ok",
                    "videott_80",
                    "shuffled_determines",
                )
            )
            + _fmt(c["minimal_m_mean"], 8)
            + _fmt(c["minimal_m_max"], 7)
        )
    lines += [
        "",
        "U16/S16: 16 uniform frames in order/shuffled; R1/H1: one random/hand-picked frame;",
        "ans16: 16 frames give the key; not1f: no single frame does; alias: turns under 90",
        "deg per sample and read as turned; vtt80: 80 frames agree; shuf: shuffled orders that",
        "still give the key; m: fewest uniform frames that give the key from there to 16 on.",
    ]
    problems = report["problems"]
    lines.append("")
    lines.append(f"questions with a failed check: {len(problems)}")
    for p in problems[:max_problems]:
        lines.append(f"  {p['id']} ({p['task']}): " + "; ".join(p["problems"]))
    if len(problems) > max_problems:
        lines.append(f"  ... and {len(problems) - max_problems} more")
    return "\n".join(lines)
