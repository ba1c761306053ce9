"""HTML index: every sample listed, text escaped, answer highlighted, links relative to the page."""

from __future__ import annotations

import copy
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
from headless import Browser
from kit import manifest_row

from tempogen.builders.report.html import write_index as write_records


def write_index(rows: list[dict], page: Path, **kw) -> None:
    """:func:`write_records` of the conftest rows (dicts, varied here) made complete rows."""
    write_records([manifest_row(**r) for r in rows], page, **kw)


class _Links(HTMLParser):
    """Collect href/src attributes and the text of highlighted options."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []
        self.imgs: list[dict] = []
        self.answers: list[str] = []
        self._in_answer = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.urls += [a[k] for k in ("href", "src") if k in a and not a[k].startswith("#")]
        if tag == "img":
            self.imgs.append(a)
        self._in_answer = tag == "li" and a.get("class") == "answer"

    def handle_data(self, data):
        if self._in_answer:
            self.answers.append(data)
            self._in_answer = False


def test_index(manifest, tmp_path):
    root, rows = manifest
    rows = copy.deepcopy(rows)
    rows[0]["question"] = "What is <script>alert(1)</script> & more?"
    page = root / "index.html"
    (root / "sheets").mkdir(exist_ok=True)
    for r in rows:
        (root / "sheets" / f"{r['id']}.png").write_bytes(b"png")
    write_index(rows, page, title="Test <set>")
    text = page.read_text()
    for r in rows:
        assert r["id"] in text
    assert "<script>alert" not in text and text.count("<script>") == 1  # the filters' own
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more?" in text
    assert "<title>Test &lt;set&gt;</title>" in text
    assert re.search(r"<b>7</b> samples", text)
    assert re.search(r"count</a></td><td class=\"n\">2<", text)
    assert "B. Rightwards." in text and "A. Leftwards." in text

    parser = _Links()
    parser.feed(text)
    assert [a.strip() for a in parser.answers] == ["B. Rightwards."] * len(rows)
    assert len(parser.imgs) == len(rows)
    assert all(i.get("loading") == "lazy" for i in parser.imgs)
    assert len(parser.urls) == 4 * len(rows)  # sheet link, thumbnail, video link and player
    for url in parser.urls:
        assert not url.startswith("/") and "://" not in url
        assert (page.parent / unquote(url)).is_file(), url
    assert not [p for p in root.iterdir() if p.name.startswith(".")]


def test_flags_and_absolute_video(manifest, tmp_path):
    root, rows = manifest
    row = copy.deepcopy(rows[1])
    row["variation"] = {"counterfactual": 1, "composite": 0, "zoom": 1, "first_person": 0}
    row["video"] = str(root / row["video"])
    page = tmp_path / "site" / "index.html"
    write_index([row], page, sheets_rel="../sheets")
    text = page.read_text()
    assert '<span class="flag">counterfactual</span><span class="flag">zoom</span>' in text
    assert "composite</span>" not in text
    parser = _Links()
    parser.feed(text)
    video = [u for u in parser.urls if u.endswith(".mp4")]
    assert len(video) == 2 and not video[0].startswith("/")  # the link and the player
    assert (page.parent / unquote(video[0])).resolve() == (root / rows[1]["video"]).resolve()
    assert f"../sheets/{row['id']}.png" in parser.urls


def _browse_rows(manifest) -> tuple[Path, list[dict]]:
    """The conftest rows, varied: types, an edited variant, a noise encoding, pair marks."""
    root, rows = manifest
    rows = copy.deepcopy(rows)
    for i, r in enumerate(rows):
        r["demonstration_type"] = ("human", "object", "simulated")[i % 3]
        r["pair"] = f"p{i // 2}" if i < 4 else None
    rows[1]["edits"] = [{"op": "reverse"}]
    rows[2].setdefault("labels", {}).setdefault("meta", {})["encoding"] = {
        "style": "temporal_noise"
    }
    rows[-1]["variation"] = dict(rows[-1]["variation"], zoom=1)  # one of the two count rows
    (root / "sheets").mkdir(exist_ok=True)
    for r in rows:
        (root / "sheets" / f"{r['id']}.png").write_bytes(b"png")
    return root, rows


class _Cards(HTMLParser):
    """Every card's data-f-* attributes, every filter box and its printed count."""

    def __init__(self):
        super().__init__()
        self.cards: list[dict[str, list[str]]] = []
        self.boxes: list[tuple[str, str]] = []
        self.counts: list[int] = []
        self.tags: list[tuple[str, dict]] = []
        self._box = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "div" and a.get("class") == "sample":
            self.cards.append(
                {k[7:]: v.split("|") for k, v in a.items() if k.startswith("data-f-")}
            )
        if tag == "input":
            self.boxes.append((a["name"], a["value"]))
        self._box = tag == "span" and a.get("class") == "n"

    def handle_data(self, data):
        if self._box:
            self.counts.append(int(data.strip("()")))
            self._box = False


