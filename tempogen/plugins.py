"""The one place tempogen imports plugin modules, and the rule for which it may import.

A plugin (a motion pattern, fact, edit op or export in a module of the user's) is code, so it
runs only when the user asked for it: named with ``--plugins`` on the command line, or under
``plugins:`` in the config they passed to ``tempogen generate``. A manifest's ``plugins``
field is data (a downloaded dataset carries it): it says which modules its rows need, and a
command imports them only if they were also named with ``--plugins``; otherwise it stops with
an error naming the modules and the manifest line. The current folder is never put on the
import path for good: a module named with ``--plugins`` is looked for on Python's path, then
in the current folder (a config's, beside the config), and only while importing it. A plugin
that raises anything at import (``SystemExit`` included) is a :class:`PluginError` naming it,
never the command's own exit code.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from tempogen.errors import InputFileError, PluginError

_ALLOWED: dict[str, str] = {}  # module -> where the user named it (``--plugins``, a config)
_FOLDERS: list[str] = []  # folders plugins were looked for in (sent on to Ray workers)


def drop_implicit_cwd() -> None:
    """Take off the import path the folder ``python -m tempogen.cli`` puts first on its own
    (the current one), so a module planted there (``yaml.py``) shadows nothing; a folder the
    user put on ``PYTHONPATH`` stays, as a later entry."""
    if getattr(sys.flags, "safe_path", False) or not sys.path:  # the flag is 3.11+
        return
    if sys.path[0] in ("", os.getcwd()):
        del sys.path[0]


def module_name_problem(name: Any) -> str | None:
    """Why ``name`` is not a dotted module name, or None when it is one."""
    if not isinstance(name, str) or not name:
        return f"expected a module name, got {name!r}"
    if not all(part.isidentifier() for part in name.split(".")):
        return f"{name!r} is not a module name"
    return None


@contextlib.contextmanager
def _search(folders: Sequence[str]) -> Iterator[None]:
    """``folders`` at the end of the import path while a plugin imports (so an installed
    module of the same name wins), removed again after."""
    added = [f for f in folders if f not in sys.path]
    sys.path.extend(added)
    try:
        yield
    finally:
        for f in added:
            with contextlib.suppress(ValueError):
                sys.path.remove(f)


def _import(name: str, where: str, folders: Sequence[str]) -> None:
    """Import one plugin; any failure is a :class:`PluginError` ``{where}: {detail}``."""
    bad = module_name_problem(name)
    if bad is not None:
        raise _error(where, bad)
    try:
        with _search(folders):
            importlib.import_module(name)
    except KeyboardInterrupt:
        raise
    except Exception as exc:
        missing = isinstance(exc, ModuleNotFoundError) and f"{name}.".startswith(f"{exc.name}.")
        hint = (
            " (run from its folder, put the module beside the config, or add its folder to "
            "PYTHONPATH)"
            if missing
            else ""
        )
        raise _error(where, f"cannot import {name!r}: {exc}{hint}") from exc
    except BaseException as exc:  # SystemExit, GeneratorExit...: never the command's exit
        raise _error(where, f"importing {name!r} raised {exc!r}") from None


def _error(where: str, detail: str) -> PluginError:
    err = PluginError(f"{where}: {detail}")
    err.field, err.detail = where.rsplit(": ", 1)[-1], detail
    return err


def load_plugins(
    names: Sequence[str], src: str, *, folder: str | os.PathLike[str] | None = None
) -> tuple[str, ...]:
    """Import the plugins a user named (``--plugins``, a config's ``plugins:``) and allow
    them for manifests read later; ``src`` names where they were named (errors say
    ``{src}: plugins[i]: ...``), ``folder`` where to look after Python's path."""
    folders = [os.fspath(folder)] if folder is not None else []
    for f in folders:
        if f not in _FOLDERS:
            _FOLDERS.append(f)
    for i, name in enumerate(names):
        _import(name, f"{src}: plugins[{i}]", folders)
        _ALLOWED.setdefault(name, src)
    return tuple(names)


def load_worker_plugins(names: Sequence[str], folders: Sequence[str]) -> None:
    """In a worker process: import the plugins its driver loaded, from the same folders."""
    for i, name in enumerate(names):
        _import(name, f"worker: plugins[{i}]", folders)
        _ALLOWED.setdefault(name, "worker")


def plugin_folders() -> tuple[str, ...]:
    """The folders plugins were looked for in, in order (for workers on a shared path)."""
    return tuple(_FOLDERS)


def allowed_plugins() -> tuple[str, ...]:
    """Every plugin the user allowed in this process, in the order they were named."""
    return tuple(_ALLOWED)


def row_plugins(row: Mapping[str, Any], where: str) -> tuple[str, ...]:
    """The plugin modules a row names (none when absent); a malformed field names ``where``."""
    names = row.get("plugins", [])
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise InputFileError(f"{where}: plugins: expected a list of module names, got {names!r}")
    return tuple(names)


def import_manifest_plugins(
    lines: Sequence[tuple[int, dict[str, Any]]],
    path: str | os.PathLike[str],
    extra: Sequence[str] = (),
) -> tuple[str, ...]:
    """Import ``extra`` (``--plugins``), then check every plugin the rows name was allowed;
    return them in order.

    A row naming a module the user did not allow is a :class:`PluginError` naming the
    modules and the line (``m.jsonl:3: plugins: ['zig'] ...; allow them with --plugins
    zig``); nothing of it is imported. One that cannot be imported names it the same way.
    """
    load_plugins(tuple(extra), "--plugins", folder=os.getcwd())
    done: dict[str, None] = dict.fromkeys(extra)
    for n, row in lines:
        names = row_plugins(row, f"{path}:{n}")
        refused = [name for name in names if name not in _ALLOWED]
        if refused:
            raise PluginError(
                f"{path}:{n}: plugins: {refused} would run code named by the manifest; "
                f"tempogen imports a plugin only if you name it: allow them with "
                f"--plugins {','.join(refused)}"
            )
        done.update(dict.fromkeys(names))
    return tuple(done)


__all__ = [
    "allowed_plugins",
    "drop_implicit_cwd",
    "import_manifest_plugins",
    "load_plugins",
    "load_worker_plugins",
    "module_name_problem",
    "plugin_folders",
    "row_plugins",
]
