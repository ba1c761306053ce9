"""`tempogen human render`: an imported motion file becomes a clip plus its joints."""

from __future__ import annotations

import json

import numpy as np

from tempogen.builders.audit.pixels3d import centroid, glove_mask
from tempogen.cli import main
from tempogen.generators.skeleton import INDEX
from tempogen.video import probe, read_video


def _amass_arm_raise(path, frames: int = 24, fps: float = 60.0) -> None:
    """An AMASS-style file (z-up, SMPL-H layout): the person raises the left arm sideways."""
    poses = np.zeros((frames, 156))
    poses[:, 0] = np.pi / 2  # upright in AMASS's z-up world
    shoulder = 3 * INDEX["left_shoulder"]
    poses[:, shoulder + 2] = np.linspace(-1.2, 0.6, frames)  # arm from down to above level
    np.savez(
        path,
        poses=poses,
        trans=np.zeros((frames, 3)),
        betas=np.zeros(16),
        mocap_framerate=np.array(fps),
        gender=np.array("neutral"),
    )


def test_human_render_writes_clip_and_joints(tmp_path, capsys) -> None:
    src = tmp_path / "raise.npz"
    _amass_arm_raise(src)
    out = tmp_path / "raise.mp4"
    assert (
        main(["human", "render", str(src), "--out", str(out), "--fps", "30", "--size", "192x108"])
        == 0
    )
    assert "12 frames at 30 fps" in capsys.readouterr().out
    info = probe(out)
    assert (info.width, info.height, info.num_frames) == (192, 108, 12)
    truth = json.loads((tmp_path / "raise.joints.json").read_text())
    j2 = np.array(truth["joints2d"])
    hand = j2[:, INDEX["left_hand"]]
    assert hand[-1, 1] < hand[0, 1] - 10  # the hand rises on screen
    assert (hand[:, 0] > 96).all()  # the person's left is the viewer's right
    # the glove seen in the pixels is where the joints say the hand is
    frames = list(read_video(out, np.array([0, 11])))
    rgb = None
    for f, k in zip(frames, (0, 11)):
        hsv_pixels = [
            tuple(int(v) for v in f[int(hand[k, 1]) + dy, int(hand[k, 0]) + dx])
            for dy in (-1, 0, 1)
            for dx in (-1, 0, 1)
        ]
        rgb = rgb or max(hsv_pixels, key=lambda c: max(c) - min(c))  # the glove's most saturated
        c = centroid(glove_mask(f, rgb))
        assert c is not None and np.hypot(c[0] - hand[k, 0], c[1] - hand[k, 1]) < 6


def test_human_render_bad_file_is_one_clear_line(tmp_path, capsys) -> None:
    bad = tmp_path / "walk.npz"
    np.savez(bad, poses=np.zeros((4, 156)))
    assert main(["human", "render", str(bad), "--out", str(tmp_path / "x.mp4")]) == 2
    err = capsys.readouterr().err
    assert "walk.npz" in err and "trans" in err
    assert not (tmp_path / "x.mp4").exists()


def test_clip_and_joints_are_written_as_one_unit(tmp_path) -> None:
    # issue 13 item 6: a full disk left an mp4 without its joints.json
    import pytest

    from tempogen.errors import OutputError
    from tempogen.generators.humans import render_motion_files
    from tempogen.generators.motion_import import load_motion

    src = tmp_path / "raise.npz"
    _amass_arm_raise(src)
    seq = load_motion(src, fps=30)
    out, joints = tmp_path / "raise.mp4", tmp_path / "raise.joints.json"
    render_motion_files(seq, out, joints, width=192, height=108)
    before = out.read_bytes(), joints.read_bytes()
    blocked = tmp_path / "blocked"  # the joints cannot be written: neither file appears
    blocked.mkdir()
    (blocked / ".x.joints.json.partial").mkdir()  # a directory where the joints must go
    with pytest.raises((OSError, OutputError)):
        render_motion_files(
            seq, blocked / "x.mp4", blocked / "x.joints.json", width=192, height=108
        )
    assert sorted(p.name for p in blocked.iterdir()) == [".x.joints.json.partial"]
    # an earlier pair is left as it was when a rerun fails
    (tmp_path / ".raise.joints.json.partial").mkdir()
    with pytest.raises((OSError, OutputError)):
        render_motion_files(seq, out, joints, width=192, height=108, seed=3)
    assert (out.read_bytes(), joints.read_bytes()) == before
    assert not (tmp_path / ".raise.mp4.partial").exists()
