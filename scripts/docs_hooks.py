"""MkDocs hooks: pages that are generated from the code, so they cannot go stale.

A page holds a marker line ``<!-- generated: NAME -->``; :func:`on_page_markdown` replaces it
with the text ``GENERATED[NAME]()`` returns (the config reference from the schema, the CLI
reference from the parser, ...)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GENERATED: dict[str, Callable[[], str]] = {}


def package_tree(dest: Path = ROOT / "build" / "griffe") -> Path:
    """A tree of links shaped like the installed package (``tempogen/generators`` and the
    other stage folders under ``tempogen/``, as pyproject's package-dir maps them), so that
    mkdocstrings reads ``tempogen.generators.scene`` from source without importing it."""
    import tomllib  # Python 3.11 (the docs build's); the package itself supports 3.10

    dirs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    top = dest / "tempogen"
    if top.exists():
        import shutil

        shutil.rmtree(top)
    top.mkdir(parents=True)
    for entry in (ROOT / "tempogen").iterdir():
        (top / entry.name).symlink_to(entry)
    for name, folder in dirs["package-dir"].items():
        if name.count(".") == 1:
            (top / name.split(".")[1]).symlink_to(ROOT / folder)
    return dest


package_tree()  # at import, before mkdocstrings collects (its paths: [build/griffe])

_MARKER = re.compile(r"^<!-- generated: ([\w-]+) -->$", re.M)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Fill each ``<!-- generated: NAME -->`` marker; an unknown name fails the build."""

    def fill(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in GENERATED:
            raise KeyError(f"{page.file.src_path}: no generator named {name!r}")
        return GENERATED[name]()

    return _MARKER.sub(fill, markdown)


def _config() -> str:
    from tempogen.config.reference import config_reference

    return config_reference()


def _cli() -> str:
    from tempogen.cli.reference import cli_reference

    return cli_reference()


def _schema_type(s: dict[str, Any]) -> str:
    """A JSON Schema node's type and rules, in a few words."""
    if "const" in s:
        return f"`{json.dumps(s['const'])}`"
    if "enum" in s:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in s["enum"])
    kind = s.get("type", "any")
    text = " or ".join(kind) if isinstance(kind, list) else kind
    if kind == "array" and "items" in s:
        item = s["items"]
        text += " of " + ("track" if "$ref" in item else _schema_type(item))
    rules = []
    for key, word in (("minimum", ">="), ("exclusiveMinimum", ">"), ("minLength", "length >=")):
        if key in s:
            rules.append(f"{word} {s[key]}")
    if "minItems" in s:
        rules.append(f"at least {s['minItems']} items")
    if s.get("pattern") == "^[0-9a-f]{64}$":
        rules.append("64 hex digits")
    elif "pattern" in s:
        rules.append(f"matches `{s['pattern']}`")
    return text + (f" ({', '.join(rules)})" if rules else "")


def manifest_rows(schema: dict[str, Any]) -> list[tuple[str, str, bool, str]]:
    """``(name, type, required, description)`` of every property of the manifest row schema,
    then of each object's own properties (``variation.zoom``), then of a track's."""
    out = []

    def walk(prefix: str, node: dict[str, Any]) -> None:
        required = set(node.get("required", ()))
        for name, prop in node.get("properties", {}).items():
            out.append((prefix + name, _schema_type(prop), name in required,
                        prop.get("description", "")))  # fmt: skip
            if prop.get("type") == "object" and "properties" in prop:
                walk(f"{prefix}{name}.", prop)

    walk("", schema)
    walk("labels.", schema["properties"]["labels"]["then"])
    walk("labels.tracks[].", schema["$defs"]["track"])
    return out


def undescribed(schema: dict[str, Any]) -> list[str]:
    """Top-level properties of a row schema with no description: the reference would be blank."""
    return [k for k, v in schema["properties"].items() if not v.get("description", "").strip()]


def _manifest() -> str:
    from tempogen.manifest import MANIFEST_SCHEMA

    lines = [MANIFEST_SCHEMA["description"], "", "| field | type | required | description |",
             "|---|---|---|---|"]  # fmt: skip
    for name, kind, req, desc in manifest_rows(MANIFEST_SCHEMA):
        cells = [f"`{name}`", kind, "yes" if req else "", " ".join(desc.split())]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def _formats() -> str:
    from tempogen.builders.exports import FORMATS

    lines = ["| format | folder | write | validate | score | run | what it is |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for name, f in FORMATS.items():
        can = ["yes" if getattr(f, p) else "" for p in ("write", "validate", "score", "run")]
        lines.append(f"| `{name}` | `{f.folder}/` | {' | '.join(can)} | {f.description} |")
    return "\n".join(lines) + "\n"


def _exit_codes() -> str:
    from tempogen import errors

    meaning = {
        "EXIT_OK": "Success; for a check, the data passed it.",
        "EXIT_BUG": "A bug in tempogen: its traceback is printed. Please report it.",
        "EXIT_USER": "A user's error (a bad option, config, input file or unwritable output: "
        "one line on stderr naming the file, line or field), or a check the user asked for "
        "that failed (`validate` on a broken manifest, `audit verify` below `--min`, `audit "
        "shortcuts` above chance, `captions audit --strict` with a failing pair).",
    }
    lines = ["| code | name | meaning |", "|---|---|---|"]
    for name in ("EXIT_OK", "EXIT_BUG", "EXIT_USER"):
        lines.append(f"| `{getattr(errors, name)}` | `tempogen.errors.{name}` | {meaning[name]} |")
    lines.append("| `128 + n` |  | Stopped by signal n (130: Ctrl-C, 143: SIGTERM); finished "
                 "work is kept and a rerun resumes. |")  # fmt: skip
    return "\n".join(lines) + "\n"


GENERATED.update(
    {
        "config": _config,
        "cli": _cli,
        "manifest": _manifest,
        "formats": _formats,
        "exit-codes": _exit_codes,
    }
)
