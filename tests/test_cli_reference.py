"""The CLI reference (docs/reference/cli.md) against the parser: every command and option is
there with its help and default, and every command's ``--help`` names its section."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

from tempogen.cli.app import build_parser
from tempogen.cli.reference import cli_reference, unlisted

EPILOG = re.compile(r"^docs: docs/reference/cli\.md#([\w-]+) \(the site: make docs\)$")


def walk(p: argparse.ArgumentParser, words: tuple[str, ...] = ("tempogen",)):
    """Every (words, parser) under ``p``, read from argparse itself."""
    yield words, p
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sub in a.choices.items():
                yield from walk(sub, (*words, name))


def section(page: str, anchor: str) -> str:
    start = page.index(f"{{#{anchor}}}")
    end = page.find("\n## ", start)
    return page[start : end if end > 0 else None]


def test_every_command_and_option_is_in_the_page_with_its_help_and_default() -> None:
    parser = build_parser()
    page = cli_reference(parser)
    assert unlisted(parser, page) == []
    commands = list(walk(parser))
    assert len(commands) >= 20  # the groups' subcommands too (audit verify, captions audit...)
    for words, p in commands:
        text = section(page, "-".join(words))
        for a in p._actions:
            if isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            for s in a.option_strings or [a.metavar or a.dest]:
                assert f"`{s}" in text, (words, s)
            first = re.escape((a.option_strings or [a.metavar or a.dest])[0])
            row = next(line for line in text.splitlines() if re.match(rf"\| `{first}[ `]", line))
            if a.help:
                assert " ".join(a.help.split("%(")[0].split())[:30].replace("|", "\\|") in row, (
                    words,
                    row,
                )
            if a.default not in (None, False, (), [], argparse.SUPPRESS) and not a.required:
                assert f"`{a.default}`" in row, (words, a.dest, row)


def test_a_missing_command_or_option_fails_the_check() -> None:
    parser = build_parser()
    page = cli_reference(parser)
    cut = "\n".join(line for line in page.splitlines() if "`--videos-under" not in line)
    assert unlisted(parser, cut) == ["tempogen validate --videos-under"]
    gone = page.replace("## tempogen human map {#tempogen-human-map}", "## (gone)")
    assert "tempogen human map" in unlisted(parser, gone)
    # an option the page was not rendered with (one added to the parser later)
    sub = next(p for words, p in walk(parser) if words == ("tempogen", "formats"))
    sub.add_argument("--brand-new", help="not in the page")
    assert unlisted(parser, page) == ["tempogen formats --brand-new"]


def test_every_command_help_names_an_anchor_of_the_page() -> None:
    parser = build_parser()
    page = cli_reference(parser)
    for words, p in walk(parser):
        m = EPILOG.match(p.epilog or "")
        assert m, (words, p.epilog)
        assert m[1] == "-".join(words)
        assert f"{{#{m[1]}}}" in page, m[1]


def test_help_through_the_cli_ends_with_the_docs_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tempogen.cli", "captions", "audit", "--help"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    assert last == "docs: docs/reference/cli.md#tempogen-captions-audit (the site: make docs)"


def test_each_section_shows_the_help_usage_subcommands_and_option_cells_argparse_shows() -> None:
    parser = build_parser()
    page = cli_reference(parser)
    for words, p in walk(parser):
        text = section(page, "-".join(words))
        fmt = p._get_formatter()
        usage = argparse.HelpFormatter(p.prog, width=88)
        usage.add_usage(p.usage, p._actions, p._mutually_exclusive_groups)
        assert f"```text\n{usage.format_help().strip()}\n```" in text, words
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for choice in a._choices_actions:
                    sub = (*words, choice.dest)
                    link = f"| [`{' '.join(sub)}`](#{'-'.join(sub)}) | {choice.help} |"
                    assert link in text, link
                    help_ = choice.help[0].upper() + choice.help[1:].rstrip(".") + "."
                    assert f"{{#{'-'.join(sub)}}}\n\n{help_}\n" in page, help_
                continue
            if isinstance(a, argparse._HelpAction):
                continue
            # the option's names and value, as argparse's own --help writes them
            names = ", ".join(f"`{n}`" for n in fmt._format_action_invocation(a).split(", "))
            row = next(line for line in text.splitlines() if line.startswith(f"| {names} |"))
            cells = row.split(" | ")
            if a.required and a.option_strings:
                assert cells[1].startswith("(required) "), row
            empty = a.default is None or a.default is False or a.default in ((), [])
            shown = not (empty or a.default == argparse.SUPPRESS or a.required or a.nargs == 0)
            assert row.endswith(f" | `{a.default}` |" if shown else " |  |"), row
