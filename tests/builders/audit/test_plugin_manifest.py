"""A dataset built with a motion plugin records it in its manifest, and every command that reads
the manifest imports it again in a fresh process once the user names it with ``--plugins`` (a
manifest alone runs no code); without it the error names the line."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import kit
import pytest

PLUGIN = """
from tempogen.generators.motion import Motion, Scene, register_motion

@register_motion
class Hop(Motion):
    name = "hop_rows_test"
    task = "direction"
    fact = "direction"
    answers = (("up",), ("down",))
    question = "In which direction(s) does {subject} move?"

    def animate(self, scene: Scene, answer) -> None:
        look = scene.subject_look()
        sign = -1.0 if answer == ("up",) else 1.0
        y = scene.height / 2 + sign * 0.3 * scene.height * (scene.frames / (scene.n - 1) - 0.5)
        scene.add("subject", look, scene.width / 2, y)
        scene.ask(["subject"])
"""
CONFIG = """
seed: 3
plugins: [hop_rows_plugin]
motions: [hop_rows_test]
tasks: [direction]
samples_per_task: 2
size: [160, 90]
fps: 10
duration: [3, 3]
variants: {share: 0.5}
vinoground: {pairs: 0}
retrieval: {pairs: 0}
scenes3d: {humans: 0, objects: 0}
"""


def tempogen(cwd: Path, *args: str | Path, pythonpath: str = "") -> subprocess.CompletedProcess:
    """The CLI in a fresh process (nothing imported yet), run from ``cwd``."""
    return kit.tempogen(*args, cwd=cwd, pythonpath=pythonpath)


def rows_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A folder holding the plugin module, its config and the dataset built from them."""
    work = tmp_path_factory.mktemp("plugin")
    (work / "hop_rows_plugin.py").write_text(PLUGIN, encoding="utf-8")
    (work / "c.yaml").write_text(CONFIG, encoding="utf-8")
    (work / "p.yaml").write_text("rev: [reverse]\n", encoding="utf-8")
    res = tempogen(work, "generate", "--config", "c.yaml", "--out", "ds", "-j", "1", "-q")
    assert res.returncode == 0, res.stderr[-3000:]
    return work


@pytest.mark.slow
def test_every_row_records_the_plugin(built) -> None:
    rows = rows_of(built / "ds" / "manifest.jsonl")
    assert len(rows) == 3  # two clips and one edited variant
    assert {r["generator"] for r in rows} == {"hop_rows_test"}
    assert all(r["plugins"] == ["hop_rows_plugin"] for r in rows)
    assert sum(r["source"] is not None for r in rows) == 1


@pytest.mark.slow
def test_verify_edit_and_validate_load_the_plugin(built) -> None:
    manifest = built / "ds" / "manifest.jsonl"
    allow = ("--plugins", "hop_rows_plugin")
    res = tempogen(built, "audit", "verify", "--manifest", manifest, "-q", *allow)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.strip().splitlines()[-1] == "verified 3/3 (100.0%)"

    res = tempogen(
        built, "edit", "--manifest", manifest, "--pipeline", "p.yaml", "--out", "ed", *allow
    )
    assert res.returncode == 0, res.stderr
    sources = {r["id"]: r for r in rows_of(manifest)}
    edited = rows_of(built / "ed" / "manifest.jsonl")
    assert len(edited) == 3
    flip = {"up": "down", "down": "up"}
    for r in edited:
        assert r["plugins"] == ["hop_rows_plugin"]
        assert r["answer_key"] == flip[sources[r["source"]]["answer_key"]]

    res = tempogen(built, "validate", built / "ds", *allow)
    assert res.returncode == 0, res.stderr
    assert f"{manifest}: valid manifest, 3 rows" in res.stdout.splitlines()


def _one_error(res: subprocess.CompletedProcess) -> str:
    assert res.returncode == 2, res.stdout + res.stderr
    errors = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and "Traceback" not in res.stderr, res.stderr
    return errors[0]


@pytest.mark.slow
def test_a_missing_plugin_is_a_clear_error(built, tmp_path) -> None:
    work = tmp_path / "copy"  # the dataset without its plugin module beside it
    shutil.copytree(built / "ds", work / "ds")
    (work / "p.yaml").write_text("rev: [reverse]\n", encoding="utf-8")
    manifest = work / "ds" / "manifest.jsonl"
    want = (
        f"tempogen: error: {manifest}:1: plugins: ['hop_rows_plugin'] would run code named by "
        "the manifest; tempogen imports a plugin only if you name it: allow them with "
        "--plugins hop_rows_plugin"
    )

    line = _one_error(tempogen(work, "audit", "verify", "--manifest", manifest, "-q"))
    assert line.startswith(want), line
    line = _one_error(
        tempogen(work, "edit", "--manifest", manifest, "--pipeline", "p.yaml", "--out", "ed")
    )
    assert line.startswith(want), line
    assert not (work / "ed" / "manifest.jsonl").exists()

    res = tempogen(work, "validate", work / "ds")
    assert res.returncode == 2
    assert want.removeprefix("tempogen: error: ") in res.stderr
    assert re.search(r"valid TOMATO data, 3 questions", res.stdout)  # the exports still pass

    line = _one_error(
        tempogen(work, "audit", "verify", "--manifest", manifest, "--plugins", "hop_rows_plugin")
    )
    assert line.startswith(
        "tempogen: error: --plugins: plugins[0]: cannot import 'hop_rows_plugin': "
        "No module named 'hop_rows_plugin'"
    ), line


@pytest.mark.slow
def test_unknown_generator_and_the_plugins_flag(built, tmp_path) -> None:
    elsewhere = tmp_path / "plugins"
    elsewhere.mkdir()
    shutil.copy(built / "hop_rows_plugin.py", elsewhere)
    stripped = built / "ds" / "stripped.jsonl"  # beside the original, so videos resolve
    rows = [
        {k: v for k, v in r.items() if k != "plugins"}
        for r in rows_of(built / "ds" / "manifest.jsonl")
    ]
    stripped.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    work = tmp_path / "cwd"
    work.mkdir()

    line = _one_error(tempogen(work, "audit", "verify", "--manifest", stripped, "-q"))
    assert line == (
        f"tempogen: error: {stripped}:1: generator: unknown motion pattern 'hop_rows_test'; "
        "no plugin registers it (name the module that does with --plugins)"
    )
    res = tempogen(
        work,
        "audit",
        "verify",
        "--manifest",
        stripped,
        "-q",
        "--plugins",
        "hop_rows_plugin",
        pythonpath=str(elsewhere),
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().splitlines()[-1] == "verified 3/3 (100.0%)"
    res = tempogen(
        work, "validate", stripped, "--plugins", "hop_rows_plugin", pythonpath=str(elsewhere)
    )
    assert res.returncode == 0, res.stderr
    res = tempogen(work, "validate", stripped, "--plugins", "nope_plugin")
    assert res.returncode == 2
    assert res.stderr.startswith(
        "tempogen: error: --plugins: plugins[0]: cannot import 'nope_plugin'"
    ), res.stderr
