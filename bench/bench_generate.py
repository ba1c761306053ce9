"""Benchmark dataset generation: whole-build throughput against an encode-only ceiling.

Every clip of a build is rendered, then encoded with libx264, and the encode is the cost that
cannot be avoided: the bookkeeping around it (labels, sheets, hashes, manifest, exports) and
the rendering should be small beside it. This script measures, in one run and with J worker
processes (default: all cores, as ``tempogen generate`` uses):

1. **build**: ``build_dataset`` on a subset of the config (``--samples`` clips per task,
   default 10, so 60 clips of 3-10 s at 640x360, 30 fps) into a fresh temporary folder.
   The wall time covers everything a user waits for: the worker pool, rendering, encoding,
   contact sheets, hashes, manifest, TOMATO export and index page.
2. **encode-only ceiling**: the same specs, but each clip's frames are rendered into memory
   first, outside the timed region, and only the encode is timed: the ready-made frames
   piped through ``tempogen.video.VideoWriter`` with the build's crf, preset and one thread
   per writer, in J forked workers. Each worker takes a share of the clips balanced by
   frame count, renders and encodes them one at a time (so memory stays at one clip per
   worker), and sums its encode time; all workers start together on a barrier. The figure
   is total frames / the slowest worker's summed encode time. A build does this same
   encode plus everything else, so it cannot beat this figure.
3. **render-only**: rendering alone (labels, background, compositor, every frame copied
   into a buffer), timed in the same workers, as frames per second per core, for context.
4. **ratio** build / encode-only ceiling: the share of the encoder's ceiling that the whole
   pipeline reaches (target: at least 50%).
5. **full build** (``--full``, off by default because it takes minutes): ``tempogen generate``
   on the whole config as a subprocess (its wall time includes interpreter start and
   imports, as a user sees it), with the summed RSS of its process tree (parent and
   every descendant) sampled every 0.1 s in a thread. Reported: peak summed RSS, wall time
   and frames/s. Summed RSS counts pages that forked workers share once per process, so it
   overstates real use; the peak summed PSS (shared pages split between sharers) is
   reported beside it. A peak shorter than the sampling interval can be missed.

Per-core figures are frames / seconds / J. Run it on a quiet machine: the load average at
start and end is recorded in the JSON so a noisy run can be recognised.

    .venv/bin/python bench/bench_generate.py                 # subset only, a minute or two
    .venv/bin/python bench/bench_generate.py --full          # plus the full default build
    .venv/bin/python bench/bench_generate.py --samples 2 --jobs 1 --config configs/tiny.yaml

Results are printed as a table and written as JSON (default ``bench/out/generate.json``).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import multiprocessing as mp
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import av
import cv2
import numpy as np

import tempogen.builders.exports.tomato  # noqa: F401

# Imported up front (build_dataset imports them lazily) so one-time import costs stay out of
# the timed regions; forked workers inherit them.
import tempogen.builders.report.html  # noqa: F401
import tempogen.sheets  # noqa: F401
from tempogen.builders.dataset.build import build_dataset
from tempogen.config import DatasetConfig, load_config
from tempogen.generators.build import Spec, plan, scene_frames, spec_scene
from tempogen.video import VideoWriter

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = ROOT / "configs" / "default.yaml"
DEFAULT_OUT = ROOT / "bench" / "out" / "generate.json"
SAMPLE_INTERVAL_S = 0.1
BARRIER_TIMEOUT_S = 600.0
TARGET_RATIO = 0.5


# --------------------------------------------------------------------------- machine info


def machine_info() -> dict[str, Any]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu_model": model,
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "av": av.__version__,
        "opencv": cv2.__version__,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    }


# --------------------------------------------------------------------------- 1. whole build


def bench_build(cfg: DatasetConfig, jobs: int) -> dict[str, Any]:
    """Time ``build_dataset`` end to end into a fresh temporary folder."""
    with tempfile.TemporaryDirectory(prefix="tempogen-bench-build-") as tmp:
        t0 = time.perf_counter()
        summary = build_dataset(cfg, Path(tmp) / "dataset", jobs=jobs, progress=False)
        wall = time.perf_counter() - t0
    return {
        "clips": summary.clips,
        "frames": summary.frames,
        "wall_s": wall,
        "render_all_s": summary.seconds,
        "frames_per_s": summary.frames / wall,
        "frames_per_s_per_core": summary.frames / wall / jobs,
    }


# --------------------------------------------------------------- 2-3. encode-only and render

_barrier: Any = None


def _encode_worker_init(barrier: Any) -> None:
    global _barrier
    _barrier = barrier


FFMPEG = shutil.which("ffmpeg")  # optional peer: Debian's ffmpeg CLI


def _render_into(spec: Spec, buf: np.ndarray) -> tuple[int, float, float]:
    """Render a spec's frames into ``buf``; returns frames, setup and frame-loop seconds."""
    t0 = time.perf_counter()
    scene, bg_rng, _ = spec_scene(spec)
    frames = scene_frames(scene, spec.background, bg_rng)  # 2D or 3D, as the build renders
    t1 = time.perf_counter()
    n = 0
    for n, frame in enumerate(frames, 1):
        np.copyto(buf[n - 1], frame)
    return n, t1 - t0, time.perf_counter() - t1


