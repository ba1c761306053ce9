"""Fixtures for builder tests: small real mp4 clips and manifest-like rows that point at them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from kit import run_cli, run_lock, shared_build

from tempogen.questions import TASKS
from tempogen.video import sha256_file, write_video

NUM_FRAMES = 20
HEIGHT, WIDTH = 48, 64


def clip_frames(seed: int) -> np.ndarray:
    """20 RGB frames: a background colour distinct per frame and a square moving right."""
    frames = np.empty((NUM_FRAMES, HEIGHT, WIDTH, 3), np.uint8)
    for i in range(NUM_FRAMES):
        frames[i] = (12 * i, 240 - 12 * i, (60 + 40 * seed) % 256)
        x = 2 + 2 * i
        frames[i, 16:32, x : x + 16] = (255, 255, 0)
    return frames


def make_row(manifest_dir: Path, n: int, task: str, **extra) -> dict:
    """Write clip ``n`` under ``manifest_dir/videos`` and return its row: a user's clip record
    (no labels, seed or hashes), as exports and ``tempogen edit`` take an external clip. A
    complete manifest row, a :class:`~tempogen.manifest.Row`, is ``kit.manifest_row``."""
    rid = f"{task.replace('&', '_')}-{n:03d}"
    rel = f"videos/{rid}.mp4"
    write_video(manifest_dir / rel, clip_frames(n), fps=10)
    options = ["Leftwards.", "Rightwards.", "Upwards.", "No movements."]
    row = {
        "id": rid,
        "video": rel,
        "task": task,
        "generator": "moving_square",
        "demonstration_type": "simulated",
        "question": f"Which direction does the square move in clip {n}?",
        "options": options,
        "answer": 1,
        "answer_text": options[1],
        "variation": {"counterfactual": 0, "composite": 0, "zoom": n % 2, "first_person": 0},
        "note": "",
        "video_sha256": sha256_file(manifest_dir / rel),
    }
    row.update(extra)
    return row


@pytest.fixture(scope="session")
def manifest(tmp_path_factory) -> tuple[Path, list[dict]]:
    """A manifest folder with one clip per task plus a second count clip (so ids reach "1")."""
    root = tmp_path_factory.mktemp("manifest")
    tasks = [*TASKS, "count"]
    rows = [make_row(root, n, t) for n, t in enumerate(tasks)]
    return root, rows


@pytest.fixture(scope="session")
def frames_of():
    """The frames clip ``n`` was written from."""
    return clip_frames


@pytest.fixture(scope="session")
def row_maker():
    """``row_maker(manifest_dir, n, task, **overrides)`` writes a clip and returns its row."""
    return make_row


# Two tasks, a 3D-object clip in each, one edited variant, one Vinoground pair: every stage an
# executor runs, in seconds (tests/test_ray.py, tests/test_ray_cluster.py).
SMALL_BUILD = {
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


@pytest.fixture(scope="session")
def small_build_config() -> dict:
    """``SMALL_BUILD``, the config mapping (a copy)."""
    import copy

    return copy.deepcopy(SMALL_BUILD)


@pytest.fixture(scope="session")
def small_build(tmp_path_factory) -> Path:
    """``SMALL_BUILD`` built by the local pool (2 processes): what every executor must match."""
    from tempogen.builders.dataset.build import build_dataset
    from tempogen.config import config_from_dict

    def make(out: Path) -> None:
        build_dataset(config_from_dict(SMALL_BUILD, "small.yaml"), out, jobs=2, progress=False)

    return shared_build(tmp_path_factory, "small-local", make)


@pytest.fixture(scope="session")
def tiny_dataset(tmp_path_factory) -> Path:
    """``configs/tiny.yaml`` built through the CLI (about a minute), once for the whole run:
    read only (a test that changes it copies it first; files written beside it are fine)."""

    def make(folder: Path) -> None:
        res = run_cli(
            "generate", "--config", "configs/tiny.yaml", "--out", folder / "ds", "-j", "2", "-q",
            timeout=600,
        )  # fmt: skip
        assert res.returncode == 0, res.stderr

    return shared_build(tmp_path_factory, "tiny", make) / "ds"


@pytest.fixture(scope="module")
def one_ray_cluster(tmp_path_factory) -> Iterator[None]:
    """Held by a test module that starts a Ray cluster: under pytest-xdist (`make test`) two
    clusters at once on two cores would starve each other, so the other worker waits."""
    with run_lock(tmp_path_factory, "ray"):
        yield
