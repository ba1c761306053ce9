"""resume: a unit is reused only when its record matches its spec hash and its outputs are intact."""

from __future__ import annotations

import json

import pytest

from tempogen import __version__
from tempogen.errors import OutputError
from tempogen.io import content_hash
from tempogen.resume import commit, discard_on_error, lookup, spec_hash, staging
from tempogen.video import sha256_file

SPEC = {"id": "a", "seed": 3}


@pytest.fixture
def unit(tmp_path):
    """A committed unit: one staged output moved into place, one written directly."""
    key = spec_hash(SPEC, 1)
    video, sheet = tmp_path / "videos" / "a.mp4", tmp_path / "sheets" / "a.png"
    video.parent.mkdir()
    sheet.parent.mkdir()
    staging(video).write_bytes(b"frames")
    sheet.write_bytes(b"sheet")
    record = tmp_path / "clips" / "a.json"
    commit(record, {"spec_hash": key, "video_sha256": sha256_file(staging(video))}, [video])
    return record, key, video, sheet


def found(unit) -> dict | None:
    record, key, video, sheet = unit
    return lookup(record, key, [sheet], {"video_sha256": video})


def test_spec_hash_names_spec_version_and_tempogen():
    assert spec_hash(SPEC, 2) == content_hash({"spec": SPEC, "render": 2, "tempogen": __version__})
    assert spec_hash(SPEC, 2) != spec_hash(SPEC, 3)
    assert spec_hash(SPEC, 2) != spec_hash({**SPEC, "seed": 4}, 2)


def test_commit_moves_staged_outputs_and_lookup_reuses(unit):
    record, key, video, sheet = unit
    assert video.read_bytes() == b"frames" and not staging(video).exists()
    assert (
        record.read_text() == json.dumps(found(unit), sort_keys=True, separators=(",", ":")) + "\n"
    )
    assert found(unit)["spec_hash"] == key
    assert sorted(p.name for p in record.parent.iterdir()) == ["a.json"]  # no temp file left


def test_another_spec_or_version_is_not_reused(unit):
    record, key, video, sheet = unit
    assert lookup(record, spec_hash({**SPEC, "seed": 4}, 1), [sheet, video]) is None
    assert lookup(record, spec_hash(SPEC, 2), [sheet, video]) is None


@pytest.mark.parametrize("gone", ["record", "video", "sheet"])
def test_a_missing_file_is_redone(unit, gone):
    record, key, video, sheet = unit
    {"record": record, "video": video, "sheet": sheet}[gone].unlink()
    assert found(unit) is None


def test_an_altered_output_is_redone(unit):
    video = unit[2]
    video.write_bytes(b"frameZ")  # same size, other bytes
    assert found(unit) is None
    assert lookup(unit[0], unit[1], [video]) is not None  # without a digest, presence suffices


@pytest.mark.parametrize(
    "text", ["", '{"spec_hash": "', "[1, 2]", "null", '{"video_sha256": "x"}', "\xff\xfe"]
)
def test_a_corrupt_record_is_redone(unit, text):
    unit[0].write_bytes(text.encode("latin-1"))
    assert found(unit) is None


def test_commit_needs_the_hash(tmp_path):
    with pytest.raises(ValueError, match="spec_hash"):
        commit(tmp_path / "r.json", {"video_sha256": "x"})
    assert not (tmp_path / "r.json").exists()


def test_a_failed_commit_writes_no_record(tmp_path):
    (tmp_path / "clips").write_text("a file where the folder goes")
    with pytest.raises(OutputError):
        commit(tmp_path / "clips" / "a.json", {"spec_hash": "h"})
    final = tmp_path / "b.mp4"
    staging(final).write_bytes(b"x")
    with pytest.raises(FileNotFoundError, match="missing.mp4"):
        commit(tmp_path / "b.json", {"spec_hash": "h"}, [final, tmp_path / "missing.mp4"])
    assert not (tmp_path / "b.json").exists() and not final.exists()


def test_discard_on_error_removes_partial_outputs(tmp_path):
    a, b = tmp_path / ".a.partial", tmp_path / ".b.partial"
    with pytest.raises(RuntimeError):
        with discard_on_error(a, b):
            a.write_bytes(b"half")
            raise RuntimeError("encoder died")
    assert not a.exists() and not b.exists()
    with discard_on_error(a):
        a.write_bytes(b"whole")
    assert a.read_bytes() == b"whole"
