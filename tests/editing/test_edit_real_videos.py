"""Editing real videos: decoded frame counts over the container's, variable frame rates
refused, audio dropped with a note, crops that lose the moving subject noted, joins streamed."""

from __future__ import annotations

import json
import struct
import tracemalloc
from fractions import Fraction
from pathlib import Path

import av
import cv2
import numpy as np
import pytest

from tempogen.builders.dataset.variants import edit_manifest
from tempogen.editing import Clip, concat, parse_pipeline
from tempogen.editing.notes import motion_kept
from tempogen.video import VideoError, probe, read_video, write_video


def _square_frames(n: int, w: int = 96, h: int = 64, x0: int = 4, x1: int = 30) -> np.ndarray:
    """Grey frames with a white square sliding from x0 to x1 along the top rows."""
    frames = np.full((n, h, w, 3), 60, np.uint8)
    for t, x in enumerate(np.linspace(x0, x1, n).round().astype(int)):
        frames[t, 8:24, x : x + 14] = 255
    return frames


def _avi_claiming(path: Path, frames: np.ndarray, claimed: int) -> None:
    """An MJPEG AVI written by OpenCV whose headers declare ``claimed`` frames (as OpenCV's
    own ``vtest.avi`` declares more than it holds)."""
    h, w = frames.shape[1:3]
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (w, h))
    for f in frames:
        vw.write(cv2.cvtColor(f, cv2.COLOR_RGB2BGR))
    vw.release()
    data = bytearray(path.read_bytes())
    at = data.find(b"avih")
    struct.pack_into("<I", data, at + 8 + 16, claimed)  # MainAVIHeader.dwTotalFrames
    at = data.find(b"strh")
    struct.pack_into("<I", data, at + 8 + 32, claimed)  # AVIStreamHeader.dwLength
    at = data.find(b"dmlh")
    if at >= 0:
        struct.pack_into("<I", data, at + 8, claimed)  # ODML dwTotalFrames
    path.write_bytes(bytes(data))


def test_frame_count_is_what_decodes_not_what_the_header_says(tmp_path: Path) -> None:
    path = tmp_path / "lying.avi"
    _avi_claiming(path, _square_frames(12), claimed=40)
    with av.open(str(path)) as c:
        assert c.streams.video[0].frames == 40  # the container's claim
    clip = Clip.from_video(path)
    assert clip.num_frames == probe(path).num_frames == 12
    out = tmp_path / "rev.mp4"
    parse_pipeline(["reverse"])[0](clip).write(out)  # needs the last real frame first
    assert probe(out).num_frames == 12


