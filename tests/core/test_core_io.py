"""io: atomic writes (complete under the name, or absent) and JSON lines with located errors."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import subprocess
import sys

import pytest
from kit import run_cli

from tempogen.errors import InputFileError, MissingFileError
from tempogen.io import (
    OutputError,
    atomic_path,
    content_hash,
    dumps,
    load_yaml,
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


# parsing through the CLI (issue 25): duplicate keys, YAML 1.2 floats, bounded reads ----------


def _tempogen(*args: str, memory: int | None = None) -> subprocess.CompletedProcess:
    """The real command; ``memory`` caps its address space, so a read without bound fails
    fast instead of filling the machine. Without it, the CLI's main in a forked child
    (milliseconds, not seconds of imports)."""
    import resource

    if memory is None:
        return run_cli(*args, cwd=None, timeout=120, fork=True)

    def cap() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [sys.executable, "-m", "tempogen.cli", *args],
        capture_output=True, text=True, timeout=120, preexec_fn=cap,
    )  # fmt: skip


def test_a_yaml_key_given_twice_names_both_lines(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("seed: 1\nsize: [64, 64]\nfps: 10\nseed: 2\n")
    proc = _tempogen("generate", "--config", str(cfg), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert f"{cfg}:4: seed: key appears twice in one mapping (first on line 1)" in proc.stderr
    assert not (tmp_path / "out").exists()
    nested = tmp_path / "p.yaml"
    nested.write_text(
        "fast:\n  - speed: {factor: 2}\nslow:\n  - speed:\n      factor: 0.5\n      factor: 2\n"
    )
    with pytest.raises(
        InputFileError, match=r"p\.yaml:6: slow\[0\]\.speed\.factor: key appears twice .*line 5"
    ):
        load_yaml(nested, "pipeline")


def test_yaml_reads_exponent_floats_as_yaml_1_2_does(tmp_path):
    """``1.0e9`` and ``1e-5`` are numbers (YAML 1.1 read them as strings, so a config said
    "expected a number"); integers, "08" and words stay what they were."""
    f = tmp_path / "x.yaml"
    f.write_text("a: 1.0e9\nb: 1e-5\nc: -2.5E+3\nd: .5e1\ne: 12\nf: '1e3'\ng: 08\nh: e5\ni: 1.5\n")
    data, _ = load_yaml(f, "x")
    assert data == {"a": 1e9, "b": 1e-5, "c": -2500.0, "d": 5.0, "e": 12, "f": "1e3",
                    "g": "08", "h": "e5", "i": 1.5}  # fmt: skip
    assert all(type(data[k]) is float for k in "abcdi") and type(data["e"]) is int
    cfg = tmp_path / "c.yaml"
    cfg.write_text("seed: 1\nduration: [1.0e9, 2.0e9]\n")
    proc = _tempogen("generate", "--config", str(cfg), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2, proc.stderr
    assert f"{cfg}:2: duration[0]: must be <= 600.0, got 1000000000.0" in proc.stderr


def test_a_config_from_a_device_is_refused_after_the_size_cap(tmp_path):
    proc = _tempogen("generate", "--config", "/dev/zero", "--out", str(tmp_path / "out"),
                     memory=2 << 30)  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "/dev/zero: config is over the 1,048,576 limit of bytes read" in proc.stderr


def test_a_json_key_given_twice_names_both_lines(tmp_path):
    """JSON keeps the last of two equal keys without a word; every reader refuses it."""
    from tempogen.io import read_json

    rows = tmp_path / "m.jsonl"
    rows.write_text('{"id": "a", "task": "count"}\n{"id": "b", "task": "count", "id": "c"}\n')
    with pytest.raises(InputFileError, match=r"m\.jsonl:2: key 'id' appears twice .*same line"):
        read_jsonl(rows)
    doc = tmp_path / "d.json"
    doc.write_text('{"0": {"answer": 1},\n "1": {"answer": 2,\n       "answer": 0}}\n')
    with pytest.raises(InputFileError, match=r"d\.json:3: key 'answer' appears twice .*line 2"):
        read_json(doc)
    # the first repeat in reading order is named, with its own lines, however deep
    doc.write_text('{"a": 1,\n "b": {"c": 1,\n       "c": 2},\n "a": 3}\n')
    with pytest.raises(InputFileError, match=r"d\.json:3: key 'c' appears twice .*line 2"):
        read_json(doc)
    # keys equal in different objects are no repeat
    doc.write_text('[{"a": 1}, {"a": 2, "b": {"a": 3}}]')
    assert read_json(doc) == [{"a": 1}, {"a": 2, "b": {"a": 3}}]


def test_import_tomato_refuses_a_question_id_given_twice(tmp_path):
    data = tmp_path / "T" / "data"
    data.mkdir(parents=True)
    entry = {"question": "q?", "options": ["1", "2"], "answer": 0, "key": "k",
             "demonstration_type": "simulated"}  # fmt: skip
    text = (
        "{\n" + f' "0": {json.dumps(entry)},\n "0": {json.dumps({**entry, "answer": 1})}\n' + "}\n"
    )
    (data / "count.json").write_text(text)
    proc = _tempogen("import", "tomato", str(tmp_path / "T"), "-q")
    assert proc.returncode == 2, proc.stderr
    assert (
        f"{data / 'count.json'}:3: key '0' appears twice in one object (first on line 2)"
        in proc.stderr
    )
    assert not (tmp_path / "T" / "manifest.jsonl").exists()


def test_a_non_utf8_json_lines_file_names_the_line(tmp_path):
    f = tmp_path / "m.jsonl"
    f.write_bytes(b'{"id": "a"}\n{"id": "caf\xe9"}\n')
    with pytest.raises(InputFileError, match=r"m\.jsonl:2: not UTF-8 text"):
        read_jsonl(f)
