"""Hypothesis strategies for tests/test_fuzz_cli.py: hostile configs, manifest rows, edit
pipelines, prediction files and caption pairs, each drawn as the bytes of the file a user
would hand the CLI. Each starts from a valid input and mutates it, so cases reach past the
first parse error into the checks behind it."""

from __future__ import annotations

import json
import math
from typing import Any

import yaml
from hypothesis import strategies as st

# Values a hostile or careless file may hold where a name, number or list belongs.
HOSTILE_STRINGS = [
    "",
    " ",
    "../../../ESCAPED",
    "/../../../victim",
    "/tmp/abs",
    "a/b",
    "a\\b",
    "a\x00b",
    "\ud800",
    "..",
    ".",
    "CON",
    "x" * 300,
    "é漢字",
    "1e9",
    "nan",
    "-1",
    "a\nb",
    "${HOME}",
    "~/x",
]
HOSTILE_NUMBERS = [
    0,
    -1,
    -5,
    1,
    2,
    3,
    1e-5,
    1e9,
    -1e9,
    10**30,
    0.5,
    math.inf,
    -math.inf,
    math.nan,
    2**63,
    True,
    False,
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(HOSTILE_NUMBERS),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(HOSTILE_STRINGS),
    st.text(max_size=12),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.one_of(st.sampled_from(HOSTILE_STRINGS), st.text(max_size=6)), inner, max_size=3
        ),
    ),
    max_leaves=6,
)
# Lines that are not JSON objects at all.
junk_lines = st.one_of(
    st.sampled_from(
        ["", "   ", "[", "{", "null", "[]", "3", '"x"', "{'a': 1}", "\ufeff{}", "{}{}"]
    ),
    st.text(max_size=30),
)


def dumps(value: Any) -> str:
    """JSON as Python writes it: NaN and Infinity included (a careless producer does this)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=True)


@st.composite
def mutated(draw: st.DrawFn, base: dict[str, Any], keys: list[str] | None = None) -> dict[str, Any]:
    """``base`` with up to three fields dropped, replaced by a hostile value, or added."""
    row = dict(base)
    for _ in range(draw(st.integers(0, 3))):
        key = draw(st.sampled_from(keys or list(base) or ["x"]))
        how = draw(st.sampled_from(["drop", "replace", "replace", "add"]))
        if how == "drop":
            row.pop(key, None)
        elif how == "replace":
            row[key] = draw(json_values)
        else:
            row[draw(st.text(min_size=1, max_size=8))] = draw(json_values)
    return row


@st.composite
def jsonl_file(
    draw: st.DrawFn, rows: st.SearchStrategy[dict[str, Any]], max_rows: int = 6
) -> bytes:
    """A JSONL file of drawn rows, with junk lines, duplicates and odd encodings mixed in."""
    lines: list[str] = []
    for _ in range(draw(st.integers(0, max_rows))):
        kind = draw(st.sampled_from(["row", "row", "row", "junk", "dup"]))
        if kind == "row":
            lines.append(dumps(draw(rows)))
        elif kind == "junk":
            lines.append(draw(junk_lines))
        elif lines:
            lines.append(lines[-1])
    text = "\n".join(lines) + draw(st.sampled_from(["\n", "", "\r\n"]))
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        data = data.replace(b"e", b"\xe9")  # Latin-1 bytes in a UTF-8 file
    return data


# --- generate: configs -----------------------------------------------------------------------

TINY_CONFIG: dict[str, Any] = {
    "seed": 7,
    "size": [64, 48],
    "fps": 4,
    "duration": [1.0, 2.0],
    "samples_per_task": 1,
    "tasks": ["direction"],
    "shortcuts": "off",
    "retrieval": {"pairs": 0},
}
CONFIG_KEYS = [
    "seed", "size", "fps", "duration", "samples_per_task", "tasks", "motions", "plugins",
    "style", "encode", "variants", "vinoground", "retrieval", "scenes3d", "shortcuts",
    "minimal_pairs", "executor",
]  # fmt: skip


@st.composite
def config_text(draw: st.DrawFn) -> bytes:
    """A YAML config: the tiny one mutated, or raw YAML odds (duplicate keys, 1.1 floats)."""
    cfg = draw(mutated(TINY_CONFIG, CONFIG_KEYS))
    text = yaml.safe_dump(cfg, allow_unicode=True) if _yaml_ok(cfg) else dumps(cfg)
    tail = draw(
        st.sampled_from(
            ["", "seed: 8\n", "fps: 1.0e9\n", "size: 64x48\n", "- 1\n", ": :\n", "\t", "&a [*a]\n"]
        )
    )
    return (text + tail).encode("utf-8", "surrogatepass")


def _yaml_ok(value: Any) -> bool:
    try:
        yaml.safe_dump(value)
    except Exception:
        return False
    return True


# --- validate / audit verify / edit: manifest rows --------------------------------------------


def manifest_row(base: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Rows derived from a valid manifest row ``base``."""
    return mutated(base)


