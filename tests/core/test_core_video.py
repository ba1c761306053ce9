"""video: H.264 round trips, exact frame counts, atomic writes and clear errors."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from tempogen.video import (
    VideoError,
    VideoWriter,
    probe,
    read_frames,
    read_video,
    sha256_file,
    write_video,
)

T, H, W = 20, 48, 64


def make_frames(t: int = T, h: int = H, w: int = W, seed: int = 0) -> np.ndarray:
    """Flat backgrounds that change every frame, plus a 16 px yellow square moving right."""
    frames = np.empty((t, h, w, 3), np.uint8)
    for i in range(t):
        frames[i] = (10 * i, 230 - 9 * i, (70 + 50 * seed) % 256)
        x = 2 + 2 * i
        frames[i, 16:32, x : x + 16] = (255, 255, 0)
    return frames


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    path = tmp_path_factory.mktemp("video") / "clip.mp4"
    frames = make_frames()
    assert write_video(path, frames, fps=10) == T
    return path, frames


def cv2_frames(path) -> list[np.ndarray]:
    """Decode with OpenCV frame by frame until it reports the end."""
    cap = cv2.VideoCapture(str(path))
    assert cap.isOpened()
    out = []
    while True:
        ok, bgr = cap.read()
        if not ok:
            break
        out.append(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
    cap.release()
    return out


def test_round_trip_frame_by_frame(clip):
    path, frames = clip
    decoded = cv2_frames(path)
    assert len(decoded) == T
    for i, got in enumerate(decoded):
        assert got.shape == (H, W, 3)
        err = np.abs(got.astype(int) - frames[i].astype(int))
        assert err.mean() < 3.0, (i, err.mean())
        # the frame is this one, not a neighbour: each neighbour differs far more
        for j in (i - 1, i + 1):
            if 0 <= j < T:
                assert np.abs(got.astype(int) - frames[j].astype(int)).mean() > 2 * err.mean()
    # the last frame is really the last one written
    assert np.abs(decoded[-1].astype(int) - frames[-1].astype(int)).mean() < 3.0


def test_library_readers_agree_with_opencv(clip):
    path, _ = clip
    ref = np.stack(cv2_frames(path))
    np.testing.assert_array_equal(read_video(path), ref)
    np.testing.assert_array_equal(np.stack(list(read_frames(path))), ref)
    picked = read_video(path, [19, 0, 5, 5])
    np.testing.assert_array_equal(picked, ref[[19, 0, 5, 5]])
    np.testing.assert_array_equal(read_video(path, np.array([3, 1])), ref[[3, 1]])


def test_probe(clip):
    path, _ = clip
    info = probe(path)
    assert (info.num_frames, info.width, info.height) == (T, W, H)
    assert info.fps == pytest.approx(10.0)


def test_ntsc_rate_and_writer_api(tmp_path):
    path = tmp_path / "ntsc.mp4"
    frames = make_frames(t=7)
    with VideoWriter(path, 30000 / 1001, W, H) as vw:
        for f in frames:
            vw.write(f)
            assert not path.exists()
    assert vw.frames_written == 7 and path.exists()
    info = probe(path)
    assert info.num_frames == 7 and info.fps == pytest.approx(29.97, abs=0.01)


def test_frames_past_the_end(clip):
    path, _ = clip
    with pytest.raises(VideoError, match=re.escape(f"{path}: frames [20, 25]")):
        read_video(path, [3, 20, 25])


def test_read_video_accepts_a_generator_of_indices(clip):
    path, _ = clip
    got = read_video(path, (i for i in [4, 2, 4]))
    np.testing.assert_array_equal(got, read_video(path)[[4, 2, 4]])


def test_same_frames_give_the_same_bytes(tmp_path):
    frames = make_frames()
    write_video(tmp_path / "a.mp4", frames, fps=10)
    write_video(tmp_path / "b.mp4", iter(list(frames)), fps=10)
    write_video(tmp_path / "c.mp4", make_frames(seed=1), fps=10)
    assert sha256_file(tmp_path / "a.mp4") == sha256_file(tmp_path / "b.mp4")
    assert sha256_file(tmp_path / "a.mp4") != sha256_file(tmp_path / "c.mp4")
    assert (tmp_path / "a.mp4").read_bytes() == (tmp_path / "b.mp4").read_bytes()


def _entries(d):
    return sorted(p.name for p in d.iterdir())


@pytest.mark.parametrize("w,h", [(63, 48), (64, 47), (65, 49)])
def test_odd_dimensions_rejected(tmp_path, w, h):
    target = tmp_path / "odd.mp4"
    with pytest.raises(VideoError, match=re.escape(f"{target}: yuv420p needs even dimensions")):
        write_video(target, np.zeros((3, h, w, 3), np.uint8), fps=10)
    with pytest.raises(VideoError, match="even dimensions"):
        VideoWriter(target, 10, w, h)
    assert _entries(tmp_path) == []


def test_zero_frames_rejected_and_nothing_left(tmp_path):
    target = tmp_path / "empty.mp4"
    with pytest.raises(VideoError, match=re.escape(f"{target}: refusing to write a video")):
        write_video(target, [], fps=10)
    assert _entries(tmp_path) == []
    with pytest.raises(VideoError, match="no frames"):
        with VideoWriter(target, 10, W, H):
            pass
    assert _entries(tmp_path) == []


def test_bad_fps_rejected(tmp_path):
    with pytest.raises(VideoError, match="fps must be positive"):
        VideoWriter(tmp_path / "x.mp4", 0, W, H)
    assert _entries(tmp_path) == []


def test_partial_write_that_raises_leaves_no_file(tmp_path):
    target = tmp_path / "partial.mp4"
    frames = make_frames()
    written = []

    def feed():
        for i, f in enumerate(frames):
            if i == 12:
                raise RuntimeError("renderer crashed")
            written.append(i)
            yield f

    with pytest.raises(RuntimeError, match="renderer crashed"):
        write_video(target, feed(), fps=10)
    assert written == list(range(12))  # the writer really was midway
    assert _entries(tmp_path) == []


def test_bad_frame_midway_leaves_the_old_file_alone(tmp_path):
    target = tmp_path / "clip.mp4"
    write_video(target, make_frames(t=5), fps=10)
    before = (target.read_bytes(), target.stat().st_ino)
    frames = list(make_frames())
    frames[8] = frames[8][:, :-2]  # wrong size
    with pytest.raises(VideoError, match=re.escape(f"{target}: frame 8 is (48, 62, 3)")):
        write_video(target, frames, fps=10)
    frames[8] = make_frames()[8].astype(np.float32)
    with pytest.raises(VideoError, match="frame 8 is .* float32"):
        write_video(target, frames, fps=10)
    assert (target.read_bytes(), target.stat().st_ino) == before
    assert _entries(tmp_path) == ["clip.mp4"]
    assert probe(target).num_frames == 5


def _corrupt_files(tmp_path, clip):
    good = clip[0].read_bytes()
    rng = np.random.default_rng(1)
    files = {
        "random.mp4": rng.bytes(5000),
        "empty.mp4": b"",
        "truncated.mp4": good[: len(good) // 2],
        "tail.mp4": good[len(good) // 2 :],
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return [tmp_path / n for n in files]


def test_corrupt_files_raise_video_error_naming_the_file(tmp_path, clip):
    for path in _corrupt_files(tmp_path, clip):
        with pytest.raises(VideoError, match=re.escape(str(path))):
            read_video(path)
        with pytest.raises(VideoError, match=re.escape(str(path))):
            list(read_frames(path))
        with pytest.raises(VideoError, match=re.escape(str(path))):
            probe(path)


def test_missing_file(tmp_path):
    path = tmp_path / "nope.mp4"
    with pytest.raises(VideoError, match=re.escape(f"{path}: no such video file")):
        read_video(path)
    with pytest.raises(VideoError, match=re.escape(f"{path}: no such video file")):
        probe(path)


def test_background_encoding_writes_the_same_bytes(tmp_path):
    """The encode thread changes when frames are encoded, never what: identical files, also
    when the caller reuses one frame buffer (as the renderers do) and through write_i420."""
    frames = make_frames(t=24)
    write_video(tmp_path / "sync.mp4", frames, fps=10)
    buf = np.empty_like(frames[0])
    with VideoWriter(tmp_path / "bg.mp4", 10, W, H, background=True) as vw:
        for f in frames:
            np.copyto(buf, f)  # the next frame overwrites this buffer at once
            vw.write(buf)
    assert vw.frames_written == 24
    assert (tmp_path / "bg.mp4").read_bytes() == (tmp_path / "sync.mp4").read_bytes()
    with VideoWriter(tmp_path / "i420.mp4", 10, W, H, background=True) as vw:
        yuv = np.empty((H * 3 // 2, W), np.uint8)
        for f in frames:
            cv2.cvtColor(f, cv2.COLOR_RGB2YUV_I420, dst=yuv)
            vw.write_i420(yuv)
    assert (tmp_path / "i420.mp4").read_bytes() == (tmp_path / "sync.mp4").read_bytes()
    assert _entries(tmp_path) == ["bg.mp4", "i420.mp4", "sync.mp4"]


def test_background_encoding_failure_names_the_file_and_leaves_nothing(tmp_path):
    """A write that fails on the encode thread (the file size limit: a full disk) is raised
    to the caller as a VideoError naming the file, and no partial file stays."""
    import subprocess
    import sys
    import textwrap

    target = tmp_path / "big.mp4"
    code = textwrap.dedent(f"""
        import resource, signal
        import numpy as np
        from tempogen.video import VideoError, VideoWriter
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        rng = np.random.default_rng(0)
        try:
            with VideoWriter({str(target)!r}, 10, 320, 240, background=True) as vw:
                for _ in range(60):
                    vw.write(rng.integers(0, 255, (240, 320, 3), dtype=np.uint8))
        except VideoError as exc:
            print("ERR", exc)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"ERR {target}: write failed"), proc.stdout
    assert _entries(tmp_path) == []


def test_probe_is_kept_for_an_unchanged_file_only(tmp_path):
    """Opening one source for several edits decodes it once; a file rewritten in place (new
    content under the same name) is probed afresh."""
    path = tmp_path / "c.mp4"
    write_video(path, make_frames(t=6), fps=10)
    first = probe(path)
    assert probe(path) is first and first.num_frames == 6
    write_video(path, make_frames(t=9), fps=10)
    assert probe(path).num_frames == 9
