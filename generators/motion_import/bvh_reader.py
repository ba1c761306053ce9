"""tempogen's BVH reader: the skeleton, channels and per-frame poses of a ``.bvh`` file.

Reads the files people have: position channels on any joint (the frame's value replaces the
joint's OFFSET on that axis), a root with rotation channels only (it stays at its OFFSET), any
channel order and any subset, CRLF / CR line endings, tabs, ``End Site`` anywhere, multi-word
joint names (``JOINT Bip01 L Thigh``). The MOTION numbers are parsed in one vectorised pass;
anything malformed is a :class:`MotionImportError` naming the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from tempogen.generators.bvh_map import MotionImportError

Array = NDArray[np.float64]

# channel name (lower case) -> (kind, axis)
CHANNELS = {
    f"{axis.lower()}{kind}": (kind, axis) for kind in ("position", "rotation") for axis in "XYZ"
}
# A frame time within this relative distance of an exact 1/N is read as 1/N: writers truncate
# 1/120 to 0.008333 (pybvh snapped the same way, so the frame rates tempogen gives are unchanged).
SNAP = 1e-4
_SPACE = np.zeros(256, dtype=bool)
_SPACE[list(b" \t\n\x0b\x0c")] = True  # bytes.split()'s whitespace (CR is gone by then)
# what ends an OFFSET's numbers when more shares its line (``{ OFFSET 0 1 0 }``)
_KEYWORDS = frozenset(("{", "}", "CHANNELS", "OFFSET", "JOINT", "End"))
_MOTION = re.compile(rb"^[ \t\f\v]*MOTION(?=\s|$)", re.MULTILINE)
_FRAMES = re.compile(r"Frames:\s*(\S*)\s*$")
_FRAME_TIME = re.compile(r"Frame\s+Time:\s*(\S*)\s*$")


@dataclass(eq=False)
class BvhNode:
    """A ROOT, JOINT or End Site: its parent, OFFSET, channels (``"Zrotation"``, ... in file
    order) and the file line that declares it."""

    name: str
    parent: BvhNode | None
    offset: Array
    channels: tuple[str, ...]
    line: int
    end_site: bool = False
    children: list[BvhNode] = field(default_factory=list)

    def is_end_site(self) -> bool:
        """Whether this is an ``End Site`` (no channels, no rotation of its own)."""
        return self.end_site


class Bvh:
    """A parsed BVH file: ``nodes`` in file order (joints and end sites), ``values`` (frames x
    channels, degrees and file units as written) and the frame time in seconds."""

    def __init__(self, path: Path, nodes: list[BvhNode], values: Array, frame_time: float):
        self.path = path
        self.nodes = nodes
        self.values = values
        self.frame_time = frame_time
        self.joints = [n for n in nodes if not n.end_site]
        # the column of each node's first channel: its channels follow in file order
        self._first = np.cumsum([0] + [len(n.channels) for n in nodes[:-1]]).tolist()
        self._trans: Array | None = None
        self._local: Array | None = None
        self._positions: Array | None = None

    @property
    def fps(self) -> float:
        """Frames per second."""
        return 1.0 / self.frame_time

    @property
    def num_frames(self) -> int:
        """How many frames the MOTION section holds."""
        return int(self.values.shape[0])

    def translations(self) -> Array:
        """Each node's translation from its parent per frame, (T, N, 3): its OFFSET, with every
        position channel's value in place of the OFFSET's component on that axis."""
        if self._trans is None:
            shape = (self.num_frames, len(self.nodes), 3)
            t = np.broadcast_to(np.array([n.offset for n in self.nodes]), shape).copy()
            for i, node in enumerate(self.nodes):
                for k, ch in enumerate(node.channels):
                    kind, axis = CHANNELS[ch.lower()]
                    if kind == "position":
                        t[:, i, "XYZ".index(axis)] = self.values[:, self._first[i] + k]
            self._trans = t
        return self._trans

    def to_rotmat(self) -> tuple[Array, Array]:
        """The root's translation per frame (T, 3) and every joint's local rotation matrix
        per frame (T, J, 3, 3), joints in file order. A joint's rotation channels compose in
        file order, intrinsically: ``Zrotation Xrotation Yrotation`` is ``Rz @ Rx @ Ry``."""
        if self._local is None:
            self._local = self._rotations()
        return self.translations()[:, 0], self._local

    def node_positions(self) -> Array:
        """World position of every node per frame, (T, N, 3), in the file's units and axes."""
        if self._positions is None:
            _, local = self.to_rotmat()
            self._positions = _forward(self.nodes, self.translations(), local)
        return self._positions

    def rest_pose_positions(self) -> Array:
        """Node positions with every angle zero and the root at the origin, (N, 3)."""
        t = np.array([n.offset for n in self.nodes])[None].copy()
        t[0, 0] = 0.0
        eye = np.broadcast_to(np.eye(3), (1, len(self.joints), 3, 3))
        rest: Array = _forward(self.nodes, t, eye)[0]
        return rest

    def _rotations(self) -> Array:
        """Local rotation matrices (T, J, 3, 3), one scipy call per distinct channel order."""
        n_frames, joint_of = self.num_frames, {id(n): j for j, n in enumerate(self.joints)}
        out = np.empty((n_frames, len(self.joints), 3, 3))
        out[:] = np.eye(3)
        groups: dict[str, list[tuple[int, list[int]]]] = {}
        for i, node in enumerate(self.nodes):
            rot = [k for k, ch in enumerate(node.channels) if ch.lower().endswith("rotation")]
            if rot:
                order = "".join(CHANNELS[node.channels[k].lower()][1] for k in rot)
                cols = [self._first[i] + k for k in rot]
                groups.setdefault(order, []).append((joint_of[id(node)], cols))
        for order, members in groups.items():
            js = [j for j, _ in members]
            angles = self.values[:, [c for _, cols in members for c in cols]]
            angles = angles.reshape(n_frames * len(js), len(order))
            out[:, js] = _euler(order, angles).reshape(n_frames, len(js), 3, 3)
        return out


