"""tempogen's BVH reader (generators/motion_import/bvh_reader.py) on real files from seven public
sources (tests/data/bvh, SOURCES.md), on the layouts they vary in, and on broken text."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from kit import run_cli
from scipy.spatial.transform import Rotation

from tempogen.generators.motion_import import MotionImportError, load_bvh, skeleton_map
from tempogen.generators.motion_import.bvh_reader import Bvh, read_bvh

DATA = Path(__file__).resolve().parents[1] / "data" / "bvh"
# file -> the joint map it needs (its rest pose is not a body), or None for the structure mapper
REAL = {
    "cmu_3dsmax_131_01.bvh": None,
    "cmu_motionbuilder_01_01.bvh": None,
    "bandai_walk.bvh": "bandai.joints.yaml",
    "mocapbank.bvh": None,
    "mixamo.bvh": None,
    "emilya_walk.bvh": None,
    "rokoko_dance.bvh": "rokoko.joints.yaml",
}


def _copy(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_bytes(text.encode())
    else:
        path.write_bytes(text)
    return path


def _text(name: str) -> str:
    """A real file's text with LF line endings."""
    return (DATA / name).read_bytes().decode().replace("\r\n", "\n")


def _same(a: Bvh, b: Bvh) -> None:
    """Two reads give the same skeleton and motion, to the bit."""
    assert [(n.name, n.end_site, n.channels) for n in a.nodes] == [
        (n.name, n.end_site, n.channels) for n in b.nodes
    ]
    assert np.array_equal(a.values, b.values) and a.frame_time == b.frame_time
    assert np.array_equal(a.node_positions(), b.node_positions())
    assert np.array_equal(a.to_rotmat()[1], b.to_rotmat()[1])


# ------------------------------------------------------------------------------ real files


@pytest.mark.parametrize("name", sorted(REAL))
def test_every_real_file_reads_maps_and_gives_finite_poses(name: str) -> None:
    bvh = read_bvh(DATA / name)
    assert bvh.num_frames == 4 and bvh.values.shape == (4, sum(len(n.channels) for n in bvh.nodes))
    assert np.isfinite(bvh.node_positions()).all()
    joint_map = REAL[name] and DATA / REAL[name]
    seq = load_bvh(DATA / name, joint_map=joint_map)
    assert seq.poses.shape == (4, 24, 3) and np.isfinite(seq.poses).all()
    assert np.isfinite(seq.trans).all() and seq.fps == pytest.approx(bvh.fps)
    assert set(skeleton_map(DATA / name, joint_map)) >= {"pelvis", "left_wrist", "right_ankle"}


def test_the_real_files_cover_the_layouts_people_have() -> None:
    """What each real file is kept for (SOURCES.md): the layouts are in them, not assumed."""
    reads = {name: read_bvh(DATA / name) for name in REAL}
    raw = {name: (DATA / name).read_bytes() for name in REAL}
    bandai = reads["bandai_walk.bvh"]
    assert all("Xposition" in n.channels for n in bandai.joints)  # position on every joint
    assert b"\r\n" in raw["mocapbank.bvh"] and b"\r\n" in raw["cmu_3dsmax_131_01.bvh"]
    orders = {
        "".join(c[0] for c in n.channels if c.endswith("rotation"))
        for b in reads.values()
        for n in b.joints
    }
    assert {"ZYX", "ZXY", "XYZ", "YXZ"} <= orders
    assert any(n.name.startswith("mixamorig:") for n in reads["mixamo.bvh"].joints)
    assert reads["cmu_3dsmax_131_01.bvh"].fps == 120.0  # 0.008333 read as 1/120
    assert reads["rokoko_dance.bvh"].fps == 100.0


