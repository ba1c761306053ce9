"""Who owns a build folder: the build mark (which config, which command), the ledger of the
files builds wrote, claiming a folder (resume the same config's build, refuse another's
unless ``--replace``, which deletes only what builds wrote), and clean-up of killed runs."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tempogen.config import DatasetConfig
from tempogen.executor import stop_workers
from tempogen.io import OutputError, write_json

MANIFEST = "manifest.jsonl"


def check_writable(out_dir: Path) -> None:
    """Fail early, with the folder's name, when the output cannot be written."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        probe = out_dir / f".write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise OutputError(
            f"{out_dir}: output folder is not writable: {exc.strerror or exc}"
        ) from exc


@contextlib.contextmanager
def cleanup_on_stop(out: Path) -> Iterator[None]:
    """On Ctrl-C or SIGTERM (a :class:`KeyboardInterrupt`), end the worker processes and
    delete the run's temp files before the folder's lock is released; finished units stay,
    so a rerun resumes."""
    try:
        yield
    except KeyboardInterrupt:
        stop_workers()
        remove_temps(out)
        raise


BUILD_MARK = ".tempogen-build.json"
# What a build writes at the top of its folder besides its formats' folders (the format
# registry names those); ``replace`` removes exactly these and those (:func:`owned`).
OWNED = (
    "videos", "clips", "sheets", "report", "retrieval", "noise", MANIFEST, "config.json",
    "index.html", "noise.html", "report.html", "validity.json",
)  # fmt: skip


def owned() -> tuple[str, ...]:
    """Every top-level entry a build owns: :data:`OWNED` and each registered format's
    (``tomato``, ``videott``, ... and a plugin format's folder)."""
    from tempogen.builders.exports.registry import owned_entries

    return tuple(dict.fromkeys((*OWNED, *owned_entries())))


def read_mark(path: Path) -> dict[str, Any] | None:
    """A small JSON file of an earlier build, or None when it is unreadable."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {"config_sha256": "unreadable", "config": f"unreadable {path.name}"}
    return data if isinstance(data, dict) else None


def remove_entries(folder: Path, names: tuple[str, ...]) -> None:
    """Delete these top-level entries of ``folder`` (files or folders) where they exist."""
    import shutil

    for name in names:
        target = folder / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()


def config_of(mark: dict[str, Any] | None) -> str | None:
    """The config hash a build mark records, or None."""
    return mark.get("config_sha256") if mark else None


def remove_temps(out: Path) -> None:
    """Delete the hidden temp files (``.*.tmp``, ``.*.partial``) of killed or stopped runs;
    called with the folder's lock held, so no live run owns them."""
    for tmp in [*out.rglob(".*.tmp"), *out.rglob(".*.partial")]:
        tmp.unlink(missing_ok=True)


def _files(out: Path) -> set[str]:
    """Every file under the top-level entries a build owns (:func:`owned`), as relative
    POSIX paths."""
    found: set[str] = set()
    for name in owned():
        top = out / name
        if top.is_file():
            found.add(name)
        elif top.is_dir():
            found.update(p.relative_to(out).as_posix() for p in top.rglob("*") if p.is_file())
    return found


FILES = ".tempogen-files.json"  # the ledger: what the builds in this folder wrote


def _foreign(out: Path, ledger: dict[str, Any]) -> set[str]:
    """Files under a build's entries that no tempogen build wrote: those an earlier claim
    found, plus those that appeared after the last build finished and are not in its ledger
    (``files``). Files that appeared after an unfinished run are that run's (a kill between
    its writes and its ledger), so a user's file added to a half-built folder counts as ours."""
    now = _files(out)
    foreign = set(ledger.get("foreign") or ()) & now
    if ledger.get("finished") and isinstance(ledger.get("files"), list):
        foreign |= now - set(ledger["files"])
    return foreign


def _remove_ours(out: Path, foreign: set[str]) -> None:
    """Delete what earlier builds wrote (every file under :func:`owned` but ``foreign``),
    then the folders left empty; a user's own file (``videos/holiday.mp4``) stays."""
    for rel in sorted(_files(out) - foreign):
        (out / rel).unlink(missing_ok=True)
    for name in owned():
        top = out / name
        if top.is_dir():
            for d in sorted((p for p in top.rglob("*") if p.is_dir()), reverse=True):
                if not any(d.iterdir()):
                    d.rmdir()
            if not any(top.iterdir()):
                top.rmdir()


