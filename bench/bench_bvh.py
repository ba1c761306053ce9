"""Benchmark BVH parsing: tempogen's reader against the plain numeric floor, per MB of file.

One generated file of about ``--mb`` MB (a 31-joint CMU-like skeleton: the root with 6
channels, every other joint 3 rotation channels, values written ``%.6f`` as capture tools do):

a. **ours, read**: ``read_bvh`` (hierarchy, the MOTION numbers, every check) + the local rotation
   matrices + forward kinematics (``node_positions``), as ``load_bvh`` uses it;
b. **ours, parse only**: ``read_bvh`` alone (the channel values, no rotations);
c. **peer, numbers only**: ``np.loadtxt`` of the MOTION block alone: NumPy's C text reader, the
   floor any BVH parser pays for its numbers (no hierarchy, no checks, no rotations);
d. **pybvh** (the reader tempogen used before, ``read_bvh_file`` + ``to_rotmat`` +
   ``node_positions``), when it can be imported: reported, never required.

Rates are MB of file per second, best of ``--repeat`` (wall and CPU time); results go to ``bench/out/bvh.json``.

    .venv/bin/python bench/bench_bvh.py
    .venv/bin/python bench/bench_bvh.py --mb 0.2 --repeat 1
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "bench" / "out" / "bvh.json"
# (name, parent index, offset): a CMU-like tree, cm
LIMBS = [
    ("Spine", 0, (0, 10, 0)), ("Spine1", 1, (0, 10, 0)), ("Neck", 2, (0, 15, 0)),
    ("Head", 3, (0, 8, 0)), ("LeftShoulder", 2, (5, 12, 0)), ("LeftArm", 5, (12, 0, 0)),
    ("LeftForeArm", 6, (25, 0, 0)), ("LeftHand", 7, (22, 0, 0)), ("LeftFingers", 8, (6, 0, 0)),
    ("RightShoulder", 2, (-5, 12, 0)), ("RightArm", 10, (-12, 0, 0)),
    ("RightForeArm", 11, (-25, 0, 0)), ("RightHand", 12, (-22, 0, 0)),
    ("RightFingers", 13, (-6, 0, 0)), ("LeftUpLeg", 0, (9, -5, 0)), ("LeftLeg", 15, (0, -42, 0)),
    ("LeftFoot", 16, (0, -40, 0)), ("LeftToeBase", 17, (0, -6, 12)),
    ("RightUpLeg", 0, (-9, -5, 0)), ("RightLeg", 19, (0, -42, 0)),
    ("RightFoot", 20, (0, -40, 0)), ("RightToeBase", 21, (0, -6, 12)),
]  # fmt: skip


def bvh_text(mb: float, seed: int = 0) -> str:
    """A BVH file of about ``mb`` MB of random motion on :data:`LIMBS`."""
    children: dict[int, list[int]] = {}
    for k, (_, parent, _) in enumerate(LIMBS, start=1):
        children.setdefault(parent, []).append(k)
    out = ["HIERARCHY", "ROOT Hips", "{", "\tOFFSET 0 0 0",
           "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation"]  # fmt: skip

    def joint(k: int, depth: int) -> None:
        name, _, off = LIMBS[k - 1]
        tab = "\t" * depth
        out.extend([f"{tab}JOINT {name}", f"{tab}{{", f"{tab}\tOFFSET {off[0]} {off[1]} {off[2]}",
                    f"{tab}\tCHANNELS 3 Zrotation Xrotation Yrotation"])  # fmt: skip
        for c in children.get(k, []):
            joint(c, depth + 1)
        if k not in children:
            out.extend([f"{tab}\tEnd Site", f"{tab}\t{{", f"{tab}\t\tOFFSET 0 5 0", f"{tab}\t}}"])
        out.append(f"{tab}}}")

    for c in children[0]:
        joint(c, 1)
    out.append("}")
    channels = 6 + 3 * len(LIMBS)
    frames = max(2, int(mb * 1e6 / (channels * 11)))  # '%.6f' of a few degrees: ~11 bytes
    rng = np.random.default_rng(seed)
    values = rng.uniform(-90.0, 90.0, (frames, channels))
    body = io.StringIO()
    np.savetxt(body, values, fmt="%.6f")
    out += ["MOTION", f"Frames: {frames}", "Frame Time: 0.008333"]
    return "\n".join(out) + "\n" + body.getvalue()


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """Best wall and best CPU seconds of ``repeat`` runs after a warm-up (CPU time is the
    steadier figure on a shared machine)."""
    fn()  # warm-up
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return min(wall), min(cpu)


def run(mb: float, repeat: int) -> dict[str, Any]:
    """Every reader's best time and MB/s on one generated file."""
    from tempogen.generators.motion_import.bvh_reader import read_bvh

    with tempfile.TemporaryDirectory(prefix="bench_bvh_") as tmp:
        path = Path(tmp) / "gen.bvh"
        path.write_text(bvh_text(mb), encoding="utf-8")
        size = path.stat().st_size / 1e6
        text = path.read_text(encoding="utf-8")
        block = text[text.index("Frame Time:") :].split("\n", 1)[1]

        def ours_read() -> None:
            bvh = read_bvh(path)
            bvh.to_rotmat()
            bvh.node_positions()

        readers: dict[str, Callable[[], Any]] = {
            "ours_read": ours_read,
            "ours_parse": lambda: read_bvh(path),
            "numpy_loadtxt": lambda: np.loadtxt(io.StringIO(block)),
        }
        try:
            import pybvh  # type: ignore[import-not-found,unused-ignore]

            def peer_pybvh() -> None:
                bvh = pybvh.read_bvh_file(path, world_up="+y")
                bvh.to_rotmat()
                bvh.node_positions()

            readers["pybvh_read"] = peer_pybvh
        except ImportError:
            pass
        result: dict[str, Any] = {"mb": size, "frames": read_bvh(path).num_frames}
        for name, fn in readers.items():
            wall, cpu = _best(fn, repeat)
            result[name] = {"best_s": wall, "mb_per_s": size / wall, "cpu_s": cpu,
                            "cpu_mb_per_s": size / cpu}  # fmt: skip
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=10.0, help="size of the generated file")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    from tempogen.io import write_json

    result = run(args.mb, args.repeat)
    print(f"generated BVH: {result['mb']:.2f} MB, {result['frames']} frames")
    for name in ("ours_read", "ours_parse", "numpy_loadtxt", "pybvh_read"):
        if name in result:
            r = result[name]
            print(f"{name:14s} wall {r['best_s']:7.3f} s {r['mb_per_s']:7.2f} MB/s   "
                  f"cpu {r['cpu_s']:7.3f} s {r['cpu_mb_per_s']:7.2f} MB/s")  # fmt: skip
    write_json(args.out, result)
    print(f"wrote {args.out}")
    return 0


def headline_figures(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One row for bench/results.jsonl: our whole read (parse, checks, rotations, positions)
    per MB against NumPy's text reader on the numbers alone."""
    from _results import figure

    return [
        figure(
            "bvh", "BVH read per MB (parse + checks + rotations + positions)",
            result["ours_read"]["mb_per_s"], "np.loadtxt of the MOTION numbers alone (no "
            "hierarchy, no checks, no rotations)", result["numpy_loadtxt"]["mb_per_s"], "MB/s",
        )
    ]  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
