"""One HTML report for a built dataset: what is in it, how it was checked, and pictures.

Plots (matplotlib, written as PNG beside the page): counts per task, generator and variation,
answer balance, clip durations and subject speeds, certificate pass rates, and the
ideal observer's kappa / tau / rho beside TOMATO's published values. Tables repeat the
numbers, and a strip of contact sheets per task links to the full index.
"""

from __future__ import annotations

import html
import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tempogen.io import write_bytes, write_text
from tempogen.manifest import Row
from tempogen.questions import TASKS

PALETTE = ["#2563eb", "#f97316", "#16a34a", "#dc2626", "#9333ea", "#0891b2", "#ca8a04"]


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> str:
    """Write a figure as PNG atomically; returns its file name."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    _plt().close(fig)
    write_bytes(path, buf.getvalue())
    return path.name


def _bar(
    path: Path, title: str, groups: Mapping[str, Mapping[str, float]], ylabel: str = "clips"
) -> str:
    """Grouped bars: ``groups[series][category] = value``."""
    plt = _plt()
    cats = list(dict.fromkeys(c for g in groups.values() for c in g))
    fig, ax = plt.subplots(
        figsize=(min(9.0, max(5.0, 0.45 * len(cats) * max(1, len(groups)))), 3.4)
    )
    width = 0.8 / max(1, len(groups))
    x = np.arange(len(cats))
    for k, (series, vals) in enumerate(groups.items()):
        ax.bar(
            x + k * width,
            [vals.get(c, 0) for c in cats],
            width,
            label=series,
            color=PALETTE[k % len(PALETTE)],
        )
    ax.set_xticks(x + width * (len(groups) - 1) / 2, cats, rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if len(groups) > 1:
        ax.legend(frameon=False, fontsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    return _save(fig, path)


def _panels(path: Path, title: str, groups: dict[str, dict[str, float]], ylabel: str) -> str:
    """One panel per category, each with its own axis: ``groups[series][category] = value``.
    Metrics on different scales (a ratio gain of 300% beside a model's 20%) never share one."""
    plt = _plt()
    cats = list(dict.fromkeys(c for g in groups.values() for c in g))
    fig, axes = plt.subplots(1, max(1, len(cats)), figsize=(2.3 * max(1, len(cats)) + 1.0, 3.2))
    axes = np.atleast_1d(axes)
    names = list(groups)
    for ax, cat in zip(axes, cats):
        vals = [groups[n].get(cat, np.nan) for n in names]
        ax.bar(
            range(len(names)), vals, color=[PALETTE[k % len(PALETTE)] for k in range(len(names))]
        )
        ax.set_xticks(range(len(names)), [str(k + 1) for k in range(len(names))])
        ax.set_title(cat, fontsize=9)
        ax.set_ylabel(ylabel)
        ax.spines[["top", "right"]].set_visible(False)
    handles = [
        plt.Rectangle((0, 0), 1, 1, color=PALETTE[k % len(PALETTE)]) for k in range(len(names))
    ]
    fig.legend(handles, [f"{k + 1}: {n}" for k, n in enumerate(names)], loc="lower center",
               ncol=min(3, len(names)), frameon=False, fontsize=8)  # fmt: skip
    fig.suptitle(title)
    fig.subplots_adjust(bottom=0.3, top=0.8, wspace=0.6)
    return _save(fig, path)


def _hist(path: Path, title: str, values: list[float], xlabel: str) -> str:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.hist(values, bins=20, color=PALETTE[0])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("clips")
    ax.set_title(title)
    ax.spines[["top", "right"]].set_visible(False)
    return _save(fig, path)


def subject_speed(row: Row) -> float | None:
    """Mean speed of the question's subject in frame diagonals per second, from its states."""
    labels = row.labels
    tracks = {t["name"]: t for t in row.tracks}
    objects = (labels.get("query") or {}).get("objects") or []
    if not objects or objects[0] not in tracks:
        return None
    t = tracks[objects[0]]
    x, y = np.asarray(t["x"]), np.asarray(t["y"])
    if len(x) < 2:
        return 0.0
    diag = math.hypot(labels["width"], labels["height"])
    return float(np.hypot(np.diff(x), np.diff(y)).mean() * labels["fps"] / diag)


def _table(head: list[str], body: list[list[Any]]) -> str:
    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.1f}"
        return html.escape(str(v))

    rows = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in r) + "</tr>" for r in body)
    return f"<table><thead><tr>{''.join(f'<th>{html.escape(h)}</th>' for h in head)}</tr></thead><tbody>{rows}</tbody></table>"


