"""The numbers the docs give about the default build, counted from a real build of it.

``python scripts/default_numbers.py --build`` builds ``configs/default.yaml`` into a temporary
folder (timed, as ``make dataset`` runs it), counts its manifest and writes
``docs/default-build.json``; ``--dataset DIR`` counts an existing build instead (its time is
then left as it was). The docs write the numbers as ``{{ default.NAME }}`` and
``scripts/docs_hooks.py`` fills them in; ``tests/docs/test_default_numbers.py`` checks the file
against the config and against a plan of it, so a change to either fails until this is rerun.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "default.yaml"
OUT = ROOT / "docs" / "default-build.json"
KINDS = {"simulated human": "humans", "simulated 3D objects": "objects"}  # else 2D


def config_sha256(path: Path = CONFIG) -> str:
    """The config file's bytes, hashed: numbers counted from another config are stale."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _kind(motion: str) -> str:
    from tempogen.generators.motion import get_motion

    return KINDS.get(get_motion(motion).note, "shapes2d")


def count_clips(clips: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Counts of rendered clips (edited variants excluded), from their specs: what a plan of
    the config gives before anything renders, and a build's manifest repeats."""
    clips = list(clips)
    twins = [c for c in clips if c.get("pair") and c["pair"] != c["id"]]
    questions = [c for c in clips if c not in twins]
    tasks = Counter(str(c["task"]) for c in questions)
    kinds = Counter(_kind(str(c["motion"])) for c in questions)
    per_task = {k: round(n / len(tasks)) for k, n in kinds.items()} if tasks else {}
    return {
        "clips": len(clips),
        "questions_rendered": len(questions),
        "tasks": len(tasks),
        "per_task": max(tasks.values(), default=0),
        "twins": len(twins),
        "noise": sum(1 for c in clips if c.get("encoding")),
        "humans_per_task": per_task.get("humans", 0),
        "objects_per_task": per_task.get("objects", 0),
        "shapes2d_per_task": per_task.get("shapes2d", 0),
    }


def count_build(dataset: Path) -> dict[str, Any]:
    """Every number the docs give, counted from a build's folder."""
    rows = [json.loads(line) for line in (dataset / "manifest.jsonl").read_text().splitlines()]
    rendered = [r for r in rows if not r.get("source")]
    n = count_clips([{**r["spec"], "pair": r.get("pair")} for r in rendered])
    variants = len(rows) - len(rendered)
    cfg = json.loads((dataset / "config.json").read_text())
    vino = dataset / "vinoground" / "vinoground.csv"
    return {
        **n,
        "variants": variants,
        "rows": len(rows),
        "width": cfg["size"][0],
        "height": cfg["size"][1],
        "fps": cfg["fps"],
        "humans_share": cfg["scenes3d"]["humans"],
        "objects_share": cfg["scenes3d"]["objects"],
        "vinoground_pairs": max(len(vino.read_text().splitlines()) - 1, 0) if vino.exists() else 0,
        "files": sum(1 for p in dataset.rglob("*") if p.is_file()),
    }


def build(out: Path) -> float:
    """Build the default config into ``out`` as ``make dataset`` does; its seconds."""
    env = {**os.environ, "PYOPENGL_PLATFORM": os.environ.get("PYOPENGL_PLATFORM", "egl")}
    cmd = [sys.executable, "-m", "tempogen.cli", "generate", "--config", str(CONFIG)]
    t0 = time.perf_counter()
    subprocess.run([*cmd, "--out", str(out), "-q"], check=True, env=env, cwd=ROOT)
    return time.perf_counter() - t0


def _timing(seconds: float, measured: str) -> dict[str, Any]:
    return {
        "build_seconds": round(seconds),
        "build_minutes": max(1, round(seconds / 60)),
        "build_measured": f"{measured} ({platform.machine()}, {time.strftime('%Y-%m-%d')})",
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--build", action="store_true", help="build the default config (timed)")
    src.add_argument("--dataset", type=Path, help="count this build of the default config")
    ap.add_argument("--out", type=Path, default=OUT, help="where the numbers go")
    ap.add_argument("--into", type=Path, help="--build: keep the build here (default: a temp)")
    ap.add_argument(
        "--seconds",
        type=float,
        help="--dataset: the build's time measured elsewhere (e.g. make dataset's wall time in "
        "a fresh clone), with --measured saying where",
    )
    ap.add_argument("--measured", default="", help="where --seconds was measured")
    args = ap.parse_args(argv)
    old = json.loads(args.out.read_text()) if args.out.exists() else {}
    with tempfile.TemporaryDirectory(prefix="tempogen-default-") as tmp:
        if args.build:
            dataset = args.into or Path(tmp) / "dataset"
            seconds = build(dataset)
            timing = _timing(seconds, f"scripts/default_numbers.py --build, {os.cpu_count()} cores")
        elif args.seconds:
            dataset, timing = args.dataset, _timing(args.seconds, args.measured)
        else:
            dataset = args.dataset
            timing = {k: v for k, v in old.items() if k.startswith("build_")}
        made = json.loads((dataset / "config.json").read_text())
        from tempogen.config import load_config

        if made != load_config(CONFIG).to_json():
            raise SystemExit(f"{dataset}: not a build of {CONFIG.relative_to(ROOT)}")
        numbers = {"config_sha256": config_sha256(), **count_build(dataset), **timing}
    tmp_out = args.out.with_name(f".{args.out.name}.tmp")
    tmp_out.write_text(json.dumps(numbers, indent=2, sort_keys=True) + "\n")
    tmp_out.replace(args.out)
    print(json.dumps(numbers, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
