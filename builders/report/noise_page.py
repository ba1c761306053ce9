"""``noise.html``: the temporal-noise clips, each as a model sees one frame of it (noise), as
its motion signal shows it (the still cells, where the objects pop out) and as it was drawn.

Self-contained like ``index.html`` (inline CSS, relative paths).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

from tempogen.generators.build import noise_pages
from tempogen.io import write_text
from tempogen.manifest import Row

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fafafa}
div.clip{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.7em;margin:.8em 0}
div.row{display:flex;gap:.8em;flex-wrap:wrap}
figure{margin:0}figure img{width:320px;height:auto;border:1px solid #ccc;display:block}
figcaption{color:#555;font-size:12px}.id{font-family:monospace;font-weight:bold}
""".strip()


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def noise_rows(rows: Sequence[Row]) -> list[Row]:
    """The rows whose clip is noise-encoded."""
    return [r for r in rows if (r.spec or {}).get("encoding")]


def write_noise_page(rows: Sequence[Row], out_dir: Path) -> Path | None:
    """Write ``out_dir/noise.html`` for the noise clips among ``rows`` (None when there are
    none): per clip its question and answer, the noise sheet (16 frames, each alone noise), the
    motion-signal sheet and the clean sheet."""
    clips = noise_rows(rows)
    if not clips:
        return None
    out_dir = Path(out_dir)
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>temporal-noise clips</title>",
        f"<style>{CSS}</style></head><body><h1>Temporal-only clips</h1>",
        f"<p>{len(clips)} clips whose every frame alone is noise: the objects show only as the "
        "cells that stay still from one frame to the next (SpookyBench's idea). Each row: what "
        "the model sees (16 sampled frames), the motion signal read from the encoded video "
        "(still cells in white) and the clean render. <a href='index.html'>all questions</a></p>",
    ]
    for r in clips:
        clean, motion = (p.relative_to(out_dir).as_posix() for p in noise_pages(out_dir, r.id))
        cert = (r.certificate or {}).get("temporal_noise") or {}
        figures = [
            (f"sheets/{r.id}.png", "what the model sees: noise"),
            (motion, f"motion signal (IoU with the truth >= {cert.get('min_iou', '?')})"),
            (clean, "clean render"),
        ]
        parts.append(
            f"<div class='clip'><span class='id'>{_e(r.id)}</span> {_e(r.generator)}"
            f"<p>{_e(r.question)} <b>{_e(r.answer_text)}</b></p><div class='row'>"
            + "".join(
                f"<figure><img loading='lazy' src='{_e(src)}' alt='{_e(cap)}'>"
                f"<figcaption>{_e(cap)}</figcaption></figure>"
                for src, cap in figures
            )
            + "</div></div>"
        )
    parts.append("</body></html>")
    path = out_dir / "noise.html"
    write_text(path, "\n".join(parts))
    return path
