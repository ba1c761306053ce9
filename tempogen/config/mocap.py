"""The config's ``mocap:`` section: recorded motion files cut into question windows.

Every path is relative to the config file's folder; a glob that matches no file, a joint map
that is not a file, or a share without files is an error naming the field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tempogen.config.checks import check_keys, fail, number, pair, section
from tempogen.config.schema import MocapConfig, limits

MOTION_SUFFIXES = (".bvh", ".npz", ".pkl", ".pickle", ".joblib")  # what load_motion reads


def matches(folder: Path, pattern: str) -> list[Path]:
    """The motion files a glob names under ``folder`` (sorted, so every run sees one order)."""
    if Path(pattern).is_absolute():
        found = sorted(Path(pattern).parent.glob(Path(pattern).name))
    else:
        found = sorted(folder.glob(pattern))
    return [p for p in found if p.is_file() and p.suffix.lower() in MOTION_SUFFIXES]


def mocap_section(src: str, v: Any, folder: Path) -> MocapConfig:
    """``mocap:`` validated: ``files`` globs (each matching a motion file under ``folder``),
    ``share`` in 0..1, ``joint_maps`` (glob or file -> YAML file) and ``window`` seconds."""
    data = section(src, "mocap", v)
    check_keys(src, "mocap.", data, MocapConfig)
    files = data.get("files", [])
    if isinstance(files, str) or not isinstance(files, (list, tuple)):
        raise fail(src, "mocap.files", f"expected a list of globs, got {files!r}")
    for i, pattern in enumerate(files):
        if not isinstance(pattern, str) or not pattern.strip():
            raise fail(src, f"mocap.files[{i}]", f"expected a glob, got {pattern!r}")
        if not matches(folder, pattern):
            raise fail(
                src,
                f"mocap.files[{i}]",
                f"{pattern!r} matches no motion file ({', '.join(MOTION_SUFFIXES)}) under {folder}",
            )
    share = number(src, "mocap.share", data.get("share", 0.0), float, *limits(MocapConfig, "share"))
    if share > 0 and not files:
        raise fail(src, "mocap.share", "a share of mocap questions needs mocap.files")
    maps = section(src, "mocap.joint_maps", data.get("joint_maps"))
    for key, target in maps.items():
        if not isinstance(target, str) or not (folder / target).is_file():
            raise fail(src, f"mocap.joint_maps.{key}", f"no such joint map file: {target!r}")
    window = None
    if data.get("window") is not None:
        lo, hi = limits(MocapConfig, "window")
        window = pair(src, "mocap.window", data["window"], float, lo, hi=hi)
    return MocapConfig(
        files=tuple(files),
        share=share,
        joint_maps=tuple((str(k), str(t)) for k, t in maps.items()),
        window=window,
    )
