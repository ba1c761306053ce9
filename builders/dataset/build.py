"""Build a whole dataset from a config: clips, unified manifest, exports (TOMATO, Video-TT,
lmms-eval, HF, Vinoground), caption retrieval over the clips, validity audit, index and report."""

from __future__ import annotations

import contextlib
import os
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tempogen.config import DatasetConfig
from tempogen.errors import CertificationError
from tempogen.executor import Executor, make_executor, stop_workers
from tempogen.generators.build import plan, render_all
from tempogen.io import OutputError, folder_lock, write_json
from tempogen.manifest import Row, write_manifest

MANIFEST = "manifest.jsonl"


@dataclass(frozen=True)
class BuildSummary:
    """What a build produced and how fast."""

    out_dir: Path  # where the files are on this machine (a URL build's working copy)
    clips: int
    frames: int
    seconds: float
    per_task: dict[str, int]
    variants: int = 0
    retrieval: dict[str, Any] | None = None
    reused_frames: int = 0  # of ``frames``, in clips kept from an earlier, interrupted run
    url: str | None = None  # the fsspec URL the build was published to, if ``--out`` was one

    def where(self, rel: str = "") -> str:
        """Where a file of the build is for its users: under the URL, else the folder."""
        if self.url is not None:
            return f"{self.url.rstrip('/')}/{rel}" if rel else self.url
        return str(self.out_dir / rel) if rel else str(self.out_dir)

    @property
    def frames_per_second(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else 0.0


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
                return _build(cfg, out, jobs, progress, ex)


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
            ours = _read_mark(local / BUILD_MARK) if (local / BUILD_MARK).is_file() else None
            if theirs is not None and _config_of(theirs) != _config_of(ours):
                # the working copy is of another build: the URL decides
                _remove(local, (*owned(), BUILD_MARK, LEDGER, FILES))
            remote.pull(local, progress)
            claim_folder(local, cfg, replace, shown=url)
            if theirs is not None and _config_of(theirs) != _config_of(
                _read_mark(local / BUILD_MARK)
            ):
                # --replace of another config's build
                remote.remove(owned())

            def publish() -> None:
                remote.publish(local, first=[BUILD_MARK], last=[MANIFEST], progress=progress)

            with cleanup_on_stop(local):
                summary = _build(cfg, local, jobs, progress, ex, checkpoint=publish)
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


def _read_mark(path: Path) -> dict[str, Any] | None:
    """A small JSON file of an earlier build, or None when it is unreadable."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {"config_sha256": "unreadable", "config": f"unreadable {path.name}"}
    return data if isinstance(data, dict) else None


def _remove(folder: Path, names: tuple[str, ...]) -> None:
    """Delete these top-level entries of ``folder`` (files or folders) where they exist."""
    import shutil

    for name in names:
        target = folder / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()


def _config_of(mark: dict[str, Any] | None) -> str | None:
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
    had = _read_mark(mark) if mark.is_file() else None
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
        old = _read_mark(out / "config.json")
        had = {"config_sha256": content_hash(old) if old else "?", "config": "an earlier version"}
    remove_temps(out)  # the lock is held: no live run owns them (and they are no one's files)
    ledger = (_read_mark(out / FILES) or {}) if had is not None and (out / FILES).is_file() else {}
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
    had = _read_mark(mark) if mark.is_file() else None
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
    ledger = _read_mark(out / FILES) or {}
    foreign = set(ledger.get("foreign") or ())
    files = sorted(_files(out) - foreign)
    write_json(out / FILES, {**ledger, "finished": True, "files": files}, indent=None)


def _build(
    cfg: DatasetConfig,
    out: Path,
    jobs: int | None,
    progress: bool,
    executor: Executor,
    checkpoint: Callable[[], None] | None = None,
) -> BuildSummary:
    """:func:`build_dataset` with the folder locked; ``checkpoint`` runs once the clips are
    rendered (a URL build publishes them then, so a later failure does not lose them)."""
    from tempogen.builders.audit.shortcuts import above_chance, shortcut_report, with_sizes
    from tempogen.builders.audit.validity import validity_report
    from tempogen.builders.exports import all_exports
    from tempogen.builders.exports.vinoground import build_vinoground
    from tempogen.builders.report.html import write_index
    from tempogen.builders.report.noise_page import noise_rows, write_noise_page
    from tempogen.builders.report.report import write_report

    specs = plan(cfg)
    total_frames = sum(s.num_frames for s in specs)
    start = time.perf_counter()
    bar = _progress(len(specs), total_frames, progress)
    frames_done = frames_reused = 0

    def done(row: dict[str, Any], reused: bool) -> None:
        nonlocal frames_done, frames_reused
        if reused:
            frames_reused += row["num_frames"]
        else:
            frames_done += row["num_frames"]
        if bar is not None:
            elapsed = max(time.perf_counter() - start, 1e-9)
            note = f", {frames_reused:,} reused" if frames_reused else ""
            bar.set_postfix_str(f"{frames_done / elapsed:,.0f} frames/s{note}", refresh=False)
            bar.update(1)

    try:
        rows = render_all(specs, out, jobs, on_done=done, executor=executor)
    finally:
        if bar is not None:
            bar.close()
    rows = _certify_noise_rows(rows, out, executor)
    if checkpoint is not None:
        checkpoint()
    # twins are not edited: the variants stay those of the questions, as without pairs
    originals = [r for r in rows if r.get("pair") in (None, r["id"])]
    variants = _variants(originals, out, cfg, executor, progress)
    rows = rows + variants
    if cfg.plugins:  # recorded so every command reading the manifest can import them again
        rows = [Row.from_json(r).edited(plugins=cfg.plugins).to_json() for r in rows]
    seconds = time.perf_counter() - start
    write_manifest(out / MANIFEST, rows)  # every row validated against the versioned schema
    write_json(out / "config.json", cfg.to_json())
    for export in all_exports():
        export(rows, out)
    if cfg.vinoground.pairs:
        build_vinoground(
            out / "vinoground", cfg.vinoground.pairs, cfg.seed, *cfg.size, cfg.fps,
            executor=executor,
        )  # fmt: skip
    retrieval = _retrieval(out, cfg, progress)
    links = []
    if retrieval is not None:
        links.append(
            (
                f"caption retrieval: {retrieval['pairs']} caption pairs "
                f"({retrieval['pairs_ok']} pass the audit), top {retrieval['top_k']} clips each; "
                f"{retrieval['pairs_no_match']} with no match (cosine below "
                f"{retrieval['no_match_threshold']:.2f}), {retrieval['pairs_not_discriminating']} "
                "not discriminating",
                retrieval["files"]["page"],
            )
        )
    noise_page = write_noise_page(rows, out)
    if noise_page is not None:
        links.append((f"temporal-noise clips: {len(noise_rows(rows))}", noise_page.name))
    write_index(rows, out / "index.html", links=links)
    validity = validity_report(rows, seed=cfg.seed)
    if cfg.shortcuts != "off":
        validity["shortcuts"] = shortcut_report(with_sizes(rows, out))
    write_json(out / "validity.json", {k: v for k, v in validity.items() if k != "rows"})
    write_report(rows, out, validity=validity)
    tells = above_chance(validity["shortcuts"]) if "shortcuts" in validity else []
    if tells:  # written first, so the report shows why
        message = (
            f"{out}: a blind baseline answers above chance (validity.json: shortcuts): "
            + "; ".join(tells)
        )
        if cfg.shortcuts == "fail":
            raise CertificationError(message + " (config: shortcuts: warn to build anyway)")
        warnings.warn(message, stacklevel=2)
    finish_ledger(out)
    per_task: dict[str, int] = {}
    for r in rows:
        per_task[r["task"]] = per_task.get(r["task"], 0) + 1
    return BuildSummary(
        out,
        len(rows),
        total_frames,
        seconds,
        per_task,
        len(variants),
        retrieval=retrieval,
        reused_frames=frames_reused,
    )


def _certify_noise_rows(
    rows: list[dict[str, Any]], out: Path, executor: Executor
) -> list[dict[str, Any]]:
    """Answer every temporal-noise row from its motion signal (``tempogen audit verify``'s
    reader, on the build's executor) and record the answer in its certificate; one that
    disagrees stops the build."""
    from tempogen.builders.audit.noise import is_noise
    from tempogen.builders.audit.verify import VERIFY

    noisy = [r for r in rows if is_noise(r.get("labels") or {})]
    verdicts = list(executor.imap(VERIFY, noisy, out)) if noisy else []
    by_id = {r["id"]: v for r, v in zip(noisy, verdicts)}
    checked = []
    for row in rows:
        if row["id"] in by_id:
            v = by_id[row["id"]]
            if v is None or not v.ok:
                raise CertificationError(
                    f"{out / row['video']}: temporal-noise clip {row['id']}: the motion signal "
                    f"answers {v and v.seen!r}, the labels {row['answer_key']!r}"
                    + (f" ({v.detail})" if v and v.detail else "")
                )
            cert = {**row["certificate"]}
            cert["temporal_noise"] = {**cert["temporal_noise"], "pixel_answer": v.seen}
            row = {**row, "certificate": cert}
        checked.append(row)
    return checked


def _retrieval(out: Path, cfg: DatasetConfig, progress: bool) -> dict[str, Any] | None:
    """Offline caption pairs, audited and matched against this dataset's clips (see
    ``builders.caption_retrieval``); None when ``retrieval.pairs`` is 0."""
    from tempogen.builders.dataset.caption_retrieval import STEPS, build_retrieval

    if cfg.retrieval.pairs <= 0:
        return None
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(STEPS), unit="step", desc="caption retrieval", dynamic_ncols=True)

    def step(name: str) -> None:
        if bar is not None:
            bar.set_postfix_str(f"{name} done", refresh=False)
            bar.update(1)

    try:
        return build_retrieval(out, cfg.retrieval, cfg.seed, on_step=step)
    finally:
        if bar is not None:
            bar.close()


def _variants(
    rows: list[dict[str, Any]], out: Path, cfg: DatasetConfig, executor: Executor, progress: bool
) -> list[dict[str, Any]]:
    """Edited variants of a share of the clips (each the first of its edits that certifies)."""
    from tempogen.builders.dataset.variants import build_variants

    if cfg.variants.share <= 0:
        return []
    bar = None
    if progress:
        from tqdm import tqdm

        n = int(cfg.variants.share * len(rows) + 0.5)
        bar = tqdm(total=n, unit="clip", desc="editing variants", dynamic_ncols=True)
    try:
        return build_variants(
            rows,
            out,
            cfg.variants.share,
            cfg.seed,
            1,
            on_done=(lambda r: bar.update(1)) if bar else None,
            executor=executor,
        )
    finally:
        if bar is not None:
            bar.close()


def _progress(n: int, frames: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=n, unit="clip", desc=f"rendering {frames:,} frames", dynamic_ncols=True)