def test_position_channels_on_a_non_root_joint_move_it_and_its_subtree(tmp_path: Path) -> None:
    """Bandai's files carry position channels on every joint: a frame's value replaces the
    OFFSET, moving that joint and everything below it, nothing else."""
    base = read_bvh(DATA / "bandai_walk.bvh")
    names = [n.name for n in base.nodes]
    elbow = names.index("LowerArm_L")
    column = sum(len(n.channels) for n in base.nodes[:elbow])  # its Xposition
    assert base.nodes[elbow].channels[0] == "Xposition"
    # the file's own values are used (they differ from the OFFSET on the Hips)
    hips = names.index("Hips")
    first = sum(len(n.channels) for n in base.nodes[:hips])
    assert np.array_equal(base.translations()[:, hips], base.values[:, first : first + 3])
    assert not np.allclose(base.translations()[:, hips], base.nodes[hips].offset)

    lines = _text("bandai_walk.bvh").split("\n")
    k = next(i for i, ln in enumerate(lines) if ln.startswith("Frame Time")) + 2  # frame 2
    values = lines[k].split()
    values[column] = repr(float(values[column]) + 10.0)
    lines[k] = " ".join(values)
    moved = read_bvh(_copy(tmp_path, "moved.bvh", "\n".join(lines)))

    below = {elbow}
    for i, n in enumerate(base.nodes):
        if n.parent is not None and names.index(n.parent.name) in below and i > elbow:
            below.add(i)
    assert names[max(below)].startswith("EndSite") and len(below) == 3  # elbow, hand, its end
    delta = moved.node_positions() - base.node_positions()
    shift = np.linalg.norm(delta, axis=2)
    assert np.array_equal(shift[[0, 2, 3]], np.zeros((3, len(names))))  # other frames
    assert (shift[1, sorted(below)] > 9.99).all()  # the whole subtree, by the 10 units
    assert np.allclose(delta[1, sorted(below)], delta[1, elbow])  # moved rigidly
    assert np.array_equal(
        shift[1, sorted(set(range(len(names))) - below)], np.zeros(len(names) - 3)
    )


def test_a_rotation_only_root_stays_at_its_offset(tmp_path: Path) -> None:
    """A root with 3 rotation channels and no position (older Poser/DAZ files) sits at its
    OFFSET; the body is posed as with positions, only translated."""
    text = _text("mocapbank.bvh")
    lines = text.split("\n")
    root_channels = next(i for i, ln in enumerate(lines) if "CHANNELS 6" in ln)
    assert "Xposition Yposition Zposition Zrotation Xrotation Yrotation" in lines[root_channels]
    lines[root_channels] = "\tCHANNELS 3 Zrotation Xrotation Yrotation"
    offset = next(i for i, ln in enumerate(lines) if "OFFSET" in ln)
    lines[offset] = "\tOFFSET 1.5 90.0 -2.0"
    k = next(i for i, ln in enumerate(lines) if ln.startswith("Frame Time")) + 1
    lines[k:] = [" ".join(ln.split()[3:]) for ln in lines[k:] if ln.strip()]
    rot_only = read_bvh(_copy(tmp_path, "rot_only.bvh", "\n".join(lines) + "\n"))
    base = read_bvh(DATA / "mocapbank.bvh")
    pos = rot_only.node_positions()
    assert np.array_equal(pos[:, 0], np.tile([1.5, 90.0, -2.0], (4, 1)))
    about_root = base.node_positions() - base.values[:, None, :3]
    assert np.allclose(pos - [1.5, 90.0, -2.0], about_root, atol=1e-9)
    seq = load_bvh(rot_only.path)
    assert np.isfinite(seq.poses).all()
    # the pelvis does not travel (grounding moves it a millimetre or two to keep a planted foot
    # where the file's is: generators/motion_import/contact.py)
    assert np.allclose(seq.trans[:, [0, 2]], seq.trans[0, [0, 2]], atol=0.005)


