"""Bench: one mocap clip end to end (window loaded, posed, certified, rendered, encoded and
recorded) against a procedural human clip (``side_step``) of the same length and size.

    .venv/bin/python bench/bench_mocap.py                 # a 4 s walk window at 480x270
    .venv/bin/python bench/bench_mocap.py --frames 60 --width 320 --height 180   # quick
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("PYOPENGL_PLATFORM", "egl")


WALK_START = 175


def _specs(frames: int, width: int, height: int, tmp: Path) -> tuple[Any, Any]:
    """A mocap spec (a window of the shipped walk) and a side_step spec like it."""
    from tempogen.config import load_config
    from tempogen.generators.planning import plan

    cfg_path = tmp / "bench.yaml"
    # one window of the shipped walk (from frame 175 the person walks steadily across)
    lines = (ROOT / "assets" / "mocap" / "fair1_zombie.bvh").read_text().splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("Frame Time"))
    walk = tmp / "walk.bvh"
    body = lines[at + 1 + WALK_START : at + 1 + WALK_START + frames]
    walk.write_text("\n".join([*lines[: at - 1], f"Frames: {len(body)}", lines[at], *body]))
    secs = frames / 30.0
    cfg_path.write_text(
        f"seed: 5\nsize: [{width}, {height}]\nsamples_per_task: {{direction: 6}}\n"
        "tasks: [direction]\nscenes3d: {humans: 1.0, objects: 0.0}\nshortcuts: 'off'\n"
        f"mocap:\n  files: ['{walk}']\n  share: 0.5\n  window: [{secs}, {secs}]\n"
    )
    specs = plan(load_config(cfg_path))
    mocap = next(s for s in specs if s.source)
    other = next(s for s in specs if s.motion == "side_step")
    return mocap, replace(other, num_frames=mocap.num_frames)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--width", type=int, default=480)
    ap.add_argument("--height", type=int, default=270)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "mocap.json")
    a = ap.parse_args(argv)
    from _results import save

    from tempogen.generators.build import render_spec

    with tempfile.TemporaryDirectory(prefix="bench_mocap_") as t:
        tmp = Path(t)
        mocap, procedural = _specs(a.frames, a.width, a.height, tmp)
        times: dict[str, float] = {}
        render_spec(procedural, tmp / "warm")  # the renderer's one-time start is neither's
        for name, spec in (("mocap", mocap), ("procedural", procedural)):
            best = float("inf")
            for r in range(a.repeat):
                t0 = time.perf_counter()
                render_spec(spec, tmp / f"{name}{r}")
                best = min(best, time.perf_counter() - t0)
            times[name] = best
    result: dict[str, Any] = {
        "figures": {
            "frames": mocap.num_frames,
            "size": [a.width, a.height],
            "mocap_clip_s": round(times["mocap"], 3),
            "procedural_clip_s": round(times["procedural"], 3),
            "mocap_frames_per_s": round(mocap.num_frames / times["mocap"], 1),
            "procedural_frames_per_s": round(mocap.num_frames / times["procedural"], 1),
        }
    }
    save(a.out, result)
    return 0


def headline_figures(result: dict[str, Any]) -> list[dict[str, Any]]:
    """results.jsonl rows: a mocap clip's frames per second against a procedural human's."""
    from _results import figure

    result = result["figures"]
    return [
        figure(
            "mocap", "mocap clip end to end", result["mocap_frames_per_s"],
            "procedural human clip (side_step), same length", result["procedural_frames_per_s"],
            "frames/s",
        )
    ]  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
