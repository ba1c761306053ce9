"""The generated reference pages (docs/reference/*.md) against the code they come from: every
marker has its generator, every manifest field is listed with a description, every export
format and exit code is in its table."""

from __future__ import annotations

import copy
import importlib.util
import re
from pathlib import Path
from typing import Any

from tempogen import errors
from tempogen.builders.exports import FORMATS
from tempogen.cli.reference import (
    exit_codes_reference,
    formats_reference,
    manifest_reference,
    undescribed,
    unlisted_fields,
)
from tempogen.manifest import MANIFEST_SCHEMA

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "reference"
MARKER = re.compile(r"^<!-- generated: ([\w-]+) -->$", re.M)


def hooks() -> Any:
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "scripts" / "docs_hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Page:  # what on_page_markdown reads of MkDocs' page
    def __init__(self, path: Path) -> None:
        self.file = type("File", (), {"src_path": str(path.relative_to(ROOT / "docs"))})()


def test_every_reference_page_is_filled_from_the_code() -> None:
    h = hooks()
    used = set()
    for path in sorted(REFERENCE.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        names = MARKER.findall(text)
        used.update(names)
        filled = h.on_page_markdown(text, Page(path), None, None)
        assert not MARKER.search(filled), path
        assert "(being written)" not in text, path
    assert used == {"config", "cli", "manifest", "formats", "exit-codes"}
    assert used == set(h.GENERATED)


def schema_fields(node: dict[str, Any], prefix: str = "") -> list[str]:
    """Every property of a schema node and of the objects under it, dotted."""
    out = []
    for name, prop in node.get("properties", {}).items():
        out.append(prefix + name)
        out += schema_fields(prop, f"{prefix}{name}.")
    return out


def test_every_manifest_field_is_listed_with_its_type_and_whether_required() -> None:
    page = manifest_reference()
    fields = schema_fields(MANIFEST_SCHEMA)
    fields += schema_fields(MANIFEST_SCHEMA["properties"]["labels"]["then"], "labels.")
    fields += schema_fields(MANIFEST_SCHEMA["$defs"]["track"], "labels.tracks[].")
    assert len(fields) > 50
    for name in fields:
        assert f"| `{name}` |" in page, name
    assert unlisted_fields(MANIFEST_SCHEMA, page) == []
    required = set(MANIFEST_SCHEMA["required"])
    for name in MANIFEST_SCHEMA["properties"]:
        row = next(line for line in page.splitlines() if line.startswith(f"| `{name}` |"))
        assert row.split(" | ")[2] == ("yes" if name in required else ""), row
    assert "| `answer` | integer (>= 0) | yes | The index of the right option" in page


def test_every_manifest_property_has_a_description_and_a_missing_one_fails() -> None:
    assert undescribed(MANIFEST_SCHEMA) == []
    broken = copy.deepcopy(MANIFEST_SCHEMA)
    del broken["properties"]["video"]["description"]
    broken["properties"]["brand_new"] = {"type": "string"}
    assert undescribed(broken) == ["video", "brand_new"]
    # and a field the page lacks is found
    page = manifest_reference()
    assert unlisted_fields(broken, page) == ["brand_new"]
    cut = "\n".join(line for line in page.splitlines() if not line.startswith("| `seed` |"))
    assert unlisted_fields(MANIFEST_SCHEMA, cut) == ["seed"]


def test_every_export_format_has_its_row_and_its_layout() -> None:
    table = formats_reference()
    layouts = (REFERENCE / "exports.md").read_text(encoding="utf-8")
    for name, f in FORMATS.items():
        assert f"| `{name}` | `{f.folder}/` |" in table, name
        assert f.description in table, name
        assert f"\n## {name}\n" in layouts, name


def test_the_exit_code_table_is_the_contract() -> None:
    table = exit_codes_reference()
    for name in ("EXIT_OK", "EXIT_BUG", "EXIT_USER"):
        assert f"| `{getattr(errors, name)}` | `tempogen.errors.{name}` |" in table, name
    assert (errors.EXIT_OK, errors.EXIT_BUG, errors.EXIT_USER) == (0, 1, 2)


# Options that name a path but no file format of their own: plugins are Python modules (the
# table's last row), --cache is eval run's reply cache, --seed only mentions config.json.
NOT_FILES = {"--plugins", "--cache", "--seed"}
FILEISH = re.compile(r"\b(jsonl|yaml|csv|json|file|folder|manifest|mp4|bvh|dir)\b", re.I)


def file_options() -> list[tuple[str, str]]:
    """``(command, option)`` for every option or positional whose help names a file or folder."""
    from tempogen.cli.app import build_parser
    from tempogen.cli.reference import commands, options

    out = []
    for words, p, _ in commands(build_parser()):
        for a in options(p):
            name = a.option_strings[-1] if a.option_strings else f"`{a.dest}`"
            if name not in NOT_FILES and FILEISH.search(a.help or ""):
                out.append((" ".join(words), name))
    return out


def listed(table: list[str], command: str, option: str) -> bool:
    """Whether a row of the files table names ``command`` with ``option``: ``tempogen edit
    --pipeline``, or ``tempogen human map`` (`motion`) for a positional."""
    if option.startswith("`"):
        return any(f"`{command}` ({option})" in row for row in table)
    return any(re.search(rf"`{re.escape(command)} {re.escape(option)}\b", row) for row in table)


def test_every_file_option_and_format_is_in_the_files_page() -> None:
    text = (REFERENCE / "files.md").read_text(encoding="utf-8")
    table = [line for line in text.splitlines() if line.startswith("| [")]
    options = file_options()
    assert len(options) > 25
    missing = [f"{c} {o}" for c, o in options if not listed(table, c, o)]
    assert missing == []
    # a row taken out is noticed
    cut = [row for row in table if "`tempogen edit --pipeline`" not in row]
    assert not listed(cut, "tempogen edit", "--pipeline")
    exports = (REFERENCE / "exports.md").read_text(encoding="utf-8")
    for name in FORMATS:
        assert f"\n## {name}\n" in exports, name


def test_manifest_types_read_as_the_schema_says() -> None:
    cells = {}
    for line in manifest_reference().splitlines():
        m = re.match(r"^\| `([^`]+)` \| (.*?) \| (yes)? \|", line)
        if m:
            cells[m[1]] = m[2]
    assert cells["schema_version"] == '`"1.0"`'
    assert cells["id"] == r"string (length >= 1, matches `^[^/\\]+$`)"
    assert cells["task"].startswith('one of `"count"`, `"direction"`')
    assert cells["options"] == "array of string (at least 2 items)"
    assert cells["source"] == "string or null"
    assert cells["fps"] == "number (> 0)"
    assert cells["spec_hash"] == "string (64 hex digits)"
    assert cells["labels.tracks"] == "array of track"
    assert cells["variation.zoom"] == "one of `0`, `1`"
    assert cells["certificate.ok"] == "`false`"
    assert cells["mocap.window.frames"] == "array of integer (>= 0) (at least 2 items)"
    assert cells["edits"] == "array of object"
    assert cells["spec"] == "object"
    assert manifest_reference().startswith(MANIFEST_SCHEMA["description"] + "\n\n| field |")


def test_the_formats_table_says_what_each_format_can_do() -> None:
    table = formats_reference().splitlines()
    assert table[:2] == [
        "| format | folder | write | validate | score | run | what it is |",
        "|---|---|---|---|---|---|---|",
    ]
    for (name, f), row in zip(FORMATS.items(), table[2:], strict=True):
        can = [" yes " if getattr(f, p) else "  " for p in ("write", "validate", "score", "run")]
        assert row == f"| `{name}` | `{f.folder}/` |{'|'.join(can)}| {f.description} |"
    assert "| `vinoground` | `vinoground/` |  | yes | yes | yes |" in formats_reference()


def test_the_exit_code_table_names_what_each_code_means() -> None:
    rows = exit_codes_reference().splitlines()
    assert rows[:2] == ["| code | name | meaning |", "|---|---|---|"]
    ok, bug, user, signal = rows[2:]
    assert ok.startswith("| `0` | `tempogen.errors.EXIT_OK` | Success")
    assert bug.startswith("| `1` | `tempogen.errors.EXIT_BUG` | A bug in tempogen: its traceback")
    for check in ("`validate`", "`audit verify`", "`audit shortcuts`", "`captions audit --strict`"):
        assert check in user, check
    assert user.startswith("| `2` | `tempogen.errors.EXIT_USER` | A user's error")
    assert signal.startswith("| `128 + n` |  | Stopped by signal n (130: Ctrl-C, 143: SIGTERM)")