def _encode_share(args: tuple[list[Spec], str]) -> dict[str, Any]:
    """One worker: render each clip of its share (untimed), then time only its encode."""
    share, tmp = args
    out = Path(tmp) / f"worker-{os.getpid()}"
    out.mkdir()
    first = share[0]
    # One buffer for the longest clip, touched now so page faults stay out of every timing.
    buf = np.empty((max(s.num_frames for s in share), first.height, first.width, 3), dtype=np.uint8)
    buf.fill(0)
    with VideoWriter(
        out / "warmup.mp4",
        first.fps,
        first.width,
        first.height,
        crf=first.crf,
        preset=first.preset,
        threads=1,
    ) as vw:
        for i in range(min(8, len(buf))):
            vw.write(buf[i])
    _barrier.wait(BARRIER_TIMEOUT_S)

    frames = 0
    setup_s = render_s = encode_s = pipe_s = 0.0
    for spec in share:
        n, setup, render = _render_into(spec, buf)
        t0 = time.perf_counter()
        with VideoWriter(
            out / f"{spec.id}.mp4",
            spec.fps,
            spec.width,
            spec.height,
            crf=spec.crf,
            preset=spec.preset,
            threads=1,
        ) as vw:
            for i in range(n):
                vw.write(buf[i])
        encode_s += time.perf_counter() - t0
        if FFMPEG:
            # The issue's reference ceiling: ready-made RGB frames piped into ffmpeg's x264
            # with the same settings (one encoder thread, like each of our workers).
            t0 = time.perf_counter()
            cmd = [
                FFMPEG,
                "-v",
                "error",
                "-y",
                "-f",
                "rawvideo",
                "-pix_fmt",
                "rgb24",
                "-s",
                f"{spec.width}x{spec.height}",
                "-r",
                str(spec.fps),
                "-i",
                "-",
                "-c:v",
                "libx264",
                "-preset",
                spec.preset,
                "-crf",
                str(spec.crf),
                "-threads",
                "1",
                "-pix_fmt",
                "yuv420p",
                str(out / f"{spec.id}-pipe.mp4"),
            ]
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
            assert proc.stdin is not None
            proc.stdin.write(memoryview(buf[:n]).cast("B"))
            proc.stdin.close()
            if proc.wait() != 0:
                raise RuntimeError(f"ffmpeg pipe failed: {' '.join(cmd)}")
            pipe_s += time.perf_counter() - t0
        frames += n
        setup_s += setup
        render_s += render
    return {
        "pid": os.getpid(),
        "clips": len(share),
        "frames": frames,
        "setup_s": setup_s,
        "render_s": render_s,
        "encode_s": encode_s,
        "pipe_s": pipe_s,
    }


