"""``tempogen validate`` checks each manifest row against itself and each video against its row.

One small rendered manifest is corrupted row by row (each corrupted row on its own line, so one
run of the CLI reports every problem): a row whose answer fields agree with each other but not
with its labels, its certificate or its option wording is exit 2 naming the line and field;
so is a video path that leaves the dataset folder, a text file in place of a video, and a
video whose size, frame count or sha256 is not the row's.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from kit import run_cli

from tempogen.facts import get_fact
from tempogen.manifest import write_manifest
from tempogen.video import sha256_file, write_video


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> tuple[Path, list[dict]]:
    """Two direction clips and one count clip, rendered in 2D, with their valid manifest."""
    from tempogen.config import config_from_dict
    from tempogen.generators.build import plan, render_spec

    root = tmp_path_factory.mktemp("rows")
    cfg = config_from_dict(
        {"seed": 5, "size": [160, 90], "fps": 10, "duration": [3, 3], "samples_per_task": 2,
         "tasks": ["direction", "count"], "scenes3d": {"humans": 0.0, "objects": 0.0}}
    )  # fmt: skip
    rows = [render_spec(s, root) for s in plan(cfg)]
    write_manifest(root / "manifest.jsonl", rows)
    return root, rows


def _other(row: dict) -> int:
    """An option index other than the answer."""
    return (row["answer"] + 1) % len(row["options"])


def _flip_all(r: dict) -> None:
    """The issue's flip: answer, answer_text and answer_key moved together to another option,
    so only the labels and the certificate still say what the clip shows."""
    j = _other(r)
    r.update(answer=j, answer_text=r["options"][j], answer_key=r["option_keys"][j])


def _value_of_other(r: dict) -> object:
    fact = get_fact(r["labels"]["query"]["fact"])
    value = fact.value(r["option_keys"][_other(r)])
    return list(value) if isinstance(value, tuple) else value


def _swap_wrong_options(r: dict) -> None:
    """Two distractors' texts swapped: every answer field still agrees, the keys do not."""
    i, j = [k for k in range(len(r["options"])) if k != r["answer"]][:2]
    r["options"][i], r["options"][j] = r["options"][j], r["options"][i]


def _declared(r: dict) -> None:
    """A row without states (as `import tomato` writes) declaring another direction."""
    r["labels"] = {"direction": _value_of_other(r)}
    for k in ("certificate", "num_frames", "spec"):
        r.pop(k, None)


def _text_video(root: Path):
    def change(r: dict) -> None:
        (root / "videos" / "notes.mp4").write_text("not a video\n" * 40, encoding="utf-8")
        r["video"] = "videos/notes.mp4"
        r["video_sha256"] = sha256_file(root / "videos" / "notes.mp4")  # only decoding tells

    return change


def _undecodable(root: Path):
    """A copy of the row's own video with its frame data (the mp4 ``mdat`` box) zeroed: the
    container opens and lists its frames, the first frame does not decode."""

    def change(r: dict) -> None:
        data = bytearray((root / r["video"]).read_bytes())
        at = data.index(b"mdat")
        size = int.from_bytes(data[at - 4 : at], "big")
        data[at + 4 : at - 4 + size] = bytes(size - 8)
        (root / "videos" / "zeroed.mp4").write_bytes(bytes(data))
        r["video"] = "videos/zeroed.mp4"
        r["video_sha256"] = sha256_file(root / "videos" / "zeroed.mp4")

    return change


def _short_video(root: Path, size: tuple[int, int], frames: int, name: str):
    def change(r: dict) -> None:
        w, h = size
        write_video(root / "videos" / name, np.zeros((frames, h, w, 3), np.uint8), fps=10)
        r["video"] = f"videos/{name}"
        r["video_sha256"] = sha256_file(root / "videos" / name)

    return change


def _outside(root: Path, how: str):
    def change(r: dict) -> None:
        outside = root.parent / f"{root.name}-outside.mp4"
        shutil.copy(root / r["video"], outside)
        if how == "link":
            (root / "videos" / "link.mp4").symlink_to(outside)
            r["video"] = "videos/link.mp4"
        else:
            r["video"] = str(outside)

    return change


