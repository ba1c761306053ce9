"""The catalogue of a config's motion files: every window each mocap pattern certifies, with
its answer.

Each file is read (the sha256 of its bytes names it), loaded at the config's frame rate and
cut into windows (lengths drawn from ``mocap.window`` with a generator seeded by the config's
seed and the file's sha256: the same cut on every run). Every window is tried on every
mocap pattern from each of the pattern's views: the pattern builds the clip's scene from it
and :func:`~tempogen.generators.motion.make_scene` certifies it with the certificates every
clip gets (16 frames, one frame blind, Video-TT's 80), so the recorded answer is the one the
clip will have. A window no pattern certifies, or a file shorter than the shortest window, is
skipped and counted (:attr:`Catalogue.skipped`), never an error.

A file's results are cached under the build's folder, keyed by its sha256, the frame rate and
frame size, the window parameters, the patterns and the render version: a rerun reads them
back, and a changed file (another sha256) is tried afresh.
"""

from __future__ import annotations

import fnmatch
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tempogen.config import DatasetConfig
from tempogen.config.mocap import matches
from tempogen.errors import GenerationError
from tempogen.generators.mocap.source import Source, file_sha256, load, register
from tempogen.generators.motion import Motion, certify, make_scene
from tempogen.generators.poses import PoseSequence
from tempogen.generators.scene import Scene, Style
from tempogen.io import content_hash, read_json, write_json
from tempogen.questions import answer_key

CACHE_DIR = "mocap"  # under the build's folder
PROBE_SEED = 0  # the generator a probe's scene draws from: the answer does not depend on it


@dataclass(frozen=True)
class Candidate:
    """A window a pattern certifies, with the answer it gives."""

    motion: str
    task: str
    key: str
    source: str  # the window's Source JSON (the spec's ``source``)


@dataclass
class Catalogue:
    """Every certified window of a config's files, and what was skipped, by reason."""

    files: int = 0
    windows: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)

    def line(self, questions: int) -> str:
        """The build report's line: files, windows, questions asked, skipped (by reason)."""
        why = ", ".join(f"{k} {v}" for k, v in sorted(self.skipped.items()))
        return (
            f"mocap: {self.files} files, {self.windows} windows, {questions} questions, "
            f"{sum(self.skipped.values())} skipped" + (f" ({why})" if why else "")
        )

    def for_task(self, task: str) -> list[Candidate]:
        return [c for c in self.candidates if c.task == task]


def mocap_files(cfg: DatasetConfig) -> list[tuple[str, Path, str]]:
    """Each file the config's globs name, once, in order: (path as given relative to the
    config's folder, the file, the joint map's path relative to the folder or "")."""
    folder = cfg.folder
    out: dict[Path, tuple[str, Path, str]] = {}
    for pattern in cfg.mocap.files:
        for path in matches(folder, pattern):
            rel = _relative(path, folder)
            jm = next(
                (m for g, m in cfg.mocap.joint_maps if g == rel or fnmatch.fnmatch(rel, g)), ""
            )
            out.setdefault(path.resolve(), (rel, path, jm))
    return list(out.values())


def _relative(path: Path, folder: Path) -> str:
    """``path`` relative to the config's folder (``../assets/x.bvh``), as rows record it: the
    same on every machine that holds the same tree."""
    return Path(os.path.relpath(path.resolve(), folder)).as_posix()


