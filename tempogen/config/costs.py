"""Costs: what a build, a render or an edit would make, estimated and bounded before any frame
is made."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass

from tempogen.config.schema import MAX_FPS, MAX_SECONDS, ConfigError, DatasetConfig

MAX_CLIP_FRAMES = int(MAX_SECONDS * MAX_FPS)  # 144,000: the longest clip a config can ask for
MAX_MEMORY = 8 * 2**30  # bytes one process may be asked to hold at once
MAX_CPU_SECONDS = 24 * 3600.0  # one core's time for the whole job
REF_PIXELS = 640 * 360
# Frames a second on one core at 640x360, fitted to BENCHMARKS.md's whole builds (the default
# build: 633 frames/s on 2 cores; TOMATO scale: about 220 a core for its mix of 41% humans,
# 42% 3D objects); edits from mirror + crop's 340 frames/s at 1280x720.
RATES = {"2d": 400.0, "human": 150.0, "object3d": 300.0, "edit": 1360.0}
ALLOW_LARGE_ENV = "TEMPOGEN_ALLOW_LARGE"  # "1": past the limits anyway (commands without a flag)


@dataclass(frozen=True)
class Estimate:
    """What a job would make: ``frames`` of ``width`` x ``height`` (the longest clip
    ``longest`` frames), ``memory`` bytes held by one process at its peak, and ``seconds`` of
    one core's time (rough: the measured rates of BENCHMARKS.md scaled by pixels)."""

    frames: int
    width: int
    height: int
    longest: int
    memory: int
    seconds: float

    @property
    def raw_bytes(self) -> int:
        """The frames' size as raw RGB (what is rendered and encoded, not what is stored)."""
        return self.frames * self.width * self.height * 3

    def line(self) -> str:
        """One line for a user: frames, raw size, memory and time."""
        return (
            f"about {self.frames:,} frames of {self.width}x{self.height} "
            f"({_bytes(self.raw_bytes)} of raw frames; longest clip {self.longest:,} frames), "
            f"about {_bytes(self.memory)} of memory a process, "
            f"roughly {_duration(self.seconds)} of one core's time"
        )

    def excess(self) -> str | None:
        """Which limit the job passes, in words, or None."""
        if self.longest > MAX_CLIP_FRAMES:
            return (
                f"a clip of {self.longest:,} frames is longer than {MAX_CLIP_FRAMES:,} "
                f"({MAX_SECONDS:g} s at {MAX_FPS:g} fps)"
            )
        if self.memory > MAX_MEMORY:
            return f"{_bytes(self.memory)} of memory is more than {_bytes(MAX_MEMORY)}"
        if self.seconds > MAX_CPU_SECONDS:
            return (
                f"{_duration(self.seconds)} of one core's time is more than "
                f"{_duration(MAX_CPU_SECONDS)}"
            )
        return None


def estimate(
    frames: float,
    width: int,
    height: int,
    *,
    kind: str | Mapping[str, float] = "2d",
    longest: float | None = None,
    held_frames: int = 8,
    held_bytes: float = 0,
) -> Estimate:
    """The one cost estimate (generate, human render, edit): ``frames`` frames of
    ``width`` x ``height`` made at the measured rate of ``kind`` (a key of :data:`RATES`, or a
    mapping of kind to share), ``held_frames`` RGB frames plus ``held_bytes`` held at once."""
    shares = {kind: 1.0} if isinstance(kind, str) else dict(kind)
    # a small frame still costs a pose, a decode, a warp, an encode call: floor at 320x180
    scale = max(width * height / REF_PIXELS, 0.25)
    per_frame = sum(share / RATES[k] for k, share in shares.items()) * scale
    return Estimate(
        frames=int(math.ceil(frames)),
        width=int(width),
        height=int(height),
        longest=int(math.ceil(frames if longest is None else longest)),
        memory=int(held_bytes + held_frames * width * height * 3),
        seconds=float(frames * per_frame),
    )


def check_estimate(
    est: Estimate,
    where: str,
    allow: bool = False,
    how: str = "",
    error: type[Exception] = ConfigError,
) -> Estimate:
    """``est``, or ``error`` naming ``where``, the estimate and the limit it passes; ``allow``
    (or ``$TEMPOGEN_ALLOW_LARGE=1``) lets it through, and ``how`` says how to ask for that."""
    why = est.excess()
    if why is None or allow or os.environ.get(ALLOW_LARGE_ENV) == "1":
        return est
    how = how or f"set {ALLOW_LARGE_ENV}=1"
    raise error(f"{where}: {est.line()}: {why}; {how} to make it anyway")


def config_estimate(cfg: DatasetConfig) -> Estimate:
    """A config's build, from the config alone (before any planning): its clips (and twins)
    at their mean lengths by kind of scene, edited variants, and Vinoground pairs."""
    clips = sum(cfg.samples_for(t) for t in cfg.tasks) * (1 + cfg.minimal_pairs)
    s3 = cfg.scenes3d
    flat = max(0.0, 1.0 - s3.humans - s3.objects)
    # a clip holds at least twice the 16 sampled frames
    flat_clip = max(sum(cfg.duration) / 2 * cfg.fps, 32)
    clip3d = max(sum(s3.duration) / 2 * cfg.fps, 32)
    made = {
        "2d": clips * flat * flat_clip + cfg.vinoground.pairs * 6.0 * cfg.fps,  # two 3 s clips
        "human": clips * s3.humans * clip3d,
        "object3d": clips * s3.objects * clip3d,
    }
    rendered = made["human"] + made["object3d"] + clips * flat * flat_clip
    # edited variants of a share of the clips; each pair again with a 2 s black gap between
    made["edit"] = cfg.variants.share * rendered + cfg.vinoground.pairs * 8.0 * cfg.fps
    frames = sum(made.values())
    kinds = {k: v / frames for k, v in made.items()}
    spans = [cfg.duration[1]] * (flat > 0) + [s3.duration[1]] * (s3.humans + s3.objects > 0)
    longest = max(max(spans, default=0.0) * cfg.fps, 32)
    return estimate(frames, *cfg.size, kind=kinds, longest=longest, held_bytes=300 * 2**20)


def _bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1000
    return f"{n} B"  # unreachable


def _duration(s: float) -> str:
    if s < 1:
        return "under 1 s"
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    if s < 3 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:,.0f} days"
