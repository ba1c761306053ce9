"""Benchmark ``--out URL`` against a local folder, on the same machine, in one run.

1. **local**: ``build_dataset`` into a fresh folder (J processes).
2. **url**: the same build into ``ftp://127.0.0.1:PORT/ds``, a real FTP server (pyftpdlib, in
   this process) serving another folder: the build runs in a working copy and publishes
   twice (after the clips, at the end). The published files must equal the local build's.
3. **publish**: the finished working copy published again to an empty URL (every byte sent).
4. **pull**: that URL pulled into an empty working copy (a rerun on another machine).
5. **republish**: publishing the unchanged copy again (the ledger: nothing is sent).

The headline figure is local wall time / URL wall time (the cost of publishing, 1.0 = free).

    .venv/bin/python bench/bench_remote.py --samples 1 --jobs 2 --config bench/quick.yaml
    .venv/bin/python bench/bench_remote.py --jobs 2            # the default dataset
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the test suite's FTP server on 127.0.0.1

# The lmms-eval task names its own folder's absolute path; every other file must match.
from kit import NAMES_ITS_FOLDER  # noqa: E402  (the one name for it, in the test kit)


def _files(root: Path) -> dict[str, int]:
    return {
        p.relative_to(root).as_posix(): p.stat().st_size
        for p in root.rglob("*")
        if p.is_file() and not any(s.startswith(".") for s in p.relative_to(root).parts)
    }


def _timed(fn: Any, *args: Any, **kw: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    got = fn(*args, **kw)
    return time.perf_counter() - t0, got


def run(config: Path, samples: int | None, jobs: int, keep: Path | None = None) -> dict[str, Any]:
    from ftp_server import ftp_server

    from tempogen.builders.dataset.build import build_dataset
    from tempogen.builders.dataset.remote import Remote
    from tempogen.config import load_config
    from tempogen.video import sha256_file

    cfg = load_config(config)
    if samples is not None:
        cfg = dataclasses.replace(cfg, samples_per_task=samples)
    with tempfile.TemporaryDirectory(prefix="tempogen-bench-remote-") as tmp:
        tmp = Path(tmp)
        served = tmp / "served"
        served.mkdir()
        local_s, _ = _timed(build_dataset, cfg, tmp / "local", jobs=jobs, progress=False)
        with ftp_server(served) as base:
            url_s, _ = _timed(build_dataset, cfg, f"{base}/ds", jobs=jobs, progress=False,
                              work_dir=tmp / "work")  # fmt: skip
            want = _files(tmp / "local")
            got = _files(served / "ds")
            differ = sorted(set(got) ^ set(want)) or [
                k
                for k in want
                if k != NAMES_ITS_FOLDER
                and sha256_file(served / "ds" / k) != sha256_file(tmp / "local" / k)
            ]
            if differ:
                if keep is not None:
                    shutil.copytree(tmp, keep, dirs_exist_ok=True)
                raise SystemExit(
                    f"bench_remote: the published files differ from the local build: {differ[:10]}"
                )
            fresh = Remote.open(f"{base}/again")
            (tmp / "work" / ".tempogen-published.json").unlink()
            publish_s, sent = _timed(fresh.publish, tmp / "work", first=[".tempogen-build.json"],
                                     last=["manifest.jsonl"])  # fmt: skip
            pull_s, pulled = _timed(fresh.pull, tmp / "pulled")
            republish_s, resent = _timed(fresh.publish, tmp / "pulled")
    nbytes = sum(want.values())
    return {
        "bench": "remote",
        "config": str(config),
        "samples_per_task": samples,
        "jobs": jobs,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "load_avg": os.getloadavg(),
        "figures": {
            "files": len(want),
            "mbytes": round(nbytes / 1e6, 2),
            "local_s": round(local_s, 2),
            "url_s": round(url_s, 2),
            "url_over_local": round(url_s / local_s, 3),
            "publish_s": round(publish_s, 2),
            "publish_mb_per_s": round(nbytes / 1e6 / publish_s, 1),
            "published_files": sent,
            "pull_s": round(pull_s, 2),
            "pull_mb_per_s": round(nbytes / 1e6 / pull_s, 1),
            "pulled_files": pulled,
            "republish_s": round(republish_s, 3),
            "republished_files": resent,
        },
    }


def headline_figures(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Headline row: a build into an FTP URL against a build into a folder, same run (a rate:
    1 / wall seconds; 1.0 means publishing is free)."""
    from _results import figure

    f = result["figures"]
    return [
        figure(
            "remote",
            f"build_dataset into ftp://127.0.0.1 ({f['files']} files, {f['mbytes']} MB)",
            1.0 / f["url_s"],
            "the same build into a local folder",
            1.0 / f["local_s"],
            "builds/s",
        )
    ]


def main(argv: list[str] | None = None) -> int:
    from _results import build_options, save

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    build_options(p, "remote", "processes")
    p.add_argument("--keep", type=Path, default=None, help="keep the builds here if they differ")
    args = p.parse_args(argv)
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    result = run(args.config, args.samples, args.jobs, args.keep)
    if result["figures"]["republished_files"] != 0:
        raise SystemExit("bench_remote: an unchanged copy sent files again")
    save(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
