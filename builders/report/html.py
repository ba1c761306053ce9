"""One static HTML page indexing a dataset: every sample's question, options, hidden answer,
contact sheet and playable clip, with filters.

Self-contained (inline CSS and a small inline script, no external assets) so it opens from
disk (file://) or any static host; every path in it is relative to the page's own folder.
Filters are generic: each entry of :data:`FILTERS` reads a row's values for one attribute;
every card carries them as ``data-f-{key}`` and the script shows the cards that have, for
every filter with a ticked box, one of the ticked values.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Sequence
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tempogen.generators.motion import get_motion
from tempogen.io import write_text
from tempogen.manifest import Row
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
div.sample[hidden],section.task[hidden]{display:none}
div.sample img,div.sample video{width:320px;height:auto;border:1px solid #ccc;display:block;
background:#000}
div.media{display:flex;gap:.5em;flex-wrap:wrap;align-items:flex-start}
form.filters{padding:.4em 0;
border-bottom:1px solid #ddd;display:flex;flex-wrap:wrap;gap:.5em}
form.filters fieldset{border:1px solid #ccc;border-radius:4px;padding:.2em .5em;margin:0}
form.filters label{margin-right:.6em;white-space:nowrap}
form.filters .n,.shown{color:#666}
div.meta{flex:1;min-width:0}
.id{font-family:monospace;font-weight:bold}
.gen{color:#666;margin-left:.5em}
.flag{display:inline-block;background:#e8eefc;color:#234;border-radius:3px;padding:0 .4em;
margin-right:.3em;font-size:12px}
ol.opts{list-style:none;padding-left:.5em;margin:.4em 0}
ol.opts li{padding:.1em .4em;border-radius:3px}
ol.opts li .mark{display:none}
div.sample:has(details[open]) li.answer{background:#d6f5d6;font-weight:bold}
div.sample:has(details[open]) li.answer .mark{display:inline}
details.reveal summary{cursor:pointer;color:#236}
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


DEMONSTRATIONS = {"human": "human", "object3d": "3D object", "2d": "2D"}


def _demonstration(row: Row) -> list[str]:
    """Human, 3D object or 2D, from the renderer of the row's motion pattern; a row whose
    generator is not a registered pattern keeps its own ``demonstration_type``."""
    try:
        renderer = get_motion(row.generator).renderer
    except KeyError:
        return [str(row.demonstration_type)]
    return [DEMONSTRATIONS.get(renderer, renderer)]


def _encoding(row: Row) -> list[str]:
    """How a clip is drawn: plain, or temporal noise (marked in its labels' meta)."""
    from tempogen.builders.audit.noise import is_noise

    return ["temporal noise" if is_noise(row.labels) else "plain"]


# (key, legend, a row's values). A filter shows only when its values differ between rows, so
# attributes that rows may carry later (a noise encoding, a minimal-pair mark) cost nothing
# until they do; a new filter is one line here.
FILTERS: tuple[tuple[str, str, Callable[[Row], list[str]]], ...] = (
    ("task", "task", lambda r: [str(r.task)]),
    ("type", "demonstration", _demonstration),
    ("variation", "variation",
     lambda r: [k for k, v in r.variation.items() if v == 1] or ["none"]),
    ("edited", "edited variant", lambda r: ["edited" if r.edits else "original"]),
    ("encoding", "encoding", _encoding),
    ("pair", "minimal pair", lambda r: ["yes" if r.pair else "no"]),
)  # fmt: skip
SEPARATOR = "|"  # between a card's values of one filter (values never hold it: see _values)

SCRIPT = """
(function () {
  var cards = Array.prototype.slice.call(document.querySelectorAll("div.sample"));
  var boxes = Array.prototype.slice.call(document.querySelectorAll("form.filters input"));
  function values(card, key) {
    return (card.getAttribute("data-f-" + key) || "").split("|");
  }
  function passes(card, want, skip) {
    for (var key in want) {
      if (key === skip) continue;
      var vals = values(card, key);
      if (!vals.some(function (v) { return want[key].indexOf(v) >= 0; })) return false;
    }
    return true;
  }
  function apply() {
    var want = {};
    boxes.forEach(function (b) {
      if (b.checked) (want[b.name] = want[b.name] || []).push(b.value);
    });
    var shown = 0;
    cards.forEach(function (c) {
      c.hidden = !passes(c, want, null);
      if (!c.hidden) shown++;
    });
    boxes.forEach(function (b) {
      var n = cards.filter(function (c) {
        return passes(c, want, b.name) && values(c, b.name).indexOf(b.value) >= 0;
      }).length;
      b.parentNode.querySelector(".n").textContent = "(" + n + ")";
    });
    document.querySelectorAll("section.task").forEach(function (s) {
      var n = s.querySelectorAll("div.sample:not([hidden])").length;
      s.hidden = n === 0;
      s.querySelector("h2 small").textContent = "(" + n + ")";
    });
    document.getElementById("shown").textContent = shown;
  }
  boxes.forEach(function (b) { b.addEventListener("change", apply); });
  document.getElementById("clear").addEventListener("click", function () {
    boxes.forEach(function (b) { b.checked = false; });
    apply();
  });
  apply();
})();
""".strip()


def _values(row: Row) -> dict[str, list[str]]:
    """A row's values for every filter (the separator replaced in each value)."""
    return {key: [v.replace(SEPARATOR, "/") for v in read(row)] for key, _, read in FILTERS}


def _sample(row: Row, sheets_rel: str, page_dir: Path, values: dict[str, list[str]]) -> str:
    """The HTML card of one sample: sheet and clip, question, options and the hidden answer."""
    rid, options, answer = row.id, row.options, row.answer
    if not 0 <= answer < len(options):
        raise ValueError(f"row {rid!r}: field 'answer' {answer!r} is not an index into options")
    items = []
    for i, opt in enumerate(options):
        cls = ' class="answer"' if i == answer else ""
        mark = ' <span class="mark">&#10003;</span>' if i == answer else ""
        items.append(f"<li{cls}>{_letter(i)}. {_e(opt)}{mark}</li>")
    flags = [k for k, v in row.variation.items() if v == 1]
    flag_html = "".join(f'<span class="flag">{_e(k)}</span>' for k in flags)
    sheet = _href(f"{sheets_rel.rstrip('/')}/{rid}.png", page_dir)
    video = _href(row.video, page_dir) if row.video else ""
    video_link = f' &middot; <a href="{video}">video</a>' if video else ""
    player = (
        f'<video controls preload="none" src="{video}" aria-label="clip {_e(rid)}"></video>'
        if video
        else ""
    )
    data = "".join(f' data-f-{key}="{_e(SEPARATOR.join(vals))}"' for key, vals in values.items())
    return (
        f'<div class="sample" id="s-{_e(rid)}"{data}>'
        f'<div class="media"><a href="{sheet}"><img loading="lazy" src="{sheet}" '
        f'alt="contact sheet of {_e(rid)}"></a>{player}</div>'
        f'<div class="meta"><div><span class="id">{_e(rid)}</span>'
        f'<span class="gen">{_e(row.generator)}</span>{video_link}</div>'
        f"<div>{flag_html}</div>"
        f'<p class="q">{_e(row.question)}</p>'
        f'<ol class="opts">{"".join(items)}</ol>'
        f'<details class="reveal"><summary>answer</summary>{_letter(answer)}. '
        f"{_e(options[answer])}</details></div></div>"
    )


def _filters(values: list[dict[str, list[str]]]) -> str:
    """The filter form: a box per value of every filter whose values differ between rows,
    each with its count (the script keeps the counts in step with the other filters)."""
    groups = []
    for key, legend, _ in FILTERS:
        counts = Counter(v for vals in values for v in dict.fromkeys(vals[key]))
        if len(counts) < 2:
            continue
        first = list(TASKS) if key == "task" else []
        names = [v for v in first if v in counts] + sorted(v for v in counts if v not in first)
        boxes = "".join(
            f'<label><input type="checkbox" name="{key}" value="{_e(v)}"> {_e(v)} '
            f'<span class="n">({counts[v]})</span></label>'
            for v in names
        )
        groups.append(f'<fieldset data-key="{key}"><legend>{_e(legend)}</legend>{boxes}</fieldset>')
    return (
        '<form class="filters" onsubmit="return false">'
        + "".join(groups)
        + f'<p class="shown">showing <b id="shown">{len(values)}</b> of {len(values)} '
        '<button type="button" id="clear">clear filters</button></p></form>\n'
    )


def write_index(
    rows: Sequence[Row],
    out_path: Path,
    sheets_rel: str = "sheets",
    title: str = "tempogen dataset",
    links: Sequence[tuple[str, str]] = (),
) -> None:
    """Write a static HTML index of ``rows`` grouped by task, with counts and filters at the
    top; each card's answer is hidden until its "answer" is clicked.

    Each sample shows its contact sheet ``{sheets_rel}/{id}.png`` and plays its video
    ``row.video``, both relative to ``out_path``'s folder; ``links`` are (text, relative
    href) pairs to other parts of the dataset, listed under the counts.
    """
    out_path = Path(out_path)
    page_dir = out_path.parent.resolve()
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(str(row.task), []).append(row)
    order = [t for t in TASKS if t in groups] + sorted(t for t in groups if t not in TASKS)
    anchors = {t: f"task-{i}" for i, t in enumerate(order)}
    gens = Counter(r.generator for r in rows)
    values = {id(r): _values(r) for r in rows}
    count_rows = "".join(
        f'<tr><td><a href="#{anchors[t]}">{_e(t)}</a></td><td class="n">{len(groups[t])}</td></tr>'
        for t in order
    )
    sections = []
    for t in order:
        body = "".join(_sample(r, sheets_rel, page_dir, values[id(r)]) for r in groups[t])
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
        + _filters([values[id(r)] for r in rows])
        + "\n".join(sections)
        + f"\n<script>{SCRIPT}</script>\n</body></html>\n"
    )
    write_text(out_path, page)
