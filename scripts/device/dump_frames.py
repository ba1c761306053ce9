"""Render fixed clips' first, middle and last frames into an .npz, to compare GL implementations.

Same seed, same scene: two runs on one GL implementation give identical frames; on two
(Mesa's llvmpipe here, the NVIDIA driver on a GPU node) they differ at mesh edges only.

    python scripts/device/dump_frames.py OUT.npz [--frames 90] [--compare OTHER.npz]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from bench_human import _clip  # noqa: E402

from tempogen.generators.render3d import gl_info  # noqa: E402

MOTIONS = ("jumps", "walk_faster", "cube_spin", "rotor3d")


def dump(motions: tuple[str, ...], frames: int) -> dict[str, np.ndarray]:
    """The first, middle and last frame of each motion's clip (seed 1, 640x360)."""
    keep = {0, frames // 2, frames - 1}
    out = {}
    for motion in motions:
        scene = _clip(motion, frames, 640, 360)
        for i, frame in enumerate(scene.world.frames("grid", np.random.default_rng(2))):
            if i in keep:
                out[f"{motion}_{i}"] = frame.copy()
    return out


def compare(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> list[str]:
    """One line per frame: largest and mean channel difference, share of pixels off by > 8."""
    lines = []
    for key in sorted(set(a) & set(b)):
        d = np.abs(a[key].astype(np.int16) - b[key].astype(np.int16))
        lines.append(
            f"{key}: max {int(d.max())}, mean {d.mean():.3f}, "
            f"pixels off by >8: {(d.max(-1) > 8).mean() * 100:.3f}%"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--frames", type=int, default=90)
    ap.add_argument("--motions", nargs="*", default=list(MOTIONS))
    ap.add_argument("--compare", type=Path, help="an earlier dump to compare with")
    args = ap.parse_args(argv)
    frames = dump(tuple(args.motions), args.frames)
    np.savez_compressed(args.out, **frames)
    print(gl_info())
    if args.compare:
        with np.load(args.compare) as other:
            print("\n".join(compare(frames, dict(other))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
