"""A build into an fsspec URL: the same bytes as a local build, published whole (the build
mark first, the manifest last), a foreign or other-config URL refused or replaced, and a rerun
from another machine's empty working copy resuming from what the URL holds."""

from __future__ import annotations

import importlib.util
import re
import uuid

import fsspec  # a core dependency (never skipped)
import pytest
from kit import build_files, differing

from tempogen.errors import ConfigurationError, OutputError


def url_files(url: str) -> dict[str, bytes]:
    fs, root = fsspec.core.url_to_fs(url)
    root = root.rstrip("/")
    return {
        p[len(root) + 1 :]: fs.cat_file(p)
        for p in sorted(fs.find(root))
        if not p.rsplit("/", 1)[-1].startswith(".tempogen")
    }


@pytest.fixture
def url():
    """A fresh in-memory URL (fsspec's memory file system), emptied afterwards."""
    name = f"memory://tempogen-test-{uuid.uuid4().hex[:8]}/ds"
    yield name
    fs, root = fsspec.core.url_to_fs(name)
    if fs.exists(root):
        fs.rm(root, recursive=True)


def _config(small_build_config):
    from tempogen.config import config_from_dict

    return config_from_dict(small_build_config, "small.yaml")


@pytest.mark.slow
def test_a_url_build_publishes_the_local_builds_bytes_mark_first_manifest_last(
    small_build, small_build_config, url, tmp_path
):
    """Over another config's build at the URL (``replace``): its files go, ours arrive with
    the local build's bytes, uploaded in an order no reader can catch half-published; a
    rerun from an empty working copy (another machine) pulls every clip and renders none."""
    from tempogen.builders.dataset.build import BUILD_MARK, MANIFEST, build_dataset

    fs, root = fsspec.core.url_to_fs(url)
    fs.pipe_file(f"{root}/{BUILD_MARK}", b'{"config_sha256": "another", "config": "old.yaml"}')
    fs.pipe_file(f"{root}/videos/stale.mp4", b"a clip of the other build")
    cfg = _config(small_build_config)
    with pytest.raises(OutputError, match=re.escape(f"{url}: holds a dataset built with another")):
        build_dataset(cfg, url, jobs=2, progress=False, work_dir=tmp_path / "a")
    summary = build_dataset(cfg, url, jobs=2, progress=False, replace=True, work_dir=tmp_path / "a")
    assert summary.url == url and summary.where(MANIFEST) == f"{url}/{MANIFEST}"
    assert not fs.exists(f"{root}/videos/stale.mp4")
    assert differing(url_files(url), build_files(small_build)) == []
    assert not [k for k in fs.store if ".upload" in k]  # no upload left under a hidden name
    order = [k for k in fs.store if k.startswith(root + "/")]  # the memory store: by arrival
    assert order[0] == f"{root}/{BUILD_MARK}", "the build mark must claim the URL first"
    assert order[-1] == f"{root}/{MANIFEST}", "the manifest must be the last file to appear"

    again = build_dataset(cfg, url, jobs=2, progress=False, work_dir=tmp_path / "b")
    assert again.reused_frames == again.frames > 0  # every clip came from the URL
    assert differing(url_files(url), build_files(small_build)) == []


@pytest.mark.slow
def test_a_rerun_resumes_from_a_half_published_url(small_build, small_build_config, url, tmp_path):
    """A driver killed after the clips were published, before the rest: another machine's
    rerun pulls the finished clips, renders only the one whose video never arrived, and
    publishes the local build's bytes."""
    from tempogen.builders.dataset.build import MANIFEST, build_dataset
    from tempogen.io import read_jsonl

    cfg = _config(small_build_config)
    build_dataset(cfg, url, jobs=2, progress=False, work_dir=tmp_path / "a")
    fs, root = fsspec.core.url_to_fs(url)
    rows = read_jsonl(small_build / MANIFEST)
    lost = next(r for r in rows if "~" not in r["id"])  # a clip, not an edited variant
    fs.rm_file(f"{root}/{lost['video']}")
    for name in (MANIFEST, "index.html", "report.html", "validity.json"):
        fs.rm_file(f"{root}/{name}")
    again = build_dataset(cfg, url, jobs=2, progress=False, work_dir=tmp_path / "b")
    assert again.frames - again.reused_frames == lost["num_frames"]
    assert differing(url_files(url), build_files(small_build)) == []


def test_a_url_holding_other_files_is_refused_and_nothing_is_pulled(
    small_build_config, url, tmp_path
):
    """``--out`` at a URL with files but no tempogen build: refused before anything is
    downloaded (it may be a whole bucket) or rendered."""
    from tempogen.builders.dataset.build import build_dataset

    fs, root = fsspec.core.url_to_fs(url)
    fs.pipe_file(f"{root}/notes/readme.txt", b"someone else's files")
    with pytest.raises(OutputError, match=re.escape(f"{url}: holds files but no tempogen build")):
        build_dataset(_config(small_build_config), url, progress=False, work_dir=tmp_path / "w")
    assert not (tmp_path / "w" / "notes").exists()
    assert fs.cat_file(f"{root}/notes/readme.txt") == b"someone else's files"


def test_a_url_fsspec_cannot_open_is_a_clear_error(small_build_config, tmp_path):
    from tempogen.builders.dataset.build import build_dataset

    with pytest.raises(ConfigurationError, match=r"--out nope://x/ds: not a URL fsspec can open"):
        build_dataset(_config(small_build_config), "nope://x/ds", work_dir=tmp_path)
    if importlib.util.find_spec("s3fs") is None:
        with pytest.raises(ConfigurationError, match=r"--out s3://b/ds: .*s3fs"):
            build_dataset(_config(small_build_config), "s3://b/ds", work_dir=tmp_path)


def test_publish_sends_only_what_changed_and_pull_only_what_is_missing(url, tmp_path):
    """The ledger: a second publish uploads nothing, a changed file alone goes again (same
    size, other bytes included); a pull fetches only files the copy lacks, never re-uploaded."""
    from tempogen.builders.dataset.remote import Remote

    remote = Remote.open(url)
    a = tmp_path / "a"
    (a / "videos").mkdir(parents=True)
    (a / "videos" / "c1.mp4").write_bytes(b"clip one")
    (a / "videos" / "c2.mp4").write_bytes(b"clip two")
    (a / "manifest.jsonl").write_bytes(b"{}\n")
    (a / ".scratch.tmp").write_bytes(b"a temp file")
    assert remote.publish(a, last=["manifest.jsonl"]) == 3
    assert sorted(remote.listing()) == ["manifest.jsonl", "videos/c1.mp4", "videos/c2.mp4"]
    assert remote.publish(a, last=["manifest.jsonl"]) == 0
    (a / "videos" / "c2.mp4").write_bytes(b"clip TWO")  # same size, other bytes
    assert remote.publish(a) == 1
    b = tmp_path / "b"
    (b / "videos").mkdir(parents=True)
    (b / "videos" / "c1.mp4").write_bytes(b"clip one")
    assert remote.pull(b) == 2
    assert (b / "videos" / "c2.mp4").read_bytes() == b"clip TWO"
    assert remote.publish(b) == 1  # c1 was local already, so its ledger entry is new: sent once
    assert remote.publish(b) == 0
