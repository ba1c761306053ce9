"""``audit verify``'s row checker fed the broken thing, in-process and fast: a wrong answer key,
frames mirrored or reversed with the labels kept, an unreadable video, a noise row whose video
shows its objects, on each reader ``verify_row`` picks (the 2D colour tracker, its spin search,
the 3D hue reader, the noise motion signal); and the manifest pass's bookkeeping (declared rows
apart, samples, progress, an empty manifest). Every clip is a few small frames rendered here.

The CLI wording of the same verdicts is pinned in test_verify_exact.py; these run in the test
process so a mutation of ``verify.py`` is seen by them (a CLI subprocess is not)."""

from __future__ import annotations

import sys
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kit import write_jsonl

from tempogen.builders.audit.pixels import pixel_labels
from tempogen.builders.audit.verify import (
    DECLARED_MARK,
    FREE_WORDS,
    NO_STATES,
    VERIFY,
    Declared,
    Report,
    Verdict,
    declared_reason,
    verify_manifest,
    verify_row,
)
from tempogen.config import config_from_dict
from tempogen.editing import Clip, Mirror, Reverse
from tempogen.errors import InputFileError, PluginError
from tempogen.generators.build import plan, render_spec
from tempogen.generators.motion import MOTIONS, get_motion
from tempogen.generators.noise import NoiseClip, foreground
from tempogen.generators.render2d import Compositor, Coverage
from tempogen.labels import Labels
from tempogen.manifest import as_row
from tempogen.observe import uniform_indices
from tempogen.video import VideoWriter, read_video, write_video

get_motion("spin")  # loads every built-in pattern


def _render(root: Path, name: str, size: list[int], rid: str, noise: float = 0.0) -> dict:
    """One clip of pattern ``name`` (3 s at 8 fps) rendered under ``root``; its manifest row."""
    m = MOTIONS[name]
    cfg = config_from_dict(
        {
            "seed": 4,
            "tasks": [m.task],
            "motions": [name],
            "samples_per_task": 1,
            "size": size,
            "fps": 8,
            "duration": [3, 3],
            "scenes3d": {"humans": 0.0, "objects": float(m.renderer == "object3d")},
            "style": {"temporal_noise": noise},
            "variants": {"share": 0},
            "vinoground": {"pairs": 0},
            "retrieval": {"pairs": 0},
            "shortcuts": "off",
        },
        f"{name}.yaml",
    )
    (spec,) = plan(cfg)
    row = render_spec(replace(spec, id=rid), root)
    assert row["generator"] == name
    return row


def _edited(root: Path, row: dict, op: Any, tag: str) -> dict:
    """``row`` with its video replaced by ``op``'s edit of the frames, the labels kept."""
    out = op(Clip.from_video(root / row["video"], Labels.from_json(row["labels"])))
    video = f"videos/{row['id']}-{tag}.mp4"
    out.write(root / video)
    return {**row, "video": video}


def _frames_written(root: Path, row: dict, frames: np.ndarray, tag: str) -> dict:
    video = f"videos/{row['id']}-{tag}.mp4"
    write_video(root / video, frames, fps=row["fps"])
    return {**row, "video": video}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("verify-edges")


@pytest.fixture(scope="module")
def slide(root) -> dict:
    """A 2D square sliding right (direction), 96x64."""
    row = _render(root, "slide", [96, 64], "slide-0")
    assert row["answer_key"] == "right" and row["labels"]["query"]["fact"] == "direction"
    return row


@pytest.fixture(scope="module")
def spin(root) -> dict:
    """A 2D shape spinning counter-clockwise (rotation, kind spin), 160x96."""
    row = _render(root, "spin", [160, 96], "spin-0")
    assert row["answer_key"] == "ccw" and row["labels"]["query"]["kind"] == "spin"
    return row


