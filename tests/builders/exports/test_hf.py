"""The Hugging Face layout: Parquet + dataset card load offline with ``datasets``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from tempogen.builders.exports.hf import DATA_FILE, export_hf, size_category
from tempogen.config import config_from_dict
from tempogen.generators.build import plan, render_spec
from tempogen.io import write_json


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, list[dict]]:
    """One rendered clip per task plus the build's config.json, like a dataset folder."""
    ds = tmp_path_factory.mktemp("hfds")
    cfg = config_from_dict(
        {"seed": 5, "size": [160, 90], "fps": 10, "duration": [3, 3], "samples_per_task": 1}
    )
    rows = [render_spec(s, ds) for s in plan(cfg)]
    write_json(ds / "config.json", cfg.to_json())
    return ds, rows


@pytest.fixture
def offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return str(tmp_path / "cache")


def front_matter(readme: Path) -> dict:
    text = readme.read_text()
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


@pytest.mark.slow  # the datasets library loads the export
def test_load_dataset_from_folder(built, tmp_path, offline) -> None:
    import datasets

    ds_dir, rows = built
    out = export_hf(rows, ds_dir, tmp_path / "hf")
    assert out == tmp_path / "hf" and (out / DATA_FILE).is_file()
    loaded = datasets.load_dataset(str(out), cache_dir=offline)
    assert list(loaded) == ["test"]
    test = loaded["test"]
    assert test["id"] == [r["id"] for r in rows]
    assert test["answer"] == [r["answer"] for r in rows]
    for got, row in zip(test, rows):
        assert got["options"] == row["options"] and got["answer_text"] == row["answer_text"]
        assert got["variation"] == row["variation"]
        assert got["seed"] == row["seed"] and got["video_sha256"] == row["video_sha256"]
        assert json.loads(got["labels"]) == row["labels"]
        assert json.loads(got["edits"]) == row["edits"]
        video = out / got["video"]
        assert got["video"] == f"videos/{row['id']}.mp4" and video.is_file()
        assert os.path.samefile(video, ds_dir / row["video"])  # hard link, no copy
    pq = datasets.load_dataset(
        "parquet", data_files={"test": str(out / DATA_FILE)}, cache_dir=offline
    )["test"]
    assert pq["id"] == test["id"] and pq["answer"] == test["answer"]


def test_dataset_card(built, tmp_path) -> None:
    ds_dir, rows = built
    out = export_hf(rows, ds_dir, tmp_path / "hf")
    meta = front_matter(out / "README.md")
    assert meta["license"] == "mit"
    assert meta["size_categories"] == ["n<1K"]
    assert "video-text-to-text" in meta["task_categories"]
    assert meta["configs"] == [
        {"config_name": "default", "data_files": [{"split": "test", "path": DATA_FILE}]}
    ]
    body = (out / "README.md").read_text()
    for task in ("count", "direction", "rotation", "shape&trend", "velocity&frequency"):
        assert f"| {task} | 1 |" in body
    assert "| original | 6 |" in body
    assert "seed 5" in body and "MIT" in body and "render version" in body


def test_external_rows_and_missing_fields(built, tmp_path, offline) -> None:
    """A clip with declared facts only: no seed, no states; its licence is flagged."""
    import datasets

    ds_dir, rows = built
    external = {
        "id": "clip1",
        "video": rows[0]["video"],
        "task": "rotation",
        "demonstration_type": "object",
        "question": "Which way does the fan turn?",
        "options": ["Clockwise.", "Counter-clockwise."],
        "answer": 1,
        "labels": {"rotation": ["ccw"]},
    }
    out = export_hf([*rows, external], ds_dir, tmp_path / "hf", link_videos=False)
    test = datasets.load_dataset(str(out), cache_dir=offline)["test"]
    got = test[len(rows)]
    assert got["seed"] is None and got["source"] is None
    assert got["answer_text"] == "Counter-clockwise."
    assert got["variation"] == {"counterfactual": 0, "composite": 0, "zoom": 0, "first_person": 0}
    assert json.loads(got["labels"]) == {"rotation": ["ccw"]}
    assert (out / got["video"]).resolve() == (ds_dir / rows[0]["video"]).resolve()
    assert got["video"].startswith("../")
    assert "keep their owners' licences" in (out / "README.md").read_text()


def test_bad_rows_are_refused(built, tmp_path) -> None:
    ds_dir, rows = built
    with pytest.raises(FileNotFoundError, match="no such file"):
        export_hf([{**rows[0], "video": "videos/nope.mp4"}], ds_dir, tmp_path / "a")
    with pytest.raises(ValueError, match="duplicated"):
        export_hf([rows[0], rows[0]], ds_dir, tmp_path / "b")
    with pytest.raises(ValueError, match="plain file name"):
        export_hf([{**rows[0], "id": "../x"}], ds_dir, tmp_path / "c")
    with pytest.raises(ValueError, match="not an index"):
        export_hf([{**rows[0], "answer": 17}], ds_dir, tmp_path / "d")


def test_size_categories() -> None:
    assert size_category(450) == "n<1K"
    assert size_category(1000) == "1K<n<10K"
    assert size_category(12_345) == "10K<n<100K"
