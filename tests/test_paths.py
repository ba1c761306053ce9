"""Nothing escapes its folder, nothing is lost (issue 25, classes 1, 2 and 8), through the CLI:
names that become file names are checked where they are read, a command never writes over a
file it reads, ``edit`` and ``generate`` write only into folders they own, ``--replace`` keeps
a user's own files, and a cached edit of a user's record sees its video and labels."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from kit import build_files, tempogen

from tempogen.video import write_video

TINY = "seed: 5\nsize: [128, 96]\nfps: 8\nduration: [3.0, 3.0]\nsamples_per_task: 1\n"
TINY += "tasks: [direction]\nvariants: {share: 0}\nvinoground: {pairs: 0}\n"
TINY += "retrieval: {pairs: 0}\nshortcuts: 'off'\n"


def forked(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The CLI's main in a child forked from this process (milliseconds, not seconds of
    imports); test_replace_deletes_only_what_a_build_wrote and the human render keep a fresh
    process."""
    return tempogen(*args, fork=True)


def refused(r: subprocess.CompletedProcess[str], *places: str) -> None:
    """Exit 2, no traceback, one message naming every place."""
    assert r.returncode == 2, (r.returncode, r.stderr[-1500:])
    assert "Traceback" not in r.stderr, r.stderr
    for p in places:
        assert p in r.stderr, (p, r.stderr)


def clip(path: Path, shade: int = 0) -> None:
    """A 12-frame 64x48 video: a square moving right over a background of ``shade``."""
    frames = np.full((12, 48, 64, 3), shade, np.uint8)
    for t in range(12):
        frames[t, 16:32, 4 + 3 * t : 20 + 3 * t] = (255, 255, 0)
    write_video(path, frames, 4)


def record(rid: str, direction: str = "right", video: str = "a.mp4") -> dict:
    return {
        "id": rid,
        "video": video,
        "task": "direction",
        "fact": "direction",
        "question": "Which way does the square move?",
        "labels": {"direction": [direction]},
    }


def manifest(folder: Path, rows: list[dict], name: str = "m.jsonl") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "a.mp4").exists():
        clip(folder / "a.mp4")
    path = folder / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def pipeline(tmp: Path, text: str = "{mirror: [{mirror: horizontal}]}\n") -> Path:
    path = tmp / "p.yaml"
    path.write_text(text)
    return path


def files(root: Path) -> dict[str, bytes]:
    """Every file's bytes, hidden ones too (but the lock a refused run may leave)."""
    return build_files(root, hidden=True, ignore={".tempogen.lock"})


# -- class 1: names that become paths -------------------------------------------------------
@pytest.mark.parametrize("rid", ["../../../ESCAPED", ".hidden", "a\\b", "x" * 200, 7])
def test_edit_refuses_a_record_id_that_is_no_safe_name(tmp_path: Path, rid: object) -> None:
    deep = tmp_path / "a" / "b" / "c"
    m = manifest(deep / "in", [record("ok"), {**record("x"), "id": rid}])
    r = forked("edit", "--manifest", m, "--pipeline", pipeline(tmp_path), "--out", deep / "o")
    refused(r, f"{m}:2", "id")
    assert not [p for p in tmp_path.rglob("*ESCAPED*")], "wrote outside --out"
    assert not (deep / "o" / "manifest.jsonl").exists()


def test_edit_refuses_a_variant_name_that_is_no_safe_name(tmp_path: Path) -> None:
    victim = tmp_path / "victim.json"
    victim.write_text("mine")
    m = manifest(tmp_path / "in", [record("a")])
    p = pipeline(tmp_path, "ok: [reverse]\n/../../../victim: [reverse]\n")
    r = forked("edit", "--manifest", m, "--pipeline", p, "--out", tmp_path / "o" / "x")
    refused(r, f"{p}:2", "variant name")
    assert victim.read_text() == "mine"
    assert not (tmp_path / "o" / "x" / "manifest.jsonl").exists()


def test_edit_refuses_two_records_with_one_id(tmp_path: Path) -> None:
    m = manifest(tmp_path / "in", [record("a"), record("b"), record("a", "left")])
    r = forked("edit", "--manifest", m, "--pipeline", pipeline(tmp_path), "--out", tmp_path / "o")
    refused(r, f"{m}:3", "line 1", "'a'")


def test_import_tomato_names_the_entry_whose_id_is_no_safe_name(tmp_path: Path) -> None:
    folder = _tomato(tmp_path)
    data = folder / "data" / "count.json"
    data.write_text(data.read_text().replace('"0"', '"../../ESC"'))  # the question's id
    r = forked("import", "tomato", folder, "-q")
    refused(r, f"{data}:2", "question id")
    assert not (folder / "manifest.jsonl").exists()


# -- class 2: no command writes over what it reads ------------------------------------------
def test_captions_audit_report_over_its_input_is_refused(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        json.dumps({"pos": "a dog runs and then jumps", "neg": "a dog jumps and then runs"}) + "\n"
    )
    before = pairs.read_bytes()
    r = forked("captions", "audit", pairs, "--report", pairs, "--near-dup", "off")
    refused(r, "--report", "pairs.jsonl")
    assert pairs.read_bytes() == before