def _split(specs: list[Spec], parts: int) -> list[list[Spec]]:
    """Shares balanced by frame count: longest clip first, to the lightest share."""
    shares: list[list[Spec]] = [[] for _ in range(parts)]
    load = [0] * parts
    for s in sorted(specs, key=lambda s: s.num_frames, reverse=True):
        k = load.index(min(load))
        shares[k].append(s)
        load[k] += s.num_frames
    return [s for s in shares if s]


def bench_encode_render(specs: list[Spec], jobs: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Encode-only ceiling and render-only rate, from one pass of ``jobs`` forked workers."""
    shares = _split(specs, jobs)
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(len(shares))
    import cv2

    before = cv2.getNumThreads()
    cv2.setNumThreads(1)  # as the build's pool: one OpenCV thread per worker, set before forking
    try:
        pool = ctx.Pool(len(shares), initializer=_encode_worker_init, initargs=(barrier,))
    finally:
        cv2.setNumThreads(before)
    with tempfile.TemporaryDirectory(prefix="tempogen-bench-encode-") as tmp, pool:
        workers = pool.map(_encode_share, [(s, tmp) for s in shares], chunksize=1)
    frames = sum(w["frames"] for w in workers)
    wall = max(w["encode_s"] for w in workers)
    encode = {
        "frames": frames,
        "wall_s": wall,
        "frames_per_s": frames / wall,
        "frames_per_s_per_core": frames / wall / jobs,
        "workers": workers,
    }
    pipe_wall = max(w["pipe_s"] for w in workers)
    if pipe_wall > 0:
        encode["ffmpeg_pipe"] = {
            "how": "RGB frames piped to ffmpeg -c:v libx264 (same preset, crf, 1 thread), same workers",
            "wall_s": pipe_wall,
            "frames_per_s": frames / pipe_wall,
            "frames_per_s_per_core": frames / pipe_wall / jobs,
        }
    render_cpu = sum(w["setup_s"] + w["render_s"] for w in workers)
    render = {
        "frames": frames,
        "cpu_s": render_cpu,
        "setup_cpu_s": sum(w["setup_s"] for w in workers),
        "frames_per_s_per_core": frames / render_cpu,
    }
    return encode, render


# ------------------------------------------------------------ 5. full build, peak memory


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return kids
    for tid in tasks:
        try:
            kids.extend(
                int(c) for c in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()
            )
        except (OSError, ValueError):
            pass
    return kids


def process_tree(pid: int) -> list[int]:
    """``pid`` and all its descendants, found through /proc/<pid>/task/*/children."""
    tree, stack = [], [pid]
    while stack:
        p = stack.pop()
        tree.append(p)
        stack.extend(_children(p))
    return tree


def _field_kb(path: str, key: str) -> int:
    """A ``Key:   123 kB`` field of a /proc file; 0 when the process is gone."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


class TreeMemorySampler(threading.Thread):
    """Samples the summed RSS (and PSS) of a process tree at a fixed interval; keeps peaks."""

    def __init__(self, pid: int, interval: float = SAMPLE_INTERVAL_S) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self._halt = threading.Event()
        self.samples = 0
        self.peak_rss_kb = self.peak_pss_kb = self.peak_process_rss_kb = 0
        self.peak_processes = 0
        self.peak_at_s = 0.0

    def run(self) -> None:
        t0 = time.perf_counter()
        while True:
            self._sample(time.perf_counter() - t0)
            if self._halt.wait(self.interval):
                return

    def _sample(self, t: float) -> None:
        tree = process_tree(self.pid)
        rss = [_field_kb(f"/proc/{p}/status", "VmRSS:") for p in tree]
        pss = sum(_field_kb(f"/proc/{p}/smaps_rollup", "Pss:") for p in tree)
        self.samples += 1
        if sum(rss) > self.peak_rss_kb:
            self.peak_rss_kb, self.peak_at_s = sum(rss), t
        self.peak_pss_kb = max(self.peak_pss_kb, pss)
        self.peak_process_rss_kb = max(self.peak_process_rss_kb, max(rss, default=0))
        self.peak_processes = max(self.peak_processes, sum(1 for r in rss if r))

    def stop(self) -> None:
        self._halt.set()
        self.join()


def _tempogen_command() -> list[str]:
    script = Path(sys.executable).with_name("tempogen")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "tempogen.cli"]


def bench_full(config: Path, jobs: int) -> dict[str, Any]:
    """Run ``tempogen generate`` on the whole config; wall time and peak memory of its tree."""
    specs = plan(load_config(config))
    with tempfile.TemporaryDirectory(prefix="tempogen-bench-full-") as tmp:
        cmd = _tempogen_command() + [
            "generate",
            "--config",
            str(config),
            "--out",
            str(Path(tmp) / "dataset"),
            "-j",
            str(jobs),
            "-q",
        ]
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        sampler = TreeMemorySampler(proc.pid)
        sampler.start()
        stdout, stderr = proc.communicate()
        wall = time.perf_counter() - t0
        sampler.stop()
    if proc.returncode:
        raise RuntimeError(f"{shlex.join(cmd)} failed ({proc.returncode}):\n{stderr}")
    frames = sum(s.num_frames for s in specs)
    mb = 1 / 1024
    return {
        "command": shlex.join(cmd),
        "clips": len(specs),
        "frames": frames,
        "wall_s": wall,
        "frames_per_s": frames / wall,
        "frames_per_s_per_core": frames / wall / jobs,
        "peak_rss_sum_mb": sampler.peak_rss_kb * mb,
        "peak_pss_sum_mb": sampler.peak_pss_kb * mb,
        "peak_process_rss_mb": sampler.peak_process_rss_kb * mb,
        "peak_processes": sampler.peak_processes,
        "peak_at_s": sampler.peak_at_s,
        "samples": sampler.samples,
        "sample_interval_s": sampler.interval,
        "stdout": stdout.strip(),
    }


# --------------------------------------------------------------------------- report


def _row(name: str, wall: float | None, fps: float | None, per_core: float) -> str:
    w = f"{wall:8.1f}" if wall is not None else f"{'-':>8}"
    f = f"{fps:10,.0f}" if fps is not None else f"{'-':>10}"
    return f"  {name:<28}{w}{f}{per_core:10,.0f}{1000 / per_core:14.2f}"


def report(res: dict[str, Any]) -> str:
    m, s, f = res["machine"], res["subset"], res["figures"]
    b, e, r = f["build"], f["encode_only"], f["render_only"]
    lines = [
        f"tempogen generation benchmark  {m['date']}",
        f"  {m['cpu_model']}, {m['cores']} cores; python {m['python']}, numpy {m['numpy']}, "
        f"av {m['av']}; load avg {res['loadavg_start'][0]:.2f} -> {res['loadavg_end'][0]:.2f}",
        f"  subset: {s['clips']} clips, {s['frames']:,} frames, {s['size'][0]}x{s['size'][1]} "
        f"@ {s['fps']:g} fps, crf {s['crf']} {s['preset']}, J = {res['jobs']} workers",
        "",
        f"  {'':<28}{'wall s':>8}{'frames/s':>10}{'per core':>10}{'ms/frame/core':>14}",
        _row("build (build_dataset)", b["wall_s"], b["frames_per_s"], b["frames_per_s_per_core"]),
        _row("encode-only ceiling", e["wall_s"], e["frames_per_s"], e["frames_per_s_per_core"]),
        _row("render-only (context)", None, None, r["frames_per_s_per_core"]),
        "",
        f"  build / encode-only ceiling: {f['ratio']:.0%} "
        f"(target >= {TARGET_RATIO:.0%}: {'met' if f['ratio'] >= TARGET_RATIO else 'NOT met'})",
        f"  generation stage (render_all) / ceiling: {f['stage_ratio']:.0%}",
    ]
    pipe = e.get("ffmpeg_pipe")
    if pipe:
        lines.insert(
            -3,
            _row(
                "ffmpeg pipe ceiling",
                pipe["wall_s"],
                pipe["frames_per_s"],
                pipe["frames_per_s_per_core"],
            ),
        )
        lines.append(f"  build / ffmpeg-pipe ceiling (the issue's method): {f['ratio_pipe']:.0%}")
    full = f.get("full")
    if full is not None:
        lines += [
            "",
            f"  full build ({res['config']}): {full['clips']} clips, {full['frames']:,} frames "
            f"in {full['wall_s']:.1f} s = {full['frames_per_s']:,.0f} frames/s "
            f"({full['frames_per_s_per_core']:,.0f} per core)",
            f"  peak memory of the process tree: {full['peak_rss_sum_mb']:,.0f} MB summed RSS, "
            f"{full['peak_pss_sum_mb']:,.0f} MB summed PSS, largest process "
            f"{full['peak_process_rss_mb']:,.0f} MB, {full['peak_processes']} processes "
            f"({full['samples']} samples every {full['sample_interval_s']} s)",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--config", type=Path, default=DEFAULT_CONFIG, help="config (default: %(default)s)"
    )
    p.add_argument(
        "--samples", type=int, default=10, help="clips per task in the subset (default: 10)"
    )
    p.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="workers (default: all cores)"
    )
    p.add_argument(
        "--full", action="store_true", help="also time the full config build and its memory"
    )
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON (default: %(default)s)")
    args = p.parse_args(argv)
    if args.samples < 1 or args.jobs < 1:
        p.error("--samples and --jobs must be at least 1")

    config = args.config.resolve()
    cfg = dataclasses.replace(load_config(config), samples_per_task=args.samples)
    specs = plan(cfg)
    jobs = min(args.jobs, len(specs))
    res: dict[str, Any] = {
        "command": shlex.join([sys.executable, *sys.argv]),
        "machine": machine_info(),
        "config": str(config.relative_to(ROOT) if config.is_relative_to(ROOT) else config),
        "jobs": jobs,
        "loadavg_start": os.getloadavg(),
        "subset": {
            "samples_per_task": args.samples,
            "clips": len(specs),
            "frames": sum(s.num_frames for s in specs),
            "size": list(cfg.size),
            "fps": cfg.fps,
            "duration": list(cfg.duration),
            "crf": cfg.encode.crf,
            "preset": cfg.encode.preset,
        },
    }
    print(f"[1/3] build_dataset: {len(specs)} clips, {jobs} workers ...", flush=True)
    build = bench_build(cfg, jobs)
    print("[2/3] encode-only ceiling and render-only ...", flush=True)
    encode, render = bench_encode_render(specs, jobs)
    assert encode["frames"] == build["frames"], "build and encode pass disagree on frames"
    figures: dict[str, Any] = {
        "build": build,
        "encode_only": encode,
        "render_only": render,
        "ratio": build["frames_per_s"] / encode["frames_per_s"],
        "stage_ratio": build["frames"] / build["render_all_s"] / encode["frames_per_s"],
        "full": None,
    }
    if "ffmpeg_pipe" in encode:
        figures["ratio_pipe"] = build["frames_per_s"] / encode["ffmpeg_pipe"]["frames_per_s"]
    if args.full:
        print(f"[3/3] full build of {res['config']} with peak memory ...", flush=True)
        figures["full"] = bench_full(config, args.jobs)
    else:
        print("[3/3] full build skipped (pass --full)", flush=True)
    res["figures"] = figures
    res["loadavg_end"] = os.getloadavg()

    print()
    print(report(res))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    print(f"\n  wrote {args.out}")
    return 0


def headline_figures(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Headline row: the whole build's throughput against the encode-only ceiling (the share
    of the encoder's ceiling the pipeline reaches; target at least 0.5)."""
    from _results import figure

    f = result["figures"]
    return [
        figure(
            "generate",
            "build_dataset throughput, subset of the config",
            f["build"]["frames_per_s"],
            "encode-only ceiling (same clips, same workers)",
            f["encode_only"]["frames_per_s"],
            "frames/s",
        )  # fmt: skip
    ]


if __name__ == "__main__":
    sys.exit(main())
