"""Which edited variants the dataset build tries on which clips."""

from __future__ import annotations

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