def _tomato(tmp: Path) -> Path:
    entry = {"question": "How many?", "options": ["1", "2"], "answer": 1, "key": "k1",
             "video_source_url": "", "motion_type": "count", "demonstration_type": "human",
             "variation": {"counterfactual": 0, "composite": 0, "zoom": 0, "first_person": 0},
             "note": ""}  # fmt: skip
    (tmp / "T" / "data").mkdir(parents=True)
    (tmp / "T" / "data" / "count.json").write_text(json.dumps({"0": entry}, indent=2))
    write_video(tmp / "T" / "videos" / "human" / "k1.mp4", np.zeros((4, 32, 32, 3), np.uint8), 4)
    return tmp / "T"


def test_audit_validity_and_eval_out_over_their_inputs_are_refused(tmp_path: Path) -> None:
    folder = _tomato(tmp_path)
    assert forked("import", "tomato", folder, "-q").returncode == 0
    m = folder / "manifest.jsonl"
    before = m.read_bytes()
    refused(forked("audit", "validity", "--manifest", m, "--out", m), "--out", "manifest.jsonl")
    assert m.read_bytes() == before
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"task": "count", "id": "0", "response": "B"}) + "\n")
    kept = preds.read_bytes()
    r = forked("eval", "tomato", "--dataset", folder, "--predictions", preds, "--out", preds)
    refused(r, "--out", "preds.jsonl")
    assert preds.read_bytes() == kept
    data = folder / "data" / "count.json"
    kept = data.read_bytes()
    r = forked("eval", "tomato", "--dataset", folder, "--predictions", preds, "--out", data)
    refused(r, "--out", "count.json")
    assert data.read_bytes() == kept
    scores = folder / "scores.json"  # an output of its own, written again by a rerun: fine
    for _ in range(2):
        r = forked("eval", "tomato", "--dataset", folder, "--predictions", preds, "--out", scores)
        assert r.returncode == 0, r.stderr


@pytest.mark.slow
def test_human_render_names_joints_from_the_file_name_only(tmp_path: Path) -> None:
    motion = tmp_path / "walk.npz"
    np.savez(motion, poses=np.zeros((4, 156)), trans=np.zeros((4, 3)), betas=np.zeros(16),
             mocap_framerate=np.array(30.0))  # fmt: skip
    kept = motion.read_bytes()
    refused(tempogen("human", "render", motion, "--out", motion), "--out", "walk.npz")
    assert motion.read_bytes() == kept
    take = tmp_path / "take.joints.json"
    take.write_text("mine")
    out = tmp_path / "take.v2" / "clip"
    r = tempogen("human", "render", motion, "--out", out, "--size", "64x48")
    assert r.returncode == 0, r.stderr
    assert take.read_text() == "mine"
    assert (tmp_path / "take.v2" / "clip.joints.json").is_file() and out.is_file()


# -- class 2: one rule for folders ------------------------------------------------------------
def test_edit_refuses_a_folder_generate_built(tmp_path: Path) -> None:
    built = tmp_path / "dataset"
    built.mkdir()
    (built / ".tempogen-build.json").write_text('{"config_sha256": "x", "config": "c.yaml"}')
    (built / "manifest.jsonl").write_text("".join(f'{{"id": "r{i}"}}\n' for i in range(9)))
    before = files(built)
    m = manifest(tmp_path / "in", [record("a")])
    r = forked("edit", "--manifest", m, "--pipeline", pipeline(tmp_path), "--out", built)
    refused(r, str(built), "tempogen generate")
    assert files(built) == before


def test_edit_refuses_a_folder_of_the_users_own(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "manifest.jsonl").write_text('{"id": "keep"}\n')
    m = manifest(tmp_path / "in", [record("a")])
    r = forked("edit", "--manifest", m, "--pipeline", pipeline(tmp_path), "--out", mine)
    refused(r, str(mine), "manifest.jsonl")
    assert (mine / "manifest.jsonl").read_text() == '{"id": "keep"}\n'


def test_a_second_edit_run_keeps_the_first_runs_rows(tmp_path: Path) -> None:
    out = tmp_path / "o"
    p = pipeline(tmp_path)
    first = manifest(tmp_path / "in", [record("a")], "first.jsonl")
    second = manifest(tmp_path / "in", [record("b")], "second.jsonl")
    assert forked("edit", "--manifest", first, "--pipeline", p, "--out", out).returncode == 0
    r = forked("edit", "--manifest", second, "--pipeline", p, "--out", out)
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]
    assert [row["id"] for row in rows] == ["a~mirror", "b~mirror"]
    again = (out / "manifest.jsonl").read_bytes()
    assert forked("edit", "--manifest", second, "--pipeline", p, "--out", out).returncode == 0
    assert (out / "manifest.jsonl").read_bytes() == again, "a rerun changes nothing"