def write_report(
    rows: Sequence[Row],
    out_dir: Path,
    validity: dict[str, Any] | None = None,
    verify: dict[str, Any] | None = None,
    title: str = "tempogen dataset report",
) -> Path:
    """Write ``out_dir/report.html`` and its plots under ``out_dir/report/``."""
    out_dir = Path(out_dir)
    img = out_dir / "report"
    by_task: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_task[r.task].append(r)
    tasks = [t for t in TASKS if t in by_task] + sorted(t for t in by_task if t not in TASKS)

    counts = {
        "generated": {t: sum(1 for r in by_task[t] if not r.source) for t in tasks},
        "edited": {t: sum(1 for r in by_task[t] if r.source) for t in tasks},
    }
    figs = [("Clips per task", _bar(img / "tasks.png", "Clips per task", counts))]
    gens = Counter(r.generator for r in rows)
    figs.append(
        (
            "Clips per generator",
            _bar(img / "generators.png", "Clips per generator", {"clips": dict(gens)}),
        )
    )
    flags = Counter(k for r in rows for k, v in r.variation.items() if v)
    flags["none"] = sum(1 for r in rows if not any(r.variation.values()))
    figs.append(
        (
            "TOMATO variation flags",
            _bar(img / "variation.png", "Variation flags", {"clips": dict(flags)}),
        )
    )
    balance = {t: Counter(r.answer_text for r in by_task[t] if not r.source) for t in tasks}
    spread = {t: _pattern_spread(by_task[t]) for t in tasks}
    positions = {t: Counter(r.answer for r in by_task[t] if not r.source) for t in tasks}
    durations = [r.num_frames / r.fps for r in rows if r.fps and r.num_frames is not None]
    figs.append(
        ("Clip durations", _hist(img / "durations.png", "Clip durations", durations, "seconds"))
    )
    speeds = [s for s in (subject_speed(r) for r in rows) if s is not None]
    figs.append(
        (
            "Subject speeds",
            _hist(img / "speeds.png", "Mean subject speed", speeds, "frame diagonals / s"),
        )
    )

    sections: list[str] = []
    sections.append(
        "<h2>Contents</h2>"
        + _table(
            [
                "task",
                "generated",
                "edited",
                "answer classes",
                "answer spread within a pattern (max-min)",
                "answer positions used",
            ],
            [
                [
                    t,
                    counts["generated"][t],
                    counts["edited"][t],
                    len(balance[t]),
                    spread[t],
                    len(positions[t]),
                ]
                for t in tasks
            ]
            + [
                [
                    "total",
                    sum(counts["generated"].values()),
                    sum(counts["edited"].values()),
                    "",
                    "",
                    "",
                ]
            ],
        )
    )
    if validity:
        sections.append(_validity_section(validity, img, figs))
        if validity.get("shortcuts"):
            sections.append(_shortcuts_section(validity["shortcuts"], img, figs))
    if verify:
        sections.append(
            "<h2>Pixel verification</h2><p>Every simulated answer re-derived from the video's pixels "
            f"(16 sampled frames): <b>{verify['agreed']}/{verify['checked']} "
            f"({verify['percent']:.1f}%)</b> agree.</p>"
            + (
                ""
                if not verify.get("disagreements")
                else _table(["id", "manifest", "pixels"], verify["disagreements"])
            )
        )
    gallery = []
    for t in tasks:
        thumbs = "".join(
            f'<a href="index.html#{html.escape(r.id)}"><img loading="lazy" src="sheets/{html.escape(r.id)}.png" '
            f'alt="{html.escape(r.id)}" title="{html.escape(r.question)}"></a>'
            for r in by_task[t][:4]
        )
        gallery.append(f"<h3>{html.escape(t)}</h3><div class=strip>{thumbs}</div>")
    sections.append(
        "<h2>Contact sheets</h2><p>16 uniformly sampled frames per clip; <a href=index.html>all questions</a>.</p>"
        + "".join(gallery)
    )
    plots = "".join(
        f'<figure><img src="report/{name}" alt="{html.escape(cap)}"><figcaption>{html.escape(cap)}</figcaption></figure>'
        for cap, name in figs
    )
    page = f"""<!doctype html>
<html lang=en><head><meta charset=utf-8><title>{html.escape(title)}</title>
<style>
body{{font:14px/1.45 system-ui,sans-serif;margin:24px;max-width:1200px;color:#222}}
table{{border-collapse:collapse;margin:8px 0 16px}} td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}
td:first-child,th:first-child{{text-align:left}} th{{background:#f3f4f6}}
.plots{{display:flex;flex-wrap:wrap;gap:12px}} figure{{margin:0}} figure img{{max-width:580px}}
figcaption{{font-size:12px;color:#555}} .strip img{{width:280px;margin:2px;border:1px solid #ddd}}
</style>
<script>
// After load, record how many pictures the browser really decoded (checked by the tests).
addEventListener("load", () => {{
  const imgs = [...document.images].filter(i => !i.loading || i.loading !== "lazy");
  const ok = imgs.filter(i => i.complete && i.naturalWidth > 0).length;
  document.body.dataset.images = ok + "/" + imgs.length;
}});
</script></head><body>
<h1>{html.escape(title)}</h1>
<p><b>{len(rows)}</b> questions ({sum(counts["edited"].values())} edited variants) in {len(tasks)} tasks.</p>
<div class=plots>{plots}</div>
{"".join(sections)}
</body></html>
"""
    path = out_dir / "report.html"
    write_text(path, page)
    return path