def _euler(order: str, degrees: Array) -> Array:
    """Rotation matrices of intrinsic rotations about ``order``'s axes in order (``"ZXY"`` is
    ``Rz @ Rx @ Ry``, scipy's ``Rotation.from_euler("ZXY", ...)``), one row of ``degrees``
    each. Built from elementary rotations in NumPy: scipy's ``from_euler`` took 4x as long."""
    out: Array | None = None
    for k, axis in enumerate(order):
        theta = np.deg2rad(degrees[:, k])
        c, s = np.cos(theta), np.sin(theta)
        i = "XYZ".index(axis)
        j, m = (i + 1) % 3, (i + 2) % 3
        r = np.zeros((len(theta), 3, 3))
        r[:, i, i] = 1.0
        r[:, j, j] = r[:, m, m] = c
        r[:, j, m], r[:, m, j] = -s, s
        out = r if out is None else out @ r
    assert out is not None  # a channel order has at least one axis
    return out


def _forward(nodes: list[BvhNode], trans: Array, local: Array) -> Array:
    """World positions (T, N, 3) from per-frame translations and local joint rotations."""
    index = {id(n): i for i, n in enumerate(nodes)}
    joint = {id(n): j for j, n in enumerate(n for n in nodes if not n.end_site)}
    pos = np.empty(trans.shape)
    glob: dict[int, Array] = {}
    for i, node in enumerate(nodes):
        if node.parent is None:
            pos[:, i] = trans[:, i]
            rot = local[:, joint[id(node)]]
        else:
            p = index[id(node.parent)]
            parent_rot = glob[p]
            pos[:, i] = pos[:, p] + (parent_rot @ trans[:, i, :, None])[..., 0]
            rot = parent_rot if node.end_site else parent_rot @ local[:, joint[id(node)]]
        glob[i] = rot
    return pos


