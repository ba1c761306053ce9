"""End to end on a real Ray head node bound to 127.0.0.1: ``tempogen generate --executor ray
--address`` against it, publishing to an FTP server on 127.0.0.1 (no disk shared by the
driver, the workers and the output), gives the local build's files, byte for byte."""

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
from ftp_server import ftp_server

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


# The lmms-eval task names its own folder's absolute path (datasets resolves it from the cwd).
NAMES_ITS_FOLDER = "lmms_eval/tempogen_tomato/tempogen_tomato.yaml"


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not any(s.startswith(".") for s in p.relative_to(root).parts)
    }


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
        got, want = _files(out), _files(local)
        assert sorted(got) == sorted(want)
        assert [k for k in want if k != NAMES_ITS_FOLDER and got[k] != want[k]] == []
    finally:
        head.terminate()
        try:
            head.wait(30)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait(10)
        shutil.rmtree(short, ignore_errors=True)
