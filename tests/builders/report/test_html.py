"""HTML index: every sample listed, text escaped, answer highlighted, links relative to the page."""

from __future__ import annotations

import copy
import re
from html.parser import HTMLParser
from urllib.parse import unquote

from tempogen.builders.report.html import write_index


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
    assert "<script>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more?" in text
    assert "<title>Test &lt;set&gt;</title>" in text
    assert re.search(r"<b>7</b> samples", text)
    assert re.search(r"count</a></td><td class=\"n\">2<", text)
    assert "B. Rightwards." in text and "A. Leftwards." in text

    parser = _Links()
    parser.feed(text)
    assert [a.strip() for a in parser.answers] == ["B. Rightwards. \u2713"] * len(rows)
    assert len(parser.imgs) == len(rows)
    assert all(i.get("loading") == "lazy" for i in parser.imgs)
    assert len(parser.urls) == 3 * len(rows)  # sheet link, thumbnail, video
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
    assert len(video) == 1 and not video[0].startswith("/")
    assert (page.parent / unquote(video[0])).resolve() == (root / rows[1]["video"]).resolve()
    assert f"../sheets/{row['id']}.png" in parser.urls
