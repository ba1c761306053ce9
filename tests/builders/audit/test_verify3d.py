"""The pixel audit on 3D clips: render each 3D pattern through the build, then re-answer its
question from the written video (background, codec and all) with ``audit verify``'s reader."""

from __future__ import annotations

import pytest

from tempogen.builders.audit.verify import verify_row
from tempogen.config import config_from_dict
from tempogen.generators.build import plan, render_spec
from tempogen.generators.motion import MOTIONS, get_motion

get_motion("spin")
SOLID = sorted(name for name, m in MOTIONS.items() if m.renderer != "2d" and not m.needs_source)


@pytest.mark.slow
@pytest.mark.parametrize("name", SOLID)
def test_written_3d_clips_pass_the_pixel_audit(name: str, tmp_path) -> None:
    motion = MOTIONS[name]
    cfg = config_from_dict(
        {
            "tasks": [motion.task],
            "motions": [name],
            "samples_per_task": 2,
            "size": [320, 180],
            "fps": 15,
            "duration": [3, 4],
            "scenes3d": {
                "humans": float(motion.renderer == "human"),
                "objects": float(motion.renderer == "object3d"),
                "duration": [3, 4],
            },
        }
    )
    specs = plan(cfg)
    assert specs and all(s.motion == name for s in specs)
    for spec in specs:
        row = render_spec(spec, tmp_path)
        assert row["note"] == motion.note
        verdict = verify_row(row, tmp_path)
        assert verdict is not None and verdict.ok, verdict
