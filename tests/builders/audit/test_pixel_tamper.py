"""The pixel audit reads pixels, not labels: a clip whose frames were edited while its labels
were kept is a disagreement, for every pattern of every reader (the 2D colour tracker, the 3D
hue reader, the simulated humans' glove reader) and so every fact they answer.

Each pattern renders one clip (and its minimal-pair twin where its fact has one) at a small
size. The frames are then edited three ways, the manifest row left as it was:

- ``mirror`` and ``reverse``: the library's own edit ops move the frames; the answer the edited
  frames show is the one the same op gives the labels (the label algebra, checked elsewhere);
- ``twin``: the video is swapped for the twin's, which shows the twin's answer (this covers
  facts a flip or a reversal keeps: counts, shapes, who does more, who is faster).

Wherever the edit changed the answer, ``verify_row`` must disagree and not give the kept
answer (with the 2D reader, whose flat colours are tracked exactly, and with a twin, it must
give the edited answer itself). Every pattern must be caught by at least one edit, and a
mirror (a reversal) must be caught on every pattern of a fact whose answer it always flips
(``MUST_FLIP``). Patterns come from the registry, so a new pattern or fact is covered.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tempogen import observe
from tempogen.builders.audit.verify import verify_row
from tempogen.config import config_from_dict
from tempogen.editing import Clip, Mirror, Reverse
from tempogen.errors import EditError
from tempogen.facts import FACTS, answer_of
from tempogen.generators.build import plan, render_spec
from tempogen.generators.motion import MOTIONS, SAMPLES, get_motion
from tempogen.labels import Labels
from tempogen.questions import answer_key

get_motion("spin")  # loads every built-in pattern
# patterns cut from a motion file are planned only from a mocap: section (test_mocap_plan.py)
PATTERNS = sorted(n for n, m in MOTIONS.items() if not m.needs_source)
EDITS = {"mirror": Mirror(), "reverse": Reverse()}
# facts whose answer (the first one a twin can flip: left, cw, accelerating, towards) the edit
# always changes: each pattern of these facts must be caught by that edit
MUST_FLIP = {
    "mirror": ("direction", "rotation"),
    "reverse": ("direction", "rotation", "speed", "approach"),
}


def _spec(name: str) -> Any:
    """One small spec of pattern ``name`` with an answer its fact can flip (a twin exists)."""
    m = MOTIONS[name]
    solid = m.renderer != "2d"
    cfg = config_from_dict(
        {
            "tasks": [m.task],
            "motions": [name],
            "samples_per_task": 1,
            "size": [320, 180] if solid else [160, 90],
            "fps": 8 if solid else 15,
            "duration": [3, 4],
            "scenes3d": {
                "humans": float(m.renderer == "human"),
                "objects": float(m.renderer == "object3d"),
                "duration": [3, 4],
            },
            "variants": {"share": 0},
            "vinoground": {"pairs": 0},
            "retrieval": {"pairs": 0},
            "shortcuts": "off",
        },
        f"{name}.yaml",
    )
    spec = plan(cfg)[0]
    keys = m.keys()
    flippable = [k for k in keys if FACTS[m.fact].twin(k, keys) is not None]
    return replace(spec, answer_key=(flippable or [spec.answer_key])[0])


def _key(labels: Labels) -> str | None:
    idx = observe.uniform_indices(labels.num_frames, SAMPLES)
    value = answer_of(labels, idx)
    return None if value is None else answer_key(labels.query.fact, value)


@pytest.mark.slow
@pytest.mark.parametrize("name", PATTERNS)
def test_edited_frames_with_labels_kept_disagree(name: str, tmp_path: Path) -> None:
    m = MOTIONS[name]
    spec = _spec(name)
    twin = FACTS[m.fact].twin(spec.answer_key, m.keys())
    if twin is not None:
        spec = replace(spec, pair=spec.id, twin_key=twin)
    row = render_spec(spec, tmp_path)
    honest = verify_row(row, tmp_path)
    assert honest is not None and honest.ok, honest  # the reader reads this clip right
    expected = row["answer_key"]
    labels = Labels.from_json(row["labels"])

    shown: dict[str, tuple[str, str | None]] = {}  # edit -> (video, answer its frames show)
    for tag, op in EDITS.items():
        try:
            out = op(Clip.from_video(tmp_path / row["video"], labels))
        except EditError:  # the op refuses what it cannot certify (e.g. next, reversed)
            continue
        assert out.labels is not None and out.num_frames == labels.num_frames
        video = f"videos/{row['id']}-{tag}.mp4"
        out.write(tmp_path / video)
        shown[tag] = (video, _key(out.labels))
    if twin is not None:
        other = render_spec(
            replace(spec, id=f"{spec.id}-twin", answer_key=twin, twin_key=spec.answer_key),
            tmp_path,
        )
        assert other["answer_key"] == twin
        shown["twin"] = (other["video"], twin)

    changed = {t: seen for t, (_, seen) in shown.items() if seen is not None and seen != expected}
    assert changed, f"{name}: no edit changed the answer {expected!r}; add one that does"
    for tag, flips in MUST_FLIP.items():
        assert m.fact not in flips or tag in changed, (name, tag, shown.get(tag))
    for tag, truth in changed.items():
        verdict = verify_row({**row, "video": shown[tag][0]}, tmp_path)
        assert verdict is not None and not verdict.ok, (name, tag, verdict)
        assert verdict.seen != expected, (name, tag, verdict)
        if tag == "twin" or m.renderer == "2d":  # a flat colour's centroid is exact
            assert verdict.seen == truth, (name, tag, verdict)
