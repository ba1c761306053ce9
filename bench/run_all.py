"""Run every bench under bench/ and gather their headline figures in bench/results.jsonl.

Each bench runs as its own process (its usual command line, with the sizes below) and writes
its full JSON as always; its ``headline_figures`` turns that into rows of one format
(``_results.figure``: bench, figure, ours, peer, peer_value, unit, ratio). ``--quick`` runs
every bench at a small size, so a bench that breaks is noticed (a slow test runs it), in a few
minutes on two cores; without it, the sizes BENCHMARKS.md reports.

    .venv/bin/python bench/run_all.py --quick      # make bench QUICK=1
    .venv/bin/python bench/run_all.py              # make bench
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

# bench name -> (quick arguments, full arguments)
BENCHES: dict[str, tuple[list[str], list[str]]] = {
    "generate": (["--samples", "1", "--jobs", "2", "--config", "bench/quick.yaml"], []),
    "edit": (["--repeat", "1", "--skip-moviepy", "--seconds", "2"], []),
    "human": (["--frames", "32", "--width", "320", "--height", "180", "--repeat", "1", "--jobs", "0", "--motions", "put_down,cube_spin"], ["--frames", "90", "--repeat", "2", "--jobs", "1"]),
    "render3d": (["--frames", "30", "--repeat", "1"], []),
    "mocap": (["--frames", "90", "--width", "320", "--height", "180", "--repeat", "1"], []),
    "retrieval": (["--videos", "60", "--queries", "20", "--backends", "onnx"], []),
    "ray": (["--samples", "1", "--jobs", "2", "--config", "bench/quick.yaml", "--overhead-units", "10"], ["--jobs", "2"]),
    "remote": (["--samples", "1", "--jobs", "2", "--config", "bench/quick.yaml"], ["--jobs", "2"]),
    "bvh": (["--mb", "0.2", "--repeat", "1"], []),
}  # fmt: skip


def run(quick: bool, only: list[str] | None = None, timeout: float = 1800) -> list[dict[str, Any]]:
    """Every bench's headline rows; a bench that fails raises, naming it and its output."""
    from _results import check

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="tempogen-bench-") as tmp:
        for name, (small, full) in BENCHES.items():
            if only and name not in only:
                continue
            out = Path(tmp) / f"{name}.json"
            cmd = [sys.executable, str(HERE / f"bench_{name}.py"), *(small if quick else full)]
            t0 = time.perf_counter()
            proc = subprocess.run(
                [*cmd, "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                timeout=timeout,
            )  # fmt: skip
            if proc.returncode or not out.is_file():
                tail = (proc.stdout + proc.stderr)[-3000:]
                raise RuntimeError(
                    f"bench {name} failed ({proc.returncode}): {' '.join(cmd)}\n{tail}"
                )
            module = importlib.import_module(f"bench_{name}")
            got = module.headline_figures(json.loads(out.read_text(encoding="utf-8")))
            check(got)
            rows += got
            print(f"{name}: {len(got)} figures in {time.perf_counter() - t0:.0f} s", flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="every bench at a small size")
    ap.add_argument(
        "--only", nargs="*", choices=sorted(BENCHES),
        help="some benches only (their rows replace theirs in --out; the rest are kept)",
    )  # fmt: skip
    ap.add_argument("--out", type=Path, default=HERE / "results.jsonl")
    args = ap.parse_args(argv)
    from tempogen.io import write_jsonl

    t0 = time.perf_counter()
    rows = run(args.quick, args.only)
    if args.only and args.out.is_file():  # the other benches' rows stay as they were
        kept = [json.loads(line) for line in args.out.read_text(encoding="utf-8").splitlines()]
        rows = [r for r in kept if r.get("bench") not in args.only] + rows
    write_jsonl(args.out, rows)
    width = max(len(r["figure"]) for r in rows)
    for r in rows:
        print(f"{r['bench']:10s} {r['figure']:{width}s} {r['ours']:>10.1f} vs {r['peer_value']:>10.1f}"
              f" {r['unit']}: {r['ratio']:.2f}x ({r['peer']})")  # fmt: skip
    print(f"wrote {args.out} ({len(rows)} figures) in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
