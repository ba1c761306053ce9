"""One static HTML page indexing a dataset: every sample's question, options, answer and sheet.

Self-contained (inline CSS, no scripts, no external assets) so it opens from disk or any static
host; every path in it is relative to the page's own folder.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tempogen.io import write_text
from tempogen.questions import TASKS

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fafafa}
h1{margin:0 0 .3em}
table.counts{border-collapse:collapse;margin:.5em 0 1.5em}
table.counts td,table.counts th{border:1px solid #ccc;padding:.2em .7em;text-align:left}
table.counts td.n{text-align:right}
section.task{margin-bottom:2em}
div.sample{display:flex;gap:1em;background:#fff;border:1px solid #ddd;border-radius:6px;
padding:.7em;margin:.6em 0}
div.sample img{width:320px;height:auto;border:1px solid #ccc;display:block}
div.meta{flex:1;min-width:0}
.id{font-family:monospace;font-weight:bold}
.gen{color:#666;margin-left:.5em}
.flag{display:inline-block;background:#e8eefc;color:#234;border-radius:3px;padding:0 .4em;
margin-right:.3em;font-size:12px}
ol.opts{list-style:none;padding-left:.5em;margin:.4em 0}
ol.opts li{padding:.1em .4em;border-radius:3px}
ol.opts li.answer{background:#d6f5d6;font-weight:bold}
p.q{margin:.4em 0;white-space:pre-wrap}
""".strip()


def _e(value: Any) -> str:
    """HTML-escape any value, quotes included, so it is safe in text and attributes."""
    return escape(str(value), quote=True)


def _href(path: str | os.PathLike[str], page_dir: Path) -> str:
    """A URL for ``path`` relative to the page's folder (relative paths are taken as such)."""
    p = Path(path)
    rel = os.path.relpath(p, page_dir) if p.is_absolute() else str(path)
    return _e(quote(Path(rel).as_posix(), safe="/"))


def _letter(i: int) -> str:
    """Option label: A, B, ..., Z, then AA, AB, ..."""
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(ord("A") + r) + s
    return s


def _sample(row: dict[str, Any], sheets_rel: str, page_dir: Path) -> str:
    """The HTML block of one sample."""
    rid = str(row["id"])
    options = list(row.get("options", []))
    answer = row.get("answer")
    if not isinstance(answer, int) or isinstance(answer, bool) or not 0 <= answer < len(options):
        raise ValueError(f"row {rid!r}: field 'answer' {answer!r} is not an index into options")
    items = []
    for i, opt in enumerate(options):
        cls = ' class="answer" title="correct answer"' if i == answer else ""
        mark = " &#10003;" if i == answer else ""
        items.append(f"<li{cls}>{_letter(i)}. {_e(opt)}{mark}</li>")
    flags = [k for k, v in (row.get("variation") or {}).items() if v == 1]
    flag_html = "".join(f'<span class="flag">{_e(k)}</span>' for k in flags)
    sheet = _href(f"{sheets_rel.rstrip('/')}/{rid}.png", page_dir)
    video = _href(row["video"], page_dir) if row.get("video") else ""
    video_link = f' &middot; <a href="{video}">video</a>' if video else ""
    return (
        f'<div class="sample" id="s-{_e(rid)}">'
        f'<a href="{sheet}"><img loading="lazy" src="{sheet}" alt="contact sheet of {_e(rid)}">'
        f"</a>"
        f'<div class="meta"><div><span class="id">{_e(rid)}</span>'
        f'<span class="gen">{_e(row.get("generator", ""))}</span>{video_link}</div>'
        f"<div>{flag_html}</div>"
        f'<p class="q">{_e(row.get("question", ""))}</p>'
        f'<ol class="opts">{"".join(items)}</ol></div></div>'
    )


def write_index(
    rows: list[dict],
    out_path: Path,
    sheets_rel: str = "sheets",
    title: str = "tempogen dataset",
    links: Sequence[tuple[str, str]] = (),
) -> None:
    """Write a static HTML index of ``rows`` grouped by task, with counts at the top.

    Each sample links its contact sheet ``{sheets_rel}/{id}.png`` and its video ``row["video"]``,
    both relative to ``out_path``'s folder; ``links`` are (text, relative href) pairs to other
    parts of the dataset, listed under the counts.
    """
    out_path = Path(out_path)
    page_dir = out_path.parent.resolve()
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(str(row.get("task", "")), []).append(row)
    order = [t for t in TASKS if t in groups] + sorted(t for t in groups if t not in TASKS)
    anchors = {t: f"task-{i}" for i, t in enumerate(order)}
    gens = Counter(str(r.get("generator", "")) for r in rows)
    count_rows = "".join(
        f'<tr><td><a href="#{anchors[t]}">{_e(t)}</a></td><td class="n">{len(groups[t])}</td></tr>'
        for t in order
    )
    sections = []
    for t in order:
        body = "".join(_sample(r, sheets_rel, page_dir) for r in groups[t])
        sections.append(
            f'<section class="task" id="{anchors[t]}"><h2>{_e(t)} '
            f"<small>({len(groups[t])})</small></h2>{body}</section>"
        )
    page = (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>\n"
        f"<h1>{_e(title)}</h1>\n"
        f'<p class="totals"><b>{len(rows)}</b> samples in <b>{len(order)}</b> tasks '
        f"from <b>{len(gens)}</b> generators.</p>\n"
        f'<table class="counts"><tr><th>task</th><th>samples</th></tr>{count_rows}'
        f'<tr><th>total</th><th class="n">{len(rows)}</th></tr></table>\n'
        + (
            '<ul class="links">'
            + "".join(f'<li><a href="{_href(h, page_dir)}">{_e(t)}</a></li>' for t, h in links)
            + "</ul>\n"
            if links
            else ""
        )
        + "\n".join(sections)
        + "\n</body></html>\n"
    )
    write_text(out_path, page)