# --- edit: pipelines --------------------------------------------------------------------------

OP_PARAMS: dict[str, list[str]] = {
    "reverse": [],
    "mirror": ["axis"],
    "rotate": ["degrees"],
    "speed": ["factor"],
    "speed_ramp": ["start", "end"],
    "trim": ["start", "end"],
    "loop": ["times"],
    "crop": ["box", "size"],
    "zoom_in": ["subject", "margin", "smooth"],
    "concat": ["other", "gap"],
    "composite": ["other", "layout"],
}
GOOD_OPS: list[Any] = [
    "reverse",
    {"mirror": {"axis": "horizontal"}},
    {"speed": {"factor": 2}},
    {"trim": {"start": 0.0, "end": 1.0}},
    {"loop": {"times": 2}},
    {"rotate": {"degrees": 90}},
]


@st.composite
def one_op(draw: st.DrawFn) -> Any:
    if draw(st.booleans()):
        return draw(st.sampled_from(GOOD_OPS))
    name = draw(st.one_of(st.sampled_from(sorted(OP_PARAMS)), st.sampled_from(HOSTILE_STRINGS)))
    names = OP_PARAMS.get(name, []) + ["bogus"]
    params = {
        draw(st.sampled_from(names)): draw(st.one_of(st.sampled_from(HOSTILE_NUMBERS), json_values))
        for _ in range(draw(st.integers(0, 2)))
    }
    return draw(st.sampled_from([{name: params}, name, {name: list(params.values())}]))


@st.composite
def pipeline_text(draw: st.DrawFn) -> bytes:
    """A pipeline YAML: a list of ops, or variant name -> list of ops (names hostile too)."""
    ops = draw(st.lists(one_op(), max_size=3))
    if draw(st.booleans()):
        doc: Any = ops
    else:
        names = st.one_of(st.sampled_from(["rev", "v2"]), st.sampled_from(HOSTILE_STRINGS))
        doc = {
            draw(names): draw(st.lists(one_op(), max_size=3))
            for _ in range(draw(st.integers(1, 3)))
        }
    if draw(st.integers(0, 5)) == 0:
        doc = draw(json_values)
    text = yaml.safe_dump(doc, allow_unicode=True) if _yaml_ok(doc) else dumps(doc)
    return text.encode("utf-8", "surrogatepass")


# --- eval: prediction files -------------------------------------------------------------------

PREDICTION_BASES = {
    "tomato": {"task": "rotation", "id": "0", "model": "m", "response": "A"},
    "vinoground": {"idx": "0", "kind": "text", "model": "m", "response": "A"},
    "videott": {"qid": "fan-p", "model": "m", "response": "Counter-clockwise"},
}


def predictions(benchmark: str) -> st.SearchStrategy[bytes]:
    """A predictions JSONL for ``benchmark``: valid rows, mutated rows and junk lines."""
    return jsonl_file(mutated(PREDICTION_BASES[benchmark]), max_rows=8)


# --- captions audit / retrieve: caption pairs -------------------------------------------------

PAIR_BASE = {
    "pos": "a ball rolls left then a cup falls",
    "neg": "a cup falls then a ball rolls left",
    "major": "order",
    "minor": "",
}
caption_text = st.one_of(st.sampled_from(HOSTILE_STRINGS), st.text(max_size=40))


