"""Loading a config: a YAML file (errors name its line) or a parsed mapping validated field by
field into a :class:`~tempogen.config.schema.DatasetConfig`; defaults fill what is absent."""

from __future__ import annotations

import os
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from tempogen.config.checks import check_keys, choice, fail, number, pair, section, strings
from tempogen.config.mocap import mocap_section
from tempogen.config.schema import (
    ConfigError,
    DatasetConfig,
    EncodeConfig,
    ExecutorConfig,
    RetrievalConfig,
    Scenes3DConfig,
    StyleConfig,
    VariantsConfig,
    VinogroundConfig,
    choices,
    limits,
    per_task_limits,
)
from tempogen.errors import InputFileError
from tempogen.questions import TASKS


def _samples(src: str, v: Any) -> int | dict[str, int]:
    """``samples_per_task``: one count, or a mapping from task name to its count."""
    if not isinstance(v, dict):
        return number(src, "samples_per_task", v, int, *limits(DatasetConfig, "samples_per_task"))
    out = {}
    for task, n in v.items():
        if task not in TASKS:
            raise fail(src, f"samples_per_task.{task}", f"unknown task; known: {', '.join(TASKS)}")
        out[task] = number(src, f"samples_per_task.{task}", n, int, *per_task_limits())
    if not any(out.values()):
        raise fail(src, "samples_per_task", "every task has 0 questions")
    return out


def _executor(src: str, v: Any) -> ExecutorConfig:
    """``executor:``: a name (``ray``), or a mapping of ``kind``, ``address``, ``shared_out``."""
    if isinstance(v, str):
        return ExecutorConfig(choice(src, "executor", v, choices(ExecutorConfig, "kind")))
    ex = section(src, "executor", v)
    check_keys(src, "executor.", ex, ExecutorConfig)
    kind = choice(src, "executor.kind", ex.get("kind", "local"), choices(ExecutorConfig, "kind"))
    address = ex.get("address")
    if address is not None and (not isinstance(address, str) or not address.strip()):
        raise fail(
            src, "executor.address", f"expected HOST:PORT, auto or ray://..., got {address!r}"
        )
    if address is not None and kind != "ray":
        raise fail(src, "executor.address", "only the ray executor connects to an address")
    shared = ex.get("shared_out", False)
    if not isinstance(shared, bool):
        raise fail(src, "executor.shared_out", f"expected true or false, got {shared!r}")
    return ExecutorConfig(kind, address, shared)


