"""Build a whole dataset from a config: clips, unified manifest, exports (TOMATO, Video-TT,
lmms-eval, HF, Vinoground), caption retrieval over the clips, validity audit, index and report."""

from __future__ import annotations

import os

from tempogen.builders.dataset.folder import (
    BUILD_MARK,
    EDIT_OWNED,
    FILES,
    MANIFEST,
    OWNED,
    check_writable,
    claim_edit_folder,
    claim_folder,
    cleanup_on_stop,
    command_of,
    config_of,
    finish_ledger,
    owned,
    read_mark,
    remove_entries,
    remove_temps,
)
from tempogen.builders.dataset.stages import BuildSummary, run_build
from tempogen.config import DatasetConfig
from tempogen.executor import Executor, make_executor
from tempogen.io import OutputError, folder_lock

__all__ = [  # the folder's ownership lives in dataset.folder, the build's stages in dataset.stages
    "BUILD_MARK",
    "EDIT_OWNED",
    "FILES",
    "MANIFEST",
    "OWNED",
    "BuildSummary",
    "build_dataset",
    "check_writable",
    "claim_edit_folder",
    "claim_folder",
    "cleanup_on_stop",
    "command_of",
    "finish_ledger",
    "open_executor",
    "owned",
    "remove_temps",
]


def build_dataset(
    cfg: DatasetConfig,
    out_dir: str | os.PathLike[str],
    jobs: int | None = None,
    progress: bool = True,
    replace: bool = False,
    executor: str | None = None,
    address: str | None = None,
    work_dir: str | os.PathLike[str] | None = None,
) -> BuildSummary:
    """Generate every clip of ``cfg`` under ``out_dir`` and write the manifest and exports.

    The per-clip stages run on ``executor`` (``local`` or ``ray``; default: the config's
    ``executor``), a Ray cluster at ``address`` if given; the bytes written are the same.
    ``out_dir`` may be an fsspec URL: the build then runs in a local working copy
    (``work_dir``, default from :func:`~tempogen.builders.dataset.remote.working_copy`) and is
    published there (see :mod:`tempogen.builders.dataset.remote`).

    Finished clips from an earlier, interrupted run with the same specs are reused. The folder
    is locked while the build writes (a second build into it is a clear error), and a folder
    built with another config is refused unless ``replace`` (see :func:`claim_folder`).
    """
    from tempogen.builders.dataset.remote import is_url, local_path

    if is_url(out_dir):
        return _build_to_url(cfg, os.fspath(out_dir), jobs, progress, replace, executor,
                             address, work_dir)  # fmt: skip
    out = local_path(out_dir)
    with open_executor(cfg, jobs, executor, address) as ex:  # a missing Ray fails first
        check_writable(out)
        with folder_lock(out, "build"):
            claim_folder(out, cfg, replace)
            with cleanup_on_stop(out):
                return run_build(cfg, out, jobs, progress, ex)


def _build_to_url(
    cfg: DatasetConfig,
    url: str,
    jobs: int | None,
    progress: bool,
    replace: bool,
    executor: str | None,
    address: str | None,
    work_dir: str | os.PathLike[str] | None,
) -> BuildSummary:
    """:func:`build_dataset` into an fsspec URL: pull what the URL holds into the working
    copy, build there, publish the clips once rendered and everything at the end."""
    import dataclasses

    from tempogen.builders.dataset.remote import LEDGER, Remote, working_copy

    remote = Remote.open(url)
    local = working_copy(url, work_dir)
    with open_executor(cfg, jobs, executor, address) as ex:
        check_writable(local)
        with folder_lock(local, "build"):
            theirs = remote.read_json(BUILD_MARK)
            if theirs is None and remote.listing():
                raise OutputError(
                    f"{url}: holds files but no tempogen build ({BUILD_MARK} is missing); "
                    "choose an empty --out or one a tempogen build wrote"
                )
            ours = read_mark(local / BUILD_MARK) if (local / BUILD_MARK).is_file() else None
            if theirs is not None and config_of(theirs) != config_of(ours):
                # the working copy is of another build: the URL decides
                remove_entries(local, (*owned(), BUILD_MARK, LEDGER, FILES))
            remote.pull(local, progress)
            claim_folder(local, cfg, replace, shown=url)
            if theirs is not None and config_of(theirs) != config_of(read_mark(local / BUILD_MARK)):
                # --replace of another config's build
                remote.remove(owned())

            def publish() -> None:
                remote.publish(local, first=[BUILD_MARK], last=[MANIFEST], progress=progress)

            with cleanup_on_stop(local):
                summary = run_build(cfg, local, jobs, progress, ex, checkpoint=publish)
            publish()
    return dataclasses.replace(summary, url=url)


def open_executor(
    cfg: DatasetConfig, jobs: int | None, kind: str | None = None, address: str | None = None
) -> Executor:
    """The executor a build runs on: ``kind`` and ``address`` (the command line's) over the
    config's ``executor``; an address alone means Ray."""
    ex = cfg.executor
    kind = kind or ("ray" if address else ex.kind)
    if kind == "ray":
        address = address or ex.address
    return make_executor(kind, jobs, address, ex.shared_out, cfg.plugins)
