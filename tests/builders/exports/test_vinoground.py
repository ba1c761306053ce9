"""Vinoground export: layout read back, scored by our scorer, deterministic."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tempogen.builders.eval.common import VINO_MAJOR, VINO_MINOR
from tempogen.builders.eval.scoring import score_vinoground
from tempogen.builders.exports.vinoground import (
    build_vinoground,
    check_caption_order,
    export_vinoground,
    read_vinoground,
)
from tempogen.errors import OutputError
from tempogen.generators.pairs import KINDS, plan_pairs
from tempogen.io import write_jsonl

N = 8  # one pair of each kind (plan_pairs: kinds take turns), a simulated human included
SIZE = {"width": 160, "height": 90, "fps": 12.0}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_vinoground(tmp_path_factory.mktemp("vino"), N, seed=2, jobs=1, **SIZE)


def gts(root: Path, kind: str) -> dict[str, str]:
    data = json.loads((root / f"vinoground_{kind}score.json").read_text(encoding="utf-8"))
    return {q["idx"]: q["GT"] for q in data}


def test_read_back(dataset: Path) -> None:
    pairs = read_vinoground(dataset)
    assert [p["index"] for p in pairs] == [str(i) for i in range(N)]
    for p in pairs:
        assert Counter(p["pos_cal"].split()) == Counter(p["neg_cal"].split())
        assert p["pos_cal"] != p["neg_cal"] and p["major"] in VINO_MAJOR
        assert set(filter(None, p["minor"].split(";"))) <= set(VINO_MINOR)
        assert (p["pos_start"], p["pos_end"]) == ("0", "3.0")
        assert p["pos_vid"] == f"pair{p['index']}_pos"
        text_pos, text_neg = p["text"]
        assert text_pos["question"] == text_neg["question"]
        assert {text_pos["GT"], text_neg["GT"]} == {"A", "B"}
        assert (
            f"A. {p['pos_cal' if text_pos['GT'] == 'A' else 'neg_cal']}, B." in text_pos["question"]
        )
        assert [q["GT"] for q in p["video"]] == ["A", "B"]
        assert p["video"][0]["video_name"] == p["video"][1]["video_name"]
        assert (
            "2-second black frame. Caption: " + p["pos_cal"] + ". A. First segment"
            in (p["video"][0]["question"])
        )


def predictions(root: Path, path: Path, text_neg_wrong: bool = False) -> Path:
    rows = []
    for kind in ("text", "video"):
        for idx, gt in gts(root, kind).items():
            wrong = text_neg_wrong and kind == "text" and idx.endswith("_neg")
            rows.append(
                {
                    "model": "m",
                    "idx": idx,
                    "kind": kind,
                    "response": "AB"[gt == "A"] if wrong else gt,
                }
            )
    write_jsonl(path, rows)
    return path


def test_scorer_reads_the_export(dataset: Path, tmp_path: Path) -> None:
    right = score_vinoground(dataset, predictions(dataset, tmp_path / "right.jsonl"))["models"]["m"]
    assert (right["text"], right["video"], right["group"]) == (100.0, 100.0, 100.0)
    assert right["pairs"] == N
    half = score_vinoground(dataset, predictions(dataset, tmp_path / "half.jsonl", True))
    m = half["models"]["m"]
    assert (m["text"], m["video"], m["group"]) == (0.0, 100.0, 0.0)
    assert not half["problems"]


def test_categories_in_the_csv_and_scored_per_category(dataset: Path, tmp_path: Path) -> None:
    pairs = {p["index"]: p for p in read_vinoground(dataset)}
    specs = plan_pairs(N, 2, SIZE["width"], SIZE["height"], SIZE["fps"])
    assert {s.kind for s in specs} == set(KINDS)
    for s in specs:
        assert pairs[str(s.index)]["major"] == s.major
        assert pairs[str(s.index)]["minor"] == ";".join(s.minors)
    # every text answer wrong on the pairs of one major: only that major scores 0
    wrong = {i for i, p in pairs.items() if p["major"] == "object"}
    rows = []
    for kind in ("text", "video"):
        for idx, gt in gts(dataset, kind).items():
            bad = kind == "text" and idx.split("_")[0] in wrong
            rows.append(
                {"model": "m", "idx": idx, "kind": kind, "response": "AB"[gt == "A"] if bad else gt}
            )
    write_jsonl(tmp_path / "p.jsonl", rows)
    m = score_vinoground(dataset, tmp_path / "p.jsonl")["models"]["m"]
    assert set(m["per_major"]) == set(VINO_MAJOR) and set(m["per_minor"]) == set(VINO_MINOR)
    assert m["per_major"]["object"]["text"] == 0.0 and m["per_major"]["object"]["video"] == 100.0
    assert m["per_major"]["action"]["group"] == m["per_major"]["viewpoint"]["group"] == 100.0
    for minor, g in m["per_minor"].items():
        kinds = {s.kind for s in specs if minor in s.minors}
        object_only = all(KINDS[k][0] == "object" for k in kinds)
        assert g["text"] == (0.0 if object_only else 100.0), (minor, g)
    assert m["pairs"] == N and m["group_correct"] == N - len(wrong)


def test_deterministic_and_resumable(dataset: Path, tmp_path: Path) -> None:
    again = build_vinoground(tmp_path / "again", N, seed=2, jobs=2, **SIZE)  # a process pool
    for name in ("vinoground.csv", "vinoground_textscore.json", "vinoground_videoscore.json"):
        assert (again / name).read_bytes() == (dataset / name).read_bytes()
    video = again / "videos" / "pair1_pos.mp4"
    stamp = video.stat().st_mtime_ns
    build_vinoground(again, N, seed=2, jobs=2, **SIZE)
    assert video.stat().st_mtime_ns == stamp  # already rendered: skipped
    other = build_vinoground(tmp_path / "other", 2, seed=3, jobs=1, **SIZE)
    assert (other / "vinoground.csv").read_bytes() != (dataset / "vinoground.csv").read_bytes()


def _stamps(root: Path) -> dict[str, tuple[int, int]]:
    """Inode and mtime of pair 0's files: a redone file is renamed into place anew."""
    names = ("videos/pair0_pos.mp4", "videos/pair0_neg.mp4", "videos/pair0_concat.mp4")
    return {n: ((root / n).stat().st_ino, (root / n).stat().st_mtime_ns) for n in names}


