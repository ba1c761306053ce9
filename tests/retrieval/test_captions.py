"""captions: the pair type, the offline generator, user files in and out."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tempogen.errors import MissingFileError
from tempogen.retrieval.audit import words
from tempogen.retrieval.captions import (
    MAJORS,
    MINORS,
    CaptionPair,
    load_pairs,
    offline_pairs,
    write_pairs,
)


def test_pair_json_round_trip_and_labels():
    pair = CaptionPair(
        "a man eats then watches tv",
        "a man watches tv then eats",
        "action",
        ("cyclical",),
        "offline",
        {"seed": 3},
    )
    row = pair.to_json()
    assert row["minor"] == ["cyclical"]
    assert json.loads(json.dumps(row)) == row
    assert CaptionPair.from_json(row) == pair
    assert CaptionPair.from_json(
        {"pos": "a b", "neg": "b a", "minor": "spatial; cyclical"}
    ).minor == (
        "spatial",
        "cyclical",
    )
    with pytest.raises(ValueError, match="major 'objects'"):
        CaptionPair("a", "b", "objects")
    with pytest.raises(ValueError, match="'pos' must be a non-empty string"):
        CaptionPair.from_json({"pos": " ", "neg": "b"})


def test_offline_pairs_are_deterministic_distinct_and_cover_every_category():
    a, b = offline_pairs(80, seed=7), offline_pairs(80, seed=7)
    assert [p.to_json() for p in a] == [p.to_json() for p in b]
    assert [p.pos for p in offline_pairs(80, seed=8)] != [p.pos for p in a]
    assert len({(p.pos, p.neg) for p in a}) == 80
    assert len({frozenset((p.pos, p.neg)) for p in a}) == 80
    for p in a:
        assert p.pos != p.neg
        assert Counter(words(p.pos)) == Counter(words(p.neg)), p
        assert p.source == "offline" and p.provenance["seed"] == 7
    assert {p.major for p in a} == set(MAJORS)
    assert {m for p in a for m in p.minor} == set(MINORS)
    connectives = {p.provenance["connective"] for p in a}
    assert {"then", "and then", "before", "after", "turning into"} <= connectives


def test_offline_pairs_before_and_after_keep_the_subject_first():
    pairs = offline_pairs(100, seed=0)
    before = next(p for p in pairs if p.provenance["connective"] == "before")
    after = next(p for p in pairs if p.provenance["connective"] == "after")
    for p, conn in ((before, "before"), (after, "after")):
        head_pos, head_neg = p.pos.split(f" {conn} ")[0], p.neg.split(f" {conn} ")[0]
        # "a woman jumps before she runs" / "a woman runs before she jumps"
        assert head_pos.split()[:2] == head_neg.split()[:2]
        assert p.pos.split(f" {conn} ")[1].split()[0] in ("he", "she", "it")


def test_offline_pairs_refuse_more_than_the_templates_hold():
    assert offline_pairs(0) == []
    with pytest.raises(ValueError, match="distinct pairs, 100000 asked for"):
        offline_pairs(100_000)


def test_load_csv_with_labels_and_vinoground_columns(tmp_path):
    f = tmp_path / "pairs.csv"
    f.write_text(
        "pos,neg,major,minor\n"
        '"a man eats then watches tv","a man watches tv then eats",action,\n'
        "water turning into ice,ice turning into water,object,cyclical;spatial\n"
        "\n"
        "a dog barks then sits,a dog sits then barks,,\n",
        encoding="utf-8",
    )
    pairs = load_pairs(f)
    assert [p.major for p in pairs] == ["action", "object", ""]
    assert pairs[1].minor == ("cyclical", "spatial")
    assert pairs[2].provenance == {"file": str(f), "line": 5}
    vino = tmp_path / "vinoground.csv"
    vino.write_text(
        "index,major,minor,pos_vid,pos_start,pos_end,pos_cal,neg_vid,neg_start,neg_end,neg_cal\n"
        "0,action,interaction,abc,1,5,a man waves then talks,def,2,6,a man talks then waves\n",
        encoding="utf-8",
    )
    (p,) = load_pairs(vino)
    assert (p.pos, p.neg, p.major, p.minor) == (
        "a man waves then talks",
        "a man talks then waves",
        "action",
        ("interaction",),
    )


def test_load_jsonl_and_write_round_trip(tmp_path):
    pairs = offline_pairs(5, seed=1)
    out = tmp_path / "sub" / "pairs.jsonl"
    write_pairs(out, pairs)
    assert [p.to_json() for p in load_pairs(out)] == [p.to_json() for p in pairs]
    assert not [x for x in out.parent.iterdir() if x.name != "pairs.jsonl"]


@pytest.mark.parametrize(
    ("name", "text", "where", "what"),
    [
        ("a.csv", "pos,neg\na b,b a\nc d,\n", ":3:", "'neg' must be a non-empty string"),
        ("b.csv", "pos,negative\na b,b a\n", ":1:", "header must name columns pos and neg"),
        ("c.csv", "pos,neg,major\na b,b a,action\nc d,d c,motion\n", ":3:", "major 'motion'"),
        ("d.csv", "pos,neg,minor\na b,b a,spatial;temporal\n", ":2:", "minor 'temporal'"),
        ("e.csv", 'pos,neg\n"a\nb","b a"\nc d,\n', ":4:", "'neg' must be"),
        ("f.jsonl", '{"pos": "a b", "neg": "b a"}\n\n{"pos": "a b"\n', ":3:", "not valid JSON"),
        ("g.jsonl", '{"pos": "a b", "neg": "b a"}\n["a", "b"]\n', ":2:", "expected a JSON object"),
        ("h.jsonl", '{"pos": "a b", "neg": "b a", "minor": 3}\n', ":1:", "'minor' must be"),
    ],
)
def test_load_errors_name_file_and_line(tmp_path, name, text, where, what):
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as info:
        load_pairs(f)
    msg = str(info.value)
    assert msg.startswith(f"{f}{where}"), msg
    assert what in msg


def test_load_missing_file_names_it(tmp_path):
    with pytest.raises(MissingFileError, match="nope.csv: no such file"):
        load_pairs(tmp_path / "nope.csv")