@pytest.fixture(scope="module")
def orbit(root) -> dict:
    """A 2D disc orbiting a planet counter-clockwise (rotation, kind orbit), 96x64."""
    row = _render(root, "orbit", [96, 64], "orbit-0")
    assert row["answer_key"] == "ccw" and row["labels"]["query"]["kind"] == "orbit"
    return row


@pytest.fixture(scope="module")
def ball(root) -> dict:
    """A shaded 3D ball rolling right then left (direction, the 3D hue reader), 128x96."""
    row = _render(root, "ball_roll", [128, 96], "ball-0")
    assert row["answer_key"] == "right-left"
    return row


@pytest.fixture(scope="module")
def noisy(root) -> dict:
    """The slide encoded as temporal noise (no single frame shows the square), 320x180."""
    row = _render(root, "slide", [320, 180], "noise-0", noise=1.0)
    assert row["labels"]["meta"]["encoding"]["style"] == "temporal_noise"
    assert row["answer_key"] == "right"
    return row


@pytest.fixture(scope="module")
def glide(root) -> dict:
    """A 2D ball gliding (speed: how its speed changes), 160x96."""
    row = _render(root, "glide", [160, 96], "glide-0")
    assert row["labels"]["query"]["fact"] == "speed"
    return row


@pytest.fixture(scope="module")
def noisy_glide(root) -> dict:
    """The glide encoded as temporal noise, 320x180."""
    row = _render(root, "glide", [320, 180], "glide-noise", noise=1.0)
    assert row["labels"]["meta"]["encoding"]["style"] == "temporal_noise"
    return row


