"""Plugins through the CLI: every command imports ``--plugins`` before it reads anything that
may need them (docs/extend/edit-op.md's ``freeze`` op in ``tempogen edit``); a manifest's own
``plugins`` field never runs code unless the user names the modules too; the current folder is
not on the import path; a plugin that exits at import is an error naming it, not the command's
exit.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import kit
import numpy as np
import pytest

from tempogen.video import sha256_file, write_video

ROOT = Path(__file__).resolve().parent.parent
MARK = 'open("marks.txt", "a").write(__name__ + "\\n")\n'


def tempogen(cwd: Path, *args: str | Path) -> subprocess.CompletedProcess:
    """The CLI in a fresh process run from ``cwd``, with nothing on PYTHONPATH."""
    return kit.tempogen(*args, cwd=cwd, pythonpath="", env={"PYTHONDONTWRITEBYTECODE": "1"})


def marks(cwd: Path) -> list[str]:
    path = cwd / "marks.txt"
    return path.read_text(encoding="utf-8").split() if path.exists() else []


def clip_record(folder: Path, **extra: object) -> Path:
    """A user's clip record (a rightward square, direction declared) in ``folder/m.jsonl``."""
    frames = np.zeros((20, 48, 64, 3), np.uint8)
    for i in range(20):
        frames[i, 16:32, 2 + 2 * i : 18 + 2 * i] = 255
    write_video(folder / "clip.mp4", frames, fps=10)
    row = {
        "id": "clip",
        "video": "clip.mp4",
        "question": "Which direction does the square move?",
        "labels": {"direction": ["right"]},
        "video_sha256": sha256_file(folder / "clip.mp4"),
        **extra,
    }
    (folder / "m.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    return folder / "m.jsonl"


def test_the_freeze_op_runs_through_edit_on_a_users_clip(tmp_path) -> None:
    """docs/extend/edit-op.md: `tempogen edit --plugins freeze ...` with
    `{freeze: {seconds: 0.5}}`, run from the folder holding examples/freeze.py, on a clip of
    the user's own whose answer is declared (no states: the page's run edits a build)."""
    manifest = clip_record(tmp_path)
    (tmp_path / "p.yaml").write_text("- {freeze: {seconds: 0.5}}\n", encoding="utf-8")
    res = tempogen(
        ROOT / "examples", "edit", "--plugins", "freeze", "--manifest", manifest,
        "--pipeline", tmp_path / "p.yaml", "--out", tmp_path / "out", "-q",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    rows = [json.loads(t) for t in (tmp_path / "out" / "manifest.jsonl").read_text().splitlines()]
    assert len(rows) == 1
    assert rows[0]["edits"][-1] == {"op": "freeze", "seconds": 0.5}
    assert rows[0]["labels"] == {"direction": ["right"]}


COMMANDS = {
    "generate": ["generate", "--config", "missing.yaml", "--out", "o"],
    "edit": ["edit", "--manifest", "missing.jsonl", "--pipeline", "missing.yaml", "--out", "o"],
    "audit verify": ["audit", "verify", "--manifest", "missing.jsonl"],
    "audit validity": ["audit", "validity", "--manifest", "missing.jsonl"],
    "audit shortcuts": ["audit", "shortcuts", "--manifest", "missing.jsonl"],
    "validate": ["validate", "missing.jsonl"],
    "eval": ["eval", "tomato", "--dataset", "missing", "--predictions", "missing.jsonl"],
    "import tomato": ["import", "tomato", "missing"],
}


# the first command always; the others in the slow run (make test runs every one)
@pytest.mark.parametrize(
    "command",
    [c if i == 0 else pytest.param(c, marks=pytest.mark.slow) for i, c in enumerate(COMMANDS)],
)
def test_every_command_loads_its_plugins_before_reading_input(tmp_path, command) -> None:
    (tmp_path / "mark_plugin.py").write_text(MARK, encoding="utf-8")
    res = tempogen(tmp_path, *COMMANDS[command], "--plugins", "mark_plugin")
    assert marks(tmp_path) == ["mark_plugin"], res.stderr
    assert res.returncode == 2 and "missing" in res.stderr, res.stderr  # then reads its input


@pytest.mark.slow  # three fresh processes per command
@pytest.mark.parametrize("command", ["validate", "audit verify", "edit"])
def test_a_manifests_plugins_run_only_when_named(tmp_path, command) -> None:
    (tmp_path / "planted.py").write_text(MARK, encoding="utf-8")
    (tmp_path / "p.yaml").write_text("- reverse\n", encoding="utf-8")
    manifest = clip_record(tmp_path, plugins=["planted"])
    args = {
        "validate": ["validate", manifest],
        "audit verify": ["audit", "verify", "--manifest", manifest],
        "edit": ["edit", "--manifest", manifest, "--pipeline", "p.yaml", "--out", "o"],
    }[command]
    res = tempogen(tmp_path, *args)
    assert res.returncode == 2
    assert (
        f"{manifest}:1: plugins: ['planted'] would run code named by the manifest; "
        "tempogen imports a plugin only if you name it: allow them with --plugins planted"
    ) in res.stderr
    assert marks(tmp_path) == []
    assert not (tmp_path / "o").exists()

    res = tempogen(tmp_path, *args, "--plugins", "planted")
    assert marks(tmp_path) == ["planted"]
    assert "would run code" not in res.stderr


def test_a_manifest_naming_this_prints_no_zen(tmp_path) -> None:
    manifest = clip_record(tmp_path, plugins=["this"])
    res = tempogen(tmp_path, "validate", manifest)
    assert res.returncode == 2
    assert "The Zen of Python" not in res.stdout + res.stderr
    assert f"{manifest}:1: plugins: ['this'] would run code" in res.stderr


def test_the_current_folder_is_not_on_the_import_path(tmp_path) -> None:
    """A `yaml.py` planted in the folder a user runs from shadows nothing (`python -m` put
    the folder first on the path), so the pipeline is read by the real PyYAML."""
    (tmp_path / "yaml.py").write_text(MARK + "raise SystemExit(7)\n", encoding="utf-8")
    manifest = clip_record(tmp_path)
    (tmp_path / "p.yaml").write_text("- reverse\n", encoding="utf-8")
    res = tempogen(tmp_path, "edit", "--manifest", manifest, "--pipeline", "p.yaml", "--out", "o")
    assert marks(tmp_path) == []
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "o" / "manifest.jsonl").is_file()


def test_a_plugin_exiting_at_import_is_an_error(tmp_path) -> None:
    (tmp_path / "exiter.py").write_text("import sys\n\nsys.exit(0)\n", encoding="utf-8")
    manifest = clip_record(tmp_path)  # no manifest row: validate must not pass it
    res = tempogen(tmp_path, "validate", manifest, "--plugins", "exiter")
    assert res.returncode == 2
    assert res.stderr.splitlines() == [
        "tempogen: error: --plugins: plugins[0]: importing 'exiter' raised SystemExit(0)"
    ]
    (tmp_path / "c.yaml").write_text("seed: 1\nplugins: [exiter]\n", encoding="utf-8")
    res = tempogen(tmp_path, "generate", "--config", "c.yaml", "--out", "o")
    assert res.returncode == 2
    assert "c.yaml:2: plugins[0]: importing 'exiter' raised SystemExit(0)" in res.stderr
    assert not (tmp_path / "o").exists()


def test_an_installed_packages_pattern_may_be_named_in_motions(tmp_path) -> None:
    """A package exposing a pattern in the ``tempogen.motions`` entry-point group needs no
    ``--plugins`` (docs/extend/index.md): a config's ``motions:`` may name it, so the names
    are checked after the entry points load, not against the built-ins alone."""
    site = tmp_path / "site"
    info = site / "zz_pkg-0.1.dist-info"  # what pip leaves for an installed package
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: zz-pkg\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[tempogen.motions]\nzigzag = zz_patterns\n")
    code = (ROOT / "examples" / "zigzag.py").read_text(encoding="utf-8")
    (site / "zz_patterns.py").write_text(code, encoding="utf-8")
    (tmp_path / "c.yaml").write_text(
        "seed: 3\nsize: [160, 96]\nfps: 12\nduration: [3.0, 3.0]\ntasks: [direction]\n"
        "motions: [zigzag]\nsamples_per_task: 2\n",
        encoding="utf-8",
    )
    res = kit.tempogen(
        "generate", "--config", "c.yaml", "--out", "o", "--dry-run", cwd=tmp_path,
        pythonpath=str(site),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "plan: 2 clips" in res.stdout
