"""config: the shipped configs load, and every wrong field is a ConfigError naming file and field."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from tempogen.config import ConfigError, DatasetConfig, config_from_dict, load_config
from tempogen.questions import TASKS

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["default.yaml", "tiny.yaml"])
def test_shipped_configs_load_with_their_values(name):
    path = REPO / "configs" / name
    raw = yaml.safe_load(path.read_text())
    cfg = load_config(path)
    base = DatasetConfig()
    assert cfg.seed == raw["seed"]
    assert cfg.size == tuple(raw["size"])
    assert cfg.fps == float(raw["fps"]) and isinstance(cfg.fps, float)
    assert cfg.duration == tuple(float(v) for v in raw["duration"])
    assert cfg.samples_per_task == raw["samples_per_task"]
    assert cfg.tasks == tuple(raw.get("tasks", base.tasks))
    style = raw.get("style", {})
    assert cfg.style.distractors == tuple(style.get("distractors", base.style.distractors))
    assert cfg.style.misleading_text == style.get("misleading_text", base.style.misleading_text)
    assert cfg.style.backgrounds == tuple(style.get("backgrounds", base.style.backgrounds))
    enc = raw.get("encode", {})
    assert cfg.encode.crf == enc.get("crf", base.encode.crf)
    assert cfg.encode.preset == enc.get("preset", base.encode.preset)
    var = raw.get("variants", {})
    assert cfg.variants.share == var.get("share", base.variants.share)


def test_default_config_names_every_task():
    assert load_config(REPO / "configs" / "default.yaml").tasks == TASKS


def test_empty_file_gives_defaults(tmp_path):
    p = tmp_path / "empty.yaml"
    p.write_text("# nothing here\n")
    assert load_config(p) == DatasetConfig()


def test_to_json_round_trips_through_config_from_dict(tmp_path):
    cfg = load_config(REPO / "configs" / "default.yaml")
    d = cfg.to_json()
    p = tmp_path / "again.yaml"
    p.write_text(yaml.safe_dump(d))
    assert load_config(p) == cfg


def test_partial_sections_keep_other_defaults(tmp_path):
    p = tmp_path / "part.yaml"
    p.write_text("style:\n  misleading_text: 0.5\nencode:\n  crf: 23\nmotions: [spin, slide]\n")
    cfg = load_config(p)
    assert cfg.style.misleading_text == 0.5
    assert cfg.style.distractors == DatasetConfig().style.distractors
    assert cfg.encode == type(cfg.encode)(crf=23, preset=DatasetConfig().encode.preset)
    assert cfg.motions == ("spin", "slide")


BAD = [
    ("colour: red\n", "colour"),
    ("seed: 1\nstyle:\n  foo: 1\n", "style.foo"),
    ("encode:\n  bitrate: 5\n", "encode.bitrate"),
    ('fps: "fast"\n', "fps"),
    ("fps: 0.5\n", "fps"),
    ("fps: 1000\n", "fps"),
    ("seed: true\n", "seed"),
    ("seed: -3\n", "seed"),
    ("seed: 1.5\n", "seed"),
    ("size: [641, 360]\n", "size"),
    ("size: [640, 361]\n", "size"),
    ("size: [640]\n", "size"),
    ("size: [640.0, 360]\n", "size[0]"),
    ("size: [16, 16]\n", "size[0]"),
    ("duration: [5, 3]\n", "duration"),
    ("duration: [0.5, 3]\n", "duration[0]"),
    ("samples_per_task: 0\n", "samples_per_task"),
    ("tasks: [count, dancing]\n", "tasks[1]"),
    ("tasks: count\n", "tasks"),
    ("tasks: []\n", "tasks"),
    ("tasks: [count, count]\n", "tasks"),
    ("style: 3\n", "style"),
    ("style:\n  distractors: [0, 9]\n", "style.distractors"),
    ("style:\n  misleading_text: 2\n", "style.misleading_text"),
    ("style:\n  backgrounds: [plaid]\n", "style.backgrounds[0]"),
    ("style:\n  backgrounds: []\n", "style.backgrounds"),
    ("encode:\n  crf: 99\n", "encode.crf"),
    ("encode:\n  preset: warp\n", "encode.preset"),
    ("variants:\n  share: 1.5\n", "variants.share"),
    ("variants:\n  count: 3\n", "variants.count"),
    ("plugins: [no_such_tempogen_plugin_module]\n", "plugins[0]"),
]


@pytest.mark.parametrize("text,field", BAD, ids=[b[1] + ":" + b[0].strip() for b in BAD])
def test_bad_field_names_file_and_field(tmp_path, text, field):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError) as ei:
        load_config(p)
    msg = str(ei.value)
    line = text[: text.index(field.split(".")[-1].split("[")[0])].count("\n") + 1
    assert msg.startswith(f"{p}:{line}: {field}: "), msg  # file, line and field
    assert "\n" not in msg


def test_unknown_task_lists_the_known_ones(tmp_path):
    p = tmp_path / "t.yaml"
    p.write_text("tasks: [count, dancing]\n")
    with pytest.raises(ConfigError, match="dancing") as ei:
        load_config(p)
    assert all(t in str(ei.value) for t in TASKS)


def test_top_level_must_be_a_mapping(tmp_path):
    p = tmp_path / "list.yaml"
    p.write_text("- seed\n- 3\n")
    with pytest.raises(ConfigError, match=r"top level must be a mapping") as ei:
        load_config(p)
    assert str(ei.value).startswith(str(p))


def test_bad_yaml_names_the_line(tmp_path):
    p = tmp_path / "syntax.yaml"
    lines = ["seed: 1", "fps: 30", "size: [640, 360]]", "samples_per_task: 3"]
    p.write_text("\n".join(lines) + "\n")
    bad_line = 3  # the stray bracket
    with pytest.raises(ConfigError) as ei:
        load_config(p)
    msg = str(ei.value)
    assert msg.startswith(f"{p}:{bad_line}: not valid YAML"), msg


def test_bad_indentation_names_the_line(tmp_path):
    p = tmp_path / "indent.yaml"
    p.write_text("seed: 1\nstyle:\n  distractors: [0, 1]\n    misleading_text: 0.2\n")
    with pytest.raises(ConfigError) as ei:
        load_config(p)
    assert str(ei.value).startswith(f"{p}:4: "), str(ei.value)


def test_missing_file_names_it(tmp_path):
    p = tmp_path / "nowhere" / "missing.yaml"
    with pytest.raises(ConfigError, match="cannot read config") as ei:
        load_config(p)
    assert str(ei.value).startswith(str(p))


def test_directory_instead_of_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config") as ei:
        load_config(tmp_path)
    assert str(ei.value).startswith(str(tmp_path))


def test_config_from_dict_names_the_source():
    with pytest.raises(ConfigError, match=r"^<config>: fps: expected float"):
        config_from_dict({"fps": "x"})
    with pytest.raises(ConfigError, match=r"^mine\.yaml: size: "):
        config_from_dict({"size": [3, 4, 5]}, "mine.yaml")
    assert config_from_dict(None) == DatasetConfig()


def test_non_utf8_file_is_a_config_error(tmp_path):
    p = tmp_path / "latin1.yaml"
    p.write_bytes(b"seed: 1\n# caf\xe9\n")
    with pytest.raises(ConfigError) as ei:
        load_config(p)
    assert str(ei.value).startswith(str(p))


@pytest.mark.parametrize(
    "data,field",
    [
        ({"fps": math.nan}, "fps"),
        ({"duration": [3.0, math.inf]}, "duration"),
        ({"style": {"misleading_text": math.nan}}, "style.misleading_text"),
    ],
    ids=["fps-nan", "duration-inf", "misleading-nan"],
)
def test_non_finite_numbers_are_rejected(data, field):
    with pytest.raises(ConfigError, match=rf"^x\.yaml: {field}"):
        config_from_dict(data, "x.yaml")


HOSTILE = [
    ("seed: " + "9" * 400 + "\n", r":1: seed: must be <= "),  # was an OverflowError
    ("samples_per_task: 100000000\n", r":1: samples_per_task: must be <= 100000"),
    ("duration: [3, 1.0e+400]\n", r":1: duration\[1\]: must be a finite number"),
    ("size: [640, 99999]\n", r":1: size\[1\]: must be <= 7680"),
    ("style:\n  distractors: " + "[" * 200 + "]" * 200 + "\n", r"nests deeper than 50"),
    (
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{c}: &{c} [" + ", ".join([f"*{p}"] * 10) + "]\n"
            for p, c in zip("abcdefgh", "bcdefghi")
        ),
        r":\d+: more than 20 YAML aliases",
    ),
]


@pytest.mark.parametrize("text,match", HOSTILE, ids=[m for _, m in HOSTILE])
def test_hostile_configs_are_clear_errors_not_crashes(tmp_path, text, match):
    # issue 13 item 8: tracebacks (OverflowError, RecursionError), a 254 MB alias bomb
    p = tmp_path / "h.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError, match=match) as ei:
        load_config(p)
    assert str(ei.value).startswith(str(p))


def test_non_utf8_and_huge_configs_name_the_file_and_line(tmp_path):
    p = tmp_path / "latin1.yaml"
    p.write_bytes(b"seed: 1\nstyle:\n  backgrounds: [caf\xe9]\n")
    with pytest.raises(ConfigError, match=rf"{p}:3: config is not UTF-8"):
        load_config(p)
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * (1 << 20) + "\nseed: 1\n")
    with pytest.raises(ConfigError, match="over the 1,048,576 limit"):
        load_config(big)


def test_shortcuts_setting():
    assert DatasetConfig().shortcuts == "fail"
    assert config_from_dict({"shortcuts": "warn"}).shortcuts == "warn"
    root = Path(__file__).resolve().parents[2]
    for name in ("default.yaml", "tomato-scale.yaml"):  # both pass the blind baselines
        assert load_config(root / "configs" / name).shortcuts == "fail"
    with pytest.raises(ConfigError, match=r"c.yaml: shortcuts: expected one of fail, warn, off"):
        config_from_dict({"shortcuts": "ignore"}, "c.yaml")


# -- costs (issue 25): one estimate, one limit check -----------------------------------------
def test_the_estimate_of_a_config_is_near_its_plan():
    from tempogen.config import config_estimate
    from tempogen.generators.build import plan

    tiny = load_config(REPO / "configs" / "tiny.yaml")
    longer = config_from_dict({"duration": [3.0, 10.0], "samples_per_task": 6}, "longer")
    for name, cfg in [("tiny", tiny), ("longer", longer)]:
        specs = plan(cfg)
        planned = sum(s.num_frames for s in specs)
        est = config_estimate(cfg)
        # the estimate adds edited variants and Vinoground's pairs to the planned clips
        assert planned <= est.frames <= 3 * planned, (name, planned, est)
        assert est.longest >= max(s.num_frames for s in specs) * 0.9
        assert est.excess() is None


def test_a_huge_config_passes_the_limit_and_says_by_how_much():
    from tempogen.config import MAX_CPU_SECONDS, check_estimate, config_estimate

    cfg = config_from_dict({"size": [7680, 7680], "fps": 240, "duration": [600, 600]}, "h.yaml")
    est = config_estimate(cfg)
    assert est.frames > 10_000_000 and est.seconds > MAX_CPU_SECONDS
    assert est.raw_bytes == est.frames * 7680 * 7680 * 3
    with pytest.raises(ConfigError) as err:
        check_estimate(est, cfg.source, how="pass --allow-large")
    msg = str(err.value)
    assert msg.startswith("h.yaml: about ") and "frames of 7680x7680" in msg
    assert "more than 24.0 h" in msg and "pass --allow-large" in msg
    assert check_estimate(est, cfg.source, allow=True) is est


def test_each_limit_is_checked_and_the_environment_can_lift_them(monkeypatch):
    from tempogen.config import (
        ALLOW_LARGE_ENV,
        MAX_CLIP_FRAMES,
        MAX_MEMORY,
        check_estimate,
        estimate,
    )

    monkeypatch.delenv(ALLOW_LARGE_ENV, raising=False)
    fine = estimate(MAX_CLIP_FRAMES, 64, 48, kind="edit")
    assert fine.excess() is None and check_estimate(fine, "x") is fine
    for est, words in [
        (estimate(MAX_CLIP_FRAMES + 1, 64, 48, kind="edit"), "longer than 144,000"),
        (estimate(10, 64, 48, held_bytes=MAX_MEMORY + 1), "of memory is more than"),
        (estimate(20_000_000, 640, 360, kind="human", longest=100), "of one core's time"),
    ]:
        assert words in (est.excess() or ""), est
        with pytest.raises(ConfigError, match=words):
            check_estimate(est, "x")
        monkeypatch.setenv(ALLOW_LARGE_ENV, "1")
        assert check_estimate(est, "x") is est
        monkeypatch.delenv(ALLOW_LARGE_ENV)


def test_the_time_estimate_follows_the_measured_rates():
    from tempogen.config import RATES, estimate

    # BENCHMARKS.md: TOMATO scale's mix ran at about 220 frames/s a core at 640x360
    mix = {"human": 0.414, "object3d": 0.421, "2d": 0.165}
    rate = 1000 / estimate(1000, 640, 360, kind=mix).seconds
    assert 180 < rate < 260
    # four times the pixels, four times the time; a tiny frame is not free
    big = estimate(100, 1280, 720).seconds
    assert big == pytest.approx(4 * estimate(100, 640, 360).seconds)
    assert estimate(100, 16, 16).seconds >= 100 / RATES["2d"] / 4
