"""Benchmark the Ray executor against the local fork pool, on the same machine, in one run.

1. **local**: ``build_dataset`` with the local pool of J processes, into a fresh folder.
2. **cluster start-up**: ``ray.init(num_cpus=J)`` of a local cluster (timed on its own: a
   user pays it once per cluster, not per build).
3. **ray**: the same build with ``executor="ray"`` on that cluster, into another fresh folder;
   its manifest must equal the local one byte for byte (the bench fails otherwise).
4. **overhead**: what Ray adds per unit: N empty units through the same path (a task; a call
   on a warm actor), each sending back a clip-sized payload (the mean video + sheet bytes of
   the build), seconds per unit with J in flight.
5. **per clip**: CPU-seconds per clip of the local build (wall x J / units of work), and the
   bytes a clip sends back: the figures the on-paper cluster estimate starts from.

The headline figure is local wall time / Ray wall time (target: at least 1/1.15 = 0.87).

    .venv/bin/python bench/bench_ray.py --samples 2 --jobs 2            # a few minutes
    .venv/bin/python bench/bench_ray.py --samples 60 --jobs 2           # the default dataset
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _noop_unit(payload_bytes: int, out_dir: Path) -> bytes:
    """An empty unit that sends back ``payload_bytes`` bytes, as a clip's files do."""
    return b"\0" * payload_bytes


def _timed_build(cfg: Any, out: Path, **kw: Any) -> float:
    from tempogen.builders.dataset.build import build_dataset

    t0 = time.perf_counter()
    build_dataset(cfg, out, progress=False, **kw)
    return time.perf_counter() - t0


def _overhead(jobs: int, n: int, payload: int) -> dict[str, float]:
    """Seconds per empty unit through the Ray executor: as tasks, then on warm actors."""
    from tempogen.executor import RayExecutor, Stage

    stage = Stage("noop", _noop_unit, resumable=False)
    gl = Stage("noop-actor", _noop_unit, resumable=False, gl=lambda item: True)
    out: dict[str, float] = {}
    with RayExecutor(jobs=jobs) as ex, tempfile.TemporaryDirectory() as tmp:
        for name, st in (("task", stage), ("actor", gl)):
            list(ex.imap(st, [payload] * jobs, Path(tmp)))  # warm the workers
            t0 = time.perf_counter()
            got = list(ex.imap(st, [payload] * n, Path(tmp)))
            out[f"{name}_s_per_unit"] = (time.perf_counter() - t0) / n
            assert len(got) == n
    return out


def run(
    config: Path, samples: int | None, jobs: int, overhead_units: int, keep: Path | None = None
) -> dict[str, Any]:
    import ray

    from tempogen.config import load_config
    from tempogen.generators.build import plan

    cfg = load_config(config)
    if samples is not None:
        cfg = dataclasses.replace(cfg, samples_per_task=samples)
    specs = plan(cfg)
    with tempfile.TemporaryDirectory(prefix="tempogen-bench-ray-") as tmp:
        where = keep if keep is not None else Path(tmp)
        local_out, ray_out = where / "local", where / "ray"
        local_s = _timed_build(cfg, local_out, jobs=jobs)
        t0 = time.perf_counter()
        ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
        startup_s = time.perf_counter() - t0
        try:
            ray_s = _timed_build(cfg, ray_out, executor="ray")
            same = (local_out / "manifest.jsonl").read_bytes() == (
                ray_out / "manifest.jsonl"
            ).read_bytes()
            if not same:
                raise SystemExit("bench_ray: the Ray build's manifest differs from the local one")
            rows = [json.loads(x) for x in (local_out / "manifest.jsonl").read_text().splitlines()]
            sent = [
                (local_out / r["video"]).stat().st_size
                + (local_out / "sheets" / f"{r['id']}.png").stat().st_size
                for r in rows
            ]
            payload = int(sum(sent) / len(sent))
            over = _overhead(jobs, overhead_units, payload)
        finally:
            ray.shutdown()
    from tempogen.generators.motion import get_motion

    n3d = sum(get_motion(s.motion).renderer != "2d" for s in specs)
    return {
        "bench": "ray",
        "config": str(config),
        "samples_per_task": samples,
        "jobs": jobs,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "load_avg": os.getloadavg(),
        "figures": {
            "clips": len(specs),
            "rows": len(rows),
            "clips_3d": n3d,
            "local_s": round(local_s, 2),
            "ray_s": round(ray_s, 2),
            "ray_over_local": round(ray_s / local_s, 3),
            "cluster_startup_s": round(startup_s, 2),
            "cpu_s_per_row_local": round(local_s * jobs / len(rows), 3),
            "bytes_per_row": payload,
            **{k: round(v, 5) for k, v in over.items()},
        },
    }


def headline_figures(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Headline row: the Ray build's speed against the local pool's, same machine, same run
    (a rate: 1 / wall seconds; target ratio at least 0.87, i.e. Ray at most 1.15x the time)."""
    from _results import figure

    f = result["figures"]
    return [
        figure(
            "ray",
            f"build_dataset on a local Ray cluster ({result['jobs']} CPUs), subset of the config",
            1.0 / f["ray_s"],
            f"local fork pool ({result['jobs']} processes), same config",
            1.0 / f["local_s"],
            "builds/s",
        )
    ]


def main(argv: list[str] | None = None) -> int:
    from _results import build_options, save

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    build_options(p, "ray", "processes / Ray CPUs")
    p.add_argument("--overhead-units", type=int, default=200, help="empty units timed")
    p.add_argument("--keep", type=Path, default=None, help="keep both builds in this folder")
    args = p.parse_args(argv)
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    save(args.out, run(args.config, args.samples, args.jobs, args.overhead_units, args.keep))
    return 0


if __name__ == "__main__":
    sys.exit(main())
