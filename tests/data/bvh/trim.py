"""Trim a BVH file to a few frames for tests/data/bvh: the header byte for byte (line endings
included), the ``Frames:`` count rewritten, and ``count`` frame lines from ``start`` copied
verbatim, so every kept channel value is the file's own text.

    .venv/bin/python tests/data/bvh/trim.py SRC DST --frames 4 [--start 0]
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path


def trim(src: Path, dst: Path, count: int, start: int = 0) -> None:
    """Write ``src``'s header and its frames ``start .. start + count - 1`` to ``dst``."""
    lines = src.read_bytes().splitlines(keepends=True)
    at = next(k for k, ln in enumerate(lines) if ln.lstrip().startswith(b"Frame Time:"))
    frames = next(k for k, ln in enumerate(lines) if ln.lstrip().startswith(b"Frames:"))
    data = [ln for ln in lines[at + 1 :] if ln.strip()]
    if start + count > len(data):
        raise SystemExit(f"{src}: {len(data)} frames, asked for {start}..{start + count - 1}")
    head = lines[: at + 1]
    head[frames] = re.sub(rb"Frames:(\s*)\d+", rb"Frames:\g<1>%d" % count, head[frames])
    dst.write_bytes(b"".join(head + data[start : start + count]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path)
    ap.add_argument("dst", type=Path)
    ap.add_argument("--frames", type=int, default=4)
    ap.add_argument("--start", type=int, default=0)
    args = ap.parse_args()
    trim(args.src, args.dst, args.frames, args.start)


if __name__ == "__main__":
    main()