def command_of(mark: dict[str, Any] | None) -> str | None:
    """The tempogen command a build mark names (marks before edit had one: generate)."""
    return None if mark is None else str(mark.get("command") or "generate")


def claim_folder(
    out: Path, cfg: DatasetConfig, replace: bool = False, shown: str | None = None
) -> None:
    """Make ``out`` this config's: a folder built (or half built) with another config is
    refused unless ``replace``, which first deletes what that build wrote (its ledger's files,
    not a user's own), so no orphan clip of the old build ever ships with the new one. A
    folder that holds a build's file names but no build mark (a user's own ``index.html``),
    or that another command (``tempogen edit``) owns, is refused. Hidden temp files of killed
    runs go. ``shown``: the name errors give the folder (a URL whose working copy ``out`` is)."""

    from tempogen.io import content_hash

    want = {"config_sha256": content_hash(cfg.to_json()), "config": cfg.source}
    mark = out / BUILD_MARK
    had = read_mark(mark) if mark.is_file() else None
    if had is not None and command_of(had) != "generate":
        raise OutputError(
            f"{shown or out}: holds the output of `tempogen {command_of(had)}` ({BUILD_MARK}); "
            "generate would write over it; choose another --out"
        )
    legacy = had is None and all(
        (out / n).exists() for n in ("config.json", MANIFEST, "clips")
    )  # a build from before the mark
    if had is None and not legacy:
        found = sorted(n for n in owned() if (out / n).exists())
        if found:
            raise OutputError(
                f"{shown or out}: holds {', '.join(found)} but no tempogen build "
                f"({BUILD_MARK} is missing), which generate would overwrite; choose an empty "
                "--out or one a tempogen build wrote"
            )
    if legacy:
        old = read_mark(out / "config.json")
        had = {"config_sha256": content_hash(old) if old else "?", "config": "an earlier version"}
    remove_temps(out)  # the lock is held: no live run owns them (and they are no one's files)
    ledger = (read_mark(out / FILES) or {}) if had is not None and (out / FILES).is_file() else {}
    foreign = _foreign(out, ledger)
    same = had is not None and had.get("config_sha256") == want["config_sha256"]
    if had is not None and not same:
        if not replace:
            raise OutputError(
                f"{shown or out}: holds a dataset built with another config "
                f"({had.get('config')}); "
                "building here would mix the two. Use --replace to delete it first, or "
                "choose another --out"
            )
        _remove_ours(out, foreign)
    files = sorted(set(ledger.get("files") or ()) - foreign) if same else []
    write_json(out / FILES, {"finished": False, "files": files, "foreign": sorted(foreign)},
               indent=None)  # fmt: skip
    write_json(mark, want)


EDIT_OWNED = (MANIFEST, "videos", "clips", "sheets")  # what ``tempogen edit`` writes


def claim_edit_folder(out: Path) -> None:
    """Make ``out`` a ``tempogen edit`` folder (call with its lock held): a folder that
    another command built (a dataset of ``generate``), or that holds an edit's file names but
    no mark of one (a user's own ``manifest.jsonl``), is refused; an earlier edit's folder is
    taken as it is (its rows are merged with the new ones). Temp files of killed runs go."""
    mark = out / BUILD_MARK
    had = read_mark(mark) if mark.is_file() else None
    if had is not None and command_of(had) != "edit":
        raise OutputError(
            f"{out}: holds a dataset built by `tempogen {command_of(had)}` ({BUILD_MARK}); "
            "edits would write over its manifest and clips; choose another --out"
        )
    if had is None:
        found = sorted(n for n in EDIT_OWNED if (out / n).exists())
        if found:
            raise OutputError(
                f"{out}: holds {', '.join(found)} but no mark of a `tempogen edit` "
                f"({BUILD_MARK} is missing), which edit would overwrite; choose an empty "
                "--out or one `tempogen edit` wrote"
            )
        write_json(mark, {"command": "edit"})
    remove_temps(out)


def finish_ledger(out: Path) -> None:
    """Record in the ledger (:data:`FILES`, kept beside the build mark) every file the
    finished build owns, which a later ``--replace`` deletes, leaving out the files its claim
    found foreign."""
    ledger = read_mark(out / FILES) or {}
    foreign = set(ledger.get("foreign") or ())
    files = sorted(_files(out) - foreign)
    write_json(out / FILES, {**ledger, "finished": True, "files": files}, indent=None)
