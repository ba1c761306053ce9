"""Write scores as JSON and print them as plain-text tables."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from typing import Any

from tempogen.io import write_json

PathLike = str | os.PathLike[str]


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


def _pair_cell(inst: dict[str, Any] | None) -> str:
    if not inst or not inst.get("pairs"):
        return "-"
    return f"{inst['accuracy']:.1f} ({inst['correct']}/{inst['pairs']} pairs)"


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
        paired = {k: r["instance"] for k, r in runs.items() if r.get("instance")}
        if paired:
            out += ["", "  minimal pairs: instance accuracy % (both members right)"]
            names = list(dict.fromkeys(n for r in paired.values() for n in r["per_task"]))
            out.append(
                _table(
                    ["task", *paired],
                    [
                        [
                            n,
                            *(
                                _pair_cell(r if n == "all" else r["per_task"].get(n))
                                for r in paired.values()
                            ),
                        ]
                        for n in ["all", *names]
                    ],
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


def _format_any(scores: dict[str, Any]) -> list[str]:
    """Scores of a format without its own layout: one line per model, its results as given."""
    lines = [f"{scores.get('benchmark')}: {scores.get('dataset')}"]
    lines += [f"  {model}: {result}" for model, result in scores["models"].items()]
    return lines


def format_scores(scores: dict[str, Any], max_problems: int = 20) -> str:
    """Human-readable tables for the output of any ``score_*`` function."""
    kind = str(scores.get("benchmark"))
    builtin: dict[str, Callable[[dict[str, Any]], list[str]]] = {
        "tomato": _format_tomato,
        "vinoground": _format_vinoground,
        "videott": _format_videott,
    }
    formatter = builtin.get(kind)
    if formatter is None:  # a plugin format's scores: its own ``show``, or a line a model
        from tempogen.builders.exports import format_with

        fmt = format_with("score", kind, "scores: benchmark")
        formatter = fmt.show or _format_any
    lines = formatter(scores)
    if not scores["models"]:
        lines.append("no predictions were scored")
    lines += ["", *_format_problems(scores["problems"], max_problems)]
    return "\n".join(lines) + "\n"