def _build_one(root: Path) -> Path:
    return build_vinoground(root, 1, seed=2, **SIZE)


def test_pairs_honour_the_render_version(tmp_path: Path, monkeypatch) -> None:
    from tempogen.generators import planning

    root = _build_one(tmp_path / "one")
    record = root / "records" / "pair0.json"
    before, stored = _stamps(root), record.read_bytes()
    _build_one(root)
    assert _stamps(root) == before and record.read_bytes() == stored  # same version: reused
    monkeypatch.setattr(planning, "RENDER_VERSION", planning.RENDER_VERSION + 1)
    _build_one(root)
    after = _stamps(root)
    assert all(after[n] != before[n] for n in before), after  # every video rendered again
    assert json.loads(record.read_bytes())["spec_hash"] != json.loads(stored)["spec_hash"]
    again = _stamps(root)
    _build_one(root)
    assert _stamps(root) == again


@pytest.mark.parametrize("damage", ["no concat", "altered pos", "corrupt record"])
def test_a_damaged_pair_is_rendered_again(tmp_path: Path, damage: str) -> None:
    root = _build_one(tmp_path / "one")
    csv_before = (root / "vinoground.csv").read_bytes()
    before = _stamps(root)
    if damage == "no concat":
        (root / "videos" / "pair0_concat.mp4").unlink()
    elif damage == "altered pos":
        pos = root / "videos" / "pair0_pos.mp4"
        pos.write_bytes(pos.read_bytes()[:-1] + b"\0")
    else:
        (root / "records" / "pair0.json").write_text("{")
    _build_one(root)
    after = _stamps(root)
    assert all(after[n] != before[n] for n in before), after
    assert (root / "vinoground.csv").read_bytes() == csv_before
    read_vinoground(root)


def _records(root: Path, n: int) -> list[dict]:
    """``n`` pair records as ``render_pair`` writes them (their concatenated clips present, so
    nothing is rendered): what the export needs to lay out its questions."""
    from tempogen.generators.pairs import concat_name

    out = []
    for i in range(n):
        (root / concat_name(i)).parent.mkdir(parents=True, exist_ok=True)
        (root / concat_name(i)).write_bytes(b"")
        out.append({
            "index": i, "major": VINO_MAJOR[0], "minor": "", "num_frames": 36, "fps": 12.0,
            "pos_video": f"videos/pair{i}_pos.mp4", "neg_video": f"videos/pair{i}_neg.mp4",
            "pos_caption": f"the ball rolls, then it stops ({i})",
            "neg_caption": f"the ball stops, then it rolls ({i})",
        })  # fmt: skip
    return out


@pytest.mark.parametrize("seed", [0, 2, 7, 2026])
def test_the_positive_caption_is_balanced_between_a_and_b(tmp_path: Path, seed: int) -> None:
    """64 pairs (the default build's count): the positive caption stands at A in about half
    of them, as seeded coin flips give, never in all (a blind model picking the original's
    caption, or A, would score); both text questions of a pair share one order."""
    export_vinoground(_records(tmp_path, 64), tmp_path, seed=seed)
    text = json.loads((tmp_path / "vinoground_textscore.json").read_text(encoding="utf-8"))
    pos_at_a = [q["GT"] == "A" for q in text if q["idx"].endswith("_pos")]
    assert len(pos_at_a) == 64 and 20 <= sum(pos_at_a) <= 44, sum(pos_at_a)
    for pos, neg in zip(text[::2], text[1::2]):
        assert pos["question"] == neg["question"] and {pos["GT"], neg["GT"]} == {"A", "B"}


def test_a_lopsided_caption_order_is_refused() -> None:
    def questions(at_a: int, n: int) -> list[dict[str, str]]:
        return [
            {"idx": f"{i}_{side}", "GT": gt}
            for i in range(n)
            for side, gt in (("pos", "AB"[i >= at_a]), ("neg", "BA"[i >= at_a]))
        ]

    with pytest.raises(OutputError, match="option A in 64 of 64 pairs"):
        check_caption_order(questions(64, 64))
    with pytest.raises(OutputError, match="option A in 0 of 64 pairs"):
        check_caption_order(questions(0, 64))
    for k in (20, 30, 32, 44):  # what seeded coin flips give
        check_caption_order(questions(k, 64))
    check_caption_order(questions(8, 8))  # eight heads in a row happen: not refused
