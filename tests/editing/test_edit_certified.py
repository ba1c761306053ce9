"""``tempogen edit`` writes only what its certificate and frames back (issue 24, items 1 and 7):
an edit whose answer TOMATO's 16 samples do not show is refused and listed (or kept, marked,
on request, and the mark reaches every export); a join with a negative gap and a speed-up
that leaves too few frames for a declared fact are refused; edits of clips without per-frame
states say that their answers rest on declarations (``verified: declared``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from kit import read_jsonl as _read_jsonl
from kit import tempogen
from kit import write_jsonl as _write_jsonl

from tempogen.builders.exports import EXPORTS
from tempogen.editing import Clip, Reverse, concat, pair_with_black_gap
from tempogen.errors import EditError
from tempogen.video import probe, write_video

UNCERTIFIED = "count-0002"  # configs/tiny.yaml: at double speed 5 flashes, 3 at 16 samples


def _edit(
    manifest: Path, pipeline: str, out: Path, *extra: str, fork: bool = True
) -> subprocess.CompletedProcess:
    """``tempogen edit``, forked from this process unless ``fork`` is False (a fresh process:
    the first test keeps one)."""
    p = out.parent / f"{out.name}.yaml"
    p.write_text(pipeline, encoding="utf-8")
    args = ("edit", "--manifest", manifest, "--pipeline", p, "--out", out, "-q", *extra)
    return tempogen(*args, fork=fork)


@pytest.fixture
def two_counts(tiny_dataset) -> Path:
    """Two count rows of the tiny dataset: one whose double speed certifies, one whose does
    not (beside the original manifest, so the videos resolve the same)."""
    rows = {r["id"]: r for r in _read_jsonl(tiny_dataset / "manifest.jsonl")}
    path = tiny_dataset / "two-counts.jsonl"
    _write_jsonl(path, [rows["count-0000"], rows[UNCERTIFIED]])
    return path


def _exports(rows: list[dict], folder: Path) -> dict[str, dict]:
    """Every built-in export of ``rows`` into ``folder``: each row's metadata by id."""
    for name in ("tomato", "videott", "lmms_eval", "hf"):
        EXPORTS[name](rows, folder)
    tomato = {}
    for f in (folder / "tomato" / "data").glob("*.json"):
        tomato.update({e["key"]: e for e in json.loads(f.read_text()).values()})
    lmms = {d["id"]: d for d in _read_jsonl(folder / "lmms_eval/tempogen_tomato/test.jsonl")}
    hf = {r["id"]: r for r in pq.read_table(folder / "hf/data/test.parquet").to_pylist()}
    tt = {e["video_id"]: e for e in json.loads((folder / "videott/videott.json").read_text())}
    return {"tomato": tomato, "lmms_eval": lmms, "hf": hf, "videott": tt}


@pytest.mark.slow
def test_an_edit_its_certificate_contradicts_is_refused_and_listed(two_counts, tmp_path) -> None:
    out = tmp_path / "out"
    res = _edit(two_counts, "fast: [{speed: 2.0}]\n", out, fork=False)
    assert res.returncode == 0, res.stderr
    assert [r["id"] for r in _read_jsonl(out / "manifest.jsonl")] == ["count-0000~fast"]
    said = res.stdout
    assert "refused 1 edits" in said
    assert (
        "1  fast: not certified at 16 frames: every frame shows '5', but TOMATO's 16 samples "
        "show '3'" in said
    )
    assert f"refused: {UNCERTIFIED}~fast" in said.splitlines()
    assert not list(out.glob(f"videos/{UNCERTIFIED}*"))
    assert not list(out.glob(f"clips/{UNCERTIFIED}*"))


