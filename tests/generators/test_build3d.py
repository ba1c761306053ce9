"""How the build plans and renders patterns that draw themselves (3D worlds).

The pattern here renders its own frames through the ``World`` protocol (it paints the
subject's disc with NumPy, no GL), so these tests exercise the planner's 3D slots, the
dispatch to ``scene.world``, the manifest's note and variation flags, and the frame-count
guard, independently of any renderer.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from tempogen.config import config_from_dict
from tempogen.generators.motion import MOTIONS, Motion, Scene, get_motion, register_motion
from tempogen.labels import Labels


class _DiscWorld:
    def __init__(self, labels_of: Scene, extra: int = 0) -> None:
        self.scene = labels_of
        self.extra = extra

    def frames(self, background: str, rng: np.random.Generator) -> Iterator[np.ndarray]:
        labels: Labels = self.scene.labels()
        t = labels.subject
        yy, xx = np.mgrid[0 : labels.height, 0 : labels.width]
        shade = int(rng.integers(10, 40))
        for i in range(labels.num_frames + self.extra):
            frame = np.full((labels.height, labels.width, 3), shade, np.uint8)
            j = min(i, labels.num_frames - 1)
            inside = (xx - t.x[j]) ** 2 + (yy - t.y[j]) ** 2 <= (t.size * t.scale[j]) ** 2
            frame[inside] = t.color
            yield frame


@pytest.fixture
def slide3d():
    @register_motion
    class Slide3D(Motion):
        name = "slide3d_test"
        task = "direction"
        fact = "direction"
        answers = (("left",), ("right",))
        question = "Which way does {subject} move, from the viewer's perspective?"
        renderer = "object3d"
        note = "simulated 3D objects"
        extra_frames = 0

        def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
            look = scene.subject_look(("circle",), size=scene.unit * 1.5)
            sign = 1 if answer == ("right",) else -1
            x = scene.width / 2 + sign * (scene.frames / scene.n - 0.5) * 0.6 * scene.width
            scene.add("subject", look, x, scene.height / 2)
            scene.meta["variation"] = {"first_person": 1}
            scene.world = _DiscWorld(scene, self.extra_frames)
            scene.ask(["subject"])

    try:
        yield MOTIONS["slide3d_test"]
    finally:
        MOTIONS.pop("slide3d_test", None)


def _cfg(objects: float):
    return config_from_dict(
        {
            "tasks": ["direction"],
            "motions": ["slide", "slide3d_test"],
            "samples_per_task": 24,
            "size": [160, 90],
            "fps": 10,
            "duration": [4, 6],
            "style": {"distractors": [1, 1]},
            "scenes3d": {"humans": 0, "objects": objects, "duration": [3, 3]},
        }
    )


def test_plan_gives_3d_patterns_only_their_slots(slide3d) -> None:
    from tempogen.generators.build import plan

    specs = plan(_cfg(0.125))
    solid = [s for s in specs if s.motion == "slide3d_test"]
    assert len(solid) == 3
    assert all(s.num_frames == 32 for s in solid)  # scenes3d.duration, floored at 32 frames
    assert all(s.answer_key in ("left", "right") for s in solid)
    assert plan(_cfg(0.125)) == specs  # deterministic
    flat = [s.motion for s in plan(_cfg(0.0))]
    assert "slide3d_test" not in flat
    # its answers cycle over its own keys, each within one
    keys = [s.answer_key for s in specs if s.motion == "slide3d_test"]
    per = [keys.count(k) for k in MOTIONS["slide3d_test"].keys()]
    assert max(per) - min(per) <= 1, keys


def test_a_world_renders_the_clip_and_fills_the_row(slide3d, tmp_path) -> None:
    from tempogen.generators.build import plan, render_spec
    from tempogen.video import read_video

    spec = next(s for s in plan(_cfg(0.1)) if s.motion == "slide3d_test")
    row = render_spec(spec, tmp_path)
    assert row["note"] == "simulated 3D objects"
    assert row["variation"]["first_person"] == 1
    assert row["demonstration_type"] == "simulated"
    assert len(row["labels"]["tracks"]) == 1  # no 2D distractors in a 3D scene
    frames = list(read_video(tmp_path / row["video"], np.array([0, spec.num_frames - 1])))
    labels = Labels.from_json(row["labels"])
    t = labels.subject
    for frame, j in zip(frames, (0, spec.num_frames - 1)):
        ys, xs = np.nonzero(np.abs(frame.astype(int) - t.color).sum(axis=2) < 60)
        assert abs(xs.mean() - t.x[j]) < 1.5 and abs(ys.mean() - t.y[j]) < 1.5


def test_a_world_that_renders_the_wrong_number_of_frames_fails_cleanly(slide3d, tmp_path) -> None:
    from tempogen.generators.build import plan, render_spec

    slide3d.extra_frames = 2
    spec = next(s for s in plan(_cfg(0.1)) if s.motion == "slide3d_test")
    with pytest.raises(RuntimeError, match="rendered 34 frames, its labels have 32"):
        render_spec(spec, tmp_path)
    assert not list((tmp_path / "videos").glob("*"))
    assert not (tmp_path / "clips" / f"{spec.id}.json").exists()


def test_default_mix_is_tomato_like_in_every_task() -> None:
    # issue 12: by demonstration type at least 40% humans and 30% 3D objects, per task
    from collections import Counter

    from tempogen.config import load_config
    from tempogen.generators.build import plan

    cfg = load_config("configs/default.yaml")
    specs = plan(cfg)
    kinds = Counter((s.task, MOTIONS[s.motion].renderer) for s in specs)
    for task in cfg.tasks:
        n = cfg.samples_for(task)
        assert kinds[(task, "human")] >= max(5, 0.4 * n), (task, kinds)
        assert kinds[(task, "object3d")] >= max(5, 0.3 * n), (task, kinds)
    assert plan(cfg) == specs


def test_shares_are_rounded_up_and_never_overlap(slide3d) -> None:
    from tempogen.generators.build import plan

    # 24 slots: 0.05 -> 1.2 -> 2 slots; 0.3 -> 7.2 -> 8; 1.0 -> all 24
    assert sum(s.motion == "slide3d_test" for s in plan(_cfg(0.05))) == 2
    assert sum(s.motion == "slide3d_test" for s in plan(_cfg(0.3))) == 8
    assert all(s.motion == "slide3d_test" for s in plan(_cfg(1.0)))


def test_samples_per_task_by_task_and_bad_shares() -> None:
    from tempogen.config import ConfigError
    from tempogen.generators.build import plan

    cfg = config_from_dict(
        {"samples_per_task": {"count": 3, "rotation": 5}, "scenes3d": {"humans": 0, "objects": 0}}
    )
    got = {t: sum(s.task == t for s in plan(cfg)) for t in ("count", "rotation", "direction")}
    assert got == {"count": 3, "rotation": 5, "direction": 0}
    with pytest.raises(ConfigError, match=r"samples_per_task\.counting: unknown task"):
        config_from_dict({"samples_per_task": {"counting": 3}})
    with pytest.raises(ConfigError, match="add up to more than 1"):
        config_from_dict({"scenes3d": {"humans": 0.7, "objects": 0.5}})
    with pytest.raises(ConfigError, match=r"scenes3d\.per_task: unknown field"):
        config_from_dict({"scenes3d": {"per_task": 3}})


def test_tomato_scale_config_has_tomatos_counts_mix_and_durations() -> None:
    from collections import Counter

    from tempogen.config import load_config
    from tempogen.generators.build import plan

    cfg = load_config("configs/tomato-scale.yaml")
    specs = plan(cfg)
    tasks = Counter(s.task for s in specs)
    assert tasks == {
        "count": 292,
        "direction": 403,
        "rotation": 286,
        "shape&trend": 223,
        "velocity&frequency": 210,
        "visual_cues": 70,
    }
    seconds = np.array([s.num_frames / s.fps for s in specs])
    assert 8.5 < seconds.mean() < 10.0
    kinds = Counter(MOTIONS[s.motion].renderer for s in specs)
    assert kinds["human"] / len(specs) > 0.38 and kinds["object3d"] / len(specs) > 0.38


TASKS = ("count", "direction", "rotation", "shape&trend", "velocity&frequency", "visual_cues")


def _objects_only(samples: int, size: list[int]):
    """Every task, with only the 3D-object patterns allowed and all slots going to them."""
    get_motion("spin")  # registers every built-in pattern
    solid = sorted(name for name, m in MOTIONS.items() if m.renderer == "object3d")
    return config_from_dict(
        {
            "tasks": list(TASKS),
            "motions": solid,
            "samples_per_task": samples,
            "size": size,
            "fps": 12,
            "duration": [3, 4],
            "scenes3d": {"humans": 0, "objects": 1.0, "duration": [3, 4]},
        }
    )


def test_objects_only_config_gives_every_task_every_class_in_3d() -> None:
    # issue 12: a motions filter of 3D-object patterns fills every task, each pattern giving
    # every answer it can
    from tempogen.generators.build import plan

    specs = plan(_objects_only(40, [320, 180]))
    for task in TASKS:
        mine = [s for s in specs if s.task == task]
        assert len(mine) == 40, task
        assert all(MOTIONS[s.motion].renderer == "object3d" for s in mine), task
        for name in {s.motion for s in mine}:
            got = {s.answer_key for s in mine if s.motion == name}
            made = sum(s.motion == name for s in mine)
            assert len(got) == min(made, len(MOTIONS[name].keys())), (task, name, got)


@pytest.mark.slow
def test_objects_only_build_renders_and_passes_the_pixel_audit(tmp_path) -> None:
    from tempogen.builders.audit.verify import verify_row
    from tempogen.generators.build import plan, render_spec
    from tempogen.generators.motion import certify

    specs = plan(_objects_only(2, [320, 180]))
    assert {s.task for s in specs} == set(TASKS)
    for spec in specs:
        row = render_spec(spec, tmp_path)
        assert row["note"] == "simulated 3D objects"
        cert = certify(Labels.from_json(row["labels"]))  # from the stored labels
        assert cert.ok(MOTIONS[spec.motion].fact, spec.answer_key), (spec.id, cert)
        verdict = verify_row(row, tmp_path)
        assert verdict is not None and verdict.ok, verdict