def read_bvh(path: str | Path) -> Bvh:
    """Parse the BVH file at ``path``; a :class:`MotionImportError` naming file and line if
    it is not one."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise MotionImportError(f"{p}: cannot read: {exc.strerror or exc}") from exc
    raw = raw.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    motion = _MOTION.search(raw)
    if motion is None:
        raise MotionImportError(f"{p}: no MOTION section (is this a BVH file?)")
    header = raw[: motion.start()].decode("utf-8", errors="replace").split("\n")
    motion_line = raw.count(b"\n", 0, motion.start()) + 1
    nodes = _hierarchy(p, header, motion_line)
    values, frame_time = _motion(p, raw, motion.end(), motion_line, nodes)
    return Bvh(p, nodes, values, frame_time)


def _hierarchy(path: Path, lines: list[str], motion_line: int) -> list[BvhNode]:
    """The nodes the HIERARCHY lines declare, in file order (``lines[0]`` is line 1)."""
    nodes: list[BvhNode] = []
    stack: list[BvhNode] = []  # nodes whose '{' is open
    pending: BvhNode | None = None  # declared, its '{' not yet seen
    offsets: set[int] = set()  # ids of the nodes whose OFFSET / CHANNELS line was read
    chans: set[int] = set()

    def fail(line: int, msg: str) -> MotionImportError:
        return MotionImportError(f"{path}: line {line}: {msg}")

    def close(node: BvhNode, line: int) -> None:
        if id(node) not in offsets:
            raise fail(line, f"{_what(node)} (line {node.line}) has no OFFSET")
        if not node.end_site and id(node) not in chans:
            raise fail(line, f"{_what(node)} (line {node.line}) has no CHANNELS line")

    for num, text in enumerate(lines, start=1):
        words = text.split()
        k = 0
        while k < len(words):
            word = words[k]
            if pending is not None and word != "{":
                raise fail(num, f"expected '{{' to open {_what(pending)}, got {word!r}")
            if word in ("ROOT", "JOINT", "End"):
                # the name is the rest of the line up to a '{' (``JOINT Bip01 L Thigh {``)
                rest = words[k + 1 :]
                rest = rest[: rest.index("{")] if "{" in rest else rest
                k += 1 + len(rest)
                if word == "End":
                    if [w.lower() for w in rest] != ["site"]:
                        raise fail(
                            num,
                            f"expected 'End Site', got {' '.join(words[k - 1 - len(rest) :])!r}",
                        )
                name = " ".join(rest)
                if not name:
                    raise fail(num, f"{word} without a name")
                if word == "ROOT":
                    if nodes:
                        raise fail(num, f"a second ROOT {name!r}: one skeleton per file")
                    parent = None
                elif not stack:
                    raise fail(num, f"{word} {name} outside the ROOT's braces")
                else:
                    parent = stack[-1]
                    if parent.end_site:
                        raise fail(num, f"{word} {name} inside an End Site")
                if word == "End":
                    assert parent is not None
                    name = "EndSite" + parent.name
                node = BvhNode(name, parent, np.zeros(3), (), num, end_site=word == "End")
                if parent is not None:
                    parent.children.append(node)
                nodes.append(node)
                pending = node
            elif word == "{":
                if pending is None:
                    raise fail(num, "'{' opens no ROOT, JOINT or End Site")
                stack.append(pending)
                pending = None
                k += 1
            elif word == "}":
                if not stack:
                    raise fail(num, "unbalanced braces: '}' closes nothing")
                close(stack.pop(), num)
                k += 1
            elif word == "OFFSET":
                node = _inside(path, stack, num, word)
                nums = words[k + 1 :]
                nums = nums[: next((j for j, w in enumerate(nums) if w in _KEYWORDS), len(nums))]
                try:
                    node.offset = np.array([float(v) for v in nums])
                except ValueError:
                    raise fail(num, f"OFFSET: not a number in {' '.join(nums)!r}") from None
                if len(nums) != 3 or not np.isfinite(node.offset).all():
                    raise fail(num, f"OFFSET: expected 3 finite numbers, got {' '.join(nums)!r}")
                offsets.add(id(node))
                k += 1 + len(nums)
            elif word == "CHANNELS":
                node = _inside(path, stack, num, word)
                if node.end_site:
                    raise fail(num, "an End Site has no CHANNELS")
                node.channels = _channels(path, num, words[k + 1 :])
                chans.add(id(node))
                k = len(words)
            elif word == "HIERARCHY" and not nodes:
                k += 1
            else:
                raise fail(num, f"unexpected {word!r} in the HIERARCHY")
    if pending is not None:
        raise fail(motion_line, f"MOTION before the '{{' of {_what(pending)}")
    if stack:
        node = stack[-1]
        raise fail(
            motion_line,
            f"unbalanced braces: MOTION before the '}}' of {_what(node)} (line {node.line})",
        )
    if not nodes:
        raise fail(motion_line, "MOTION before any ROOT")
    return nodes


def _what(node: BvhNode) -> str:
    if node.parent is None:
        return f"ROOT {node.name}"
    return f"the End Site of {node.parent.name}" if node.end_site else f"JOINT {node.name}"


def _inside(path: Path, stack: list[BvhNode], line: int, word: str) -> BvhNode:
    if not stack:
        raise MotionImportError(f"{path}: line {line}: {word} outside any joint's braces")
    return stack[-1]


def _channels(path: Path, line: int, words: list[str]) -> tuple[str, ...]:
    """A CHANNELS line's names after the keyword, checked: a count, then that many names."""
    if not words or not words[0].isdigit():
        raise MotionImportError(f"{path}: line {line}: CHANNELS: expected a count, got {words[:1]}")
    count, names = int(words[0]), words[1:]
    if len(names) != count:
        raise MotionImportError(
            f"{path}: line {line}: CHANNELS {count} lists {len(names)} channel names"
        )
    for name in names:
        if name.lower() not in CHANNELS:
            raise MotionImportError(
                f"{path}: line {line}: unknown channel {name!r} (expected X/Y/Z + position or "
                "rotation, e.g. 'Zrotation')"
            )
    seen = [n.lower() for n in names if n.lower().endswith("position")]
    if len(set(seen)) != len(seen):
        raise MotionImportError(f"{path}: line {line}: a position channel is listed twice")
    return tuple(names)


