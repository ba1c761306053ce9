"""The CLI reference of the docs (``docs/reference/cli.md``), rendered from the parser itself,
and the ``--help`` epilog of each command that points to its section there."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

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


def _names(a: argparse.Action) -> str:
    if not a.option_strings:
        return f"`{a.metavar or a.dest}`"
    arg = ""
    if a.nargs != 0:
        arg = " " + (a.metavar or (f"{{{','.join(map(str, a.choices))}}}" if a.choices else None)
                     or a.dest.upper())  # fmt: skip
    return ", ".join(f"`{s}{arg}`" for s in a.option_strings)


def _default(a: argparse.Action) -> str:
    if a.default in (None, argparse.SUPPRESS) or a.nargs == 0 or a.required:
        return ""
    if isinstance(a.default, (list, tuple)):
        return ", ".join(map(str, a.default)) and f"`{','.join(map(str, a.default))}`"
    return f"`{a.default}`"


def _help(p: argparse.ArgumentParser, a: argparse.Action) -> str:
    text = p._get_formatter()._expand_help(a) if a.help else ""
    if a.required and a.option_strings:
        text = f"(required) {text}"
    return " ".join(text.split()).replace("|", "\\|")


def cli_reference(parser: argparse.ArgumentParser | None = None) -> str:
    """The Markdown of every command: a section each (anchor :func:`anchor`), with its help,
    usage, subcommands, and a table of its options with their help and default."""
    if parser is None:
        from tempogen.cli.app import build_parser

        parser = build_parser()
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
        subs = [(w, h) for w, _, h in commands(p) if len(w) == len(words) + 1]
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
            for s in a.option_strings or [a.metavar or a.dest]:
                if f"`{s}" not in text:
                    missing.append(f"{name} {s}")
    return missing