def _paced(labels: Labels, ratio: float, step: float, y: float) -> Labels:
    """``labels`` with the subject moving right ``step`` px a frame in the first half and
    ``ratio`` times that in the second (ratio 1.35: between constant, 1.15, and
    accelerating, 1.6, so no answer; 2.0: accelerating)."""
    n = labels.num_frames
    steps = np.where(np.arange(n) < n // 2, step, step * ratio)
    x = 40.0 + np.concatenate([[0.0], np.cumsum(steps[:-1])])
    sub = labels.subject.with_states(x=x, y=np.full(n, y), visible=np.ones(n, bool))
    return labels.with_tracks(tuple(sub if t.name == sub.name else t for t in labels.tracks))


def _paced_video(root: Path, row: dict, ratio: float) -> dict:
    """``row`` with a video drawn (2D compositor) from the paced subject, labels kept."""
    labels = _paced(Labels.from_json(row["labels"]), ratio, 2.0, 48.0)
    comp = Compositor(labels, np.zeros((labels.height, labels.width, 3), np.uint8))
    frames = np.stack([comp.frame(i).copy() for i in range(labels.num_frames)])
    return _frames_written(root, row, frames, f"paced{ratio}")


def _paced_noise(root: Path, row: dict, ratio: float) -> dict:
    """``row`` with a noise video encoded (the library's noise encoder) from the paced
    subject, labels kept."""
    labels = _paced(Labels.from_json(row["labels"]), ratio, 4.0, 90.0)
    n, h, w = labels.num_frames, labels.height, labels.width
    cover = Coverage(labels, foreground(labels))
    clean = ((np.zeros((h, w, 3), np.uint8), cover.frame(i)) for i in range(n))
    clip = NoiseClip(labels, clean, np.random.default_rng(0), uniform_indices(n, 16))
    video = f"videos/{row['id']}-paced{ratio}.mp4"
    with VideoWriter(root / video, row["fps"], w, h) as vw:
        for frame in clip.frames():
            vw.write(frame)
    return {**row, "video": video}


# ---- verify_row: one row against its pixels ------------------------------------------------


def test_an_honest_2d_row_agrees_with_nothing_to_say(root, slide) -> None:
    assert verify_row(slide, root) == Verdict("slide-0", "right", "right", "")
    assert verify_row(slide, root).ok


def test_a_wrong_answer_key_disagrees_and_gives_what_the_pixels_show(root, slide) -> None:
    """The report's case: the row's answer flipped, the video untouched."""
    verdict = verify_row({**slide, "answer_key": "left"}, root)
    assert verdict == Verdict("slide-0", "left", "right", "")
    assert not verdict.ok


@pytest.mark.parametrize("op", [Mirror(), Reverse()], ids=["mirror", "reverse"])
def test_2d_frames_mirrored_or_reversed_with_labels_kept_disagree(root, slide, op) -> None:
    """The colour tracker reads where the square is, not where the labels say it is: the
    edited frames show it going left."""
    verdict = verify_row(_edited(root, slide, op, op.name), root)
    assert verdict == Verdict("slide-0", "right", "left", "")
    assert not verdict.ok


def test_a_spin_is_read_from_the_turn_and_a_reversed_one_disagrees(root, spin) -> None:
    """Spin questions search the subject's turn between frames (``rotation=True``): the
    honest clip reads counter-clockwise, the reversed frames clockwise."""
    assert verify_row(spin, root) == Verdict("spin-0", "ccw", "ccw", "")
    verdict = verify_row(_edited(root, spin, Reverse(), "reverse"), root)
    assert verdict == Verdict("spin-0", "ccw", "cw", "")


def test_an_orbit_is_read_from_places_and_a_reversed_one_disagrees(root, orbit) -> None:
    """An orbit is read from where the disc is around its centre, not from a turn of the disc
    (a disc has no turn to search: asking for one is an error, not an answer)."""
    assert verify_row(orbit, root) == Verdict("orbit-0", "ccw", "ccw", "")
    verdict = verify_row(_edited(root, orbit, Reverse(), "reverse"), root)
    assert verdict == Verdict("orbit-0", "ccw", "cw", "")


def test_a_pattern_with_its_own_pixel_reader_is_read_by_it(root, slide, monkeypatch) -> None:
    """A pattern may read its clips' pixels itself (``Motion.pixel_states``): verify hands it
    the 16 decoded samples, the row's labels and the sample indices, and answers from what it
    returns. This one reads the frames as seen in a mirror, so its answer (left) is not the
    colour tracker's (right)."""
    seen: list[tuple[int, int, list[int]]] = []

    class MirrorReader(type(MOTIONS["slide"])):  # type: ignore[misc]
        name = "slide_mirror_reader_test"

        def pixel_states(self, frames, labels, idx):
            seen.append((len(frames), labels.num_frames, list(idx)))
            mirrored = [np.ascontiguousarray(f[:, ::-1]) for f in frames]
            return pixel_labels(mirrored, labels, idx)

    monkeypatch.setitem(MOTIONS, MirrorReader.name, MirrorReader())
    verdict = verify_row({**slide, "generator": MirrorReader.name}, root)
    assert verdict == Verdict("slide-0", "right", "left", "")
    n = slide["labels"]["num_frames"]
    assert seen == [(16, n, uniform_indices(n, 16).tolist())]


def test_3d_rows_are_read_by_the_hue_reader(root, ball) -> None:
    """A shaded 3D ball has no flat colour: its row is read by the 3D reader (honest: agrees;
    mirrored frames with labels kept: the mirrored answer; no ball in the pixels: a refusal
    saying so, never an answer)."""
    assert verify_row(ball, root) == Verdict("ball-0", "right-left", "right-left", "")
    mirrored = verify_row(_edited(root, ball, Mirror(), "mirror"), root)
    assert mirrored == Verdict("ball-0", "right-left", "left-right", "")
    n, h, w = ball["labels"]["num_frames"], ball["height"], ball["width"]
    black = _frames_written(root, ball, np.zeros((n, h, w, 3), np.uint8), "black")
    verdict = verify_row(black, root)
    assert verdict == Verdict(
        "ball-0", "right-left", None, "pixels: subject is not visible in any sampled frame"
    )
    assert not verdict.ok


def test_a_video_that_cannot_be_read_is_a_disagreement_naming_it(root, slide) -> None:
    missing = verify_row({**slide, "video": "videos/gone.mp4"}, root)
    assert missing == Verdict(
        "slide-0", "right", None, f"{root}/videos/gone.mp4: no such video file"
    )
    assert not missing.ok
    short = _frames_written(root, slide, np.zeros((3, 64, 96, 3), np.uint8), "short")
    verdict = verify_row(short, root)
    assert verdict.seen is None and not verdict.ok
    assert verdict.detail.startswith(f"{root}/{short['video']}: frames [")
    assert verdict.detail.endswith("are past the end of the video")


def test_pixels_that_determine_no_answer_are_a_disagreement_saying_so(root, glide) -> None:
    """A glide whose speed grows by 1.35 (neither constant nor accelerating) under the
    original labels: no answer is read, and the row fails saying so; grown by 2.0, the
    pixels say accelerating, whatever the row says."""
    key = glide["answer_key"]
    vague = verify_row(_paced_video(root, glide, 1.35), root)
    assert vague == Verdict("glide-0", key, None, "pixels do not determine an answer")
    assert not vague.ok
    faster = verify_row(_paced_video(root, glide, 2.0), root)
    assert faster == Verdict("glide-0", key, "accelerating", "")


def test_a_noise_signal_that_determines_no_answer_is_a_disagreement(root, noisy_glide) -> None:
    key = noisy_glide["answer_key"]
    vague = verify_row(_paced_noise(root, noisy_glide, 1.35), root)
    assert vague == Verdict(
        "glide-noise", key, None, "the motion signal does not determine an answer"
    )
    faster = verify_row(_paced_noise(root, noisy_glide, 2.0), root)
    assert faster == Verdict("glide-noise", key, "accelerating", "")


def test_a_row_naming_an_unknown_pattern_is_refused_naming_the_row(root, slide) -> None:
    with pytest.raises(InputFileError) as err:
        verify_row({**slide, "generator": "no_such_pattern"}, root)
    assert str(err.value) == (
        "row 'slide-0': generator: unknown motion pattern 'no_such_pattern'; no plugin "
        "registers it (name the module that does with --plugins)"
    )


@pytest.mark.parametrize(
    "labels", [None, {}, {"direction": ["right"]}, {"width": 96, "query": {"fact": "direction"}}]
)
def test_rows_without_per_frame_states_are_not_verified(root, slide, labels) -> None:
    """No ``tracks``, nothing to find in the pixels: no verdict at all (the manifest pass lists
    these as declared), never one read from a guess."""
    row = {k: v for k, v in slide.items() if k != "labels"}
    if labels is not None:
        row["labels"] = labels
    assert verify_row(row, root) is None


def test_a_noise_row_is_read_from_its_motion_signal(root, noisy) -> None:
    """Honest: agrees. Frames mirrored (the library refuses to edit a noise clip, so by
    hand) with labels kept: the signal shows the square going left."""
    assert verify_row(noisy, root) == Verdict("noise-0", "right", "right", "")
    frames = read_video(root / noisy["video"])
    mirrored = _frames_written(root, noisy, np.ascontiguousarray(frames[:, :, ::-1]), "mirror")
    assert verify_row(mirrored, root) == Verdict("noise-0", "right", "left", "")


def test_a_noise_row_whose_frames_show_the_objects_fails(root, noisy) -> None:
    """The same motion drawn plainly under the noise row's labels: the answer is right but a
    single frame shows the square, so the row fails, with the single-frame figures."""
    plain = _render(root, "slide", [320, 180], "plain-0")
    verdict = verify_row({**noisy, "video": plain["video"]}, root)
    assert verdict.id == "noise-0" and verdict.expected == "right" and verdict.seen is None
    assert verdict.detail.startswith("a single frame shows it: {'single_frame_min_p': ")
    assert "'single_frame_blind': False" in verdict.detail
    assert not verdict.ok


def test_a_noise_row_whose_video_is_gone_names_it(root, noisy) -> None:
    verdict = verify_row({**noisy, "video": "videos/gone.mp4"}, root)
    assert verdict == Verdict(
        "noise-0", "right", None, f"{root}/videos/gone.mp4: no such video file"
    )


# ---- why a row is declared -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "why"),
    [
        ({"answer_key": "right", "labels": {"tracks": []}}, None),
        ({"answer_key": "right", "labels": {"tracks": []}, "verified": "declared"}, None),
        ({"answer_key": "", "labels": {"direction": ["right"]}}, FREE_WORDS),
        ({"labels": {"direction": ["right"]}}, FREE_WORDS),
        ({"answer_key": "right", "labels": {}}, FREE_WORDS),
        ({"answer_key": "right", "labels": None}, FREE_WORDS),
        ({"answer_key": "right"}, FREE_WORDS),
        (
            {"answer_key": "right", "labels": {"d": ["right"]}, "verified": "declared"},
            DECLARED_MARK,
        ),
        ({"answer_key": "right", "labels": {"d": ["right"]}, "verified": "pixels"}, NO_STATES),
        ({"answer_key": "right", "labels": {"d": ["right"]}}, NO_STATES),
    ],
)
def test_declared_reason(row: dict, why: str | None) -> None:
    """Per-frame labels make a row checkable whatever else it says; without them, a free-word
    answer, a row marked declared, and a declared fact are told apart (the report's groups)."""
    assert declared_reason(row) == why


