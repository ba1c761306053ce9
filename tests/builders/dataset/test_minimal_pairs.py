"""A tiny build with minimal pairs: both members rendered and certified, rows and exports mark
the pair, the pixels agree with each member's answer, and an edited variant is in no pair."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tempogen.builders.audit.verify import verify_row
from tempogen.builders.dataset.edited_clips import edited_row
from tempogen.builders.exports.hf import export_hf
from tempogen.builders.exports.lmms_eval import export_lmms_eval
from tempogen.builders.exports.tomato import export_tomato
from tempogen.config import ConfigError, config_from_dict, load_config
from tempogen.generators.build import plan, render_all
from tempogen.manifest import Row, write_manifest

TINY = {
    "seed": 5,
    "size": [256, 144],
    "fps": 15,
    "duration": [3.0, 3.5],
    "samples_per_task": 6,
    "tasks": ["rotation", "direction"],
    "motions": ["spin", "slide"],
    "minimal_pairs": 0.34,
    "style": {"distractors": [1, 1]},
}


def test_config_names_the_field() -> None:
    with pytest.raises(ConfigError, match="minimal_pairs: must be <= 1"):
        config_from_dict({"minimal_pairs": 2}, "x.yaml")
    with pytest.raises(ConfigError, match="minimal_pairs: expected float"):
        config_from_dict({"minimal_pairs": "some"}, "x.yaml")


def test_plan_pairs_every_task_and_type_and_keeps_answers_balanced() -> None:
    """The default config: every task gets pairs of each type it shows, within budget, and
    every pattern's answers stay balanced within one with the twins counted."""
    specs = plan(load_config("configs/default.yaml"))
    twins = [s for s in specs if s.pair and s.id != s.pair]
    by_id = {s.id: s for s in specs}
    assert len(twins) == len({s.pair for s in specs if s.pair})
    for t in twins:
        o = by_id[t.pair]
        assert (o.seed, o.num_frames, o.background, o.distractors, o.misleading_text) == (
            t.seed, t.num_frames, t.background, t.distractors, t.misleading_text,
        )  # fmt: skip
        assert (o.twin_key, t.twin_key) == (t.answer_key, o.answer_key) != (o.answer_key,) * 2
    from tempogen.generators.motion import get_motion

    kinds = Counter((t.task, get_motion(t.motion).renderer) for t in twins)
    for task in {s.task for s in specs}:
        shown = {get_motion(s.motion).renderer for s in specs if s.task == task}
        assert {k for (tk, k) in kinds if tk == task} == shown, task
    for motion in {s.motion for s in specs}:
        counts = Counter(s.answer_key for s in specs if s.motion == motion)
        keys = get_motion(motion).keys()
        given = [counts.get(k, 0) for k in keys]
        assert max(given) - min(given) <= 1, (motion, counts)
    # specs outside pairs keep their hash: the pair fields are left out of to_json
    assert all("pair" not in s.to_json() for s in specs if not s.pair)


@pytest.mark.slow
def test_tiny_build_renders_both_members_and_exports_mark_the_pair(tmp_path: Path) -> None:
    cfg = config_from_dict(TINY, "tiny.yaml")
    specs = plan(cfg)
    pairs = Counter(s.pair for s in specs if s.pair)
    assert pairs and set(pairs.values()) == {2}
    rows = render_all(specs, tmp_path, jobs=1)
    write_manifest(tmp_path / "manifest.jsonl", rows)
    paired = [r for r in rows if r.get("pair")]
    assert len(paired) == 2 * len(pairs)
    for pid in pairs:
        a, b = (r for r in paired if r["pair"] == pid)
        assert a["id"] == pid and b["id"] == f"{pid}-twin"
        assert a["answer_key"] != b["answer_key"]
        assert a["question"] == b["question"] and a["options"] == b["options"]
        assert a["answer"] != b["answer"]
        for r in (a, b):  # certified and read back from the pixels like any clip
            assert r["certificate"]["sampled"] is not None
            verdict = verify_row(r, tmp_path)
            assert verdict is not None and verdict.ok, verdict
    export_tomato(rows, tmp_path, tmp_path / "tomato")
    entries = [
        e
        for f in (tmp_path / "tomato" / "data").glob("*.json")
        for e in json.loads(f.read_text()).values()
    ]
    assert {e["key"]: e["pair"] for e in entries if "pair" in e} == {
        r["id"]: r["pair"] for r in paired
    }
    export_hf(rows, tmp_path, tmp_path / "hf", link_videos=False)
    table = pq.read_table(tmp_path / "hf" / "data" / "test.parquet").to_pylist()
    assert {r["id"]: r["pair"] for r in table if r["pair"]} == {r["id"]: r["pair"] for r in paired}
    folder = export_lmms_eval(rows, tmp_path, tmp_path / "lmms")
    docs = [json.loads(line) for line in (folder / "test.jsonl").read_text().splitlines()]
    assert sum(1 for d in docs if d["pair"]) == len(paired)
    variant = edited_row(Row.from_json(paired[0]), id="x~rev")
    assert "pair" not in variant


def test_a_twins_answer_place_is_no_tell() -> None:
    """Both members show the same options; the twin's answer sits at a seeded place other than
    the original's, not at a fixed one (which would tell a twin's answer from the options)."""
    from tempogen.config import load_config
    from tempogen.generators.build import _opt_rng, _pair_keys, question_fields, spec_scene
    from tempogen.generators.motion import get_motion

    root = Path(__file__).resolve().parents[3]
    specs = [s for s in plan(load_config(root / "configs" / "default.yaml")) if s.pair]
    specs = [s for s in specs if get_motion(s.motion).renderer == "2d"]
    by_pair: dict[str, dict] = {}
    for s in specs:
        scene, _, opt = spec_scene(s)
        q = question_fields(get_motion(s.motion), scene.labels(), s.answer_key, opt,
                            s.answer_pos, pair_keys=_pair_keys(s), rng_shared=_opt_rng(s))  # fmt: skip
        by_pair.setdefault(s.pair, {})["twin" if s.id != s.pair else "original"] = q
    places = []
    for pair in by_pair.values():
        a, b = pair["original"], pair["twin"]
        if a["option_keys"] != b["option_keys"]:
            continue  # the shared list did not suit one member: each shows its own
        assert a["answer"] != b["answer"]
        places.append((b["answer"], len(b["options"])))
    assert len(places) >= 10
    assert len({p for p, _ in places}) >= 3  # spread, not one fixed place
    assert sum(p == n - 1 for p, n in places) < 0.6 * len(places)