@pytest.mark.slow
def test_keep_uncertified_marks_the_row_and_every_export(two_counts, tmp_path) -> None:
    out = tmp_path / "out"
    res = _edit(two_counts, "fast: [{speed: 2.0}]\n", out, "--keep-uncertified")
    assert res.returncode == 0, res.stderr
    assert "refused" not in res.stdout
    assert "kept 1 uncertified edits" in res.stdout
    assert f"uncertified: {UNCERTIFIED}~fast" in res.stdout.splitlines()
    rows = {r["id"]: r for r in _read_jsonl(out / "manifest.jsonl")}
    kept, fine = rows[f"{UNCERTIFIED}~fast"], rows["count-0000~fast"]
    assert kept["certificate"]["ok"] is False
    assert (kept["answer_key"], kept["certificate"]["sampled"]) == ("5", 3)
    assert "ok" not in fine["certificate"]  # a certified row is written as before
    res = tempogen("validate", out / "manifest.jsonl", fork=True)
    assert res.returncode == 0, res.stderr  # the schema takes the mark

    meta = _exports(list(rows.values()), out)
    for name, by_id in meta.items():
        assert by_id[kept["id"]]["certified"] is False, name
        assert by_id[fine["id"]].get("certified") is None, name
    card = (out / "hf" / "README.md").read_text()
    assert "1 question(s) were kept although TOMATO's 16 uniform samples" in card
    for folder in ("tomato", "hf", "videott/videott.json", "lmms_eval"):
        res = tempogen("validate", out / folder, fork=True)
        assert res.returncode == 0, (folder, res.stderr)

    # the same edit without the flag: refused again, and the kept clip is taken back; so is
    # one an earlier tempogen wrote without certifying it (its record has no mark)
    for unmarked in (False, True):
        if unmarked:
            res = _edit(two_counts, "fast: [{speed: 2.0}]\n", out, "--keep-uncertified")
            record = out / "clips" / f"{UNCERTIFIED}~fast.json"
            old = json.loads(record.read_text())
            del old["certificate"]["ok"]
            record.write_text(json.dumps(old))
        res = _edit(two_counts, "fast: [{speed: 2.0}]\n", out)
        assert res.returncode == 0, res.stderr
        assert f"refused: {UNCERTIFIED}~fast" in res.stdout.splitlines()
        assert [r["id"] for r in _read_jsonl(out / "manifest.jsonl")] == ["count-0000~fast"]
        assert not list(out.glob(f"videos/{UNCERTIFIED}*"))


@pytest.fixture
def left_clip(tmp_path, generated) -> Path:
    """A user's clip record: 46 frames declared to move left (no per-frame states)."""
    clip = generated("spin", "cw")
    write_video(tmp_path / "walk.mp4", clip.to_array(), clip.fps)
    row = {
        "id": "walk",
        "video": "walk.mp4",
        "task": "direction",
        "fact": "direction",
        "question": "Which direction does the square move in?",
        "labels": {"direction": ["left"]},
    }
    _write_jsonl(tmp_path / "m.jsonl", [row])
    return tmp_path / "m.jsonl"


@pytest.mark.slow
def test_an_edit_leaving_too_few_frames_for_a_declared_fact_is_refused(left_clip) -> None:
    out = left_clip.parent / "out"
    pipes = (
        "huge: [{speed: 1000}]\n"  # one frame (the fastest rate an op takes)
        "x4: [{speed: 4}]\n"  # 12 frames: fewer than TOMATO's 16 samples
        "x2: [{speed: 2}]\n"  # 23 frames: 16 samples still show 16 moments
        "gap: [{concat: {other: [], gap: 0.5}}]\n"
    )
    res = _edit(left_clip, pipes, out)
    assert res.returncode == 0, res.stderr
    rows = {r["id"]: r for r in _read_jsonl(out / "manifest.jsonl")}
    assert sorted(rows) == ["walk~gap", "walk~x2"]
    refused = [ln for ln in res.stdout.splitlines() if ln.startswith("refused: ")]
    assert sorted(refused) == ["refused: walk~huge", "refused: walk~x4"]
    for name, kept in (("huge", 1), ("x4", 12)):
        assert (
            f"{name}: the edited clip shows {kept} distinct frame(s) of the source's 46, fewer "
            "than TOMATO's 16 samples: too few to show its declared direction" in res.stdout
        )
    # the join kept both clips whole: its frames are the clip, the gap, the clip again
    joined = rows["walk~gap"]
    assert joined["num_frames"] == probe(out / joined["video"]).num_frames == 46 + 8 + 46
    assert joined["answer_key"] == "left"

    # a loop of seven flashes counts 21, which 16 samples cannot show
    rows = [{**_read_jsonl(left_clip)[0], "id": "flash", "task": "count", "fact": "count",
             "question": "How many times does the square flash?", "labels": {"count": 7}}]  # fmt: skip
    _write_jsonl(left_clip, rows)
    res = _edit(left_clip, "loop3: [{loop: 3}]\nloop1: [{loop: 1}]\n", out)
    assert res.returncode == 0, res.stderr
    # the first run's rows stay: an edit into its own folder merges, never drops
    ids = [r["id"] for r in _read_jsonl(out / "manifest.jsonl")]
    assert ids == ["walk~x2", "walk~gap", "flash~loop1"]
    assert (
        "loop3: TOMATO's 16 samples of the edited clip show 16 distinct moment(s); its "
        "declared count 21 needs 22" in res.stdout
    )


@pytest.mark.slow
@pytest.mark.parametrize("gap", ["-0.5", ".nan", ".inf"])
def test_a_join_with_a_negative_or_endless_gap_is_refused(left_clip, gap) -> None:
    out = left_clip.parent / "out"
    res = _edit(left_clip, f"join: [{{concat: {{other: [reverse], gap: {gap}}}}}]\n", out)
    assert res.returncode == 2, res.stdout
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert "out.yaml" in lines[0] and "join" in lines[0]
    assert "concat: gap must be a number of seconds >= 0, got " in lines[0]
    assert not (out / "manifest.jsonl").exists()