def test_a_permuted_channel_line_with_permuted_values_gives_the_same_pose(tmp_path: Path) -> None:
    """Positions and rotations interleaved in any order: the values are read by name."""
    lines = _text("cmu_motionbuilder_01_01.bvh").split("\n")
    root = next(i for i, ln in enumerate(lines) if "CHANNELS 6" in ln)
    names = lines[root].split()[2:]
    order = [3, 0, 4, 2, 5, 1]  # Zrotation Xposition Yrotation Zposition Xrotation Yposition
    lines[root] = "\tCHANNELS 6 " + " ".join(names[i] for i in order)
    k = next(i for i, ln in enumerate(lines) if ln.startswith("Frame Time")) + 1
    for i in range(k, len(lines)):
        v = lines[i].split()
        if v:
            lines[i] = " ".join([v[j] for j in order] + v[6:])
    mixed = read_bvh(_copy(tmp_path, "mixed.bvh", "\n".join(lines)))
    base = read_bvh(DATA / "cmu_motionbuilder_01_01.bvh")
    assert np.array_equal(mixed.node_positions(), base.node_positions())


@pytest.mark.parametrize(
    "order", ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX", "XZ", "Y", "ZXZ", "XXY"]
)
def test_rotation_channels_compose_in_file_order(tmp_path: Path, order: str) -> None:
    """``CHANNELS n A B C``: R = R_A @ R_B @ R_C (intrinsic, as scipy's upper-case orders)."""
    rng = np.random.default_rng(len(order))
    angles = rng.uniform(-170, 170, (3, len(order)))
    chans = " ".join(f"{a}rotation" for a in order)
    text = (
        "HIERARCHY\nROOT r\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition Zposition\n"
        f" JOINT j\n {{\n  OFFSET 0 1 0\n  CHANNELS {len(order)} {chans}\n"
        "  End Site\n  {\n   OFFSET 1 2 3\n  }\n }\n}\nMOTION\nFrames: 3\nFrame Time: .05\n"
        + "".join("0 0 0 " + " ".join(repr(float(a)) for a in row) + "\n" for row in angles)
    )
    bvh = read_bvh(_copy(tmp_path, "one.bvh", text))
    want = np.stack([np.eye(3)] * 3)
    for k, axis in enumerate(order):  # composed one axis at a time: scipy's own product
        want = want @ Rotation.from_euler(axis, angles[:, k : k + 1], degrees=True).as_matrix()
    if all(a != b for a, b in zip(order, order[1:])):  # scipy's Euler angles agree
        assert np.allclose(want, Rotation.from_euler(order, angles, degrees=True).as_matrix())
    assert np.allclose(bvh.to_rotmat()[1][:, 1], want, atol=1e-12)
    end = bvh.node_positions()[:, 2]
    assert np.allclose(end, np.array([0, 1, 0]) + want @ [1, 2, 3], atol=1e-9)
    assert bvh.fps == 20.0  # 'Frame Time: .05', no leading zero


# ------------------------------------------------------------------------- text layouts


def test_crlf_cr_and_lf_files_read_alike_to_the_bit(tmp_path: Path) -> None:
    raw = (DATA / "mocapbank.bvh").read_bytes()
    assert raw.count(b"\r\n") == raw.count(b"\n")  # CRLF throughout
    crlf = read_bvh(DATA / "mocapbank.bvh")
    lf = read_bvh(_copy(tmp_path, "lf.bvh", raw.replace(b"\r\n", b"\n")))
    cr = read_bvh(_copy(tmp_path, "cr.bvh", raw.replace(b"\r\n", b"\r")))
    _same(crlf, lf)
    _same(crlf, cr)
    seq_crlf, seq_lf = load_bvh(DATA / "mocapbank.bvh"), load_bvh(lf.path)
    assert np.array_equal(seq_crlf.poses, seq_lf.poses)
    assert np.array_equal(seq_crlf.trans, seq_lf.trans)


