"""A window of a recorded motion file: what a mocap clip is cut from, named in its spec.

A :class:`Source` is the file as the config gives it (relative to the config's folder), the
sha256 of its bytes, the first frame and length of the window (at the clip's frame rate), the
joint map the config names for it, and the camera's view. Its compact JSON is the spec's
``source`` field, so a changed file (another sha256) changes the spec's hash and re-renders.
The files a build reads are registered here by sha256 (:func:`register`), which is how a
worker finds a spec's file on disk. A spec also carries where the planning machine holds it
(``Spec.located``, outside the spec's hash, which must not name a machine's paths), which a
fresh worker (a Ray process) registers before it animates; a file registered by neither is
looked for where the spec names it (relative to the working folder), and its bytes must still
hash the same.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tempogen.errors import GenerationError
from tempogen.generators.poses import PoseSequence

_FILES: dict[str, tuple[Path, Path | None]] = {}  # sha256 -> (file, joint map) on this machine


@dataclass(frozen=True)
class Source:
    """One window of one motion file, seen from one view (degrees round the vertical)."""

    file: str
    sha256: str
    start: int
    frames: int
    fps: float
    joint_map: str = ""
    view: float = 0.0

    def to_json(self) -> str:
        """The spec's ``source``: compact, keys sorted, so equal windows hash equal."""
        return json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Source:
        try:
            d = json.loads(text)
            return cls(**d)
        except (ValueError, TypeError) as exc:
            raise GenerationError(f"mocap source {text!r}: not a window's JSON ({exc})") from exc

    @property
    def end(self) -> int:
        return self.start + self.frames

    def provenance(self, applied: dict[str, str]) -> dict[str, Any]:
        """The manifest row's ``mocap`` object: the file, its sha256, the window in source
        frames and seconds, and the joint map as applied (SMPL joint -> file's joint)."""
        return {
            "file": self.file,
            "sha256": self.sha256,
            "fps": self.fps,
            "window": {
                "frames": [self.start, self.end],
                "seconds": [round(self.start / self.fps, 4), round(self.end / self.fps, 4)],
            },
            "joint_map": dict(applied),
        }


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def register(sha256: str, path: Path, joint_map: Path | None) -> None:
    """Record where this machine holds the file of ``sha256`` (and its joint map)."""
    _FILES[sha256] = (Path(path).resolve(), joint_map)


def located(source: str) -> str:
    """Where this machine holds a window's file and joint map (JSON: absolute paths and the
    sha256), for a spec to carry to workers that did not plan the build (a Ray process)."""
    src = Source.from_json(source)
    path, joint_map = locate(src)
    where = {"sha256": src.sha256, "file": str(path), "joint_map": str(joint_map or "")}
    return json.dumps(where, sort_keys=True, separators=(",", ":"))


def register_located(where: str) -> None:
    """Register a file a spec carries (:func:`located`) in this process."""
    d = json.loads(where)
    register(d["sha256"], Path(d["file"]), Path(d["joint_map"]) if d["joint_map"] else None)


def locate(src: Source) -> tuple[Path, Path | None]:
    """The file (and joint map) of a window on this machine; an error naming the file when it
    is missing or its bytes changed since the spec was planned."""
    if src.sha256 in _FILES:
        return _FILES[src.sha256]
    path = Path(src.file)
    if not path.is_file() or file_sha256(path) != src.sha256:
        raise GenerationError(
            f"mocap file {src.file!r} (sha256 {src.sha256[:12]}...) is not in this build's "
            "catalogue and not at that path with those bytes: plan the build again"
        )
    return path, Path(src.joint_map) if src.joint_map else None


@functools.lru_cache(maxsize=16)
def load(path: Path, fps: float, joint_map: Path | None) -> tuple[PoseSequence, dict[str, str]]:
    """A whole motion file at ``fps`` (grounded by its loader) and the joint map as applied
    (SMPL joint -> the file's joint; SMPL files drive SMPL's joints themselves: empty)."""
    from tempogen.generators.motion_import import load_motion, skeleton_map

    seq = load_motion(path, fps, joint_map=joint_map)
    applied = skeleton_map(path, joint_map) if path.suffix.lower() == ".bvh" else {}
    return seq, dict(applied)


def window(src: Source) -> tuple[PoseSequence, dict[str, str]]:
    """The poses of a window (its frames of the file at its frame rate) and the joint map."""
    path, joint_map = locate(src)
    seq, applied = load(path, src.fps, joint_map)
    if src.start < 0 or src.end > seq.num_frames:
        raise GenerationError(
            f"mocap file {src.file!r}: window [{src.start}, {src.end}) is outside its "
            f"{seq.num_frames} frames at {src.fps:g} fps"
        )
    cut = slice(src.start, src.end)
    return PoseSequence(seq.poses[cut], seq.trans[cut], seq.fps, None, src.file), applied
