"""One rule for names that become paths, one for where a command may write.

Ids, variant names and keys read from users' files end up in file names (``clips/{id}.json``,
``videos/{id}~{variant}.mp4``). Each goes through :func:`safe_name` where it is read, so a
hostile or mistaken name is an error naming the file, line and field, and every writer builds
its paths with :func:`inside`, so even a name that slipped through cannot leave the folder the
command owns. :func:`check_not_input` keeps a command from writing over a file it reads.

The safe-name rule (:data:`NAME_RULE`): a non-empty string of at most 120 UTF-8 bytes, with no
``/``, ``\\``, NUL or other control character, no ``..``, and not starting with ``.`` (hidden
names are tempogen's temp files and marks). Callers may forbid more characters (a variant name
may not hold ``~``, which joins an id to its variant).
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from tempogen.errors import InputFileError, OutputError

__all__ = [
    "MAX_NAME_BYTES",
    "NAME_RULE",
    "check_ids",
    "check_not_input",
    "inside",
    "name_problem",
    "safe_name",
]

MAX_NAME_BYTES = 120  # an id and a variant name joined, plus ".json.partial", stay under 255
NAME_RULE = (
    f"1 to {MAX_NAME_BYTES} bytes, no '/', '\\', '..', NUL or control characters, "
    "not starting with '.'"
)


def name_problem(value: Any, forbid: str = "") -> str | None:
    """Why ``value`` cannot be part of a file name, or None when it can (see the module)."""
    if not isinstance(value, str):
        return f"expected a string, got {type(value).__name__} {value!r}"
    if not value:
        return "is empty"
    if len(value.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        return f"is {len(value.encode('utf-8', 'surrogatepass'))} bytes long, over {MAX_NAME_BYTES}"
    for ch in value:
        if ch in "/\\" or ch in forbid:
            return f"{value!r} holds {ch!r}"
        if unicodedata.category(ch) in ("Cc", "Cs"):  # NUL, newlines, escapes, surrogates
            return f"{value!r} holds the control character {ch!r}"
    if ".." in value:
        return f"{value!r} holds '..'"
    if value.startswith("."):
        return f"{value!r} starts with '.'"
    return None


def safe_name(value: Any, where: str, field: str, forbid: str = "") -> str:
    """``value`` when it can be part of a file name, else an :class:`InputFileError`
    ``where: field: ...`` (``where``: the file and line it was read from)."""
    problem = name_problem(value, forbid)
    if problem is not None:
        extra = f", no {', '.join(repr(c) for c in forbid)}" if forbid else ""
        raise InputFileError(
            f"{where}: {field}: {problem}; a name that becomes a file name must be "
            f"{NAME_RULE}{extra}"
        )
    return str(value)


def inside(root: str | os.PathLike[str], *parts: str) -> Path:
    """``root/parts...``, refused with an :class:`OutputError` when it would lie outside
    ``root`` (an absolute part, ``..``). Checked on the path's text, so a user's own symlink
    inside the folder (``videos`` on another disk) is followed as they meant."""
    base = Path(root)
    target = base.joinpath(*parts)
    norm_base = os.path.normpath(os.path.abspath(base))
    norm = os.path.normpath(os.path.abspath(target))
    if norm == norm_base or not norm.startswith(norm_base.rstrip(os.sep) + os.sep):
        raise OutputError(
            f"{base}: refusing to write {'/'.join(parts)!r}: it resolves outside this folder"
        )
    return target


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False


def check_not_input(
    outputs: Sequence[tuple[str, str | os.PathLike[str] | None]],
    inputs: Iterable[str | os.PathLike[str] | None],
) -> None:
    """Refuse (:class:`OutputError`, exit 2) before anything is written when an output file
    is one the command reads: ``outputs`` are (option, path) pairs, ``inputs`` the files read
    (None entries are skipped). The same file reached through another name (a symlink, a hard
    link, ``./``) counts as the same."""
    ins = [Path(p) for p in inputs if p is not None]
    for option, out in outputs:
        if out is None:
            continue
        for src in ins:
            if _same(Path(out), src):
                raise OutputError(
                    f"{option} {out}: is the input {src}, which writing would destroy; "
                    "choose another output path"
                )


def check_ids(
    lines: Iterable[tuple[int, dict[str, Any]]], path: str | os.PathLike[str], field: str = "id"
) -> None:
    """Every row's ``field`` is a safe name (:func:`safe_name`) and no two rows share one:
    a repeat is an :class:`InputFileError` naming both lines (two records with one id would
    write one clip's files over the other's)."""
    seen: dict[str, int] = {}
    for n, row in lines:
        rid = safe_name(row.get(field), f"{path}:{n}", field)
        if rid in seen:
            raise InputFileError(
                f"{path}:{n}: {field}: {rid!r} is also the {field} of line {seen[rid]}; "
                f"each row needs its own {field}"
            )
        seen[rid] = n