def test_filters_cover_every_card_and_count_it(manifest):
    root, rows = _browse_rows(manifest)
    page = root / "index.html"
    write_index(rows, page)
    cards = _Cards()
    cards.feed(page.read_text())
    assert len(cards.cards) == len(rows)
    keys = sorted({k for k, _ in cards.boxes})
    # a filter per attribute whose values differ between rows (the rows' own demonstration
    # types: moving_square is no registered pattern)
    assert keys == ["edited", "encoding", "pair", "task", "type", "variation"]
    for card in cards.cards:
        assert sorted(card) == keys
    for (key, value), n in zip(cards.boxes, cards.counts, strict=True):
        assert n == sum(value in c[key] for c in cards.cards), (key, value)
    assert dict(zip(cards.boxes, cards.counts))[("encoding", "temporal noise")] == 1
    assert dict(zip(cards.boxes, cards.counts))[("pair", "yes")] == 4
    assert dict(zip(cards.boxes, cards.counts))[("edited", "edited")] == 1
    videos = [a for t, a in cards.tags if t == "video"]
    assert len(videos) == len(rows)
    assert all(v["preload"] == "none" and "controls" in v for v in videos)
    assert sum(t == "details" for t, _ in cards.tags) == len(rows)
    # one value everywhere: no filter for it
    plain = copy.deepcopy(rows)
    plain[2]["labels"]["meta"].pop("encoding")
    write_index([dict(r, pair=None) for r in plain], page)
    again = _Cards()
    again.feed(page.read_text())
    assert not {k for k, _ in again.boxes} & {"encoding", "pair"}


@pytest.mark.slow  # a headless browser: make test runs it, make test-fast does not
def test_filters_answers_and_clips_work_in_headless_chromium(manifest, tmp_path):
    root, rows = _browse_rows(manifest)
    page = root / "index.html"
    write_index(rows, page)
    visible = "document.querySelectorAll('div.sample:not([hidden])').length"
    with Browser(tmp_path / "profile") as browser:
        browser.open(page.resolve().as_uri())
        assert browser.js(visible) == len(rows)
        browser.click('input[name="task"][value="count"]')
        n_count = sum(r["task"] == "count" for r in rows)
        assert browser.js(visible) == n_count == 2
        # the filter hid every other card (the script really hides, not only counts)
        hidden = "document.querySelectorAll('div.sample[hidden]').length"
        assert browser.js(hidden) == len(rows) - n_count > 0
        assert (
            browser.js(
                "[...document.querySelectorAll('div.sample')].filter(e => e.offsetParent === null)"
                ".length"
            )
            == len(rows) - n_count
        )
        assert browser.js("document.getElementById('shown').textContent") == str(n_count)
        # counts follow the other filters: of the two count cards, one has zoom
        zoom = 'input[name="variation"][value="zoom"]'
        assert browser.js(f"document.querySelector('{zoom}').parentNode.textContent").endswith(
            "(1)"
        )
        browser.click(zoom)
        assert browser.js(visible) == 1
        assert browser.js("document.querySelectorAll('section.task:not([hidden])').length") == 1
        browser.click("#clear")
        assert browser.js(visible) == len(rows)
        # the answer shows only once its card's "answer" is clicked
        first = "document.querySelector('div.sample li.answer')"
        assert browser.js(f"getComputedStyle({first}).backgroundColor") == "rgba(0, 0, 0, 0)"
        assert not browser.js("document.querySelector('div.sample details').open")
        browser.click("div.sample details summary")
        assert browser.js("document.querySelector('div.sample details').open")
        assert browser.js(f"getComputedStyle({first}).backgroundColor") == "rgb(214, 245, 214)"
        # the clip beside the sheet plays: Chromium decodes its H.264
        width = browser.js(
            "(async () => { const v = document.querySelector('div.sample video');"
            " v.preload = 'auto'; v.load(); await new Promise(r => {"
            " v.onloadeddata = r; v.onerror = r; setTimeout(r, 10000); });"
            " return v.error ? -v.error.code : v.videoWidth; })()"
        )
        assert width > 0, width


def test_the_encoding_filter_reads_noise_clips_from_their_labels() -> None:
    # a noise clip is marked in its labels' meta, not by a row field of its own
    from tempogen.builders.report.html import FILTERS

    values = dict((key, fn) for key, _, fn in FILTERS)["encoding"]
    noise = manifest_row(labels={"meta": {"encoding": {"style": "temporal_noise"}}})
    assert values(noise) == ["temporal noise"]
    assert values(manifest_row(labels={"meta": {}})) == ["plain"]
