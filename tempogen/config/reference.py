"""The config reference of the docs (``docs/reference/config.md``), rendered from the schema's
dataclasses and their fields' ``metadata`` (:func:`tempogen.config.schema.doc`), so that a key,
default, bound or choice cannot be documented differently from the code."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from dataclasses import MISSING, Field, dataclass
from typing import Any, cast

from tempogen.config.schema import DatasetConfig, json_lists

# How each annotation the schema uses reads in YAML terms (a new one must be added here).
TYPES = {
    "int": "int",
    "float": "number",
    "str": "string",
    "bool": "true or false",
    "str | None": "string or null",
    "float | None": "number or null",
    "tuple[int, int]": "[int, int]",
    "tuple[float, float]": "[number, number]",
    "tuple[float, float] | None": "[number, number] or null",
    "tuple[str, ...]": "list of strings",
    "tuple[tuple[str, str], ...]": "mapping of string to string",
    "int | dict[str, int]": "int, or mapping of task to int",
}
LISTS = {"tuple[int, int]", "tuple[float, float]", "tuple[float, float] | None", "tuple[str, ...]"}


@dataclass(frozen=True)
class Key:
    """One config key as the reference shows it."""

    key: str  # dotted: ``style.distractors``
    type: str
    default: Any  # as YAML/JSON reads it back (lists, mappings, null)
    lo: float | None
    hi: float | None
    choices: tuple[str, ...]
    each: bool  # the bounds or choices apply to each item of a list
    per_task: tuple[int, int] | None  # bounds of each count of a per-task mapping
    note: str
    doc: str


def _sections(cls: type) -> Iterator[tuple[str, type, str]]:
    """``(prefix, dataclass, doc)`` of ``cls`` and of each section under it, depth first."""
    yield "", cls, ""
    for f in dataclasses.fields(cls):
        if _section(f):
            sub = cast(type, f.default_factory)
            yield f"{f.name}.", sub, f.metadata.get("doc", "")
            yield from ((f"{f.name}.{p}", c, d) for p, c, d in _sections(sub) if p)


def _section(f: Field[Any]) -> bool:
    return f.default_factory is not MISSING and dataclasses.is_dataclass(f.default_factory)


def _default(f: Field[Any]) -> Any:
    v: Any = f.default if f.default_factory is MISSING else f.default_factory()
    if f.type == "tuple[tuple[str, str], ...]":
        return dict(v)
    return json_lists(v)


def keys(cls: type = DatasetConfig) -> list[Key]:
    """Every leaf key of ``cls`` and of its sections (sections themselves excluded), in the
    schema's order: the top-level keys, then each section's."""
    out = []
    for prefix, sec, _ in _sections(cls):
        for f in dataclasses.fields(sec):
            if _section(f) or f.metadata.get("internal"):
                continue
            m = f.metadata
            if f.type not in TYPES:
                raise TypeError(f"{prefix}{f.name}: no reference type for {f.type!r}")
            out.append(
                Key(
                    key=prefix + f.name,
                    type=TYPES[str(f.type)],
                    default=_default(f),
                    lo=m.get("lo"),
                    hi=m.get("hi"),
                    choices=tuple(m.get("choices", ())),
                    each=f.type in LISTS,
                    per_task=m.get("per_task"),
                    note=m.get("note", ""),
                    doc=m.get("doc", ""),
                )
            )
    return out


def undocumented(cls: type = DatasetConfig) -> list[str]:
    """The keys of ``cls`` (recursively) with no ``doc`` in their metadata, and the sections
    with neither a field ``doc`` nor a class docstring: what the reference would leave blank."""
    missing = [k.key for k in keys(cls) if not k.doc.strip()]
    for prefix, sec, text in _sections(cls):
        if prefix and not (text or _clean(sec.__doc__ or "")):
            missing.append(prefix.rstrip("."))
    return missing


def _clean(text: str) -> str:
    """A docstring as one Markdown paragraph (reST roles and double backticks as code)."""
    text = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", text)
    return " ".join(text.replace("``", "`").split())


def _code(v: Any) -> str:
    return "`" + json.dumps(v, ensure_ascii=False) + "`"


def allowed(k: Key) -> str:
    """The bounds, choices and rules of one key, as its table cell shows them."""
    parts = []
    each = "each " if k.each else ""
    if k.lo is not None or k.hi is not None:
        parts.append(f"{each}{_code(k.lo)} to {_code(k.hi)}")
    if k.per_task:
        parts.append(f"per task {_code(k.per_task[0])} to {_code(k.per_task[1])}")
    if k.choices:
        parts.append(f"{each}one of " + ", ".join(_code(c) for c in k.choices))
    if k.note:
        parts.append(k.note)
    return "; ".join(parts)


def _table(rows: list[Key]) -> list[str]:
    lines = ["| key | type | default | allowed | description |", "|---|---|---|---|---|"]
    for k in rows:
        cells = [f"`{k.key}`", k.type, _code(k.default), allowed(k), k.doc]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return lines


def config_reference(cls: type = DatasetConfig) -> str:
    """The Markdown of every config key: a table of the top-level keys, then one per section
    (its docstring above it)."""
    rows = keys(cls)
    out = ["## Top-level keys", "", *_table([k for k in rows if "." not in k.key])]
    for prefix, sec, text in _sections(cls):
        if not prefix:
            continue
        name = prefix.rstrip(".")
        out += ["", f"## `{name}`", "", _clean(sec.__doc__ or "")]
        if text:
            out += ["", _clean(text)]
        direct = [k for k in rows if k.key.startswith(prefix) and "." not in k.key[len(prefix) :]]
        out += ["", *_table(direct)]
    return "\n".join(out) + "\n"
