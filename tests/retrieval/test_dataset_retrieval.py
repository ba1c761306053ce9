"""The caption-retrieval stage of ``build_dataset``: files, sane contents, candidates that are
real clips of the dataset, determinism, and a rerun that reuses the stage (or its cached
embeddings when something changed)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from tempogen.builders.dataset.build import build_dataset
from tempogen.builders.dataset.caption_retrieval import build_retrieval
from tempogen.config import ConfigError, config_from_dict, load_config
from tempogen.retrieval.threshold import NO_MATCH_THRESHOLD

TINY = {
    "seed": 4,
    "size": [96, 64],
    "fps": 10,
    "duration": [3, 3],
    "samples_per_task": 2,
    "tasks": ["direction", "count"],
    "variants": {"share": 0},
    "vinoground": {"pairs": 0},
    "retrieval": {"pairs": 5, "top_k": 3},
}


OUTPUTS = (
    "pairs.jsonl",
    "audit.jsonl",
    "audit_summary.txt",
    "candidates.jsonl",
    "summary.json",
    "index.html",
)


def _stamps(folder: Path, names: tuple[str, ...] = (*OUTPUTS, "record.json")) -> list[tuple]:
    """Inode and mtime of files: a rewritten file is renamed into place anew."""
    return [((folder / n).stat().st_ino, (folder / n).stat().st_mtime_ns) for n in names]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
def test_build_dataset_writes_audited_pairs_and_candidates_among_its_clips(tmp_path: Path):
    cfg = config_from_dict(TINY, "tiny.yaml")
    out = tmp_path / "ds"
    summary = build_dataset(cfg, out, jobs=1, progress=False)
    ret = summary.retrieval
    assert ret is not None and ret["pairs"] == 5 and ret["top_k"] == 3
    assert set(ret["seconds"]) == {"pairs", "audit", "library", "search", "total"}
    folder = out / "retrieval"
    pairs = _lines(folder / "pairs.jsonl")
    audit = _lines(folder / "audit.jsonl")
    cands = _lines(folder / "candidates.jsonl")
    assert len(pairs) == len(audit) == len(cands) == 5
    assert all(a["ok"] and a["reasons"] == [] for a in audit)  # offline pairs pass the audit
    assert [a["pos"] for a in audit] == [p["pos"] for p in pairs] == [c["pos"] for c in cands]
    assert "near-duplicate" in (folder / "audit_summary.txt").read_text()
    manifest = {r["id"]: r for r in _lines(out / "manifest.jsonl")}
    assert ret["corpus_captions"] == len(manifest) == summary.clips
    assert ret["no_match_threshold"] == NO_MATCH_THRESHOLD
    flagged = sum(not c["discriminating"] for c in cands)
    assert ret["pairs_not_discriminating"] == flagged
    assert ret["pairs_no_match"] == sum(c["pos_no_match"] and c["neg_no_match"] for c in cands)
    assert f"{ret['pairs_no_match']} with no match" in (out / "index.html").read_text()
    for row in cands:
        for side in ("pos_candidates", "neg_candidates"):
            got = row[side]
            assert [c["rank"] for c in got] == [1, 2, 3]
            assert [c["score"] for c in got] == sorted((c["score"] for c in got), reverse=True)
            for c in got:
                clip = manifest[c["video_id"]]  # a clip of this dataset
                assert (out / clip["video"]).is_file()
                assert c["youtube_id"] is None and c["caption"].strip()
                assert c["matched"] == (c["score"] >= NO_MATCH_THRESHOLD)
            assert row[side.replace("candidates", "no_match")] == (
                not any(c["matched"] for c in got)
            )
    page = (folder / "index.html").read_text()
    assert page.count("<section>") == 5 and "../sheets/" in page
    assert f"no-match threshold {NO_MATCH_THRESHOLD:.3f}" in page
    assert 'href="retrieval/index.html"' in (out / "index.html").read_text()
    # nothing names the folder or the run's speed: a moved (or published) dataset reuses it
    assert "library:manifest.jsonl" in page and str(out) not in page
    record = (folder / "record.json").read_text()
    assert str(out) not in record and "seconds" not in record
    moved = tmp_path / "moved"
    shutil.copytree(out, moved)
    again = build_retrieval(moved, cfg.retrieval, cfg.seed)
    assert again["reused"] and (moved / "retrieval" / "record.json").read_text() == record

    # a rerun of the same config reuses the stage whole: no file is rewritten
    cache = sorted((folder / ".emb_cache").glob("emb-*.npy"))
    assert len(cache) == 2  # the pairs' captions and the library
    assert not ret["reused"]
    embeddings = tuple(str(p.relative_to(folder)) for p in cache)
    before, cached = _stamps(folder), _stamps(folder, embeddings)
    again = build_dataset(cfg, out, jobs=1, progress=False)
    assert _stamps(folder) == before
    timeless = {k: v for k, v in ret.items() if k != "seconds"}
    assert again.retrieval == {**timeless, "reused": True}  # no seconds spent this time

    # a damaged output, a corrupt record or other inputs redo it (the same bytes when the
    # inputs are the same); the cached embeddings are reused
    contents = {n: (folder / n).read_bytes() for n in OUTPUTS}
    (folder / "candidates.jsonl").unlink()
    assert not build_retrieval(out, cfg.retrieval, cfg.seed)["reused"]
    (folder / "record.json").write_text("{}")
    assert not build_retrieval(out, cfg.retrieval, cfg.seed)["reused"]
    assert {n: (folder / n).read_bytes() for n in OUTPUTS} == contents
    assert all(a[0] != b[0] for a, b in zip(_stamps(folder), before))
    assert _stamps(folder, embeddings) == cached
    assert build_retrieval(out, cfg.retrieval, cfg.seed)["reused"]
    fewer = build_retrieval(out, replace(cfg.retrieval, top_k=2), cfg.seed)
    assert not fewer["reused"] and fewer["top_k"] == 2
    assert len(_lines(folder / "candidates.jsonl")[0]["pos_candidates"]) == 2


def test_retrieval_stage_can_be_switched_off(tmp_path: Path):
    cfg = config_from_dict(
        {**TINY, "tasks": ["direction"], "samples_per_task": 1, "retrieval": {"pairs": 0}}
    )
    summary = build_dataset(cfg, tmp_path / "ds", jobs=1, progress=False)
    assert summary.retrieval is None and not (tmp_path / "ds" / "retrieval").exists()
    assert "retrieval/index.html" not in (tmp_path / "ds" / "index.html").read_text()


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"pairs": -1}, "retrieval.pairs: must be >= 0"),
        ({"pairs": 501}, "retrieval.pairs: must be <= 500"),
        ({"top_k": 0}, "retrieval.top_k: must be >= 1"),
        ({"top_k": 2.5}, "retrieval.top_k: expected int"),
        (
            {"topk": 3},
            "retrieval.topk: unknown field; known fields: pairs, top_k, no_match_threshold",
        ),
        ({"no_match_threshold": 1.5}, "retrieval.no_match_threshold: must be <= 1"),
        ({"no_match_threshold": "x"}, "retrieval.no_match_threshold: expected float"),
        ([3], "retrieval: expected a mapping"),
    ],
)
def test_retrieval_config_errors_name_file_and_field(section, message):
    with pytest.raises(ConfigError, match=f"^tiny.yaml: {message}"):
        config_from_dict({"retrieval": section}, "tiny.yaml")


def test_default_config_has_the_retrieval_section():
    cfg = load_config(Path(__file__).resolve().parents[2] / "configs" / "default.yaml")
    assert (cfg.retrieval.pairs, cfg.retrieval.top_k) == (8, 5)
    assert cfg.to_json()["retrieval"] == {"pairs": 8, "top_k": 5, "no_match_threshold": None}
    assert config_from_dict({"retrieval": {"no_match_threshold": 0.5}}).retrieval == replace(
        cfg.retrieval, no_match_threshold=0.5
    )
    assert config_from_dict({}).retrieval == cfg.retrieval
