"""Caption pairs out of an LLM's free-text reply, whatever its layout (numbered lines, two
lines a pair, Markdown tables, JSON)."""

from __future__ import annotations

import json
import re

from tempogen.retrieval.events import words

_QUOTED = re.compile(r'"([^"]+)"|\u201c([^\u201d]+)\u201d|(?<![a-z])\'([^\']+)\'(?![a-z])', re.I)
_SEPARATORS = re.compile(
    r"\s+(?:vs\.?|versus|v\.)\s+|\s*(?:->|=>|→|⟶|⇒)\s*|\s+\|\s+|\s+/\s+|\s+[-\u2013\u2014]\s+",
    re.I,
)
_NUMBER = re.compile(r"^\s*(?:[-*\u2022]\s*)?(?:\(?(\d+)([a-z]?)[.):]|\(?([a-z])[.)])?\s*", re.I)
_LABEL = re.compile(
    r"^\s*(?:\*\*)?(?:pair\s*\d*|positive|negative|pos|neg|caption\s*[12ab]?|original|"
    r"counterfactual|video\s*[12ab]|[ab])(?:\*\*)?\s*[:.)-]\s*(?:\*\*)?\s*",
    re.I,
)


def _clean(text: str) -> str:
    text = text.strip().strip("*_`").strip()
    text = text.strip("\"'\u201c\u201d\u2018\u2019").strip()
    text = re.sub(r"\s+", " ", text)
    return text.rstrip(".;,").strip()


def _split(line: str) -> tuple[str, str] | None:
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(line)]
    if len(quoted) == 2:
        return _clean(quoted[0]), _clean(quoted[1])
    parts = [p for p in _SEPARATORS.split(line) if p.strip()]
    if len(parts) == 2:
        return _clean(_LABEL.sub("", parts[0])), _clean(_LABEL.sub("", parts[1]))
    return None


def _close(a: str, b: str) -> bool:
    """Two lines share most words: a guard so chatter is never paired with a caption."""
    wa, wb = set(words(a)), set(words(b))
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= 0.5


_FENCED_JSON = re.compile(r"```(?:json)?\s*([\[{].*?[\]}])\s*```", re.S)


def _from_json(text: str) -> list[tuple[str, str]] | None:
    fenced = _FENCED_JSON.search(text)
    body = fenced.group(1) if fenced else text.strip()
    if body[:1] not in ("[", "{"):
        return None
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return None
    if isinstance(data, dict):
        data = next((v for v in data.values() if isinstance(v, list)), [data])
    out = []
    for item in data if isinstance(data, list) else []:
        if isinstance(item, dict):
            pos, neg = item.get("pos"), item.get("neg")
            if isinstance(pos, str) and isinstance(neg, str):
                vals = [pos, neg]
            else:
                vals = [v for v in item.values() if isinstance(v, str)][:2]
        elif isinstance(item, list):
            vals = [v for v in item if isinstance(v, str)][:2]
        else:
            continue
        if len(vals) == 2 and all(v.strip() for v in vals):
            out.append((_clean(vals[0]), _clean(vals[1])))
    return out or None


def parse_pairs(text: str) -> list[tuple[str, str]]:
    """Caption pairs from a reply in any common layout, in order, without repeats.

    One line per pair, numbered or bulleted or not: two quoted captions, or two captions
    joined by "vs", "->", "=>", "|", " / " or a dash. Two lines per pair: a caption line
    (numbered or labelled "Positive:", "Caption 1:", "1a.", ...) followed by a second caption
    line, accepted only when the two share most words. A JSON list of {"pos","neg"} objects
    or of two-string lists also works.
    """
    js = _from_json(text)
    if js is not None:
        return _unique(js)
    pairs: list[tuple[str, str]] = []
    pending: tuple[str, str | None] | None = None  # (caption, item number)
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("```") or re.fullmatch(r"[|:\- ]+", line):
            continue
        m = _NUMBER.match(line)
        number = m.group(1) if m and m.group(1) else None
        body = _LABEL.sub("", line[m.end() :] if m else line).strip()
        body = body.strip("|").strip()
        if "|" in body and _split(body) is None:  # markdown table row: | a | b |
            cells = [c.strip() for c in body.split("|") if c.strip()]
            if len(cells) >= 2:
                body = f'"{cells[-2]}" "{cells[-1]}"'
        got = _split(body)
        if got is not None:
            pairs.append(got)
            pending = None
            continue
        caption = _clean(body)
        if not caption or caption.endswith(":") or len(words(caption)) < 2:
            pending = None
            continue
        if pending is not None and (number is None or number == pending[1]):
            if _close(pending[0], caption):
                pairs.append((pending[0], caption))
                pending = None
                continue
        pending = (caption, number)
    return _unique(pairs)


def _unique(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    seen: set[tuple[str, ...]] = set()
    out = []
    for a, b in pairs:
        if len(words(a)) < 2 or len(words(b)) < 2:  # headers, stray labels
            continue
        key = tuple(sorted((" ".join(words(a)), " ".join(words(b)))))
        if key in seen or key[0] == key[1]:
            continue
        seen.add(key)
        out.append((a, b))
    return out
