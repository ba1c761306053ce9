"""The config reference (docs/reference/config.md) against the schema and the validator: every
key is there, every default is the dataclass's, every bound and choice is the one
``config_from_dict`` enforces."""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tempogen.config import ConfigError, DatasetConfig, config_from_dict
from tempogen.config.reference import config_reference, undocumented
from tempogen.config.schema import doc

ROW = re.compile(
    r"^\| `(?P<key>[^`]+)` \| (?P<type>[^|]*) \| `(?P<default>[^`]*)` \| (?P<allowed>[^|]*) \| "
    r"(?P<doc>.*) \|$"
)
BOUNDS = re.compile(r"^(?P<each>each )?`(?P<lo>[-\d.e+]+)` to `(?P<hi>[-\d.e+]+)`")
PER_TASK = re.compile(r"per task `(\d+)` to `(\d+)`")
CHOICES = re.compile(r"one of ((?:`[^`]+`(?:, )?)+)")

# Keys whose bound can only be reached with another key set (the page's notes say so).
CONTEXT: dict[str, dict[str, Any]] = {
    "scenes3d.humans": {"scenes3d.objects": 0},
    "scenes3d.objects": {"scenes3d.humans": 0},
    "mocap.share": {"mocap.files": ["walk.bvh"]},
}


def rows() -> dict[str, dict[str, str]]:
    """The page's table rows by key, parsed from the rendered Markdown."""
    out = {}
    for line in config_reference().splitlines():
        m = ROW.match(line)
        if m:
            out[m["key"]] = m.groupdict()
    return out


def leaf_keys(cls: type, prefix: str = "") -> tuple[list[str], list[str]]:
    """Every leaf field and every section of ``cls``, dotted, read from the dataclasses."""
    leaves, sections = [], []
    for f in dataclasses.fields(cls):
        if dataclasses.is_dataclass(f.default_factory):
            sections.append(prefix + f.name)
            sub_leaves, sub_sections = leaf_keys(f.default_factory, f"{prefix}{f.name}.")
            leaves += sub_leaves
            sections += sub_sections
        elif f.name != "source":  # the config's own file name, set by the loader
            leaves.append(prefix + f.name)
    return leaves, sections


def nest(flat: dict[str, Any]) -> dict[str, Any]:
    """``{"a.b": 1}`` -> ``{"a": {"b": 1}}``."""
    out: dict[str, Any] = {}
    for key, v in flat.items():
        *parents, last = key.split(".")
        node = out
        for p in parents:
            node = node.setdefault(p, {})
        node[last] = v
    return out


def dataclass_default(key: str) -> Any:
    v: Any = DatasetConfig()
    for part in key.split("."):
        v = getattr(v, part)
    if key == "mocap.joint_maps":
        return dict(v)
    return json.loads(json.dumps(v))  # tuples as lists, as the page shows them


@pytest.fixture
def probe(tmp_path: Path):
    """``probe({"a.b": v})``: the config loaded from a file beside a motion file, or the error."""
    (tmp_path / "walk.bvh").write_text("HIERARCHY\n")
    src = tmp_path / "c.yaml"
    src.write_text("{}\n")

    def load(flat: dict[str, Any]) -> DatasetConfig:
        return config_from_dict(nest(flat), str(src))

    return load


