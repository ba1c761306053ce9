"""io: atomic writes (complete under the name, or absent) and JSON lines with located errors."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat

import pytest

from tempogen.errors import MissingFileError
from tempogen.io import (
    OutputError,
    atomic_path,
    content_hash,
    dumps,
    read_jsonl,
    write_bytes,
    write_json,
    write_jsonl,
    write_text,
)


def listing(d) -> list[str]:
    return sorted(p.name for p in d.iterdir())


def test_atomic_path_moves_the_file_into_place(tmp_path):
    target = tmp_path / "sub" / "out.bin"
    with atomic_path(target) as tmp:
        assert tmp.parent == target.parent and tmp != target
        assert tmp.name.startswith(".out.bin.") and tmp.name.endswith(".tmp")
        tmp.write_bytes(b"payload")
        assert not target.exists()
    assert target.read_bytes() == b"payload"
    assert listing(target.parent) == ["out.bin"]
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


@pytest.mark.parametrize("exc", [RuntimeError("boom"), KeyboardInterrupt()])
def test_atomic_path_failure_leaves_nothing(tmp_path, exc):
    target = tmp_path / "out.bin"
    with pytest.raises(type(exc)):
        with atomic_path(target) as tmp:
            tmp.write_bytes(b"half")
            raise exc
    assert listing(tmp_path) == []


def test_atomic_path_failure_keeps_the_old_file(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    inode = target.stat().st_ino
    with pytest.raises(ValueError):
        with atomic_path(target) as tmp:
            tmp.write_text("new and half-written")
            raise ValueError("stop")
    assert target.read_text() == "old" and target.stat().st_ino == inode
    assert listing(tmp_path) == ["out.txt"]


def test_atomic_path_replaces_on_success(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    write_text(target, "new")
    assert target.read_text() == "new"
    assert listing(tmp_path) == ["out.txt"]


def test_write_into_a_file_as_folder_names_the_folder(tmp_path):
    blocker = tmp_path / "plain_file"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="^" + re.escape(f"{blocker}: cannot write here")):
        write_bytes(blocker / "out.bin", b"data")
    assert blocker.read_text() == "x"


def test_write_json_and_jsonl_round_trip(tmp_path):
    rows = [{"b": 1, "a": "é ✓"}, {"nested": {"z": [1, 2.5, None]}}]
    write_jsonl(tmp_path / "m.jsonl", rows)
    text = (tmp_path / "m.jsonl").read_text(encoding="utf-8")
    assert text.splitlines()[0] == '{"a":"é ✓","b":1}'
    assert read_jsonl(tmp_path / "m.jsonl") == rows
    write_json(tmp_path / "c.json", rows[1])
    assert json.loads((tmp_path / "c.json").read_text()) == rows[1]
    assert sorted(os.listdir(tmp_path)) == ["c.json", "m.jsonl"]


def test_read_jsonl_skips_blank_lines(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text('{"a": 1}\n\n   \n{"a": 2}\n')
    assert read_jsonl(p) == [{"a": 1}, {"a": 2}]


def test_read_jsonl_bad_line_names_file_and_line(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text('{"a": 1}\n\n{"a": 2,\n{"a": 3}\n')
    with pytest.raises(ValueError, match="^" + re.escape(f"{p}:3: not valid JSON")):
        read_jsonl(p)


def test_read_jsonl_non_object_names_file_and_line(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text('{"a": 1}\n[1, 2]\n')
    with pytest.raises(
        ValueError, match="^" + re.escape(f"{p}:2: expected a JSON object, got list")
    ):
        read_jsonl(p)


def test_read_jsonl_missing_file(tmp_path):
    p = tmp_path / "absent.jsonl"
    with pytest.raises(MissingFileError, match="^" + re.escape(f"{p}: cannot read")):
        read_jsonl(p)


def test_dumps_and_content_hash_are_canonical():
    a = {"x": 1, "y": [1, 2], "z": {"q": "ü", "p": None}}
    b = {"z": {"p": None, "q": "ü"}, "y": [1, 2], "x": 1}
    assert dumps(a) == dumps(b) == '{"x":1,"y":[1,2],"z":{"p":null,"q":"ü"}}'
    want = hashlib.sha256('{"x":1,"y":[1,2],"z":{"p":null,"q":"ü"}}'.encode()).hexdigest()
    assert content_hash(a) == content_hash(b) == want
    assert content_hash({**a, "x": 2}) != want


def test_a_folder_lock_names_its_holder_and_dies_with_it(tmp_path):
    # issue 13 item 5: two builds into one folder at once
    import signal
    import subprocess
    import sys

    from tempogen.errors import OutputError
    from tempogen.io import folder_lock

    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\nfrom tempogen.io import folder_lock\n"
         f"with folder_lock({str(tmp_path)!r}):\n    print('held', flush=True)\n    time.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(OutputError, match=rf"another tempogen build \(pid {holder.pid}\)"):
            with folder_lock(tmp_path):
                pass
        cli = subprocess.run(
            [sys.executable, "-m", "tempogen.cli", "generate", "--config", "configs/tiny.yaml",
             "--out", str(tmp_path), "-q"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert cli.returncode == 2 and f"pid {holder.pid}" in cli.stderr, cli.stderr
        assert not (tmp_path / "manifest.jsonl").exists()
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
    with folder_lock(tmp_path) as lock:  # a killed holder leaves no stale lock
        assert lock.read_text().split()[0] == str(os.getpid())


def test_a_lone_surrogate_in_json_lines_names_file_line_and_field(tmp_path) -> None:
    """``"\\ud800"`` is valid JSON but no character: written into a file name or UTF-8 text it
    was a traceback (found by scripts/reliability.py); reading refuses it with its place."""
    from tempogen.errors import InputFileError
    from tempogen.io import read_jsonl

    path = tmp_path / "m.jsonl"
    path.write_text('{"id": "ok"}\n{"id": "b", "labels": {"tags": ["x", "y\\udc80"]}}\n')
    with pytest.raises(InputFileError) as err:
        read_jsonl(path)
    assert "m.jsonl:2: labels.tags[1]: holds a lone surrogate" in str(err.value)
    path.write_text('{"id": "ok", "text": "caf\\u00e9 \\ud83d\\ude00"}\n')  # a real pair: fine
    assert read_jsonl(path) == [{"id": "ok", "text": "café 😀"}]
