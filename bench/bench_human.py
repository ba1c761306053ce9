"""Benchmark simulated humans: body-model forward, a naive pyrender loop, and our pipeline.

Measured in one run, on the embedded mannequin body, at the clip size of the default dataset
(640x360, 30 fps, 150 frames = 5 s):

a. **smplx forward**: ``BodyModel.pose`` for a 150-frame pose sequence (the batched forward
   pass through ``smplx`` plus the copies out), best and median of ``--repeat`` runs.
b. **naive pyrender loop**, per motion on the same scene ours draws: what a first attempt
   looks like: a ``pyrender.OffscreenRenderer``, and for every frame a new ``trimesh.Trimesh``
   + ``pyrender.Mesh`` for each body (the posed person and a companion if the clip has one;
   each rigid object moved to its pose), rendered (colour and depth read back), written to the
   same libx264 writer, and removed. Beside it the scene with meshes built once, render only.
c. **ours end to end** (humans and 3D objects): ``make_scene`` (pose with IK, label, certify) + ``BodyWorld.frames``
   (one persistent ``Renderer``, the body's vertex buffer rewritten in place) +
   ``tempogen.video.VideoWriter`` (libx264, the build's preset) into an mp4, per motion, and
   the split of that time: posing/labels, rendering alone (frames into memory), encode alone.
   Rendering alone is measured at the renderer's default multisampling and at 0 and 4
   samples (``TEMPOGEN_GL_SAMPLES``).
d. **two processes** (``--jobs``, default 2): the end-to-end clip rendered by J spawned
   processes at once, started together on a barrier after a warm-up; throughput = all
   frames / the slowest process's time.

The target (issue 4): at least 30 frames/s end to end on 2 CPU cores. Results print as a
table and go to ``bench/out/human.json`` with the machine, the GL implementation
(``gl_info()``) and the load average before and after (a noisy run shows there).

    .venv/bin/python bench/bench_human.py
    .venv/bin/python bench/bench_human.py --frames 90 --repeat 2 --jobs 1
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import multiprocessing as mp
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "bench" / "out" / "human.json"
MOTIONS = ("jumps", "twirl", "body_turn", "turn_first", "walk_path", "walk_faster", "put_down")
OBJECT_MOTIONS = ("cube_spin", "ball_bounce3d", "pendulum3d", "rotor3d")  # box, ball, swing, rotor
TARGET_FPS = 30.0


def machine_info() -> dict[str, Any]:
    """The generation benchmark's machine record, plus the 3D stack's versions."""
    from importlib.metadata import version

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_generate import machine_info as base_info

    return {
        **base_info(),
        **{p: version(p) for p in ("torch", "smplx", "pyrender", "PyOpenGL")},
        "LP_NUM_THREADS": os.environ.get("LP_NUM_THREADS"),
    }


def _clip(motion: str, frames: int, width: int, height: int, seed: int = 1) -> Any:
    import tempogen.generators.patterns  # noqa: F401  (registers every motion)
    from tempogen.generators.motion import MOTIONS as REGISTRY
    from tempogen.generators.motion import Style, make_scene

    m = REGISTRY[motion]
    key = m.keys()[0]
    rng = np.random.default_rng(seed)
    frames = max(frames, math.ceil(m.min_seconds * 30.0))  # quick mode asks for fewer
    return make_scene(m, key, rng, width=width, height=height, fps=30.0, num_frames=frames,
                      style=Style())  # fmt: skip


def _best_median(times: list[float]) -> tuple[float, float]:
    return min(times), statistics.median(times)


def bench_forward(frames: int, repeat: int) -> dict[str, Any]:
    from tempogen.generators.humans import body_for

    scene = _clip("jumps", frames, 640, 360)
    seq = scene.world.sequence
    body = body_for("")
    body.pose(seq)  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        body.pose(seq)
        times.append(time.perf_counter() - t0)
    best, med = _best_median(times)
    return {"frames": frames, "vertices": body.num_vertices, "best_s": best, "median_s": med,
            "fps": frames / best}  # fmt: skip


def _naive_bodies(world: Any) -> list[Any]:
    """Each body of a clip's world as a function giving its trimesh posed for frame i: every
    person of a ``BodyWorld`` (vertices per frame), every rigid body of a ``RigidWorld``."""
    import trimesh

    out = []
    if hasattr(world, "bodies"):  # rigid 3D objects: a mesh and its pose per frame
        for b in world.bodies:
            mesh = b.mesh.copy()
            paint = b.color if b.color is not None else b.face_colors
            if paint is not None:
                p = np.atleast_2d(paint)[:, :3]
                mesh.visual.face_colors = np.broadcast_to(
                    np.c_[p, np.full((len(p), 1), 255)], (len(mesh.faces), 4)
                )
            elif b.vertex_colors is not None:
                mesh.visual.vertex_colors = b.vertex_colors

            def posed(i: int, mesh: Any = mesh, b: Any = b) -> Any:
                return mesh.copy().apply_transform(b.poses if b.poses.ndim == 2 else b.poses[i])

            out.append(posed)
        return out
    people = [(world.faces, world.vertices, world.vertex_colors)]
    people += [(m.faces, m.vertices, m.colors) for m in world.others]
    for faces, verts, colors in people:
        rgba = np.c_[colors, np.full((len(colors), 1), 255)]

        def person(i: int, faces: Any = faces, verts: Any = verts, rgba: Any = rgba) -> Any:
            return trimesh.Trimesh(verts[i], faces, vertex_colors=rgba, process=False)

        out.append(person)
    return out


def bench_naive(motion: str, frames: int, width: int, height: int, repeat: int) -> dict:
    """The peer, on the same scene ours draws and with the same encode: every frame, a new
    ``pyrender.Mesh`` for each body in it (a person and a companion, or each rigid object moved
    to its pose), rendered by pyrender's own offscreen renderer, read back and written to the
    same libx264 writer; beside it the same scene with meshes built once, render only (the
    ceiling of that approach)."""
    from tempogen.generators.render3d import ensure_gl

    ensure_gl()
    import pyrender

    from tempogen.video import VideoWriter

    world = _clip(motion, frames, width, height).world
    cam = world.camera
    bodies = _naive_bodies(world)
    out_path = Path(tempfile.mkdtemp(prefix="bench_naive_")) / "naive.mp4"
    scene = pyrender.Scene(bg_color=[0.5, 0.5, 0.5, 1.0], ambient_light=[0.3] * 3)
    scene.add(pyrender.PerspectiveCamera(yfov=cam.yfov, aspectRatio=cam.aspect), pose=cam.pose)
    scene.add(pyrender.DirectionalLight(intensity=3.0), pose=cam.pose)
    r = pyrender.OffscreenRenderer(width, height)

    def per_frame_mesh() -> float:
        t0 = time.perf_counter()
        with VideoWriter(out_path, 30.0, width, height) as w:  # the same encode as ours
            for i in range(frames):
                nodes = [scene.add(pyrender.Mesh.from_trimesh(b(i), smooth=False)) for b in bodies]
                color, _ = r.render(scene)
                w.write(color)
                for node in nodes:
                    scene.remove_node(node)
        return time.perf_counter() - t0

    def static_mesh() -> float:
        nodes = [scene.add(pyrender.Mesh.from_trimesh(b(0), smooth=False)) for b in bodies]
        t0 = time.perf_counter()
        for _ in range(frames):
            r.render(scene)
        dt_ = time.perf_counter() - t0
        for node in nodes:
            scene.remove_node(node)
        return dt_

    out: dict[str, Any] = {"bodies": len(bodies)}
    for name, fn in (("new_mesh_per_frame", per_frame_mesh), ("static_mesh", static_mesh)):
        fn()  # warm-up (shader compile, first uploads)
        best, med = _best_median([fn() for _ in range(repeat)])
        out[name] = {"best_s": best, "median_s": med, "fps": frames / best}
    r.delete()
    shutil.rmtree(out_path.parent, ignore_errors=True)
    return out


def _end_to_end(motion: str, frames: int, width: int, height: int, path: Path) -> dict[str, float]:
    """One clip: pose + label, render, encode into ``path``; seconds per stage and in all."""
    from tempogen.video import VideoWriter

    t0 = time.perf_counter()
    scene = _clip(motion, frames, width, height)
    t1 = time.perf_counter()
    n = 0
    with VideoWriter(path, 30.0, width, height, background=True) as w:  # as the build writes
        for frame in scene.world.frames("grid", np.random.default_rng(2)):
            w.write(frame)
            n += 1
    t2 = time.perf_counter()
    return {"frames": n, "pose_s": t1 - t0, "render_encode_s": t2 - t1, "total_s": t2 - t0}


def _render_only(scene: Any) -> float:
    t0 = time.perf_counter()
    for _ in scene.world.frames("grid", np.random.default_rng(2)):
        pass
    return time.perf_counter() - t0


def _encode_only(frames_list: list[np.ndarray], width: int, height: int, path: Path) -> float:
    from tempogen.video import VideoWriter

    t0 = time.perf_counter()
    with VideoWriter(path, 30.0, width, height) as w:
        for f in frames_list:
            w.write(f)
    return time.perf_counter() - t0


def bench_ours(frames: int, width: int, height: int, repeat: int, tmp: Path) -> dict[str, Any]:
    from tempogen.generators.render3d import default_samples

    out: dict[str, Any] = {}
    for motion in (*MOTIONS, *OBJECT_MOTIONS):
        _end_to_end(motion, frames, width, height, tmp / "warm.mp4")  # warm-up
        runs = [
            _end_to_end(motion, frames, width, height, tmp / f"{motion}.mp4") for _ in range(repeat)
        ]
        best = min(runs, key=lambda r: r["total_s"])
        scene = _clip(motion, frames, width, height)
        render = {}
        saved = os.environ.get("TEMPOGEN_GL_SAMPLES")
        for samples in sorted({default_samples(), 0, 4}):
            os.environ["TEMPOGEN_GL_SAMPLES"] = str(samples)
            _render_only(scene)
            render[samples] = min(_render_only(scene) for _ in range(repeat))
        if saved is None:
            os.environ.pop("TEMPOGEN_GL_SAMPLES", None)
        else:
            os.environ["TEMPOGEN_GL_SAMPLES"] = saved
        kept = [f.copy() for f in scene.world.frames("grid", np.random.default_rng(2))]
        encode = min(_encode_only(kept, width, height, tmp / "enc.mp4") for _ in range(repeat))
        out[motion] = {
            **best,
            "fps": best["frames"] / best["total_s"],
            "median_total_s": statistics.median(r["total_s"] for r in runs),
            "msaa_samples_default": default_samples(),
            "render_only_s": {str(k): v for k, v in render.items()},
            "render_only_fps": {str(k): best["frames"] / v for k, v in render.items()},
            "encode_only_s": encode,
            "encode_only_fps": best["frames"] / encode,
        }
    return out


def _worker(args: tuple[Any, int, int, int, int, str, str | None]) -> dict[str, float]:
    barrier, frames, width, height, clips, tmp, lp_threads = args
    if lp_threads is not None:  # before this process starts GL: llvmpipe reads it then
        os.environ["LP_NUM_THREADS"] = lp_threads
    _end_to_end(MOTIONS[0], frames, width, height, Path(tmp) / f"w{os.getpid()}.mp4")  # warm-up
    barrier.wait()
    t0 = time.perf_counter()
    n = 0
    for _ in range(clips):
        n += _end_to_end(MOTIONS[0], frames, width, height, Path(tmp) / f"w{os.getpid()}.mp4")[
            "frames"
        ]
    return {"frames": n, "seconds": time.perf_counter() - t0}


def bench_parallel(
    jobs: int, frames: int, width: int, height: int, clips: int, tmp: Path
) -> dict[str, Any]:
    """J spawned processes at once, with llvmpipe's own threads as they are and with one
    rasterizer thread per process (LP_NUM_THREADS=1)."""
    out: dict[str, Any] = {"jobs": jobs, "clips_per_job": clips}
    ctx = mp.get_context("spawn")
    for label, lp in (("default_threads", None), ("lp_num_threads_1", "1")):
        with ctx.Manager() as manager:
            barrier = manager.Barrier(jobs)
            with ctx.Pool(jobs) as pool:
                job = (barrier, frames, width, height, clips, str(tmp), lp)
                res = pool.map(_worker, [job] * jobs)
        total = sum(r["frames"] for r in res)
        slowest = max(r["seconds"] for r in res)
        out[label] = {"frames": total, "seconds": slowest, "fps": total / slowest,
                      "per_process": res}  # fmt: skip
    return out


def table(result: dict[str, Any]) -> str:
    rows = [f"{'what':52s} {'frames/s':>9s}"]
    f = result["forward"]
    rows.append(
        f"{'a. smplx forward (' + str(f['frames']) + ' frames, BodyModel.pose)':52s} {f['fps']:9.1f}"
    )
    for motion, n in result["naive"].items():
        what = f"b. naive, {motion} ({n['bodies']} bodies): new meshes + encode"
        rows.append(f"{what:52s} {n['new_mesh_per_frame']['fps']:9.1f}")
        rows.append(f"{'   meshes built once, render only':52s} {n['static_mesh']['fps']:9.1f}")
    for motion, o in result["ours"].items():
        rows.append(
            f"{'c. ours end to end: ' + motion + ' (pose+render+encode)':52s} {o['fps']:9.1f}"
        )
        for k, v in o["render_only_fps"].items():
            tag = " (the default)" if int(k) == o["msaa_samples_default"] else ""
            rows.append(f"{'     render only, ' + k + 'x MSAA' + tag:52s} {v:9.1f}")
        rows.append(f"{'     encode only':52s} {o['encode_only_fps']:9.1f}")
        rows.append(f"{'     posing + labels (s)':52s} {o['pose_s']:9.3f}")
    if result.get("parallel"):
        p = result["parallel"]
        for label, tag in (("default_threads", ""), ("lp_num_threads_1", ", LP_NUM_THREADS=1")):
            what = f"d. ours, {p['jobs']} processes at once{tag}"
            rows.append(f"{what:52s} {p[label]['fps']:9.1f}")
    rows.append(f"target: >= {TARGET_FPS:.0f} frames/s end to end on 2 cores")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=360)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2, help="processes for (d); 0 skips it")
    ap.add_argument("--clips", type=int, default=2, help="clips per process in (d)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--motions", default="", help="comma list: only these (quick mode)")
    args = ap.parse_args(argv)
    global MOTIONS, OBJECT_MOTIONS
    if args.motions:
        keep = set(args.motions.split(","))
        MOTIONS = tuple(m for m in MOTIONS if m in keep)
        OBJECT_MOTIONS = tuple(m for m in OBJECT_MOTIONS if m in keep)
        if not MOTIONS or not OBJECT_MOTIONS:
            ap.error("--motions: name at least one human and one 3D-object motion")

    import tempogen.generators.patterns.human  # noqa: F401  (registers the human motions)
    from tempogen.generators.render3d import gl_info
    from tempogen.io import write_json

    load_start = os.getloadavg()
    started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    result: dict[str, Any] = {"machine": machine_info(), "gl": gl_info(), "started": started,
                              "size": [args.width, args.height], "frames": args.frames}  # fmt: skip
    result["forward"] = bench_forward(args.frames, max(args.repeat, 5))
    result["naive"] = {
        m: bench_naive(m, args.frames, args.width, args.height, args.repeat)
        for m in (*MOTIONS, *OBJECT_MOTIONS)
    }
    with tempfile.TemporaryDirectory(prefix="bench_human_") as tmp:
        result["ours"] = bench_ours(args.frames, args.width, args.height, args.repeat, Path(tmp))
        if args.jobs > 0:
            result["parallel"] = bench_parallel(
                args.jobs, args.frames, args.width, args.height, args.clips, Path(tmp)
            )
    result["load_average"] = {"start": load_start, "end": os.getloadavg()}
    print(table(result))
    print(f"GL: {result['gl']['renderer']} ({result['gl']['backend']}); load {load_start} -> "
          f"{result['load_average']['end']}")  # fmt: skip
    write_json(args.out, result)
    print(f"wrote {args.out}")
    return 0


def headline_figures(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Headline rows for bench/results.jsonl: for humans and for 3D-object scenes, the motion
    whose end-to-end rate is the smallest multiple of the naive loop on its own scene
    (issue 12: at least 4x)."""
    from _results import figure

    out = []
    for label, every in (("human", MOTIONS), ("3D-object", OBJECT_MOTIONS)):
        motions = [m for m in every if m in result["naive"]]  # a quick run measures a few
        naive = {m: result["naive"][m]["new_mesh_per_frame"]["fps"] for m in motions}
        worst = min(motions, key=lambda m: result["ours"][m]["fps"] / naive[m])
        out.append(figure(
            "human", f"{label} clip end to end (pose + render + encode), worst motion: {worst}",
            result["ours"][worst]["fps"], "naive pyrender loop on the same scene, new meshes "
            "every frame + the same encode", naive[worst], "frames/s",
        ))  # fmt: skip
    return out


if __name__ == "__main__":
    sys.exit(main())
