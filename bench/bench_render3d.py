"""Benchmark the offscreen 3D renderer against a naive pyrender loop, in one run.

At 640x360, a deforming body-sized mesh is rendered frame after frame by:

* **naive**: a ``pyrender.OffscreenRenderer`` and, every frame, a new ``trimesh.Trimesh`` +
  ``pyrender.Mesh.from_trimesh`` added to the scene, rendered (colour and depth read back, as
  ``OffscreenRenderer.render`` does) and removed: what a first attempt looks like.
* **static**: the same renderer and scene with one mesh that never changes (no per-frame mesh
  at all): the ceiling of that approach.
* **ours**: ``tempogen.generators.render3d.Renderer``: one persistent scene, the mesh's vertex
  buffer rewritten in place each frame (``set_vertices``: positions and normals), one RGBA read
  into a reused buffer. Measured with 4x multisampling (pyrender's own setting, so like for
  like with the rows above) and with none (``samples=0``); and once more over a floor and a
  gradient sky, the look of a dataset clip.

Meshes: an SMPL-sized capsule (6,914 vertices; SMPL has 6,890) swaying, and, when the
embedded mannequin loads (``generators/body.py``), the mannequin (4,354 vertices) waving its
arms (posed by smplx before timing; only rendering is timed). Every contestant renders the
same vertices through the same camera and lights, in the same process, with the GL platform
chosen by ``ensure_gl`` (llvmpipe's ``LP_NUM_THREADS`` as recorded in the output; tempogen
defaults it to 0 so forked workers can render). Contestants run interleaved, ``--repeat``
times; the table shows the best and median frames/s.

    .venv/bin/python bench/bench_render3d.py
    .venv/bin/python bench/bench_render3d.py --frames 60 --repeat 2
    LP_NUM_THREADS=2 .venv/bin/python bench/bench_render3d.py --out bench/out/render3d_lp2.json

Results print as a table and go to ``bench/out/render3d.json`` with ``gl_info()``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tempogen.generators.render3d import AMBIENT, Renderer, ensure_gl, gl_info

ensure_gl()  # before pyrender is imported below: one GL platform for every contestant

import pyrender  # noqa: E402
import trimesh  # noqa: E402

from tempogen.generators.camera import Camera, look_at  # noqa: E402
from tempogen.io import write_json  # noqa: E402

W, H = 640, 360
SKIN = (205, 160, 130)


def capsule_body(frames: int) -> tuple[np.ndarray, np.ndarray]:
    """A person-sized capsule (about SMPL's vertex count) swaying: (T, V, 3), faces."""
    cap = trimesh.creation.capsule(height=1.3, radius=0.2, count=[96, 72])
    rest = np.asarray(cap.vertices)[:, [0, 2, 1]] + [0.0, 0.85, 0.0]  # standing on y = 0
    t = np.arange(frames)[:, None]
    lean = 0.25 * np.sin(2 * np.pi * t / 45.0) * (rest[None, :, 1] / 1.7) ** 2
    verts = np.repeat(rest[None], frames, axis=0)
    verts[..., 0] += lean
    return verts.astype(np.float32), np.asarray(cap.faces, dtype=np.int64)


def mannequin_body(frames: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The embedded mannequin waving both arms, posed by smplx; None if it cannot load."""
    try:
        from tempogen.generators.body import load_body
        from tempogen.generators.skeleton import JOINTS
    except ImportError:
        return None
    body = load_body()
    poses = np.zeros((frames, 24, 3))
    wave = 0.9 * np.sin(2 * np.pi * np.arange(frames) / 30.0)
    poses[:, JOINTS.index("left_shoulder"), 2] = 1.0 + 0.3 * wave
    poses[:, JOINTS.index("right_shoulder"), 2] = -1.0 - 0.3 * wave
    poses[:, JOINTS.index("left_elbow"), 1] = wave
    out = body.pose(poses, np.zeros((frames, 3)))
    return out.vertices.astype(np.float32), np.asarray(body.faces, dtype=np.int64)


def camera() -> Camera:
    return Camera(W, H, np.radians(40.0), look_at(np.array([0.4, 1.1, 3.6]), np.array([0, 0.9, 0])))


def _pyrender_scene(cam: Camera) -> pyrender.Scene:
    """A plain pyrender scene with the same camera and similar lights as ours."""
    scene = pyrender.Scene(bg_color=[0.55, 0.55, 0.6, 1.0], ambient_light=[AMBIENT] * 3)
    scene.add(pyrender.PerspectiveCamera(yfov=cam.yfov, aspectRatio=cam.aspect), pose=cam.pose)
    scene.add(pyrender.DirectionalLight(intensity=3.0), pose=cam.pose)
    return scene


def naive(verts: np.ndarray, faces: np.ndarray, renderer: pyrender.OffscreenRenderer) -> float:
    """Frames/s of the build-a-mesh-every-frame loop."""
    scene = _pyrender_scene(camera())
    colors = np.tile([*SKIN, 255], (verts.shape[1], 1)).astype(np.uint8)
    t0 = time.perf_counter()
    for v in verts:
        mesh = trimesh.Trimesh(v, faces, vertex_colors=colors, process=False)
        node = scene.add(pyrender.Mesh.from_trimesh(mesh, smooth=True))
        renderer.render(scene)
        scene.remove_node(node)
    return len(verts) / (time.perf_counter() - t0)


def static(verts: np.ndarray, faces: np.ndarray, renderer: pyrender.OffscreenRenderer) -> float:
    """Frames/s of the same renderer drawing one mesh that never changes."""
    scene = _pyrender_scene(camera())
    colors = np.tile([*SKIN, 255], (verts.shape[1], 1)).astype(np.uint8)
    mesh = trimesh.Trimesh(verts[0], faces, vertex_colors=colors, process=False)
    node = scene.add(pyrender.Mesh.from_trimesh(mesh, smooth=True))
    renderer.render(scene)  # upload outside the timing
    t0 = time.perf_counter()
    for _ in verts:
        renderer.render(scene)
    dt_s = time.perf_counter() - t0
    scene.remove_node(node)
    return len(verts) / dt_s


def ours(samples: int, look: bool = False) -> Callable[[np.ndarray, np.ndarray, object], float]:
    """Frames/s of our Renderer with the mesh rewritten in place each frame."""

    def run(verts: np.ndarray, faces: np.ndarray, _renderer: object) -> float:
        r = Renderer(
            camera(),
            background="gradient" if look else "solid",
            rng=np.random.default_rng(0),
            floor=0.0 if look else None,
            samples=samples,
        )
        h = r.add_dynamic_mesh(faces, SKIN, verts[0])
        r.render()  # compile and upload outside the timing, as the others do
        t0 = time.perf_counter()
        for v in verts:
            r.set_vertices(h, v)
            r.render()
        dt_s = time.perf_counter() - t0
        r.close()
        return len(verts) / dt_s

    return run


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=120, help="frames per measurement")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved runs per contestant")
    ap.add_argument("--out", default="bench/out/render3d.json")
    args = ap.parse_args(argv)

    load0 = os.getloadavg()
    info = gl_info()
    meshes = {"capsule (SMPL-sized)": capsule_body(args.frames)}
    body = mannequin_body(args.frames)
    if body is not None:
        meshes["mannequin"] = body
    contestants: dict[str, Callable] = {
        "naive: new pyrender.Mesh per frame": naive,
        "static mesh (pyrender ceiling)": static,
        "ours: in place, 4x MSAA": ours(4),
        "ours: in place, no MSAA": ours(0),
        "ours: in place, 4x MSAA, floor + sky": ours(4, look=True),
    }
    offscreen = pyrender.OffscreenRenderer(W, H)
    offscreen.render(_pyrender_scene(camera()))  # compile shaders outside the timing
    results: dict[str, dict[str, list[float]]] = {m: {c: [] for c in contestants} for m in meshes}
    for _ in range(args.repeat):
        for mname, (verts, faces) in meshes.items():
            for cname, fn in contestants.items():
                results[mname][cname].append(fn(verts, faces, offscreen))
    offscreen.delete()
    load1 = os.getloadavg()

    rows = []
    print(f"\n3D render, {W}x{H}, {args.frames} frames, best of {args.repeat} (median)")
    print(
        f"GL: {info['renderer']} ({info['vendor']}), LP_NUM_THREADS={os.environ.get('LP_NUM_THREADS')}"
    )
    print(f"load average before {load0[0]:.2f}, after {load1[0]:.2f}\n")
    print(f"{'mesh':<24}{'contestant':<40}{'frames/s':>10}{'median':>10}{'vs naive':>10}")
    for mname, (verts, _) in meshes.items():
        base = max(results[mname]["naive: new pyrender.Mesh per frame"])
        for cname, fps in results[mname].items():
            best, med = max(fps), statistics.median(fps)
            print(f"{mname:<24}{cname:<40}{best:>10.1f}{med:>10.1f}{best / base:>9.2f}x")
            rows.append(
                {
                    "mesh": mname,
                    "vertices": int(verts.shape[1]),
                    "contestant": cname,
                    "fps_best": round(best, 2),
                    "fps_median": round(med, 2),
                    "fps_all": [round(x, 2) for x in fps],
                    "vs_naive": round(best / base, 3),
                }
            )
    write_json(
        args.out,
        {
            "benchmark": "render3d",
            "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "machine": {
                "platform": platform.platform(),
                "python": sys.version.split()[0],
                "cpus": os.cpu_count(),
                "load_before": [round(x, 2) for x in load0],
                "load_after": [round(x, 2) for x in load1],
            },
            "gl": info,
            "lp_num_threads": os.environ.get("LP_NUM_THREADS"),
            "size": [W, H],
            "frames": args.frames,
            "repeat": args.repeat,
            "results": rows,
        },
    )
    print(f"\nwrote {args.out}")
    return 0


def headline_figures(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Headline rows: our in-place renderer (no MSAA, the default) against a new pyrender
    mesh per frame, per benchmarked mesh."""
    from _results import figure

    best = {(r["mesh"], r["contestant"]): r["fps_best"] for r in result["results"]}
    return [
        figure(
            "render3d",
            f"render only, {mesh}",
            best[(mesh, "ours: in place, no MSAA")],
            "naive: new pyrender.Mesh per frame",
            best[(mesh, "naive: new pyrender.Mesh per frame")],
            "frames/s",
        )  # fmt: skip
        for mesh in sorted({m for m, _ in best})
    ]


if __name__ == "__main__":
    raise SystemExit(main())