def test_generate_refuses_a_folder_it_did_not_build(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(TINY)
    mine = tmp_path / "site"
    mine.mkdir()
    (mine / "index.html").write_text("<h1>my page</h1>")
    (mine / "manifest.jsonl").write_text('{"id": "mine"}\n')
    before = files(mine)
    r = forked("generate", "--config", config, "--out", mine, "-q", "-j", "1")
    refused(r, str(mine), "index.html", "manifest.jsonl")
    assert files(mine) == before
    edited = tmp_path / "edits"  # nor a folder `tempogen edit` owns
    m = manifest(tmp_path / "in", [record("a")])
    r = forked("edit", "--manifest", m, "--pipeline", pipeline(tmp_path), "--out", edited)
    assert r.returncode == 0, r.stderr
    before = files(edited)
    r = forked("generate", "--config", config, "--out", edited, "-q", "-j", "1")
    refused(r, str(edited), "tempogen edit")
    assert files(edited) == before


@pytest.mark.slow
def test_replace_deletes_only_what_a_build_wrote(tmp_path: Path) -> None:
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(TINY)
    second.write_text(TINY.replace("seed: 5", "seed: 6"))
    out = tmp_path / "ds"
    r = tempogen("generate", "--config", first, "--out", out, "-q", "-j", "1")
    assert r.returncode == 0, r.stderr
    holiday = out / "videos" / "holiday.mp4"
    holiday.write_bytes(b"my holiday")
    (out / "notes.txt").write_text("mine too")
    r = tempogen("generate", "--config", second, "--out", out, "-q", "-j", "1", "--replace")
    assert r.returncode == 0, r.stderr
    assert holiday.read_bytes() == b"my holiday" and (out / "notes.txt").is_file()
    rows = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]
    assert {p.name for p in (out / "videos").iterdir()} == {Path(r["video"]).name for r in rows} | {
        "holiday.mp4"
    }, "the first build's clips must go, the user's stay"


# -- class 8: a cached edit sees its inputs ---------------------------------------------------
def test_edit_cache_sees_a_user_records_video_and_labels(tmp_path: Path) -> None:
    src = tmp_path / "in"
    out = tmp_path / "o"
    p = pipeline(tmp_path)
    m = manifest(src, [record("a", "right")])
    assert forked("edit", "--manifest", m, "--pipeline", p, "--out", out).returncode == 0
    row = json.loads((out / "manifest.jsonl").read_text())
    assert row["labels"]["direction"] == ["left"]
    video = (out / row["video"]).read_bytes()
    clip(src / "a.mp4", shade=90)  # the user re-recorded the clip
    assert forked("edit", "--manifest", m, "--pipeline", p, "--out", out).returncode == 0
    assert (out / row["video"]).read_bytes() != video, "an old clip reused for a new video"
    manifest(src, [record("a", "left")], "m.jsonl")  # and corrected the label
    assert forked("edit", "--manifest", m, "--pipeline", p, "--out", out).returncode == 0
    row = json.loads((out / "manifest.jsonl").read_text())
    assert row["labels"]["direction"] == ["right"], "an old answer reused for new labels"


# -- the checks themselves --------------------------------------------------------------------
@pytest.mark.parametrize(
    "name",
    ["", ".", "..", "a/b", "a\\b", "a..b", ".x", "a\x00b", "a\nb", "a\x7fb", "é" * 61, None, 3],
)
def test_name_rule_refuses(name: object) -> None:
    from tempogen.errors import InputFileError
    from tempogen.paths import name_problem, safe_name

    assert name_problem(name) is not None
    with pytest.raises(InputFileError, match=r"^m\.jsonl:4: id: "):
        safe_name(name, "m.jsonl:4", "id")


@pytest.mark.parametrize("name", ["a", "direction-0001~reverse", "tomato-count-12", "é" * 60])
def test_name_rule_takes(name: str) -> None:
    from tempogen.paths import name_problem

    assert name_problem(name) is None
    assert name_problem("a~b", forbid="~") is not None


def test_inside_refuses_what_leaves_the_folder(tmp_path: Path) -> None:
    from tempogen.errors import OutputError
    from tempogen.paths import inside

    assert inside(tmp_path, "clips", "a~b.json") == tmp_path / "clips" / "a~b.json"
    for parts in (("..", "x"), ("/etc/passwd",), ("clips", "../../x"), (".",), ("a/../..",)):
        with pytest.raises(OutputError, match="outside this folder"):
            inside(tmp_path, *parts)


def test_check_not_input_sees_the_same_file_under_another_name(tmp_path: Path) -> None:
    from tempogen.errors import OutputError
    from tempogen.paths import check_not_input

    src = tmp_path / "in.jsonl"
    src.write_text("x")
    (tmp_path / "link.jsonl").symlink_to(src)
    (tmp_path / "hard.jsonl").hardlink_to(src)
    for name in ("in.jsonl", "link.jsonl", "hard.jsonl", "./sub/../in.jsonl"):
        with pytest.raises(OutputError, match="is the input"):
            check_not_input([("--out", tmp_path / name)], [src])
    check_not_input([("--out", tmp_path / "new.jsonl"), ("--report", None)], [src, None])
