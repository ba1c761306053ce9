"""Edit pipelines declared in YAML: a list of op names or one-key mappings of op to params.

    [reverse, {mirror: horizontal}, {speed: 2}, {zoom_in: {subject: main, margin: 0.2}}]

A file may hold one pipeline (a list) or named variants (a mapping of name to list).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tempogen.editing.clip import Clip, EditError
from tempogen.editing.ops.base import Op, make_op


def parse_pipeline(spec: Any, where: str = "pipeline") -> list[Op]:
    """Ops from a parsed list; errors name the position and the op."""
    if not isinstance(spec, list):
        raise EditError(f"{where}: expected a list of ops, got {type(spec).__name__}")
    ops = []
    for i, item in enumerate(spec):
        if isinstance(item, str):
            name, params = item, None
        elif isinstance(item, dict) and len(item) == 1:
            name, params = next(iter(item.items()))
        else:
            raise EditError(f"{where}[{i}]: expected an op name or a one-key mapping, got {item!r}")
        try:
            ops.append(make_op(str(name), params))
        except EditError as exc:
            raise EditError(f"{where}[{i}]: {exc}") from None
    return ops


def load_pipelines(path: str | os.PathLike[str]) -> dict[str, list[Op]]:
    """Named pipelines from a YAML file (a bare list is named after the file)."""
    from tempogen.errors import InputFileError
    from tempogen.io import load_yaml
    from tempogen.paths import safe_name

    p = Path(path)
    try:
        data, lines = load_yaml(p, "pipeline")
    except InputFileError as exc:
        raise EditError(str(exc)) from exc
    if isinstance(data, list):
        safe_name(p.stem, str(p), "variant name (the file's name)", forbid="~")
        return {p.stem: parse_pipeline(data, str(p))}
    if isinstance(data, dict) and data:
        for k in data:  # a variant's name becomes part of its clips' file names
            safe_name(k, f"{p}:{lines.get(str(k), 1)}", "variant name", forbid="~")
        return {
            str(k): parse_pipeline(v, f"{p}:{lines.get(str(k), 1)}: {k}") for k, v in data.items()
        }
    raise EditError(f"{p}: expected a list of ops or a mapping of variant name to list")


def run_pipeline(clip: Clip, ops: Sequence[Op]) -> Clip:
    """Apply ops in order; a clip past the cost limits is refused before its frames are made."""
    from tempogen.editing.ops.base import check_cost

    for op in ops:
        clip = op(clip)
        check_cost(op, clip.num_frames, clip.size)  # joins and plugin ops too: before any frame
    return clip
