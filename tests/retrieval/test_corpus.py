"""Corpus loaders: VATEX id parsing from the right, optional chCap, errors that name the entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tempogen.io import write_jsonl
from tempogen.retrieval.corpus import (
    CorpusError,
    library_caption,
    load_corpus,
    load_jsonl_corpus,
    load_library,
    load_vatex,
    parse_vatex_id,
)


def caps(tag: str) -> list[str]:
    return [f"{tag} english caption {i}" for i in range(10)]


def write_vatex(path: Path, items: list) -> Path:
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def test_vatex_ids_with_underscore_and_dash(tmp_path: Path) -> None:
    f = write_vatex(
        tmp_path / "val.json",
        [
            {"videoID": "a_b-c_D-e_f_000012_000022", "enCap": caps("x"), "chCap": ["中文"] * 10},
            {"videoID": "--__x-y_z09_000000_000010", "enCap": caps("y")},  # no chCap
        ],
    )
    c = load_vatex(f)
    assert len(c) == 10 and c.num_videos == 2
    e = c[0]
    assert (e.youtube_id, e.start, e.end) == ("a_b-c_D-e_f", 12.0, 22.0)
    assert e.video_id == "a_b-c_D-e_f_000012_000022"
    assert c[5].youtube_id == "--__x-y_z09" and c[5].end == 10.0
    # only the first per_video captions (written directly in English)
    assert [x.caption for x in c][:5] == caps("x")[:5]
    assert len(load_vatex(f, per_video=2)) == 4
    assert parse_vatex_id("abc_def_ghi_000001_000009") == ("abc_def_ghi", 1.0, 9.0)


def test_vatex_errors_name_file_and_index(tmp_path: Path) -> None:
    good = {"videoID": "abcdefghijk_000001_000005", "enCap": caps("g")}
    f = write_vatex(tmp_path / "bad.json", [good, {"videoID": "nonumbers", "enCap": caps("b")}])
    with pytest.raises(CorpusError, match=r"bad\.json: entry 1: field 'videoID'"):
        load_vatex(f)
    f = write_vatex(
        tmp_path / "bad2.json", [good, good | {"videoID": "x_000001_000002", "enCap": ["ok", 5]}]
    )
    with pytest.raises(CorpusError, match=r"entry 1 .*enCap\[1\]"):
        load_vatex(f)
    f = write_vatex(tmp_path / "bad3.json", [{"enCap": caps("z")}])
    with pytest.raises(CorpusError, match="entry 0: field 'videoID' missing"):
        load_vatex(f)
    broken = tmp_path / "broken.json"
    broken.write_text('[{"videoID": "a_000001_000002",\n "enCap": [}]')
    with pytest.raises(CorpusError, match=r"broken\.json:2: not valid JSON"):
        load_vatex(broken)


def test_jsonl_corpus_and_errors(tmp_path: Path) -> None:
    f = tmp_path / "c.jsonl"
    write_jsonl(
        f,
        [
            {"video_id": "v1", "caption": "a dog runs", "youtube_id": "abc", "start": 1, "end": 4},
            {"video_id": "v2", "caption": "a cat sleeps"},
        ],
    )
    c = load_corpus(f"jsonl:{f}")
    assert c[0].start == 1.0 and c[1].youtube_id is None and c[1].start is None
    f.write_text(f.read_text() + '{"video_id": "v3"}\n')
    with pytest.raises(CorpusError, match=r"c\.jsonl:3: field 'caption'"):
        load_jsonl_corpus(f)


def test_content_hash_tracks_captions_and_ids(tmp_path: Path) -> None:
    items = [{"videoID": "abcdefghijk_000001_000005", "enCap": caps("g")}]
    h1 = load_vatex(write_vatex(tmp_path / "a.json", items)).content_hash
    h2 = load_vatex(write_vatex(tmp_path / "b.json", items)).content_hash
    items[0]["enCap"][0] = "changed"
    h3 = load_vatex(write_vatex(tmp_path / "c.json", items)).content_hash
    assert h1 == h2 != h3


def row(i: int, fact: str, kind: str, key: str, objects=("subject",), **nouns) -> dict:
    return {
        "id": f"clip-{i}",
        "question": "Which light turns on first?",
        "answer_key": key,
        "labels": {
            "meta": {"nouns": {"subject": "the red star", **nouns}},
            "query": {"fact": fact, "kind": kind, "objects": list(objects)},
        },
    }


def test_library_captions(tmp_path: Path) -> None:
    rows = [
        row(0, "rotation", "spin", "cw-ccw"),
        row(1, "count", "flash", "1"),
        row(2, "direction", "", "left-up"),
        row(3, "order", "lit", "b", ("subject", "b"), b="the blue lamp"),
    ]
    write_jsonl(tmp_path / "manifest.jsonl", rows)
    c = load_library(tmp_path)
    assert [e.caption for e in c] == [
        "the red star rotates clockwise then counter-clockwise",
        "the red star flashes once",
        "the red star moves leftwards then upwards",
        "of the red star and the blue lamp, the blue lamp turns on first",
    ]
    assert c[0].video_id == "clip-0" and c[0].youtube_id is None
    assert library_caption(rows[0]) == c[0].caption  # deterministic
    assert load_corpus(f"library:{tmp_path}").content_hash == c.content_hash


def test_load_corpus_specs(tmp_path: Path) -> None:
    d = tmp_path / "vatex"
    d.mkdir()
    write_vatex(d / "val.json", [{"videoID": "abcdefghijk_000001_000005", "enCap": caps("a")}])
    write_vatex(d / "test.json", [{"videoID": "bbcdefghijk_000002_000006", "enCap": caps("b")}])
    both = load_corpus(f"vatex:{d}")
    assert len(both) == 10 and both.num_videos == 2
    with pytest.raises(ValueError, match="unknown kind"):
        load_corpus("csv:x")
    with pytest.raises(ValueError, match="expected vatex:PATH"):
        load_corpus(str(d))