def _pattern_spread(rows: list[Row]) -> int:
    """The largest max-min count of one pattern's answers among a task's generated rows
    (the planner balances answers per pattern, so this is 0 or 1 on a planned build)."""
    per: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        if not r.source:
            per[r.generator][r.answer_key] += 1
    return max((max(c.values()) - min(c.values()) for c in per.values()), default=0)


def _validity_section(validity: dict[str, Any], img: Path, figs: list[tuple[str, str]]) -> str:
    """Certificates and ideal-observer metrics beside TOMATO's published values."""
    overall = validity.get("overall", {})
    per_task = validity.get("tasks", {})
    published = validity.get("published", {})  # metric -> benchmark -> value
    metrics = [
        ("kappa_random", "κ (1 random frame)"),
        ("kappa_handpicked", "κ (1 handpicked)"),
        ("tau", "τ"),
        ("rho", "ρ"),
    ]
    series: dict[str, dict[str, float]] = {"tempogen (ideal observer)": {}}
    for key, label in metrics:
        if key in overall:
            series["tempogen (ideal observer)"][label] = float(overall[key])
        for bench, value in published.get(key, {}).items():
            series.setdefault(f"{bench} (models, published)", {})[label] = float(value)
    figs.append(
        (
            "κ, τ, ρ beside TOMATO's Tables 1-4 (the ideal observer and the published models' "
            "averages; each metric on its own axis)",
            _panels(img / "metrics.png", "Temporal-reasoning metrics", series, "%"),
        )
    )
    certs = {
        k: v for k, v in overall.get("certificates", {}).items() if not k.startswith("minimal_m")
    }
    if certs:
        rates = {"%": {k: float(v) for k, v in certs.items()}}
        figs.append(
            ("Certificate pass rates", _bar(img / "certificates.png", "Certificates", rates, "%"))
        )
    acc_keys = ["uniform16", "shuffled16", "random1", "handpicked1"]
    body = []
    for name, d in list(per_task.items()) + [("overall", overall)]:
        acc = d.get("accuracy", {})
        body.append(
            [name]
            + [acc.get(k, float("nan")) for k in acc_keys]
            + [d.get(k, float("nan")) for k, _ in metrics]
        )
    head = ["task", "acc 16", "acc 16 shuffled", "acc 1 random", "acc 1 handpicked"]
    table = _table(head + [label for _, label in metrics], body)
    benches = list(dict.fromkeys(b for vals in published.values() for b in vals))
    pub = _table(
        ["benchmark"] + [label for _, label in metrics],
        [[b] + [published.get(k, {}).get(b, "") for k, _ in metrics] for b in benches],
    )
    cert_rows = [
        [t] + [d.get("certificates", {}).get(k, "") for k in certs] for t, d in per_task.items()
    ]
    cert_rows.append(["overall"] + [certs[k] for k in certs])
    cert_table = _table(["task"] + list(certs), cert_rows)
    return (
        "<h2>Does it need temporal reasoning?</h2><p>An ideal observer answers each question from "
        "the sampled frames' exact states only; from one frame it can only guess among the "
        "options. Accuracies and κ, τ, ρ in %.</p>"
        + table
        + "<h3>TOMATO's published values (average of GPT-4o and Qwen2-VL, Tables 1-4)</h3>"
        + pub
        + "<h3>Certificates (% of questions passing)</h3>"
        + cert_table
    )


def _shortcuts_section(report: dict[str, Any], img: Path, figs: list[tuple[str, str]]) -> str:
    """Blind baselines (no video seen) per task beside chance: a plot and a table."""
    series: dict[str, dict[str, float]] = {}
    body = []
    for name, b in report["baselines"].items():
        for task, sc in [*sorted(b["tasks"].items()), ("all", b["overall"])]:
            series.setdefault(name, {})[task] = 100 * sc["accuracy"]
            series.setdefault("chance", {})[task] = 100 * sc["chance"]
            lo, hi = sc["ci95"]
            flag = "above chance" if sc["above_chance"] else ""
            body.append([name, task, sc["n"], f"{100 * sc['accuracy']:.1f}",
                         f"{100 * sc['chance']:.1f}", f"{100 * lo:.1f}-{100 * hi:.1f}", flag])  # fmt: skip
    figs.append(
        (
            "Blind baselines (no video) beside chance",
            _bar(img / "shortcuts.png", "Blind baselines: accuracy (%)", series, "%"),
        )
    )
    verdict = (
        "No blind baseline is above chance."
        if report.get("passed")
        else "<b>A blind baseline is above chance</b>: see the flagged rows."
    )
    return (
        "<h2>Can it be answered without watching?</h2><p>Each baseline answers from what a "
        "question shows besides the video (option position, option rank by value or length, "
        "the words through our sentence-transformers model, the file's metadata), trained and "
        f"scored by {report['folds']}-fold cross-validation grouped by source clip. Above "
        f"chance means the lower 99% bound is over chance. {verdict}</p>"
        + _table(["baseline", "task", "n", "acc %", "chance %", "95% CI", ""], body)
    )