def _mp4_with_stamps(path: Path, stamps_ms: list[int], audio: bool = False) -> None:
    """An H.264 mp4 whose frames carry the given timestamps (ms), optionally with a tone."""
    frames = _square_frames(len(stamps_ms))
    with av.open(str(path), "w") as c:
        v = c.add_stream("libx264", rate=30)
        v.width, v.height, v.pix_fmt = frames.shape[2], frames.shape[1], "yuv420p"
        v.time_base = Fraction(1, 1000)
        a = c.add_stream("aac", rate=16000) if audio else None
        for f, ms in zip(frames, stamps_ms):
            vf = av.VideoFrame.from_ndarray(f, format="rgb24")
            vf.pts, vf.time_base = ms, Fraction(1, 1000)
            c.mux(v.encode(vf))
        c.mux(v.encode())
        if a is not None:
            t = np.arange(16000 * (stamps_ms[-1] + 33) // 1000) / 16000
            tone = (0.2 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)[None]
            for k in range(0, tone.shape[1], 1024):
                af = av.AudioFrame.from_ndarray(tone[:, k : k + 1024], format="fltp", layout="mono")
                af.sample_rate, af.pts = 16000, k
                c.mux(a.encode(af))
            c.mux(a.encode())


def test_variable_frame_rate_is_refused_with_the_way_out(tmp_path: Path) -> None:
    vfr = tmp_path / "phone.mp4"
    _mp4_with_stamps(vfr, [0, 33, 67, 100, 200, 233, 267, 400, 433, 467])
    assert probe(vfr).variable_rate
    with pytest.raises(VideoError) as err:
        Clip.from_video(vfr)
    msg = str(err.value)
    assert "phone.mp4" in msg and "variable frame rate" in msg and "-fps_mode cfr" in msg
    # a constant rate whose millisecond stamps round 33, 34, 33 ... is not variable
    cfr = tmp_path / "cfr.mp4"
    _mp4_with_stamps(cfr, [round(k * 1000 / 30) for k in range(10)])
    assert not probe(cfr).variable_rate
    assert Clip.from_video(cfr).num_frames == 10


def _record_manifest(folder: Path, rows: list[dict], pipelines: str) -> tuple[Path, Path]:
    (folder / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "p.yaml").write_text(pipelines)
    return folder / "m.jsonl", folder / "p.yaml"


def test_audio_is_dropped_with_a_note(tmp_path: Path) -> None:
    _mp4_with_stamps(tmp_path / "talk.mp4", [round(k * 1000 / 30) for k in range(12)], True)
    clip = Clip.from_video(tmp_path / "talk.mp4")
    assert clip.audio and probe(tmp_path / "talk.mp4").audio
    row = {"id": "talk", "video": "talk.mp4", "labels": {"direction": ["right"]}}
    manifest, _ = _record_manifest(tmp_path, [row], "")
    from tempogen.editing import load_pipelines

    (tmp_path / "p.yaml").write_text("mirror:\n  - mirror: horizontal\n")
    report = edit_manifest(manifest, load_pipelines(tmp_path / "p.yaml"), tmp_path / "out")
    assert [n[:2] for n in report.notes] == [("talk", "mirror")]
    assert "sound" in report.notes[0][2]
    with av.open(str(tmp_path / "out" / report.rows[0]["video"])) as c:
        assert not c.streams.audio  # silent, as the note says


def test_a_crop_that_loses_the_moving_subject_is_noted(tmp_path: Path, capsys) -> None:
    from tempogen.cli import main

    write_video(tmp_path / "left.mp4", _square_frames(16), 8.0)  # motion in the left third
    row = {"id": "left", "video": "left.mp4", "labels": {"direction": ["right"]}}
    manifest, pipes = _record_manifest(
        tmp_path,
        [row],
        "right_half:\n  - crop: [48, 0, 96, 64]\nleft_half:\n  - crop: [0, 0, 48, 64]\n",
    )
    assert (
        main(
            [
                "edit",
                "--manifest",
                str(manifest),
                "--pipeline",
                str(pipes),
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "note: left~right_half: the view keeps 0% of the source's motion" in out
    assert "left~left_half" not in out  # the crop that keeps the square says nothing
    clip = Clip.from_video(tmp_path / "left.mp4")
    assert motion_kept(clip) is None  # the whole frame: nothing to lose
    assert motion_kept(parse_pipeline([{"crop": [0, 0, 48, 64]}])[0](clip)) > 0.95


def test_concat_of_two_ten_second_clips_streams(tmp_path: Path) -> None:
    """Two 10 s clips (320x240 at 30 fps, 69 MB of frames each) join while holding a few
    frames: the old join stacked both clips and their concatenation (over 270 MB)."""
    n, w, h = 300, 320, 240
    for name, x0, x1 in (("a", 4, 200), ("b", 200, 4)):
        with_square = _square_frames(n, w, h, x0, x1)
        write_video(tmp_path / f"{name}.mp4", with_square, 30.0)
        del with_square
    a, b = Clip.from_video(tmp_path / "a.mp4"), Clip.from_video(tmp_path / "b.mp4")
    tracemalloc.start()
    try:
        joined = concat(a, b, gap=0.5)
        written = joined.write(tmp_path / "ab.mp4")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert written == 2 * n + 15
    assert peak < 20e6, peak
    got = read_video(tmp_path / "ab.mp4", [0, n - 1, n + 7, n + 15, 2 * n + 14])
    want = [read_video(tmp_path / "a.mp4", [0, n - 1]), read_video(tmp_path / "b.mp4", [0, n - 1])]
    for g, f in zip(got[[0, 1, 3, 4]], [*want[0], *want[1]]):
        assert np.abs(g.astype(int) - f.astype(int)).mean() < 3
    assert got[2].max() < 20  # the gap is black