def test_tabs_spaces_blank_lines_and_a_bom_change_nothing(tmp_path: Path) -> None:
    text = _text("cmu_3dsmax_131_01.bvh")
    messy = "\ufeff" + "\n".join(
        "  \t " + "\t  ".join(ln.split()) + "   " if ln.strip() else "\t" for ln in text.split("\n")
    )
    messy = messy.replace("Frame Time:", "\n\nFrame    Time:\t") + "\n\n   \n\t\n"
    _same(read_bvh(DATA / "cmu_3dsmax_131_01.bvh"), read_bvh(_copy(tmp_path, "m.bvh", messy)))


def test_end_sites_anywhere_several_or_none(tmp_path: Path) -> None:
    """End Sites add nodes (their positions follow their joint) and never shift a joint."""
    text = _text("cmu_motionbuilder_01_01.bvh")
    base = read_bvh(DATA / "cmu_motionbuilder_01_01.bvh")
    end = "End Site\n{\nOFFSET 1 2 3\n}\n"
    # two more End Sites on the Spine, before its child joints
    lines = text.split("\n")
    spine = next(i for i, ln in enumerate(lines) if ln.strip() == "JOINT Spine")
    lines.insert(spine + 4, end + end)
    extra = read_bvh(_copy(tmp_path, "extra.bvh", "\n".join(lines)))
    # and none at all
    out, skip = [], 0
    for ln in text.split("\n"):
        if ln.strip() == "End Site":
            skip = 4
        if skip:
            skip -= 1
            continue
        out.append(ln)
    none = read_bvh(_copy(tmp_path, "none.bvh", "\n".join(out)))
    joints = [n.name for n in base.joints]
    for other in (extra, none):
        assert [n.name for n in other.joints] == joints
        keep = [i for i, n in enumerate(other.nodes) if not n.end_site]
        base_keep = [i for i, n in enumerate(base.nodes) if not n.end_site]
        assert np.allclose(other.node_positions()[:, keep], base.node_positions()[:, base_keep])
    assert sum(n.end_site for n in none.nodes) == 0
    assert sum(n.end_site and n.parent.name == "Spine" for n in extra.nodes) == 2  # type: ignore[union-attr]
    assert np.isfinite(load_bvh(none.path).poses).all()


def test_multi_word_joint_names_are_kept_whole(tmp_path: Path) -> None:
    text = _text("cmu_3dsmax_131_01.bvh").replace("JOINT LeftHip\n", "JOINT Bip01 L Thigh\n")
    bvh = read_bvh(_copy(tmp_path, "biped.bvh", text))
    assert "Bip01 L Thigh" in [n.name for n in bvh.joints]
    assert skeleton_map(bvh.path)["left_hip"] == "Bip01 L Thigh"


# ----------------------------------------------------------------------------- bad text


def _broken(tmp_path: Path, edit) -> str:  # noqa: ANN001
    """The message reading a CMU file broken by ``edit`` (its LF text -> new text) raises."""
    path = _copy(tmp_path, "broken.bvh", edit(_text("cmu_motionbuilder_01_01.bvh")))
    with pytest.raises(MotionImportError) as err:
        read_bvh(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}: ")
    return msg


def _line_of(text: str, needle: str, nth: int = 0) -> int:
    return [i for i, ln in enumerate(text.split("\n"), start=1) if needle in ln][nth]


def _frame_line(text: str, frame: int) -> int:
    return _line_of(text, "Frame Time") + frame


def _edit_frame(text: str, frame: int, fn) -> str:  # noqa: ANN001
    lines = text.split("\n")
    k = _frame_line(text, frame) - 1
    lines[k] = " ".join(fn(lines[k].split()))
    return "\n".join(lines)


def _frame_time(text: str, line: str) -> str:
    return re.sub(r"Frame Time:.*", line, text)