def _motion(
    path: Path, raw: bytes, pos: int, line: int, nodes: list[BvhNode]
) -> tuple[Array, float]:
    """The frames (T, C) and the frame time of the MOTION section: ``raw[pos:]`` is the rest
    of the MOTION line, line number ``line``."""
    frames, pos, frames_line = _field(path, raw, pos, line, _FRAMES, "Frames:")
    frame_time_text, pos, time_line = _field(
        path, raw, pos, frames_line, _FRAME_TIME, "Frame Time:"
    )
    try:
        n_frames = int(frames)
    except ValueError:
        raise MotionImportError(
            f"{path}: line {frames_line}: Frames: expected a whole number, got {frames!r}"
        ) from None
    try:
        frame_time = float(frame_time_text)
    except ValueError:
        raise MotionImportError(
            f"{path}: line {time_line}: Frame Time: not a number: {frame_time_text!r}"
        ) from None
    if not (np.isfinite(frame_time) and frame_time > 0):
        raise MotionImportError(
            f"{path}: line {time_line}: Frame Time: must be a positive number, got {frame_time_text}"
        )
    if n_frames <= 0:
        raise MotionImportError(f"{path}: line {frames_line}: Frames: {n_frames}: no frames")
    n_channels = sum(len(n.channels) for n in nodes)
    if n_channels == 0:
        raise MotionImportError(f"{path}: the HIERARCHY declares no channels")
    body, first = raw[pos:], time_line  # from the end of the Frame Time line on
    # values per line, vectorised: a value starts where a non-space byte follows a space
    b = np.frombuffer(body, dtype=np.uint8)
    space = _SPACE[b]
    start = ~space
    start[1:] &= space[:-1]
    newlines = np.flatnonzero(b == ord("\n"))
    per_line = np.bincount(np.searchsorted(newlines, np.flatnonzero(start)))
    data = np.flatnonzero(per_line)  # blank lines carry no frame
    wrong = data[per_line[data] != n_channels]
    if wrong.size:
        row = int(wrong[0])
        frame = int(np.searchsorted(data, row)) + 1
        raise MotionImportError(
            f"{path}: line {first + row}: frame {frame} has {per_line[row]} values, the "
            f"HIERARCHY declares {n_channels} channels"
        )
    if data.size != n_frames:
        raise MotionImportError(
            f"{path}: line {frames_line}: Frames: {n_frames}, but the MOTION data holds "
            f"{data.size} frame lines"
        )
    try:
        values = np.array(body.split(), dtype=np.float64)
    except ValueError:
        raise _bad_number(path, body, first) from None
    values = values.reshape(n_frames, n_channels)
    bad = ~np.isfinite(values)
    if bad.any():
        frame, col = (int(v) for v in np.argwhere(bad)[0])
        raise MotionImportError(
            f"{path}: line {first + int(data[frame])}: frame {frame + 1}: value {col + 1} is "
            "NaN or infinite"
        )
    return values, _snap(frame_time)


def _field(
    path: Path, raw: bytes, pos: int, line: int, pattern: re.Pattern[str], name: str
) -> tuple[str, int, int]:
    """The value on the next non-blank line after ``raw[pos:]`` (the rest of line ``line``)
    if it is ``name``'s line: (value, where the line after it starts, its line number)."""
    while True:
        end = raw.find(b"\n", pos)
        if end < 0:
            raise MotionImportError(
                f"{path}: line {line}: expected '{name} <value>' next, the file ends"
            )
        pos, line = end + 1, line + 1
        nxt = raw.find(b"\n", pos)
        text = raw[pos : len(raw) if nxt < 0 else nxt].decode("utf-8", errors="replace").strip()
        if text:
            break
    m = pattern.match(text)
    if m is None or not m.group(1):
        raise MotionImportError(f"{path}: line {line}: expected '{name} <value>', got {text!r}")
    return m.group(1), len(raw) if nxt < 0 else nxt, line


def _bad_number(path: Path, body: bytes, first: int) -> MotionImportError:
    """The error naming the first value of the MOTION data that is not a number (the slow
    path, taken only once the vectorised parse has failed)."""
    frame = 0
    for num, line in enumerate(body.split(b"\n"), start=first):
        words = line.split()
        frame += bool(words)
        for col, word in enumerate(words, start=1):
            try:
                float(word)
            except ValueError:
                return MotionImportError(
                    f"{path}: line {num}: frame {frame}: value {col} is not a number: "
                    f"{word.decode('utf-8', errors='replace')!r}"
                )
    return MotionImportError(f"{path}: MOTION: a value is not a number")  # pragma: no cover


def _snap(frame_time: float) -> float:
    """``frame_time`` as an exact ``1/N`` when it is a truncated one (see :data:`SNAP`)."""
    rate = round(1.0 / frame_time)
    if rate > 0 and abs(1.0 / rate - frame_time) / frame_time < SNAP:
        return 1.0 / rate
    return frame_time
