"""End to end on a real Ray head node bound to 127.0.0.1: ``tempogen generate --executor ray
--address`` against it gives the local build's manifest, byte for byte."""

from __future__ import annotations

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

pytest.importorskip("ray", reason="the ray extra: pip install 'tempogen[ray]'")

BIN = Path(sys.executable).parent
START_TIMEOUT = 60.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.slow
def test_generate_against_a_head_node(tmp_path, small_build, small_build_config):
    import yaml

    config = tmp_path / "small.yaml"
    config.write_text(yaml.safe_dump(small_build_config))
    local = small_build
    port = _free_port()
    short = tempfile.mkdtemp(prefix="rt-", dir="/tmp")  # Ray's socket paths must stay short
    # Ray 2.60 authenticates every client with a token: this cluster's own, given to the head
    # and to the driver (not ~/.ray/auth_token, which other clusters on the machine share)
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    # --block keeps the head in this process's hands: stopping it stops exactly the processes
    # it started (`ray stop` would stop every Ray process on the machine, others' included)
    head = subprocess.Popen(
        [
            str(BIN / "ray"),
            "start",
            "--head",
            "--block",
            "--node-ip-address",
            "127.0.0.1",
            "--port",
            str(port),
            "--include-dashboard",
            "false",
            "--num-cpus",
            "2",
            "--temp-dir",
            short,
        ],  # fmt: skip
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not _listening(port):
            assert head.poll() is None, head.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, f"no Ray head on 127.0.0.1:{port} after 60 s"
            time.sleep(0.2)
        out = tmp_path / "ray-out"
        run = subprocess.run(
            [str(BIN / "tempogen"), "generate", "--config", str(config), "--out", str(out),
             "--executor", "ray", "--address", f"127.0.0.1:{port}", "-q"],  # fmt: skip
            capture_output=True, text=True, timeout=300, env=env,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
        assert (out / "manifest.jsonl").read_bytes() == (local / "manifest.jsonl").read_bytes()
    finally:
        head.terminate()
        try:
            head.wait(30)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait(10)
        shutil.rmtree(short, ignore_errors=True)