def refused(load, flat: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as err:
        load(flat)
    got = err.value.field or ""
    assert got == key or got.startswith(f"{key}[") or got.startswith(f"{key}."), (
        flat,
        str(err.value),
    )


def test_every_field_and_section_is_in_the_reference() -> None:
    leaves, sections = leaf_keys(DatasetConfig)
    page = config_reference()
    assert sorted(rows()) == sorted(leaves)
    for s in sections:
        assert f"## `{s}`" in page, s
    assert undocumented() == []
    assert len(leaves) >= 30  # every section's keys, not only the top level's


def test_every_documented_default_is_the_dataclass_default(probe) -> None:
    for key, row in rows().items():
        shown = json.loads(row["default"])
        assert shown == dataclass_default(key), key
        # and the default, written into a config, loads to the default config
        cfg = probe({key: shown})
        assert cfg == DatasetConfig(), key
        assert cfg.executor == DatasetConfig().executor, key


def _bound_value(row: dict[str, str], x: float) -> Any:
    v: Any = int(x) if row["type"].startswith(("int", "[int")) else float(x)
    return [v, v] if row["type"].startswith("[") else v


def test_every_documented_bound_is_the_validators(probe) -> None:
    checked = 0
    for key, row in rows().items():
        m = BOUNDS.match(row["allowed"])
        if not m:
            continue
        assert bool(m["each"]) == row["type"].startswith("["), key
        step = 1 if row["type"].startswith(("int", "[int")) else 1e-6
        lo, hi = float(m["lo"]), float(m["hi"])
        if row["type"].startswith("int"):
            lo, hi = int(m["lo"]), int(m["hi"])  # 2**63 - 1 is not exact as a float
        ctx = CONTEXT.get(key, {})
        for at, past in ((lo, lo - step), (hi, hi + step)):
            probe({**ctx, key: _bound_value(row, at)})  # accepted
            refused(probe, {**ctx, key: _bound_value(row, past)}, key)
        checked += 1
    assert checked >= 20


def test_the_per_task_counts_bounds_are_the_validators(probe) -> None:
    row = rows()["samples_per_task"]
    lo, hi = map(int, PER_TASK.search(row["allowed"]).groups())
    probe({"samples_per_task": {"count": lo, "direction": 1}})
    probe({"samples_per_task": {"count": hi}})
    refused(probe, {"samples_per_task": {"count": lo - 1, "direction": 1}}, "samples_per_task")
    refused(probe, {"samples_per_task": {"count": hi + 1}}, "samples_per_task")


def test_every_documented_choice_is_accepted_and_no_other(probe) -> None:
    checked = 0
    for key, row in rows().items():
        m = CHOICES.search(row["allowed"])
        if not m:
            continue
        listed = row["type"].startswith("list")
        assert bool(re.search(r"each one of", row["allowed"])) == listed, key
        choices = [json.loads(c) for c in re.findall(r"`([^`]+)`", m[1])]
        for c in choices:
            probe({key: [c] if listed else c})
        refused(probe, {key: ["not-a-choice"] if listed else "not-a-choice"}, key)
        checked += 1
    assert checked == 5  # tasks, shortcuts, style.backgrounds, encode.preset, executor.kind


def test_a_field_without_doc_fails_the_coverage_check() -> None:
    @dataclass(frozen=True)
    class Inner:
        ok: int = doc(1, "documented")
        bare: float = 0.5

    @dataclass(frozen=True)
    class Outer:
        top: int = 3
        inner: Inner = field(default_factory=Inner)

    assert undocumented(Outer) == ["top", "inner.bare"]

    class Undocumented:  # a section with neither a field doc nor a docstring
        pass

    Bare = dataclass(frozen=True)(type("Bare", (), {"__annotations__": {"x": "int"},
                                                   "x": doc(1, "x")}))  # fmt: skip
    Bare.__doc__ = None

    @dataclass(frozen=True)
    class Holder:
        sec: Bare = field(default_factory=Bare)  # type: ignore[valid-type]

    assert undocumented(Holder) == ["sec"]


def test_the_page_is_one_table_per_section_in_schema_order() -> None:
    page = config_reference()
    _, sections = leaf_keys(DatasetConfig)
    parts = ("\n" + page).split("\n## ")[1:]
    assert [p.splitlines()[0] for p in parts] == ["Top-level keys"] + [f"`{s}`" for s in sections]
    assert "\n\n## " in page and "\n## " not in page.replace("\n\n## ", "")  # blank line before
    top = {f.name: f for f in dataclasses.fields(DatasetConfig)}
    for part, prefix in zip(parts, ["", *(f"{s}." for s in sections)]):
        lines = part.splitlines()
        assert lines[1] == "", lines[:2]
        at = lines.index("| key | type | default | allowed | description |")
        assert lines[at + 1] == "|---|---|---|---|---|"
        keys = [ROW.match(line)["key"] for line in lines[at + 2 :] if line]
        want = [k for k in rows() if k.startswith(prefix) and "." not in k[len(prefix) :]]
        assert keys == want, (prefix, keys)
        if prefix:
            f = top[prefix.rstrip(".")]
            text = " ".join(part.split())
            assert " ".join(f.default_factory.__doc__.replace("``", "`").split())[:50] in text
            if f.metadata.get("doc"):
                assert f.metadata["doc"] in text, prefix
    for key, row in rows().items():
        assert "`null` to" not in row["allowed"] and "to `null`" not in row["allowed"], key
    noted = {"size", "scenes3d.humans", "scenes3d.objects", "mocap.share", "executor.address"}
    for key in noted:
        assert rows()[key]["allowed"].endswith(("yuv420p)", "at most 1", "needs `files`",
                                                 "`kind: ray`")), key  # fmt: skip
