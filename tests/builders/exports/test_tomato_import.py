"""`tempogen import tomato`: TOMATO's folder read back as a manifest that edit, validate and
eval read; answers worded as facts become facts, free-word answers are never edited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tempogen.builders.dataset.variants import edit_manifest
from tempogen.builders.exports.tomato import export_tomato
from tempogen.builders.exports.tomato_import import import_tomato, read_answer
from tempogen.cli import main
from tempogen.config import config_from_dict
from tempogen.editing import parse_pipeline
from tempogen.errors import InputFileError, OutputError
from tempogen.generators.build import plan, render_spec
from tempogen.manifest import read_manifest


@pytest.fixture(scope="module")
def tomato(tmp_path_factory) -> tuple[list[dict], Path]:
    """Three rendered 2D clips per task, exported in TOMATO's layout."""
    ds = tmp_path_factory.mktemp("ds")
    cfg = config_from_dict(
        {"seed": 11, "size": [160, 90], "fps": 10, "duration": [3, 3], "samples_per_task": 3,
         "scenes3d": {"humans": 0.0, "objects": 0.0}}
    )  # fmt: skip
    rows = [render_spec(s, ds) for s in plan(cfg)]
    folder = tmp_path_factory.mktemp("tomato")
    export_tomato(rows, ds, folder)
    return rows, folder


def _imported(path: Path) -> dict[str, dict]:
    """Imported rows by the id of the row TOMATO's key came from."""
    return {r["note"].split("TOMATO key ")[-1]: r for r in read_manifest(path)}


def test_every_answer_worded_as_a_fact_reads_back(tomato, tmp_path, capsys) -> None:
    rows, folder = tomato
    out = tmp_path / "m.jsonl"
    assert main(["import", "tomato", str(folder), "--out", str(out), "-q"]) == 0
    said = capsys.readouterr().out
    assert f"wrote {len(rows)} questions" in said
    got = _imported(out)
    assert set(got) == {r["id"] for r in rows}
    for r in rows:
        g = got[r["id"]]
        assert (g["question"], g["options"], g["answer"]) == (
            r["question"],
            r["options"],
            r["answer"],
        )
        assert (out.parent / g["video"]).is_file()
        if r["task"] == "visual_cues":  # "The red circle starts first." is no fact we read
            assert g["labels"] == {} and "answer_key" not in g
        else:
            assert g["answer_key"] == r["answer_key"], (r["id"], r["answer_text"])
            assert g["option_keys"] == r["option_keys"]
    # the videos stay in TOMATO's folder, outside the manifest's: allowed by name only
    assert main(["validate", str(out)]) == 2
    assert "leaves the dataset folder" in capsys.readouterr().err
    assert main(["validate", str(out), "--videos-under", str(folder)]) == 0


@pytest.mark.parametrize(
    "task, options, answer, want",
    [
        ("direction", ["Left", "Right", "First to the left then to the right", "No movements"],
         2, ("direction", "left-right")),
        ("shape&trend", ["Circle", "Square/rectangle", "Infinity-shape", "Not drawing at all"],
         1, ("trajectory", "square")),
        ("velocity&frequency", ["Accelerating", "Decelerating", "Constant speed"],
         2, ("speed", "constant")),
        ("velocity&frequency", ["The frequency increases.", "The frequency decreases."],
         1, ("frequency", "decreasing")),
        ("count", ["1", "2", "3", "4", "5", "6"], 3, ("count", "4")),
        ("direction", ["Towards the camera", "Away from the camera"], 0, ("", "")),
    ],
)  # fmt: skip
def test_the_papers_wordings_read(task, options, answer, want) -> None:
    assert read_answer(task, options, answer)[:2] == want


def test_imported_rows_edit_soundly(tomato, tmp_path) -> None:
    """A mirror moves the facts (left <-> right, clockwise <-> counter-clockwise) and the
    question's answer with them; a free-word answer is refused, never copied."""
    rows, folder = tomato
    manifest = tmp_path / "m.jsonl"
    import_tomato(folder, manifest)
    report = edit_manifest(
        manifest, {"mirror": parse_pipeline([{"mirror": "horizontal"}])}, tmp_path / "edited"
    )
    swap = {"left": "right", "right": "left", "cw": "ccw", "ccw": "cw"}
    before = {r["id"]: r for r in read_manifest(manifest)}
    for r in report.rows:
        src = before[r["source"]]
        assert r["options"][r["answer"]] == r["answer_text"]
        if src["task"] in ("direction", "rotation"):
            want = "-".join(swap.get(t, t) for t in src["answer_key"].split("-"))
            assert r["answer_key"] == want, (src["id"], src["answer_key"], r["answer_key"])
        elif src["task"] == "count":
            assert r["answer_key"] == src["answer_key"]
    refused = {rid for rid, _, _ in report.refused}
    cues = {rid for rid, r in before.items() if r["task"] == "visual_cues"}
    assert cues and cues <= refused
    assert all("free words" in why for rid, _, why in report.refused if rid in cues)


def test_a_bad_entry_is_named_and_nothing_is_written(tomato, tmp_path, capsys) -> None:
    _, folder = tomato
    bad = tmp_path / "bad"
    (bad / "data").mkdir(parents=True)
    (bad / "videos").symlink_to(folder / "videos")
    for p in (folder / "data").iterdir():
        (bad / "data" / p.name).write_text(p.read_text())
    data = json.loads((bad / "data" / "rotation.json").read_text())
    qid = sorted(data)[1]
    data[qid]["answer"] = 9
    (bad / "data" / "rotation.json").write_text(json.dumps(data, indent=2))
    with pytest.raises(InputFileError) as err:
        import_tomato(bad)
    msg = str(err.value)
    assert "rotation.json:" in msg and f"entry {qid!r}" in msg and "answer" in msg
    assert not (bad / "manifest.jsonl").exists()
    assert main(["import", "tomato", str(bad), "-q"]) == 2
    assert "rotation.json" in capsys.readouterr().err


def test_never_writes_over_a_manifest_it_did_not_make(tomato, tmp_path) -> None:
    _, folder = tomato
    mine = tmp_path / "manifest.jsonl"
    mine.write_text('{"id": "x", "generator": "bounce_count"}\n')
    with pytest.raises(OutputError, match="not written by `tempogen import tomato`"):
        import_tomato(folder, mine)
    assert mine.read_text().startswith('{"id": "x"')
    import_tomato(folder, tmp_path / "again.jsonl")
    first = (tmp_path / "again.jsonl").read_bytes()
    import_tomato(folder, tmp_path / "again.jsonl")  # its own: rewritten, byte for byte
    assert (tmp_path / "again.jsonl").read_bytes() == first