def test_the_reasons_read_as_the_report_prints_them() -> None:
    assert FREE_WORDS == "answer in free words"
    assert DECLARED_MARK == "marked verified: declared"
    assert NO_STATES == "declared fact, no per-frame labels"


# ---- the report's figures ------------------------------------------------------------------


def test_report_counts_only_checked_rows_as_agreeing() -> None:
    verdicts = [
        Verdict("a", "right", "right"),
        Verdict("b", "left", "right"),
        Verdict("c", "up", None, "no such video file"),
        Verdict("d", "up", "up"),
    ]
    declared = [Declared("e", NO_STATES), Declared("f", FREE_WORDS)]
    report = Report(verdicts, declared)
    assert (report.checked, report.agreed, report.skipped) == (4, 2, 2)
    assert report.percent == 50.0
    assert [v.id for v in report.disagreements] == ["b", "c"]
    assert Report(verdicts[:1] * 2 + verdicts[1:2], []).percent == pytest.approx(200 / 3)


def test_a_report_of_declared_rows_only_agrees_with_nothing() -> None:
    report = Report([], [Declared("e", NO_STATES)])
    assert (report.checked, report.agreed, report.skipped, report.percent) == (0, 0, 1, 0.0)
    assert report.disagreements == []


def test_a_verdict_is_ok_only_when_the_pixels_give_the_manifest_answer() -> None:
    assert Verdict("a", "right", "right").ok
    assert not Verdict("a", "right", "left").ok
    assert not Verdict("a", "right", None, "unreadable").ok


