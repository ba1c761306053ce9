"""Checks of one config field each: a wrong type or an out-of-range value is a
:class:`~tempogen.config.schema.ConfigError` naming the file and the field."""

from __future__ import annotations

import math
from dataclasses import fields
from typing import Any, TypeVar

from tempogen.config.schema import ConfigError

Num = TypeVar("Num", int, float)


def fail(src: str, path: str, msg: str) -> ConfigError:
    """The error for field ``path`` of config ``src``; it keeps the field (to find its line)."""
    err = ConfigError(f"{src}: {path}: {msg}")
    err.field, err.detail = path, msg
    return err


def number(
    src: str, path: str, v: Any, kind: type[Num], lo: float | None = None, hi: float | None = None
) -> Num:
    """``v`` as a ``kind`` number (no bool, no NaN) within ``lo``..``hi``."""
    if (
        isinstance(v, bool)
        or not isinstance(v, (int, float))
        or (kind is int and not isinstance(v, int))
    ):
        raise fail(src, path, f"expected {kind.__name__}, got {v!r}")
    if isinstance(v, float) and not math.isfinite(v):
        raise fail(src, path, f"must be a finite number, got {v!r}")
    if lo is not None and v < lo:
        raise fail(src, path, f"must be >= {lo}, got {v!r}")
    if hi is not None and v > hi:
        raise fail(src, path, f"must be <= {hi}, got {v!r}")
    return kind(v)


def pair(
    src: str,
    path: str,
    v: Any,
    kind: type[Num],
    lo: float,
    ordered: bool = True,
    hi: float | None = None,
) -> tuple[Num, Num]:
    """``v`` as two ``kind`` numbers within the bounds, the first not above the second if
    ``ordered``."""
    if not isinstance(v, (list, tuple)) or len(v) != 2:
        raise fail(src, path, f"expected a list of two numbers, got {v!r}")
    a, b = (number(src, f"{path}[{i}]", x, kind, lo, hi) for i, x in enumerate(v))
    if ordered and a > b:
        raise fail(src, path, f"first value must not exceed the second, got {v!r}")
    return a, b


def strings(src: str, path: str, v: Any, allowed: tuple[str, ...] | None) -> tuple[str, ...]:
    """``v`` as a list of distinct names, each in ``allowed`` (None: any name)."""
    if isinstance(v, str) or not isinstance(v, (list, tuple)):
        raise fail(src, path, f"expected a list of names, got {v!r}")
    for i, x in enumerate(v):
        if not isinstance(x, str):
            raise fail(src, f"{path}[{i}]", f"expected a name, got {x!r}")
        if allowed is not None and x not in allowed:
            raise fail(src, f"{path}[{i}]", f"unknown name {x!r}; known: {', '.join(allowed)}")
    if len(set(v)) != len(v):
        raise fail(src, path, f"names repeat in {list(v)}")
    return tuple(v)


def choice(src: str, path: str, v: Any, allowed: tuple[str, ...]) -> str:
    """One of ``allowed``, else an error naming the field and the choices."""
    if not isinstance(v, str) or v not in allowed:
        raise fail(src, path, f"expected one of {', '.join(allowed)}, got {v!r}")
    return v


def check_keys(src: str, prefix: str, data: dict[str, Any], cls: type) -> None:
    """Refuse a key of ``data`` that is no field of the dataclass ``cls``."""
    known = [f.name for f in fields(cls)]
    for k in data:
        if k not in known:
            raise fail(src, f"{prefix}{k}", f"unknown field; known fields: {', '.join(known)}")


def section(src: str, name: str, v: Any) -> dict[str, Any]:
    """The mapping of section ``name`` (absent or null: empty)."""
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise fail(src, name, f"expected a mapping, got {v!r}")
    return v