def config_from_dict(data: Any, src: str = "<config>") -> DatasetConfig:
    """Validate a parsed mapping into a :class:`DatasetConfig`; defaults fill what is absent."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{src}: the top level must be a mapping, got {type(data).__name__}")
    check_keys(src, "", data, DatasetConfig)
    base = DatasetConfig()
    kw: dict[str, Any] = {}
    if "seed" in data:
        kw["seed"] = number(src, "seed", data["seed"], int, *limits(DatasetConfig, "seed"))
    if "size" in data:
        lo, hi = limits(DatasetConfig, "size")
        w, h = pair(src, "size", data["size"], int, lo, ordered=False, hi=hi)
        if w % 2 or h % 2:
            raise fail(src, "size", f"width and height must be even (yuv420p), got {[w, h]}")
        kw["size"] = (w, h)
    if "fps" in data:
        kw["fps"] = number(src, "fps", data["fps"], float, *limits(DatasetConfig, "fps"))
    if "duration" in data:
        lo, hi = limits(DatasetConfig, "duration")
        kw["duration"] = pair(src, "duration", data["duration"], float, lo, hi=hi)
    if "samples_per_task" in data:
        kw["samples_per_task"] = _samples(src, data["samples_per_task"])
    if "tasks" in data:
        kw["tasks"] = strings(src, "tasks", data["tasks"], choices(DatasetConfig, "tasks"))
    if "minimal_pairs" in data:
        kw["minimal_pairs"] = number(
            src,
            "minimal_pairs",
            data["minimal_pairs"],
            float,
            *limits(DatasetConfig, "minimal_pairs"),
        )
    if "shortcuts" in data:
        kw["shortcuts"] = choice(
            src, "shortcuts", data["shortcuts"], choices(DatasetConfig, "shortcuts")
        )
    if "executor" in data:
        kw["executor"] = _executor(src, data["executor"])
    if "plugins" in data:
        kw["plugins"] = strings(src, "plugins", data["plugins"], None)
        import_plugins(kw["plugins"], src)
    if "mocap" in data:
        folder = Path(src).resolve().parent if Path(src).is_file() else Path.cwd()
        kw["mocap"] = mocap_section(src, data["mocap"], folder)
    if "motions" in data:  # names are checked against the registry by the generators
        kw["motions"] = strings(src, "motions", data["motions"], None)
    style = section(src, "style", data.get("style"))
    check_keys(src, "style.", style, StyleConfig)
    skw: dict[str, Any] = {}
    if "distractors" in style:
        lo, hi = limits(StyleConfig, "distractors")
        skw["distractors"] = pair(src, "style.distractors", style["distractors"], int, lo)
        if skw["distractors"][1] > hi:
            raise fail(src, "style.distractors", f"at most {hi} distractors fit a clip")
    if "misleading_text" in style:
        skw["misleading_text"] = number(
            src,
            "style.misleading_text",
            style["misleading_text"],
            float,
            *limits(StyleConfig, "misleading_text"),
        )
    if "backgrounds" in style:
        skw["backgrounds"] = strings(
            src, "style.backgrounds", style["backgrounds"], choices(StyleConfig, "backgrounds")
        )
        if not skw["backgrounds"]:
            raise fail(src, "style.backgrounds", "name at least one background")
    if "temporal_noise" in style:
        skw["temporal_noise"] = number(
            src,
            "style.temporal_noise",
            style["temporal_noise"],
            float,
            *limits(StyleConfig, "temporal_noise"),
        )
    enc = section(src, "encode", data.get("encode"))
    check_keys(src, "encode.", enc, EncodeConfig)
    ekw: dict[str, Any] = {}
    if "crf" in enc:
        ekw["crf"] = number(src, "encode.crf", enc["crf"], int, *limits(EncodeConfig, "crf"))
    if "preset" in enc:
        ekw["preset"] = choice(src, "encode.preset", enc["preset"], choices(EncodeConfig, "preset"))
    vino = section(src, "vinoground", data.get("vinoground"))
    check_keys(src, "vinoground.", vino, VinogroundConfig)
    if "pairs" in vino:
        kw["vinoground"] = VinogroundConfig(
            number(src, "vinoground.pairs", vino["pairs"], int, *limits(VinogroundConfig, "pairs"))
        )
    s3 = section(src, "scenes3d", data.get("scenes3d"))
    check_keys(src, "scenes3d.", s3, Scenes3DConfig)
    s3kw: dict[str, Any] = {}
    for share in ("humans", "objects"):
        if share in s3:
            s3kw[share] = number(
                src, f"scenes3d.{share}", s3[share], float, *limits(Scenes3DConfig, share)
            )
    if s3kw.get("humans", base.scenes3d.humans) + s3kw.get("objects", base.scenes3d.objects) > 1:
        raise fail(src, "scenes3d", "the humans and objects shares add up to more than 1")
    if "duration" in s3:
        lo, hi = limits(Scenes3DConfig, "duration")
        s3kw["duration"] = pair(src, "scenes3d.duration", s3["duration"], float, lo, hi=hi)
    if "body_model" in s3:
        bm = s3["body_model"]
        if bm is not None and not isinstance(bm, str):
            raise fail(src, "scenes3d.body_model", f"expected a path or null, got {bm!r}")
        if bm and not Path(bm).expanduser().exists():
            raise fail(src, "scenes3d.body_model", f"no such body model file or folder: {bm!r}")
        s3kw["body_model"] = bm or ""
    kw["scenes3d"] = Scenes3DConfig(**{**asdict(base.scenes3d), **s3kw})
    ret = section(src, "retrieval", data.get("retrieval"))
    check_keys(src, "retrieval.", ret, RetrievalConfig)
    rkw: dict[str, Any] = {}
    if "pairs" in ret:
        rkw["pairs"] = number(
            src, "retrieval.pairs", ret["pairs"], int, *limits(RetrievalConfig, "pairs")
        )
    if "top_k" in ret:
        rkw["top_k"] = number(
            src, "retrieval.top_k", ret["top_k"], int, *limits(RetrievalConfig, "top_k")
        )
    if ret.get("no_match_threshold") is not None:
        rkw["no_match_threshold"] = number(
            src,
            "retrieval.no_match_threshold",
            ret["no_match_threshold"],
            float,
            *limits(RetrievalConfig, "no_match_threshold"),
        )
    kw["retrieval"] = RetrievalConfig(**{**asdict(base.retrieval), **rkw})
    var = section(src, "variants", data.get("variants"))
    check_keys(src, "variants.", var, VariantsConfig)
    if "share" in var:
        kw["variants"] = VariantsConfig(
            number(src, "variants.share", var["share"], float, *limits(VariantsConfig, "share"))
        )
    kw["style"] = StyleConfig(**{**asdict(base.style), **skw})
    kw["encode"] = EncodeConfig(**{**asdict(base.encode), **ekw})
    kw["source"] = src
    cfg = DatasetConfig(**{**{f.name: getattr(base, f.name) for f in fields(base)}, **kw})
    if not cfg.tasks:
        raise fail(src, "tasks", "name at least one task")
    return cfg


def import_plugins(modules: tuple[str, ...], src: str = "<config>") -> None:
    """Import the modules a config's ``plugins:`` names (motion patterns, facts, ops,
    exports), looked for on Python's path and then beside the config; ``src`` names the
    config. The config was passed by the user, so its plugins are allowed (see
    :mod:`tempogen.plugins`)."""
    from tempogen.plugins import load_plugins

    folder = Path(src).resolve().parent if Path(src).is_file() else None
    load_plugins(modules, src, folder=folder)


def load_config(path: str | os.PathLike[str]) -> DatasetConfig:
    """Read and validate a YAML config file; every error names the file, line and field."""
    from tempogen.io import load_yaml

    p = Path(path)
    try:
        data, lines = load_yaml(p, "config")
    except InputFileError as exc:
        raise ConfigError(str(exc)) from exc
    try:
        return config_from_dict(data, str(p))
    except ConfigError as exc:
        if not exc.field:
            raise
        line = _line_of(exc.field, lines)
        if not line:
            raise
        raise type(exc)(f"{p}:{line}: {exc.field}: {exc.detail}") from exc


def _line_of(path: str, lines: dict[str, int]) -> int | None:
    """The line of a field's key, or of its nearest enclosing key (``a.b[2]`` -> ``a.b``)."""
    while path:
        if path in lines:
            return lines[path]
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""
    return None