def corruptions(root: Path) -> dict[str, tuple[int, object, str]]:
    """name: (index of the base row, change, the field and the start of its message)."""
    return {
        "consistent flip": (0, _flip_all, "labels.answer: "),
        "labels.answer": (0, lambda r: r["labels"].update(answer=_value_of_other(r)),
                          "labels.answer: "),
        "certificate.sampled": (1, lambda r: r["certificate"].update(sampled=_value_of_other(r)),
                                "certificate.sampled: "),
        "certificate.sampled_80": (
            1, lambda r: r["certificate"].update(sampled_80=_value_of_other(r)),
            "certificate.sampled_80: "),
        "option wording": (2, _swap_wrong_options, "options["),
        "declared label": (0, _declared, "labels.direction: "),
        "escape": (0, lambda r: r.update(video="../" * 30 + "etc/passwd"),
                   "video: '" + "../" * 30 + "etc/passwd' leaves the dataset folder "),
        "absolute": (0, _outside(root, "absolute"), "video: "),
        "symlink": (1, _outside(root, "link"), "video: 'videos/link.mp4' leaves the dataset"),
        "text file": (0, _text_video(root), f"video: {root}/videos/notes.mp4 is not a readable"),
        "undecodable": (1, _undecodable(root), f"video: {root}/videos/zeroed.mp4 is not a "),
        "width": (0, _short_video(root, (64, 48), 30, "small.mp4"), "width: 160 but the video"),
        "frames": (0, _short_video(root, (160, 90), 5, "short.mp4"),
                   "num_frames: "),
        "sha256": (2, lambda r: r.update(video_sha256="0" * 64), "video_sha256: the video "),
    }  # fmt: skip


@pytest.fixture(scope="module")
def reported(rendered, tmp_path_factory) -> tuple[Path, dict[str, int], list[str], int]:
    """The corrupted manifest (one corrupted row per line), line of each corruption, and the
    stderr lines and exit code of one `tempogen validate` run over it."""
    src, rows = rendered
    root = tmp_path_factory.mktemp("corrupt") / "ds"
    shutil.copytree(src, root)
    out, lines = [], {}
    for i, (name, (base, change, _)) in enumerate(corruptions(root).items()):
        r = json.loads(json.dumps(rows[base]))
        r["id"] = f"{r['id']}-c{i}"
        change(r)
        out.append(r)
        lines[name] = len(out)
    path = root / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in out), encoding="utf-8")
    res = run_cli("validate", path, fork=True)
    return path, lines, res.stderr.splitlines(), res.returncode


def test_the_rendered_manifest_is_valid(rendered) -> None:
    root, _ = rendered
    res = run_cli("validate", root / "manifest.jsonl")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == f"{root / 'manifest.jsonl'}: valid manifest, 4 rows"


def test_every_corrupted_row_is_exit_2(reported) -> None:
    path, lines, err, code = reported
    assert code == 2
    assert "Traceback" not in "\n".join(err)
    assert len(err) == len(lines) + 1, err  # one line per row, and the summary
    assert err[-1] == "tempogen: error: 1 of 1 files are invalid"


@pytest.mark.parametrize("name", list(corruptions(Path("/x"))))
def test_the_row_names_its_line_and_field(reported, name) -> None:
    path, lines, err, _ = reported
    want = corruptions(path.parent)[name][2]
    start = f"{path}:{lines[name]}: "
    mine = [line for line in err if line.startswith(start)]
    assert len(mine) == 1 and mine[0].startswith(start + want), (mine, want, err)


def test_a_flip_names_both_sides(reported) -> None:
    path, lines, err, _ = reported
    line = next(e for e in err if e.startswith(f"{path}:{lines['consistent flip']}: "))
    assert "contradicts answer_key" in line


def test_an_uncertified_row_keeps_its_disagreeing_certificate(rendered, tmp_path) -> None:
    """A row that says `certificate.ok: false` is not held to its 16-frame reading (the
    edit step's explicit opt-in); its labels must still agree."""
    src, rows = rendered
    root = Path(shutil.copytree(src, tmp_path / "ds"))
    r = json.loads(json.dumps(rows[1]))
    r["certificate"].update(ok=False, sampled=_value_of_other(r))
    (root / "one.jsonl").write_text(json.dumps(r) + "\n", encoding="utf-8")
    res = run_cli("validate", root / "one.jsonl", fork=True)
    assert res.returncode == 0, res.stderr
    r["labels"]["answer"] = _value_of_other(r)
    (root / "one.jsonl").write_text(json.dumps(r) + "\n", encoding="utf-8")
    res = run_cli("validate", root / "one.jsonl", fork=True)
    assert res.returncode == 2 and f"{root / 'one.jsonl'}:1: labels.answer: " in res.stderr


def test_videos_elsewhere_are_allowed_by_name(rendered, tmp_path) -> None:
    """`--videos-under DIR` lets a manifest name videos kept outside its folder."""
    src, rows = rendered
    videos = Path(shutil.copytree(src / "videos", tmp_path / "store" / "videos"))
    (tmp_path / "m").mkdir()
    moved = [{**r, "video": os.path.relpath(videos / Path(r["video"]).name, tmp_path / "m")}
             for r in rows]  # fmt: skip
    manifest = tmp_path / "m" / "manifest.jsonl"
    manifest.write_text("".join(json.dumps(r) + "\n" for r in moved), encoding="utf-8")
    res = run_cli("validate", manifest, fork=True)
    assert res.returncode == 2 and "leaves the dataset folder" in res.stderr
    res = run_cli("validate", manifest, "--videos-under", tmp_path / "store", fork=True)
    assert res.returncode == 0, res.stderr
