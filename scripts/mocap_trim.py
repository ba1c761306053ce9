"""Trim a BVH file for shipping: keep its header, keep every ``step``-th frame of a frame
range (120 fps -> 30 fps with step 4) and round channel values to ``decimals``; the frame
count and frame time are rewritten to match. Used to make assets/mocap (see its README)."""

from __future__ import annotations

import argparse
from pathlib import Path


def trim(src: Path, out: Path, step: int, first: int, last: int | None, decimals: int) -> int:
    """Write the trimmed copy of ``src`` to ``out``; the number of frames kept."""
    lines = src.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("Frame Time"))
    frame_time = float(lines[at].split(":")[1])
    frames = [ln for ln in lines[at + 1 :] if ln.strip()][first:last:step]
    head = [ln for ln in lines[: at - 1]]
    body = [" ".join(f"{float(v):.{decimals}f}" for v in ln.split()) for ln in frames]
    text = "\n".join(head + [f"Frames: {len(body)}", f"Frame Time: {frame_time * step:.7f}"] + body)
    out.write_text(text + "\n", encoding="utf-8")
    return len(body)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("src", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--step", type=int, default=4)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--last", type=int, default=None)
    ap.add_argument("--decimals", type=int, default=2)
    a = ap.parse_args()
    n = trim(a.src, a.out, a.step, a.first, a.last, a.decimals)
    print(f"{a.out}: {n} frames, {a.out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
