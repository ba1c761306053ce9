"""The stages of a build, in order, with the folder claimed and locked: render the clips,
certify the temporal-noise rows, edit the variants, write the manifest and every export, the
Vinoground pairs, caption retrieval, the pages, the validity audit and the ledger."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tempogen.builders.dataset.folder import MANIFEST, finish_ledger
from tempogen.config import DatasetConfig
from tempogen.errors import CertificationError
from tempogen.executor import Executor
from tempogen.generators.build import plan, render_all
from tempogen.io import write_json
from tempogen.manifest import Row, as_rows, write_manifest


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
    mocap: str | None = None  # the mocap line of the report: files, windows, questions, skipped

    def where(self, rel: str = "") -> str:
        """Where a file of the build is for its users: under the URL, else the folder."""
        if self.url is not None:
            return f"{self.url.rstrip('/')}/{rel}" if rel else self.url
        return str(self.out_dir / rel) if rel else str(self.out_dir)

    @property
    def frames_per_second(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else 0.0


def run_build(
    cfg: DatasetConfig,
    out: Path,
    jobs: int | None,
    progress: bool,
    executor: Executor,
    checkpoint: Callable[[], None] | None = None,
) -> BuildSummary:
    """:func:`~tempogen.builders.dataset.build.build_dataset` with the folder locked;
    ``checkpoint`` runs once the clips are rendered (a URL build publishes them then, so a
    later failure does not lose them)."""
    from tempogen.builders.audit.shortcuts import above_chance, shortcut_report, with_sizes
    from tempogen.builders.audit.validity import validity_report
    from tempogen.builders.exports import all_exports, written_formats
    from tempogen.builders.exports.vinoground import build_vinoground
    from tempogen.builders.report.html import write_index
    from tempogen.builders.report.noise_page import noise_rows, write_noise_page
    from tempogen.builders.report.report import write_report

    specs = plan(cfg, cache=out)
    mocap = None
    if cfg.mocap.share > 0:
        from tempogen.generators.mocap.plan import mocap_line
        from tempogen.generators.planning import RENDER_VERSION

        mocap = mocap_line(cfg, out, RENDER_VERSION, sum(1 for s in specs if s.source))
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
    records = as_rows(rows)  # the pages and audits read rows as records
    noise_page = write_noise_page(records, out)
    if noise_page is not None:
        links.append((f"temporal-noise clips: {len(noise_rows(records))}", noise_page.name))
    links += [(f"{f.folder}/: {f.description}", f.folder) for f in written_formats(out)]
    write_index(records, out / "index.html", links=links)
    validity = validity_report(records, seed=cfg.seed)
    if cfg.shortcuts != "off":
        validity["shortcuts"] = shortcut_report(with_sizes(records, out))
    write_json(out / "validity.json", {k: v for k, v in validity.items() if k != "rows"})
    write_report(records, out, validity=validity)
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
    for record in records:
        per_task[str(record.task)] = per_task.get(str(record.task), 0) + 1
    return BuildSummary(
        out,
        len(rows),
        total_frames,
        seconds,
        per_task,
        len(variants),
        retrieval=retrieval,
        reused_frames=frames_reused,
        mocap=mocap,
    )


def _certify_noise_rows(
    rows: list[dict[str, Any]], out: Path, executor: Executor
) -> list[dict[str, Any]]:
    """Answer every temporal-noise row from its motion signal (``tempogen audit verify``'s
    reader, on the build's executor) and record the answer in its certificate; one that
    disagrees stops the build."""
    from tempogen.builders.audit.noise import is_noise
    from tempogen.builders.audit.verify import VERIFY

    noisy = [r for r in as_rows(rows) if is_noise(r.labels)]  # the check reads records
    verdicts = list(executor.imap(VERIFY, noisy, out)) if noisy else []
    by_id = {r.id: v for r, v in zip(noisy, verdicts)}
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
