"""Which edited variants the dataset build tries on which clips."""

from __future__ import annotations

import pytest

from tempogen.builders.dataset.variants import default_variants, is_3d, plan_variants
from tempogen.editing.ops import Mirror, Reverse, Rotate, Speed, ZoomIn


def _row(generator: str) -> dict:
    return {"id": generator, "generator": generator, "labels": {"tracks": []}}


def test_ops_say_whether_down_stays_down() -> None:
    assert Mirror("horizontal").upright and Reverse().upright and Speed(0.5).upright
    assert ZoomIn().upright
    assert not Mirror("vertical").upright
    assert not any(Rotate(d).upright for d in (90, 180, 270))


def test_3d_scenes_get_only_upright_variants_and_2d_clips_get_all() -> None:
    rows = [_row(g) for g in ("twirl", "cube_spin", "orbit") * 30]
    assert [is_3d(r) for r in rows[:3]] == [True, True, False]
    variants = default_variants()
    assert any(not v.upright for v in variants)
    plans = plan_variants(rows, 1.0, seed=3, variants=variants)
    assert len(plans) == len(rows)
    for row, order in plans:
        names = {v.name for v in order}
        if is_3d(row):
            assert all(v.upright for v in order) and "reverse" in names
            assert not names & {"mirror_v", "rotate90", "reverse_mirror_zoom"}
        else:
            assert names == {v.name for v in variants}


@pytest.mark.slow
def test_a_3d_variant_the_pixel_audit_cannot_read_is_not_shipped(tmp_path) -> None:
    # a zoom onto a jumping person's feet crops out the gloves the audit reads them by
    from tempogen.builders.audit.verify import verify_row
    from tempogen.builders.dataset.variants import build_variant, edit_row
    from tempogen.config import config_from_dict
    from tempogen.generators.build import plan, render_spec

    cfg = config_from_dict(
        {
            "tasks": ["velocity&frequency"], "motions": ["jump_rhythm"], "samples_per_task": 1,
            "size": [320, 180], "fps": 15, "seed": 4,
            "scenes3d": {"humans": 1, "objects": 0, "duration": [3, 4]},
        }
    )  # fmt: skip
    row = render_spec(plan(cfg)[0], tmp_path)
    zoom, reverse = (
        next(v for v in default_variants() if v.name == n) for n in ("zoom", "reverse")
    )
    zoomed = edit_row(row, tmp_path, zoom, tmp_path)
    verdict = verify_row(zoomed, tmp_path)
    assert not verdict.ok and "not visible" in verdict.detail  # a verdict, not a crash
    got = build_variant((row, [zoom, reverse]), tmp_path)
    assert got is not None and got["id"] == f"{row['id']}~reverse"
    assert verify_row(got, tmp_path).ok
    assert not (tmp_path / "clips" / f"{zoomed['id']}.json").exists()
    assert not (tmp_path / zoomed["video"]).exists()


def test_refusals_grouped_by_reason_hide_the_row_id_not_letters_of_words(tmp_path):
    """An id that is a common letter ('a') is taken out of the message where the message
    names the row (``a~fast``, ``'a'``), never out of the words around it."""
    from tempogen.builders.dataset.variants import EditReport

    refused = [
        ("a", "fast", "a~fast: not answerable from a frame; row 'a' refused"),
        ("b", "fast", "b~fast: not answerable from a frame; row 'b' refused"),
    ]
    report = EditReport([], refused, tmp_path / "manifest.jsonl")
    assert report.by_reason() == [
        ("fast: <row>: not answerable from a frame; row <row> refused", 2)
    ]
