"""Cut a small test or asset copy out of a BVH file: a frame window, every k-th frame (120 fps
to 30 fps: k = 4), channel values rounded; the hierarchy is kept as it is.

    python scripts/trim_bvh.py IN.bvh OUT.bvh --start 0 --end 360 --step 4 --decimals 2

``--start``/``--end`` are frame numbers of the input (end excluded). The output's ``Frames``
and ``Frame Time`` lines are rewritten to match; nothing else changes.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def trim(text: str, start: int, end: int | None, step: int, decimals: int) -> str:
    """The BVH ``text`` with frames ``start:end:step`` kept, values rounded to ``decimals``."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().upper() == "MOTION")
    frame_time = float(lines[at + 2].split(":", 1)[1])
    frames = [line for line in lines[at + 3 :] if line.strip()]
    kept = frames[start:end:step]
    if not kept:
        raise SystemExit(f"no frames in {start}:{end}:{step} (the file has {len(frames)})")

    def fmt(v: str) -> str:
        out = f"{float(v):.{decimals}f}"
        return "0" if float(out) == 0 else out.rstrip("0").rstrip(".")

    body = [" ".join(fmt(v) for v in line.split()) for line in kept]
    head = [*lines[: at + 1], f"Frames: {len(kept)}", f"Frame Time: {frame_time * step:.7f}"]
    return "\n".join(head + body) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path)
    ap.add_argument("dst", type=Path)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--end", type=int, default=None)
    ap.add_argument("--step", type=int, default=1)
    ap.add_argument("--decimals", type=int, default=2)
    a = ap.parse_args(argv)
    out = trim(a.src.read_text(), a.start, a.end, a.step, a.decimals)
    tmp = a.dst.with_name(a.dst.name + ".tmp")
    tmp.write_text(out)
    os.replace(tmp, a.dst)
    print(f"{a.dst}: {len(out.encode())} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
