"""The docs' reference pages generated from the code (scripts/docs_hooks.py fills them in): the
CLI from the parser itself, with the ``--help`` epilog of each command that points to its
section; the manifest row from its JSON Schema; the export formats from their registry; the
exit codes from :mod:`tempogen.errors`."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from typing import Any

PAGE = "docs/reference/cli.md"

Command = tuple[tuple[str, ...], argparse.ArgumentParser, str]  # words, parser, help


def commands(parser: argparse.ArgumentParser) -> Iterator[Command]:
    """Every command of ``parser`` and under it, depth first in ``--help``'s order: its words
    (``("tempogen", "captions", "audit")``), its parser and the one-line help its parent
    lists it with (empty for the top)."""
    yield from _walk((parser.prog,), parser, parser.description or "")


def _walk(words: tuple[str, ...], p: argparse.ArgumentParser, help_: str) -> Iterator[Command]:
    yield words, p, help_
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield from _walk((*words, name), sub, helps.get(name, ""))


def anchor(words: tuple[str, ...]) -> str:
    """The stable anchor of a command's section: its words joined by ``-``."""
    return "-".join(words)


def epilog(words: tuple[str, ...]) -> str:
    """The line at the end of a command's ``--help`` naming its reference section."""
    return f"docs: {PAGE}#{anchor(words)} (the site: make docs)"


def add_epilogs(parser: argparse.ArgumentParser) -> None:
    """Give ``parser`` and every command under it the :func:`epilog` naming its section."""
    for words, p, _ in commands(parser):
        p.epilog = epilog(words)


def options(p: argparse.ArgumentParser) -> list[argparse.Action]:
    """The options and positionals a command takes (``-h`` and subcommand lists left out)."""
    return [
        a
        for a in p._actions
        if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
    ]


def _metavar(a: argparse.Action) -> str:
    """What ``--help`` shows for an option's value: its metavar, choices or upper-case dest."""
    if isinstance(a.metavar, str):
        return a.metavar
    if a.choices:
        return "{" + ",".join(map(str, a.choices)) + "}"
    return a.dest.upper() if a.option_strings else a.dest


def _names(a: argparse.Action) -> str:
    if not a.option_strings:
        return f"`{_metavar(a)}`"
    arg = "" if a.nargs == 0 else " " + _metavar(a)
    return ", ".join(f"`{s}{arg}`" for s in a.option_strings)


def _default(a: argparse.Action) -> str:
    if a.default in (None, argparse.SUPPRESS) or a.nargs == 0 or a.required:
        return ""
    if isinstance(a.default, (list, tuple)):  # an empty list is no default to show
        return f"`{','.join(map(str, a.default))}`" if a.default else ""
    return f"`{a.default}`"


def _help(p: argparse.ArgumentParser, a: argparse.Action) -> str:
    text = p._get_formatter()._expand_help(a) if a.help else ""
    if a.required and a.option_strings:
        text = f"(required) {text}"
    return " ".join(text.split()).replace("|", "\\|")


def cli_reference(parser: argparse.ArgumentParser) -> str:
    """The Markdown of every command of ``parser`` (``tempogen.cli.app.build_parser()``): a
    section each (anchor :func:`anchor`), with its help, usage, subcommands, and a table of
    its options with their help and default."""
    out: list[str] = []
    for words, p, help_ in commands(parser):
        name = " ".join(words)
        out += [f"## {name} {{#{anchor(words)}}}", ""]
        if help_:
            out += [help_[0].upper() + help_[1:] + ("" if help_.endswith(".") else "."), ""]
        if p.description and p.description != help_:
            out += [p.description, ""]
        usage = argparse.HelpFormatter(p.prog, width=88)  # not the terminal's: the same page
        usage.add_usage(p.usage, p._actions, p._mutually_exclusive_groups)
        out += ["```text", usage.format_help().strip(), "```", ""]
        subs = [(w, h) for w, _, h in _walk(words, p, help_) if len(w) == len(words) + 1]
        if subs:
            out += ["| command | what it does |", "|---|---|"]
            out += [f"| [`{' '.join(w)}`](#{anchor(w)}) | {h} |" for w, h in subs]
            out += [""]
        opts = options(p)
        if opts:
            out += ["| option | help | default |", "|---|---|---|"]
            out += [f"| {_names(a)} | {_help(p, a)} | {_default(a)} |" for a in opts]
            out += [""]
    return "\n".join(out)


def unlisted(parser: argparse.ArgumentParser, page: str) -> list[str]:
    """What of ``parser`` the reference ``page`` lacks: a command without its section, or an
    option (each of its strings) or positional missing from its command's section."""
    sections = {}
    for part in ("\n" + page).split("\n## ")[1:]:
        m = re.search(r"\{#([\w-]+)\}", part.splitlines()[0])
        if m:
            sections[m[1]] = part
    missing = []
    for words, p, _ in commands(parser):
        name = " ".join(words)
        text = sections.get(anchor(words))
        if text is None:
            missing.append(name)
            continue
        for a in options(p):
            for s in a.option_strings or [_metavar(a)]:
                if f"`{s}" not in text:
                    missing.append(f"{name} {s}")
    return missing


# The other generated reference tables: the manifest row, the formats, the exit codes.


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


def manifest_reference() -> str:
    """The manifest row's fields (``docs/reference/manifest.md``) from its JSON Schema."""
    from tempogen.manifest import MANIFEST_SCHEMA

    lines = [MANIFEST_SCHEMA["description"], "", "| field | type | required | description |",
             "|---|---|---|---|"]  # fmt: skip
    for name, kind, req, desc in manifest_rows(MANIFEST_SCHEMA):
        cells = [f"`{name}`", kind, "yes" if req else "", " ".join(desc.split())]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def formats_reference() -> str:
    """The export registry's formats and what each can do (``docs/reference/exports.md``)."""
    from tempogen.builders.exports import FORMATS

    lines = ["| format | folder | write | validate | score | run | what it is |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for name, f in FORMATS.items():
        can = ["yes" if getattr(f, p) else "" for p in ("write", "validate", "score", "run")]
        lines.append(f"| `{name}` | `{f.folder}/` | {' | '.join(can)} | {f.description} |")
    return "\n".join(lines) + "\n"


def exit_codes_reference() -> str:
    """The exit codes of :mod:`tempogen.errors` as a table (``docs/reference/exit-codes.md``)."""
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


def unlisted_fields(schema: dict[str, Any], page: str) -> list[str]:
    """The fields of a row ``schema`` (as :func:`manifest_rows` names them) that ``page``
    has no table row for."""
    return [name for name, *_ in manifest_rows(schema) if f"| `{name}` |" not in page]