def test_joins_refuse_negative_and_non_finite_gaps(tiny: Clip) -> None:
    for gap in (-1.0, float("nan"), float("inf"), True):
        with pytest.raises(EditError, match="concat: gap must be a number of seconds >= 0"):
            concat(tiny, tiny, gap)  # type: ignore[arg-type]
    for seconds in (-2.0, float("nan"), float("inf")):
        with pytest.raises(EditError, match="pair_with_black_gap: seconds must be a number"):
            pair_with_black_gap(tiny, tiny, seconds)
    joined = concat(tiny, Reverse()(tiny), 0.5)
    assert joined.num_frames == joined.labels.num_frames == 2 * tiny.num_frames + 2
    assert np.array_equal(joined.content_ids()[tiny.num_frames : tiny.num_frames + 2], [-1, -1])


@pytest.mark.slow
def test_edits_of_clips_without_states_are_marked_declared(left_clip, tiny_dataset) -> None:
    out = left_clip.parent / "out"
    res = _edit(left_clip, "mirror: [{mirror: horizontal}]\n", out)
    assert res.returncode == 0, res.stderr
    (row,) = _read_jsonl(out / "manifest.jsonl")
    assert row["verified"] == "declared" and row["labels"] == {"direction": ["right"]}
    assert "1 edits rest on declared facts" in res.stdout

    # TOMATO's own questions, imported, edited and exported: the exports say so too
    imported = left_clip.parent / "imported" / "m.jsonl"
    res = tempogen("import", "tomato", tiny_dataset / "tomato", "--out", imported, "-q", fork=True)
    assert res.returncode == 0, res.stderr
    assert all(r["verified"] == "declared" for r in _read_jsonl(imported))
    res = _edit(imported, "mirror: [{mirror: horizontal}]\n", out.parent / "edited")
    assert res.returncode == 0, res.stderr
    rows = _read_jsonl(out.parent / "edited" / "manifest.jsonl")
    assert rows and all(r["verified"] == "declared" for r in rows)
    assert tempogen("validate", out.parent / "edited" / "manifest.jsonl", fork=True).returncode == 0
    meta = _exports(rows, out.parent / "edited")
    assert meta["videott"] == {}  # no states: no Video-TT question set
    for name in ("tomato", "lmms_eval", "hf"):
        assert all(meta[name][r["id"]]["verified"] == "declared" for r in rows), name
    card = (out.parent / "edited" / "hf" / "README.md").read_text()
    assert f"{len(rows)} question(s) rest on declared facts" in card
    for folder in ("tomato", "hf", "lmms_eval"):
        res = tempogen("validate", out.parent / "edited" / folder, fork=True)
        assert res.returncode == 0, (folder, res.stderr)


def test_the_checkers_take_the_marks_and_refuse_other_values(manifest, tmp_path) -> None:
    from tempogen.builders.exports.hf import check_hf, export_hf
    from tempogen.builders.exports.tomato import check_data_file, export_tomato
    from tempogen.errors import InputFileError
    from tempogen.manifest import validate_row

    root, rows = manifest
    full = {"labels": {}, "source": None, "edits": [], "seed": 0, "spec_hash": "0" * 64}
    row = {**rows[0], **full}
    validate_row({**row, "certificate": {"ok": False}, "verified": "declared"})
    for bad, field in (({"certificate": {"ok": True}}, "certificate.ok"),
                       ({"verified": "certified"}, "verified")):  # fmt: skip
        with pytest.raises(InputFileError, match=f"{field}: "):
            validate_row({**row, **bad})

    marked = [{**rows[0], "certificate": {"ok": False}, "verified": "declared"}, *rows[1:]]
    export_tomato(marked, root, tmp_path / "tomato")
    data = tmp_path / "tomato" / "data" / f"{rows[0]['task']}.json"
    assert check_data_file(data)[1] == []
    entries = json.loads(data.read_text())
    assert entries["0"]["certified"] is False and entries["0"]["verified"] == "declared"
    for field, value in (("certified", True), ("verified", "yes")):
        data.write_text(json.dumps({"0": {**entries["0"], field: value}}, indent=2))
        (problem,) = check_data_file(data)[1]
        assert f": {field}: " in problem, problem

    export_hf(marked, root, tmp_path / "hf")
    assert check_hf(tmp_path / "hf")[1] == []
    path = tmp_path / "hf" / "data" / "test.parquet"
    table = pq.read_table(path)
    for field, value in (("certified", True), ("verified", "yes")):
        recs = table.to_pylist()
        recs[1][field] = value
        pq.write_table(type(table).from_pylist(recs, schema=table.schema), path)
        (problem,) = check_hf(tmp_path / "hf")[1]
        assert f"record 1 (id {rows[1]['id']!r}): {field}: " in problem, problem
