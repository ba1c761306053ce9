"""End to end on a real Ray head node bound to 127.0.0.1: ``tempogen generate --executor ray
--address`` against it, publishing to an FTP server on 127.0.0.1 (no disk shared by the
driver, the workers and the output), gives the local build's files, byte for byte."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import ray  # noqa: F401  the ray extra (in dev): a missing one fails, not skips
from ftp_server import ftp_server
from kit import build_files, differing

BIN = Path(sys.executable).parent
START_TIMEOUT = 60.0

pytestmark = pytest.mark.usefixtures("one_ray_cluster")  # one cluster at a time


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _cluster_env() -> dict[str, str]:
    """Ray 2.60 authenticates every client with a token: this cluster's own, given to its nodes
    and its driver (not ~/.ray/auth_token, which other clusters on the machine share)."""
    return {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}


def _node(env: dict[str, str], *args: str) -> subprocess.Popen:
    """``ray start --block ...``: --block keeps the node in this process's hands, so stopping
    it stops exactly the processes it started (`ray stop` would stop every Ray process on the
    machine, others' included)."""
    return subprocess.Popen(
        [str(BIN / "ray"), "start", "--block", "--node-ip-address", "127.0.0.1", *args],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True, env=env,
    )  # fmt: skip


@contextlib.contextmanager
def _ray_cluster(env: dict[str, str], head_cpus: int, gpu_node: bool = False):
    """A head node on 127.0.0.1 (dashboard off) and, with ``gpu_node``, a second node of one
    CPU declaring one GPU; yields the head's port and stops every node it started."""
    port = _free_port()
    short = tempfile.mkdtemp(prefix="rt-", dir="/tmp")  # Ray's socket paths must stay short
    nodes = [_node(env, "--head", "--port", str(port), "--include-dashboard", "false",
                   "--num-cpus", str(head_cpus), "--temp-dir", short)]  # fmt: skip
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not _listening(port):
            assert nodes[0].poll() is None, nodes[0].stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, f"no Ray head on 127.0.0.1:{port} after 60 s"
            time.sleep(0.2)
        if gpu_node:
            nodes.append(_node(env, "--address", f"127.0.0.1:{port}", "--num-cpus", "1",
                               "--num-gpus", "1"))  # fmt: skip
        yield port
    finally:
        for node in reversed(nodes):
            node.terminate()
            try:
                node.wait(30)
            except subprocess.TimeoutExpired:
                node.kill()
                node.wait(10)
        shutil.rmtree(short, ignore_errors=True)


@pytest.mark.slow
def test_generate_against_a_head_node(tmp_path, small_build, small_build_config):
    import yaml

    config = tmp_path / "small.yaml"
    config.write_text(yaml.safe_dump(small_build_config))
    local = small_build
    env = _cluster_env()
    with _ray_cluster(env, head_cpus=2) as port:
        served = tmp_path / "served"  # the FTP server's disk: not the build's, not the workers'
        served.mkdir()
        with ftp_server(served) as base:
            run = subprocess.run(
                [str(BIN / "tempogen"), "generate", "--config", str(config),
                 "--out", f"{base}/ds", "--work", str(tmp_path / "work"),
                 "--executor", "ray", "--address", f"127.0.0.1:{port}", "-q"],  # fmt: skip
                capture_output=True, text=True, timeout=300, env=env,
            )  # fmt: skip
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
        assert f"manifest: {base}/ds/manifest.jsonl" in run.stdout
        out = served / "ds"
        assert (out / "manifest.jsonl").read_bytes() == (local / "manifest.jsonl").read_bytes()
        assert differing(build_files(out), build_files(local)) == []


# The driver runs in its own process, so that it starts with the cluster's token in its
# environment (Ray reads it once per process); it prints where each unit ran.
PLACEMENT_DRIVER = """
import json, sys
import ray
from tempogen.executor import RayExecutor, Stage

def placement(item, out_dir):
    ctx = ray.get_runtime_context()
    return [item, ctx.get_actor_id() is not None, ctx.get_node_id(),
            [str(g) for g in ray.get_gpu_ids()]]

ray.init(address=sys.argv[1], log_to_driver=False)
import time
deadline = time.monotonic() + 60
while ray.cluster_resources().get("GPU", 0) < 1:
    assert time.monotonic() < deadline, "the GPU node did not join in 60 s"
    time.sleep(0.2)
gpu_node = next(n["NodeID"] for n in ray.nodes() if n["Resources"].get("GPU"))
stage = Stage("place", placement, resumable=False, gl=lambda item: item < 4)
with RayExecutor() as ex:
    room = ex._renderer_room()
    got = list(ex.imap(stage, list(range(8)), sys.argv[2]))
print(json.dumps({"room": room, "gpu_node": gpu_node, "units": got}))
"""


@pytest.mark.slow
def test_renderers_go_to_the_gpu_node_and_2d_units_stay_off_it(tmp_path):
    """A two-node cluster on this machine: a CPU-only head and a node declaring one GPU (a
    declared resource: this checks where Ray puts the work and which GPU it hands each
    renderer, not EGL on a real card). Renderers are placed on the GPU node only, as many as
    fit there (one more would wait forever, holding its units), each given that GPU; the 2D
    units run as plain tasks."""
    import json

    env = _cluster_env()
    with _ray_cluster(env, head_cpus=1, gpu_node=True) as port:
        run = subprocess.run(
            [sys.executable, "-c", PLACEMENT_DRIVER, f"127.0.0.1:{port}", str(tmp_path)],
            capture_output=True, text=True, timeout=240, env=env,
        )  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["room"] == [1, 1.0]  # one CPU on the GPU node, with its whole GPU
    units = result["units"]
    assert [u[0] for u in units] == list(range(8))
    for item, on_actor, node, gpus in units:
        if item < 4:
            assert on_actor and node == result["gpu_node"] and gpus == ["0"], (item, node, gpus)
        else:
            assert not on_actor and gpus == [], (item, gpus)