@st.composite
def pairs_file(draw: st.DrawFn, csv: bool = False) -> bytes:
    """Caption pairs as JSONL (mutated rows) or CSV (pos,neg[,major,minor] with odd cells)."""
    if not csv:
        first = (dumps(PAIR_BASE) + "\n").encode() if draw(st.integers(0, 4)) else b""
        rows = st.one_of(
            mutated(PAIR_BASE), st.fixed_dictionaries({"pos": caption_text, "neg": caption_text})
        )
        return first + draw(jsonl_file(rows, max_rows=8))
    lines = ["pos,neg,major,minor"] if draw(st.booleans()) else []
    for _ in range(draw(st.integers(0, 6))):
        cells = draw(st.lists(caption_text, min_size=0, max_size=5))
        lines.append(",".join(c.replace("\n", " ") for c in cells))
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


CORPUS_BASE = {"video_id": "v1", "caption": "a ball rolls left"}


@st.composite
def corpus_file(draw: st.DrawFn) -> bytes:
    """A ``jsonl:`` retrieval corpus: mostly a valid first row (so the search itself runs),
    then rows of video_id and caption, mutated."""
    first = (dumps(CORPUS_BASE) + "\n").encode() if draw(st.integers(0, 4)) else b""
    return first + draw(jsonl_file(mutated(CORPUS_BASE), max_rows=4))


# --- eval / import tomato: benchmark layouts ------------------------------------------------

TOMATO_ENTRY: dict[str, Any] = {
    "question": "Which way does it turn?",
    "options": ["Clockwise.", "Counter-clockwise.", "No rotation."],
    "answer": 0,
    "key": "rot-0",
    "video_source_url": "",
    "motion_type": "spin",
    "demonstration_type": "simulated",
    "variation": {"counterfactual": 0, "composite": 0, "zoom": 0, "first_person": 0},
    "note": "",
}


@st.composite
def tomato_data(draw: st.DrawFn) -> bytes:
    """A TOMATO ``data/<task>.json``: question number -> entry, entries mutated, or junk."""
    doc: Any = {
        draw(st.one_of(st.sampled_from(["0", "1"]), st.sampled_from(HOSTILE_STRINGS))): draw(
            mutated(TOMATO_ENTRY)
        )
        for _ in range(draw(st.integers(0, 3)))
    }
    if draw(st.integers(0, 5)) == 0:
        doc = draw(json_values)
    return dumps(doc).encode("utf-8", "surrogatepass")


VIDEOTT_QUESTION = {
    "qid": "fan-p",
    "kind": "primary",
    "question": "Which way?",
    "answer": "Counter-clockwise",
}
VIDEOTT_VIDEO = {"video_id": "fan", "video": "videos/fan.mp4"}


@st.composite
def videott_json(draw: st.DrawFn) -> bytes:
    """A ``videott.json``: a list of videos with questions, mutated at both levels."""
    videos = []
    for _ in range(draw(st.integers(0, 2))):
        video = draw(mutated({**VIDEOTT_VIDEO, "questions": []}))
        if isinstance(video.get("questions"), list):
            video["questions"] = draw(st.lists(mutated(VIDEOTT_QUESTION), max_size=3))
        videos.append(video)
    doc: Any = videos if draw(st.integers(0, 5)) else draw(json_values)
    return dumps(doc).encode("utf-8", "surrogatepass")


@st.composite
def vinoground_csv(draw: st.DrawFn) -> bytes:
    """A ``vinoground.csv``: the header, then rows of odd cells."""
    head = "index,major,minor,pos_vid,pos_start,pos_end,pos_cal,neg_vid,neg_start,neg_end,neg_cal"
    good = (
        "0,object,cyclical,yt,0,5,a ball rolls left then right,yt2,0,5,a ball rolls right then left"
    )
    lines = [head] if draw(st.integers(0, 5)) else []
    for _ in range(draw(st.integers(0, 3))):
        cells = good.split(",")
        for _ in range(draw(st.integers(0, 3))):
            i = draw(st.integers(0, len(cells)))
            value = draw(caption_text).replace("\n", " ").replace(",", ";")
            if i == len(cells):
                cells.append(value)
            else:
                cells[i] = value
        lines.append(",".join(cells))
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
