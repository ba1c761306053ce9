"""Plan one pair's scene through its kind and render both orders, plus Vinoground's
video-score clip (positive, a gap of black, negative)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tempogen.generators.motion import SAMPLES
from tempogen.generators.pairs.common import (
    EVENT_PAIRS,
    GAP_SECONDS,
    KINDS,
    PLANNERS,
    PairScene,
    PairSpec,
)
from tempogen.video import VideoWriter


def plan_scene(spec: PairSpec) -> PairScene:
    """Both orders' labels, captions, certificate and drawing of one pair (refused with a
    :class:`GenerationError` if the order cannot be read from TOMATO's 16 samples)."""
    KINDS.lookup(spec.kind, f"pair {spec.index}")
    if tuple(spec.events) not in EVENT_PAIRS[spec.kind]:
        raise ValueError(
            f"pair {spec.index}: events {spec.events} are not a {spec.kind} pair; "
            f"known: {EVENT_PAIRS[spec.kind]}"
        )
    if spec.num_frames < 2 * SAMPLES:
        raise ValueError(
            f"pair {spec.index}: {spec.num_frames} frames is fewer than {2 * SAMPLES} "
            "(an unsampled frame between every two samples)"
        )
    return PLANNERS[spec.kind](spec)


def concat_name(index: int) -> str:
    """Where a pair's video-score clip lives (positive, black gap, negative)."""
    return f"videos/pair{index}_concat.mp4"


def render_pair(spec: PairSpec, out_dir: Path) -> dict[str, Any]:
    """Render both orders to ``out_dir/videos/pair{index}_{pos,neg}.mp4`` and, from the same
    frames, Vinoground's video-score clip (positive, ``GAP_SECONDS`` of black, negative);
    return the record. Each file is renamed into place only when complete."""
    out_dir = Path(out_dir)
    scene = plan_scene(spec)
    rel = {side: f"videos/pair{spec.index}_{side}.mp4" for side in ("pos", "neg")}
    lab = scene.pos_labels
    size = (lab.fps, lab.width, lab.height)
    with VideoWriter(out_dir / concat_name(spec.index), *size, background=True) as both:
        for side in ("pos", "neg"):
            if side == "neg":
                black = np.zeros((lab.height, lab.width, 3), np.uint8)
                for _ in range(int(round(GAP_SECONDS * lab.fps))):
                    both.write(black)
            with VideoWriter(out_dir / rel[side], *size, background=True) as one:
                for frame in scene.draw[side]():
                    one.write(frame)
                    both.write(frame)
    return {
        "index": spec.index,
        "kind": spec.kind,
        "pos_caption": scene.pos_caption,
        "neg_caption": scene.neg_caption,
        "major": spec.major,
        "minor": scene.minor,
        "pos_video": rel["pos"],
        "neg_video": rel["neg"],
        "num_frames": spec.num_frames,
        "fps": spec.fps,
        "certificate": scene.certificate,
    }