# ---- the manifest pass ---------------------------------------------------------------------


def _declared_rows(row: dict) -> list[dict]:
    base = {k: v for k, v in row.items() if k not in ("labels", "certificate", "spec")}
    return [
        dict(base, id="ext-declared", labels={"direction": ["right"]}),
        dict(base, id="ext-words", labels={}, answer_key="", answer_text="A square slides."),
        dict(base, id="ext~rev", labels={"direction": ["left"]}, verified="declared"),
    ]


def test_verify_manifest_checks_each_row_and_lists_declared_ones_apart(root, slide) -> None:
    rows = [
        slide,
        _declared_rows(slide)[0],
        {**slide, "id": "slide-wrong", "answer_key": "left"},
        *_declared_rows(slide)[1:],
    ]
    path = write_jsonl(root / "mixed.jsonl", rows)
    done: list[int] = []
    report = verify_manifest(path, on_done=lambda: done.append(1))
    assert report.verdicts == [
        Verdict("slide-0", "right", "right", ""),
        Verdict("slide-wrong", "left", "right", ""),
    ]
    assert report.declared == [
        Declared("ext-declared", NO_STATES),
        Declared("ext-words", FREE_WORDS),
        Declared("ext~rev", DECLARED_MARK),
    ]
    assert len(done) == len(rows)  # one tick a row, declared or checked
    assert [v.id for v in report.disagreements] == ["slide-wrong"]