TEXT = _text("cmu_motionbuilder_01_01.bvh")
BAD = [
    ("extra brace", lambda t: t.replace("MOTION", "}\nMOTION"),
     f"line {_line_of(TEXT, 'MOTION')}: unbalanced braces: '}}' closes nothing"),
    ("missing brace", lambda t: t.replace("}\nMOTION", "MOTION"),
     "unbalanced braces: MOTION before the '}' of ROOT Hips (line 2)"),
    ("unknown channel", lambda t: t.replace("Zrotation", "Wrotation", 1),
     f"line {_line_of(TEXT, 'CHANNELS 6')}: unknown channel 'Wrotation'"),
    ("channel count", lambda t: t.replace("CHANNELS 3", "CHANNELS 4", 1),
     f"line {_line_of(TEXT, 'CHANNELS 3')}: CHANNELS 4 lists 3 channel names"),
    ("short offset", lambda t: t.replace("OFFSET 0 0 0", "OFFSET 0 0", 1),
     f"line {_line_of(TEXT, 'OFFSET 0 0 0')}: OFFSET: expected 3 finite numbers"),
    ("no brace", lambda t: t.replace("JOINT LeftUpLeg\n\t\t{", "JOINT LeftUpLeg\n", 1),
     f"line {_line_of(TEXT, 'JOINT LeftUpLeg') + 2}: expected '{{' to open JOINT LeftUpLeg"),
    ("value missing", lambda t: _edit_frame(t, 3, lambda v: v[:-1]),
     f"line {_frame_line(TEXT, 3)}: frame 3 has 95 values, the HIERARCHY declares 96 channels"),
    ("value too many", lambda t: _edit_frame(t, 2, lambda v: [*v, "0"]),
     f"line {_frame_line(TEXT, 2)}: frame 2 has 97 values"),
    ("not a number", lambda t: _edit_frame(t, 4, lambda v: [*v[:7], "1.2.3", *v[8:]]),
     f"line {_frame_line(TEXT, 4)}: frame 4: value 8 is not a number: '1.2.3'"),
    ("nan", lambda t: _edit_frame(t, 1, lambda v: ["nan", *v[1:]]),
     f"line {_frame_line(TEXT, 1)}: frame 1: value 1 is NaN or infinite"),
    ("frame count", lambda t: t.replace("Frames: 4", "Frames: 5"),
     f"line {_line_of(TEXT, 'Frames:')}: Frames: 5, but the MOTION data holds 4 frame lines"),
    ("zero frames", lambda t: t.split("Frames:")[0] + "Frames: 0\nFrame Time: 0.01\n",
     f"line {_line_of(TEXT, 'Frames:')}: Frames: 0: no frames"),
    ("zero frame time", lambda t: _frame_time(t, "Frame Time: 0"),
     f"line {_line_of(TEXT, 'Frame Time')}: Frame Time: must be a positive number, got 0"),
    ("negative frame time", lambda t: _frame_time(t, "Frame Time: -0.01"),
     "Frame Time: must be a positive number, got -0.01"),
    ("no frame time", lambda t: _frame_time(t, "Frame Tim 0.008333"),
     f"line {_line_of(TEXT, 'Frame Time')}: expected 'Frame Time: <value>'"),
    ("no motion", lambda t: t.split("MOTION")[0], "no MOTION section"),
    ("second root", lambda t: t.replace("MOTION", "ROOT Other\n{\nOFFSET 0 0 0\n}\nMOTION"),
     "a second ROOT 'Other': one skeleton per file"),
    ("no offset", lambda t: t.replace("OFFSET 0 0 0\n", "", 1),
     f"JOINT LHipJoint (line {_line_of(TEXT, 'JOINT LHipJoint')}) has no OFFSET"),
    ("no channels", lambda t: re.sub(r"\n\s*CHANNELS 3 Zrotation Yrotation Xrotation", "", t, count=1),
     f"JOINT LHipJoint (line {_line_of(TEXT, 'JOINT LHipJoint')}) has no CHANNELS line"),
    ("offset of four", lambda t: t.replace("OFFSET 0 0 0", "OFFSET 0 0 0 0", 1),
     "OFFSET: expected 3 finite numbers, got '0 0 0 0'"),
    ("offset not a number", lambda t: t.replace("OFFSET 0 0 0", "OFFSET 0 x 0", 1),
     "OFFSET: not a number in '0 x 0'"),
    ("joint outside the root", lambda t: t.replace("}\nMOTION", "}\nJOINT Extra\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION"),
     f"line {_line_of(TEXT, 'MOTION')}: JOINT Extra outside the ROOT's braces"),
    ("joint in an end site", lambda t: re.sub(r"End Site\s*\{", "End Site\n{\nJOINT Inner", t, count=1),
     "JOINT Inner inside an End Site"),
    ("brace opening nothing", lambda t: t.replace("HIERARCHY", "HIERARCHY\n{", 1),
     "line 2: '{' opens no ROOT, JOINT or End Site"),
    ("position twice", lambda t: t.replace("Yposition", "Xposition", 1),
     "a position channel is listed twice"),
    ("channel count missing", lambda t: t.replace("CHANNELS 6", "CHANNELS six", 1),
     "CHANNELS: expected a count, got ['six']"),
    ("unknown keyword", lambda t: t.replace("HIERARCHY", "HIERARCHY\nSKELETON", 1),
     "line 2: unexpected 'SKELETON' in the HIERARCHY"),
    ("end without site", lambda t: re.sub(r"End Site", "End Joint", t, count=1),
     "expected 'End Site', got 'End Joint'"),
    ("joint without a name", lambda t: t.replace("JOINT LHipJoint", "JOINT", 1),
     "JOINT without a name"),
    ("motion before any root", lambda t: "HIERARCHY\nMOTION" + t.split("MOTION")[1],
     "line 2: MOTION before any ROOT"),
    ("no frames line", lambda t: t.replace("Frames: 4\n", ""),
     "expected 'Frames: <value>', got 'Frame Time: .0083333'"),
    ("frames not a number", lambda t: t.replace("Frames: 4", "Frames: four"),
     "Frames: expected a whole number, got 'four'"),
    ("frame time not a number", lambda t: _frame_time(t, "Frame Time: fast"),
     "Frame Time: not a number: 'fast'"),
    ("file ends before the frame time", lambda t: t.split("Frame Time")[0].rstrip("\n"),
     "expected 'Frame Time: <value>' next, the file ends"),
    ("offset outside", lambda t: t.replace("HIERARCHY", "HIERARCHY\nOFFSET 0 0 0", 1),
     "line 2: OFFSET outside any joint's braces"),
    ("channels outside", lambda t: t.replace("HIERARCHY", "HIERARCHY\nCHANNELS 0", 1),
     "line 2: CHANNELS outside any joint's braces"),
    ("motion before a brace", lambda t: t.replace("}\nMOTION", "JOINT Tail\nMOTION"),
     f"line {_line_of(TEXT, 'MOTION')}: MOTION before the '{{' of JOINT Tail"),
    ("channels on an end site", lambda t: re.sub(r"End Site\s*\{", "End Site\n{\nCHANNELS 0", t, count=1),
     "an End Site has no CHANNELS"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "edit", "expected"), BAD, ids=[b[0] for b in BAD])
