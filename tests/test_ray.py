"""The Ray executor on a real local cluster (2 CPUs): a build gives the local build's bytes,
a worker killed mid-build is retried without losing or doubling a clip, and pixel
verification runs on it too."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="the ray extra: pip install 'tempogen[ray]'")

# Two tasks, a 3D-object clip in each, one edited variant, one Vinoground pair: every stage
# the executor runs, in a few seconds of rendering.
SMALL = {
    "seed": 11,
    "size": [128, 96],
    "fps": 8,
    "duration": [3.0, 4.0],
    "samples_per_task": 2,
    "tasks": ["direction", "rotation"],
    "scenes3d": {"humans": 0.0, "objects": 0.5, "duration": [3.0, 4.0]},
    "variants": {"share": 0.5},
    "vinoground": {"pairs": 1},
    "retrieval": {"pairs": 0},
    "shortcuts": "off",
}


def small_config():
    from tempogen.config import config_from_dict

    return config_from_dict(SMALL, "small.yaml")


def files(root: Path) -> dict[str, bytes]:
    """Every file a build wrote (its lock aside)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.startswith(".tempogen-")
    }


@pytest.fixture(scope="module")
def cluster():
    """One local Ray cluster for the module, shut down after it."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def local_build(tmp_path_factory) -> Path:
    from tempogen.builders.dataset.build import build_dataset

    out = tmp_path_factory.mktemp("local")
    build_dataset(small_config(), out, jobs=2, progress=False)
    return out


def test_ray_build_is_byte_identical_to_the_local_one(cluster, local_build, tmp_path):
    from tempogen.builders.dataset.build import build_dataset
    from tempogen.video import read_video

    summary = build_dataset(small_config(), tmp_path, progress=False, executor="ray")
    assert summary.variants >= 1
    want, got = files(local_build), files(tmp_path)
    assert (tmp_path / "manifest.jsonl").read_bytes() == (local_build / "manifest.jsonl").read_bytes()
    assert sorted(got) == sorted(want)
    assert any(k.startswith("vinoground/videos/") for k in got)
    assert [k for k in want if got[k] != want[k]] == []
    row_video = next(k for k in got if k.startswith("videos/") and "~" not in k)
    assert (read_video(tmp_path / row_video) == read_video(local_build / row_video)).all()
    assert not list(tmp_path.rglob(".*.partial")) and not list(tmp_path.rglob(".*.tmp"))
    # a rerun finds every unit finished and sends nothing
    again = build_dataset(small_config(), tmp_path, progress=False, executor="ray")
    assert again.reused_frames == again.frames


def _kill_a_busy_worker(stop: threading.Event, killed: list[int]) -> None:
    """Kill (SIGKILL) the first Ray worker process seen running a unit, found through Ray's
    state API, as a node losing a process would."""
    from ray.util.state import list_tasks

    while not stop.is_set():
        try:
            running = list_tasks(filters=[("state", "=", "RUNNING")], raise_on_missing_output=False)
        except Exception:  # the state API not up yet
            running = []
        for task in running:
            pid = getattr(task, "worker_pid", None)
            if pid and ("run" in task.name) and pid != os.getpid():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
        time.sleep(0.05)


def test_a_worker_killed_mid_build_is_retried(cluster, local_build, tmp_path):
    from tempogen.builders.dataset.build import build_dataset

    stop, killed = threading.Event(), []
    killer = threading.Thread(target=_kill_a_busy_worker, args=(stop, killed), daemon=True)
    killer.start()
    try:
        build_dataset(small_config(), tmp_path, progress=False, executor="ray")
    finally:
        stop.set()
        killer.join(10)
    assert killed, "no running unit was seen to kill"
    assert (tmp_path / "manifest.jsonl").read_bytes() == (local_build / "manifest.jsonl").read_bytes()
    assert files(tmp_path) == files(local_build)
    assert not list(tmp_path.rglob(".*.partial")) and not list(tmp_path.rglob(".*.tmp"))


def test_pixel_verification_on_ray_agrees_with_local(cluster, local_build):
    from tempogen.builders.audit.verify import verify_manifest
    from tempogen.executor import make_executor

    local = verify_manifest(local_build / "manifest.jsonl", jobs=1)
    with make_executor("ray") as ex:
        remote = verify_manifest(local_build / "manifest.jsonl", executor=ex)
    assert remote == local and remote.checked > 0