def test_a_row_with_states_but_a_field_missing_is_refused_naming_line_and_field(
    root, slide
) -> None:
    """Per-frame labels make a row a manifest row, read as a record: one that lacks a field
    every row has (here ``seed``), or the answer key it is checked against, is refused by
    name, never verified from what is left of it."""
    lacking = {k: v for k, v in slide.items() if k != "seed"}
    path = write_jsonl(root / "lacking.jsonl", [slide, lacking])
    with pytest.raises(InputFileError) as err:
        verify_manifest(path)
    assert str(err.value) == f"{path}:2: seed: required field is missing"
    keyless = {k: v for k, v in slide.items() if k != "answer_key"}
    with pytest.raises(InputFileError, match="'slide-0': answer_key: required to check"):
        verify_row(keyless, root)


@pytest.mark.parametrize(
    ("sample", "picked"),
    [(None, [0, 1, 2, 3]), (2, [0, 2]), (3, [0, 1, 2]), (4, [0, 1, 2, 3]), (9, [0, 1, 2, 3])],
)
def test_a_sample_is_spread_evenly_over_the_manifest(root, slide, sample, picked) -> None:
    rows = [{**slide, "id": f"r{i}"} for i in range(4)]
    path = write_jsonl(root / f"sample-{sample}.jsonl", rows)
    ticks: list[int] = []
    report = verify_manifest(path, sample=sample, on_done=lambda: ticks.append(1))
    assert [v.id for v in report.verdicts] == [f"r{i}" for i in picked]
    assert report.agreed == len(picked) and len(ticks) == len(picked)


def test_a_manifest_of_declared_rows_only_gives_no_verdicts(root, slide) -> None:
    path = write_jsonl(root / "declared.jsonl", _declared_rows(slide))
    report = verify_manifest(path)
    assert report.verdicts == [] and report.skipped == 3


def test_the_plugins_a_manifest_names_run_only_when_allowed(root, slide, tmp_path, monkeypatch):
    """A row naming a plugin module: refused until the caller allows it, then imported and
    the row verified. (The allow-list is process-wide, so the module's name is new each
    run: an earlier run in the same process must not have allowed it already.)"""
    name = f"verify_edges_plugin_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text("LOADED = True\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    path = write_jsonl(root / "plugin.jsonl", [{**slide, "plugins": [name]}])
    with pytest.raises(PluginError, match="would run code named by the manifest"):
        verify_manifest(path)
    assert name not in sys.modules
    report = verify_manifest(path, plugins=[name])
    assert report.verdicts == [Verdict("slide-0", "right", "right", "")]
    assert sys.modules[name].LOADED


def test_an_empty_manifest_is_refused_naming_it(tmp_path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(InputFileError) as err:
        verify_manifest(path)
    assert str(err.value) == f"{path}: holds no rows to verify"


def test_a_worker_elsewhere_is_sent_the_video_of_each_checked_row(slide) -> None:
    """What a remote executor ships with each row: the video a pixel check reads, and nothing
    for a row without per-frame labels (it is never sent to a worker)."""
    assert VERIFY.inputs(as_row(slide)) == [slide["video"]]
    for row in _declared_rows(slide):
        assert VERIFY.inputs(as_row(row)) == []
    assert VERIFY.inputs(as_row({**slide, "labels": {}})) == []