def cut(
    num_frames: int, fps: float, span: tuple[float, float], seed: Sequence[int]
) -> list[tuple[int, int]]:
    """Windows (first frame, frames) of a file of ``num_frames``: lengths drawn from ``span``
    seconds, each starting half a window after the last, the first at a drawn offset."""
    rng = np.random.default_rng(list(seed))
    lo, hi = (max(2, int(round(s * fps))) for s in span)
    out: list[tuple[int, int]] = []
    if num_frames < lo:
        return out
    start = int(rng.integers(0, max(1, (num_frames - lo) // 4 + 1)))
    while True:
        frames = int(rng.integers(lo, hi + 1))
        if start + frames > num_frames:
            frames = num_frames - start
            if frames < lo:
                break
        out.append((start, frames))
        start += max(1, frames // 2)
    return out


def probe(motion: Motion, src: Source, width: int, height: int) -> tuple[str | None, str]:
    """The answer ``motion`` certifies on a window, or None and why not."""
    from tempogen.generators.patterns.mocap import Unreadable

    style = Style(source=src.to_json())
    kw: dict[str, Any] = {"width": width, "height": height, "fps": src.fps}
    try:
        scene = Scene(np.random.default_rng(PROBE_SEED), num_frames=src.frames, style=style, **kw)
        scene.fact = motion.fact
        motion.animate(scene, None)
        cert = certify(scene.labels())
        if cert.full is None:
            return None, "no answer"
        key = answer_key(motion.fact, cert.full)
        if key not in motion.keys():
            return None, "answer not offered"
        if not cert.ok(motion.fact, key):
            return None, "sampling"
        rng = np.random.default_rng(PROBE_SEED)
        make_scene(motion, key, rng, num_frames=src.frames, style=style, attempts=1, **kw)
    except Unreadable as exc:
        return None, exc.reason
    except GenerationError as exc:  # a pose past the joint limits, a camera that cannot fit
        return None, type(exc).__name__
    return key, ""


def _file_results(
    cfg: DatasetConfig,
    entry: tuple[str, Path, str],
    motions: list[Motion],
    span: tuple[float, float],
    cache: Path | None,
    version: int,
) -> dict[str, Any]:
    """One file's windows and each probe's result, from the cache when it has them."""
    rel, path, jm = entry
    sha = file_sha256(path)
    jm_path = (cfg.folder / jm).resolve() if jm else None
    register(sha, path, jm_path)
    key = {
        "sha256": sha, "fps": cfg.fps, "size": list(cfg.size), "window": list(span),
        "seed": cfg.seed, "joint_map": jm, "motions": [m.name for m in motions],
        "version": version, "file": rel,
    }  # fmt: skip
    where = None if cache is None else cache / CACHE_DIR / f"{content_hash(key)[:24]}.json"
    if where is not None and where.is_file():
        return dict(read_json(where))
    seq, _ = load(path.resolve(), cfg.fps, jm_path)
    windows = cut(seq.num_frames, cfg.fps, span, [cfg.seed, int(sha[:8], 16)])
    results = []
    for start, frames in windows:
        cut_ = slice(start, start + frames)
        piece = PoseSequence(seq.poses[cut_], seq.trans[cut_], cfg.fps)
        for m in motions:
            for view in m.views(piece):  # type: ignore[attr-defined]
                src = Source(rel, sha, start, frames, cfg.fps, jm, round(view, 3))
                answer, why = probe(m, src, *cfg.size)
                results.append(
                    {"window": [start, frames], "motion": m.name, "source": src.to_json(),
                     "key": answer, "reason": why}
                )  # fmt: skip
    out = {"key": key, "windows": [list(w) for w in windows], "results": results}
    if where is not None:
        write_json(where, out)
    return out


def build_catalogue(
    cfg: DatasetConfig, motions: list[Motion], cache: Path | None = None, version: int = 0
) -> Catalogue:
    """The catalogue of ``cfg``'s mocap files for ``motions`` (see the module's docstring)."""
    span = cfg.mocap.window or cfg.scenes3d.duration
    cat = Catalogue()
    task = {m.name: m.task for m in motions}
    for entry in mocap_files(cfg):
        cat.files += 1
        res = _file_results(cfg, entry, motions, span, cache, version)
        if not res["windows"]:
            cat.skipped["file too short"] += 1
            continue
        cat.windows += len(res["windows"])
        for w in res["windows"]:
            mine = [r for r in res["results"] if r["window"] == w]
            good = [r for r in mine if r["key"] is not None]
            if not good:
                reasons = Counter(r["reason"] for r in mine) or Counter({"no view": 1})
                cat.skipped[f"window: {reasons.most_common(1)[0][0]}"] += 1
            cat.candidates += [
                Candidate(r["motion"], task[r["motion"]], r["key"], r["source"]) for r in good
            ]
    return cat
