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
import ray  # the ray extra (in dev): pip install -e '.[dev]'; a missing one fails, not skips
from kit import build_files, differing

pytestmark = [
    pytest.mark.usefixtures("one_ray_cluster"),  # one cluster at a time
    pytest.mark.slow,  # a Ray cluster and a build: make test runs it, make test-fast does not
]


@pytest.fixture(scope="module")
def small_config(small_build_config):
    from tempogen.config import config_from_dict

    return lambda: config_from_dict(small_build_config, "small.yaml")


@pytest.fixture(scope="module")
def cluster():
    """One local Ray cluster for the module, on 127.0.0.1, shut down after it. Its dashboard
    (127.0.0.1 too) serves Ray's public state API, which the kill test reads pids from."""
    ray.init(
        num_cpus=2,
        include_dashboard=True,
        dashboard_host="127.0.0.1",
        _node_ip_address="127.0.0.1",
        log_to_driver=False,
    )
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def local_build(small_build) -> Path:
    return small_build


def test_ray_build_is_byte_identical_to_the_local_one(cluster, local_build, small_config, tmp_path):
    from tempogen.builders.dataset.build import build_dataset
    from tempogen.video import read_video

    summary = build_dataset(small_config(), tmp_path, progress=False, executor="ray")
    assert summary.variants >= 1
    want, got = build_files(local_build), build_files(tmp_path)
    assert (tmp_path / "manifest.jsonl").read_bytes() == (
        local_build / "manifest.jsonl"
    ).read_bytes()
    assert any(k.startswith("vinoground/videos/") for k in got)
    assert differing(got, want) == []
    row_video = next(k for k in got if k.startswith("videos/") and "~" not in k)
    assert (read_video(tmp_path / row_video) == read_video(local_build / row_video)).all()
    assert not list(tmp_path.rglob(".*.partial")) and not list(tmp_path.rglob(".*.tmp"))


def _renderers(state: str | None = "ALIVE") -> list:
    """The renderer actors (pid, restarts), from Ray's public state API."""
    from ray.util.state import list_actors

    filters = [("class_name", "=", "_UnitActor")]
    if state is not None:
        filters.append(("state", "=", state))
    return list_actors(filters=filters, detail=True, raise_on_missing_output=False)


def _kill_a_renderer(stop: threading.Event, killed: list[str]) -> None:
    """SIGKILL the first live renderer actor's process, as a node losing a process would."""
    while not stop.is_set():
        for actor in _renderers():
            if actor.pid:
                os.kill(actor.pid, signal.SIGKILL)
                killed.append(actor.actor_id)
                return
        time.sleep(0.05)


def test_a_worker_killed_mid_clip_is_retried_and_a_rerun_resumes(
    cluster, local_build, small_config, tmp_path
):
    """The clip stage with a renderer actor's process killed mid-clip: Ray restarts it and
    reruns the clip; every clip is there once, as the local build wrote it, nothing partial.
    Then a rerun finds every clip finished and sends none of them."""
    from tempogen.executor import make_executor
    from tempogen.generators.build import plan, render_all

    specs = plan(small_config())
    stop, killed = threading.Event(), []
    killer = threading.Thread(target=_kill_a_renderer, args=(stop, killed), daemon=True)
    reused = []
    with make_executor("ray") as ex:
        killer.start()
        try:
            rows = render_all(specs, tmp_path, executor=ex)
        finally:
            stop.set()
            killer.join(10)
        assert killed, "no renderer actor was seen to kill"
        restarts = {a.actor_id: a.num_restarts for a in _renderers(state=None)}
        assert restarts[killed[0]] >= 1  # Ray restarted it (and reran its clip)
        render_all(specs, tmp_path, executor=ex, on_done=lambda row, r: reused.append(r))
    assert reused == [True] * len(specs)
    want = {
        k: v
        for k, v in build_files(local_build).items()
        if k.split("/")[0] in ("videos", "sheets", "clips")
    }
    want = {k: v for k, v in want.items() if "~" not in k}  # edited variants: a later stage
    assert build_files(tmp_path) == want
    assert [r["id"] for r in rows] == [s.id for s in specs]
    assert not list(tmp_path.rglob(".*.partial")) and not list(tmp_path.rglob(".*.tmp"))


def test_gl_units_run_in_actors_and_the_others_as_tasks_at_once(cluster, tmp_path):
    """A stage mixing GL and 2D units: the GL ones in renderer actors, the others as plain
    tasks running while a GL unit runs (not every unit in an actor, nor one kind after the
    other), results in item order."""
    from tempogen.executor import Stage, make_executor

    def where(item: tuple[int, bool, str], out_dir: Path) -> dict:
        """Where the unit ran (process, actor if any, when); defined here, so Ray sends it by
        value (its workers cannot import this test module)."""
        k, gl, started = item
        if gl:
            Path(started).touch()  # a GL unit is running
        else:  # a 2D unit starts once a GL one has, so that both can be seen running at once
            deadline = time.monotonic() + 30
            while not Path(started).exists() and time.monotonic() < deadline:
                time.sleep(0.01)
        start = time.monotonic()
        time.sleep(0.4)
        (out_dir / f"{k}.txt").write_text(f"unit {k}")
        return {
            "item": k,
            "pid": os.getpid(),
            "actor": ray.get_runtime_context().get_actor_id(),
            "span": (start, time.monotonic()),
        }

    out, started = tmp_path / "out", str(tmp_path / "gl-started")
    out.mkdir()
    items = [(k, k % 3 == 0, started) for k in range(9)]  # GL: 0, 3, 6
    stage = Stage("where", where, resumable=False, gl=lambda item: item[1])
    with make_executor("ray") as ex:
        got = list(ex.imap(stage, items, out))
    assert [g["item"] for g in got] == [k for k, _, _ in items]
    assert [g["actor"] is not None for g in got] == [gl for _, gl, _ in items]
    actor_pids = {g["pid"] for g in got if g["actor"]}
    assert not actor_pids & {g["pid"] for g in got if not g["actor"]}
    gl_spans = [g["span"] for g in got if g["actor"]]
    flat_spans = [g["span"] for g in got if not g["actor"]]
    assert any(a0 < b1 and b0 < a1 for a0, a1 in gl_spans for b0, b1 in flat_spans)
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{k}.txt" for k, _, _ in items)


def test_pixel_verification_on_ray_agrees_with_local(cluster, local_build):
    from tempogen.builders.audit.verify import verify_manifest
    from tempogen.executor import make_executor

    local = verify_manifest(local_build / "manifest.jsonl", jobs=1)
    with make_executor("ray") as ex:
        remote = verify_manifest(local_build / "manifest.jsonl", executor=ex)
    assert remote == local and remote.checked > 0