def test_broken_files_are_refused_naming_file_and_line(
    tmp_path: Path,
    what: str,
    edit,
    expected: str,  # noqa: ANN001
) -> None:
    msg = _broken(tmp_path, edit)
    assert expected in msg, what
    assert what == "no motion" or re.search(r"\.bvh: line \d+: ", msg), msg  # names its line


def test_a_broken_file_through_the_cli_exits_2_naming_the_line(tmp_path: Path) -> None:
    path = _copy(tmp_path, "cut.bvh", _edit_frame(TEXT, 2, lambda v: v[:50]))
    proc = run_cli("human", "map", path, cwd=tmp_path, fork=True)
    assert proc.returncode == 2, proc.stderr
    assert f"cut.bvh: line {_frame_line(TEXT, 2)}: frame 2 has 50 values" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_tokens_sharing_lines_read_as_on_their_own(tmp_path: Path) -> None:
    """``JOINT x {``, ``End Site { OFFSET ... }`` and ``} }`` on one line: the same file."""
    text = _text("cmu_motionbuilder_01_01.bvh")
    head, motion = text.split("MOTION")
    head = re.sub(r"((?:ROOT|JOINT)[^\n]*)\n\s*\{", r"\1 {", head)
    head = re.sub(r"End Site\s*\{\s*(OFFSET[^\n]*)\s*\}", r"End Site { \1 }", head)
    while re.search(r"\}\s*\n\s*\}", head):
        head = re.sub(r"\}\s*\n\s*\}", "} }", head)
    head = re.sub(r"\}\s*\n\s*JOINT", "} JOINT", head)
    assert "JOINT LeftUpLeg {" in head and "} } }" in head and "End Site { OFFSET" in head
    assert "} JOINT LowerBack {" in head
    _same(
        read_bvh(DATA / "cmu_motionbuilder_01_01.bvh"),
        read_bvh(_copy(tmp_path, "c.bvh", head + "MOTION" + motion)),
    )


@pytest.mark.parametrize(
    ("frame_time", "fps"),
    [
        (".0083333", 120.0),
        ("0.041667", 24.0),
        ("0.0334", 1 / 0.0334),
        ("2.5", 0.4),
        ("1e-2", 100.0),
    ],
)
def test_frame_time_snaps_to_a_truncated_whole_rate_only(
    tmp_path: Path, frame_time: str, fps: float
) -> None:
    """0.008333 is 1/120 written short; 0.0334 is not 1/30 (0.2% off), and a frame time over
    2 s (rate 0) is kept as written. A one-frame, one-channel file is a file."""
    text = f"HIERARCHY\nROOT a\n{{\nOFFSET 0 0 0\nCHANNELS 1 Yrotation\n}}\nMOTION\nFrames: 1\nFrame Time: {frame_time}\n90\n"
    bvh = read_bvh(_copy(tmp_path, "t.bvh", text))
    assert bvh.fps == fps and bvh.num_frames == 1
    assert np.allclose(
        bvh.to_rotmat()[1][0, 0], Rotation.from_euler("y", 90, degrees=True).as_matrix()
    )


def test_rest_pose_and_root_path(tmp_path: Path) -> None:
    """Rest: every angle zero, the root at the origin, joints at their OFFSET sums (the
    file's own root OFFSET aside); the root's path is its position channels."""
    bvh = read_bvh(DATA / "emilya_walk.bvh")
    assert bvh.nodes[0].offset.any()  # this file's root OFFSET is not zero
    rest = bvh.rest_pose_positions()
    index = {id(n): i for i, n in enumerate(bvh.nodes)}
    assert np.array_equal(rest[0], np.zeros(3))
    for i, n in enumerate(bvh.nodes[1:], start=1):
        assert np.allclose(rest[i], rest[index[id(n.parent)]] + n.offset)
    root, local = bvh.to_rotmat()
    assert np.array_equal(root, bvh.values[:, :3]) and local.shape == (4, len(bvh.joints), 3, 3)
    assert np.array_equal(bvh.node_positions()[:, 0], bvh.values[:, :3])
    assert [c.name for c in bvh.nodes[0].children][:1] == [bvh.nodes[1].name]
    with pytest.raises(MotionImportError, match="cannot read"):
        read_bvh(tmp_path)  # a folder


def test_errors_in_a_crlf_file_name_the_right_line(tmp_path: Path) -> None:
    raw = (DATA / "mocapbank.bvh").read_bytes()
    lines = raw.split(b"\r\n")
    k = next(i for i, ln in enumerate(lines) if ln.startswith(b"Frame Time")) + 3  # frame 3
    lines[k] = b" ".join(lines[k].split()[:-1])
    path = _copy(tmp_path, "crlf.bvh", b"\r\n".join(lines))
    with pytest.raises(MotionImportError, match=rf"crlf\.bvh: line {k + 1}: frame 3 has 59 values"):
        read_bvh(path)
