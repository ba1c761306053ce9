"""Edited variants of manifest rows: counterfactual, zoomed and composite clips with new answers.

An edit reads the source row's video and labels, runs an op pipeline, writes the new clip and
a new row whose question is regenerated from the moved labels. Simulated rows carry per-frame
states, so the new answer is re-derived and certified at 16 frames (an edit that does not
certify is refused, or kept only on request and marked ``certificate.ok: false``); external
rows carry declared facts (``rotation: [clockwise]``), which go through the label algebra, and
their edits are marked ``verified: declared``: no state can confirm them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tempogen.builders.dataset.certify_edits import (
    certificate_of,
    require_shown,
    stored_certified,
)
from tempogen.builders.dataset.edited_clips import (
    VariantRejected,
    edited_row,
    load_clip,
    question_fields,
    reworded,
)
from tempogen.builders.dataset.folder import check_writable, claim_edit_folder, cleanup_on_stop
from tempogen.builders.dataset.reading import (
    OpenManifest,
    needs_motion,
    open_manifest,
    row_motion,
)
from tempogen.editing import Clip, EditError, concat, run_pipeline
from tempogen.editing.notes import edit_notes
from tempogen.editing.ops import Op, Reverse
from tempogen.errors import OutputError
from tempogen.executor import Executor, LocalExecutor, Stage
from tempogen.generators.build import SHEET_TILE, labels_json
from tempogen.io import content_hash, folder_lock, read_jsonl, write_jsonl
from tempogen.manifest import DECLARED, Row, is_manifest_row, validate_row, write_manifest
from tempogen.paths import check_ids, inside
from tempogen.questions import (
    VARIATION_KEYS,
)
from tempogen.resume import commit, discard_on_error, lookup, staging
from tempogen.video import sha256_file

# Concatenating a clip with its own reverse is continuous at the seam: TOMATO's composite
# motions (clockwise then counter-clockwise, left then right) with no jump cut.
THEN_REVERSED = "then_reversed"


@dataclass(frozen=True)
class Variant:
    """A named edit: an op pipeline, or the special ``then_reversed`` composite."""

    name: str
    ops: tuple[Op, ...] = ()

    def apply(self, clip: Clip) -> Clip:
        if self.name == THEN_REVERSED:
            return concat(clip, Reverse()(clip))
        return run_pipeline(clip, self.ops)

    @property
    def upright(self) -> bool:
        """Whether the edit keeps down on screen down (see :attr:`Op.upright`)."""
        return all(op.upright for op in self.ops)

    def describe(self) -> list[dict[str, Any]]:
        if self.name == THEN_REVERSED:
            return [{"op": "concat", "with": "reverse"}]
        from dataclasses import asdict

        return [{"op": op.name, **asdict(op)} for op in self.ops]  # type: ignore[call-overload]


def edit_row(
    row: dict[str, Any],
    manifest_dir: Path,
    variant: Variant,
    out_dir: Path,
    *,
    require_certificate: bool = True,
    notes: list[str] | None = None,
) -> dict[str, Any]:
    """Apply a variant to one row, write its clip, contact sheet and record; return the row.

    ``notes``, when given, receives what a user should know about the edited clip
    (:func:`edit_notes`: dropped sound, a crop that loses the subject).

    Raises :class:`EditError` when an op refuses and :class:`VariantRejected` when the result
    is sound but not answerable from 16 uniform frames, or (declared facts) leaves too few
    frames to show them (:func:`require_shown`). Without ``require_certificate`` a row whose
    states do not certify is written, marked ``certificate.ok: false``. A row without
    per-frame states is marked ``verified: declared``.
    """
    from tempogen.sheets import sheet_from_video

    where = f"row {row.get('id')!r}"
    source = Row.from_json(row, where) if is_manifest_row(row) else row
    motion = row_motion(row, where) if needs_motion(row) else None
    vid = f"{row['id']}~{variant.name}"
    spec: dict[str, Any] = {
        "source": row.get("spec_hash") or row.get("video_sha256"),
        "variant": variant.describe(),
    }
    if not is_manifest_row(row):  # a user's record: its video's bytes and fields decide too
        spec["input"] = _record_inputs(row, manifest_dir)
    spec_hash = content_hash(spec)
    record = inside(out_dir, "clips", f"{vid}.json")
    video_rel = f"videos/{vid}.mp4"
    inside(out_dir, video_rel)
    sheet = inside(out_dir, "sheets", f"{vid}.png")
    cached = lookup(record, spec_hash, [sheet], {"video_sha256": out_dir / video_rel})
    # a record stands only if it carries what this edit would: a certificate that holds, or
    # (kept on request) one marked failed; else the edit is done again and judged afresh
    if cached is not None and motion is not None:
        kept = (cached.get("certificate") or {}).get("ok") is False and not require_certificate
        if stored_certified(cached, motion.fact) or kept:
            if notes is not None:
                notes.extend(edit_notes(variant.apply(load_clip(row, manifest_dir))))
            return cached
    loaded = load_clip(row, manifest_dir)
    if loaded.labels is None and not loaded.facts and row.get("question"):
        raise EditError(
            f"{where}: its answer {row.get('answer_text', '')!r} is not a fact tempogen reads "
            "(free words), so no edit can be shown to keep it right"
        )
    cert = None
    try:
        clip = reworded(variant.apply(loaded), motion)
        if clip.labels is not None and motion is not None:  # per-frame labels: certify
            cert = certificate_of(clip.labels, motion.fact, require_certificate)
        else:
            require_shown(loaded, clip)
    except VariantRejected:
        if cached is not None:  # an earlier run kept it (--keep-uncertified): not any more
            discard(cached, out_dir)
        raise
    if notes is not None:
        notes.extend(edit_notes(clip))
    if cached is not None and motion is None and cached.get("verified") == DECLARED:
        return cached
    rng = np.random.default_rng(int(spec_hash[:12], 16))
    try:
        q = question_fields(row, clip, rng, motion)
    except ValueError as exc:
        raise VariantRejected(str(exc)) from exc
    # as in generation: the video takes its final name only after its record is written
    partial = staging(out_dir / video_rel)
    with discard_on_error(partial):
        clip.write(partial)
        sheet_from_video(partial, sheet, tile_width=SHEET_TILE)
        flags = dict.fromkeys(VARIATION_KEYS, 0)
        flags.update({k: int(v) for k, v in (row.get("variation") or {}).items() if k in flags})
        for v in clip.variation:
            flags[v] = 1
        new = edited_row(
            source,
            **q,
            id=vid,
            video=video_rel,
            labels=labels_json(clip.labels) if clip.labels is not None else clip.facts,
            variation=flags,
            source=row["id"],
            edits=list(row.get("edits") or []) + variant.describe(),
            spec=spec,
            spec_hash=spec_hash,
            video_sha256=sha256_file(partial),
            num_frames=clip.num_frames,
            fps=clip.fps,
            width=clip.size[0],
            height=clip.size[1],
            certificate=cert,
            verified=DECLARED if cert is None else None,
        )
        commit(record, new, staged=[out_dir / video_rel])
    return new


def _record_inputs(row: dict[str, Any], manifest_dir: Path) -> dict[str, Any]:
    """What a user's record is made of beyond its declared ``video_sha256``: the sha256 of
    the video file as it is now, and a hash of every field (labels, question, options), so
    a cached edit is reused only while both are unchanged."""
    video = manifest_dir / str(row.get("video", ""))
    return {
        "video_sha256": sha256_file(video) if video.is_file() else None,
        "record": content_hash(row),
    }


@dataclass
class EditReport:
    """What ``tempogen edit`` did: the rows written and, per refused edit, its row and reason."""

    rows: list[dict[str, Any]]
    refused: list[tuple[str, str, str]]  # (row id, pipeline name, reason)
    manifest: Path
    notes: list[tuple[str, str, str]] = field(default_factory=list)  # (row id, pipeline, note)

    @property
    def uncertified(self) -> list[str]:
        """Ids of the rows written although their certificate fails (``--keep-uncertified``)."""
        return [r["id"] for r in self.rows if (r.get("certificate") or {}).get("ok") is False]

    @property
    def declared(self) -> list[str]:
        """Ids of the rows whose answers rest on declared facts (``verified: declared``)."""
        return [r["id"] for r in self.rows if r.get("verified") == DECLARED]

    def by_reason(self) -> list[tuple[str, int]]:
        """Refusals counted by reason (the op's message without the row's own id), most first."""
        counts: dict[str, int] = {}
        for rid, name, why in self.refused:
            # the row's id as messages name it (``id~pipeline`` or quoted), never inside words
            why = why.replace(f"{rid}~{name}", "<row>").replace(repr(rid), "<row>")
            key = f"{name}: {why}"
            counts[key] = counts.get(key, 0) + 1
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def edit_manifest(
    manifest: str | os.PathLike[str],
    pipelines: Mapping[str, Sequence[Op]],
    out_dir: str | os.PathLike[str],
    plugins: Sequence[str] = (),
    *,
    strict: bool = False,
    keep_uncertified: bool = False,
    on_done: Callable[[], None] | None = None,
) -> EditReport:
    """Apply every named pipeline to every row of a manifest (``tempogen edit``); write the
    edited clips and ``out_dir/manifest.jsonl``; report the rows written and the refusals.

    An edit an op refuses (it cannot move that clip's labels soundly) or whose answer does
    not certify at 16 frames is skipped and reported, unless ``strict``, which stops at the
    first with the row named; ``keep_uncertified`` writes the uncertified ones instead,
    marked ``certificate.ok: false``. The motion plugins the
    rows name (and ``plugins``) are imported first. Edits of manifest rows are manifest rows
    again and are validated before the manifest is written; users' clip records (declared
    facts) stay records. ``out_dir`` may not hold the input manifest: it is never written over.
    """
    opened = open_manifest(manifest, plugins, validate=True)
    out = Path(out_dir)
    path = out / "manifest.jsonl"
    if path.resolve() == opened.path.resolve():
        raise OutputError(
            f"{out}: holds the input manifest {opened.path}, which the edited manifest would "
            "overwrite; write the edits to another folder"
        )
    check_ids(opened.lines, opened.path)  # ids become file names: safe, and one each
    check_writable(out)
    with folder_lock(out, "edit"):
        claim_edit_folder(out)
        with cleanup_on_stop(out):
            return _edit_rows(opened, pipelines, out, strict, keep_uncertified, on_done)


def _edit_rows(
    opened: OpenManifest,
    pipelines: Mapping[str, Sequence[Op]],
    out: Path,
    strict: bool,
    keep_uncertified: bool,
    on_done: Callable[[], None] | None,
) -> EditReport:
    """:func:`edit_manifest` in its locked folder: edit every row, then write the manifest
    merged with the rows an earlier run wrote there (a row this run redid is replaced; one
    it now refuses is dropped, as its source or pipeline changed)."""
    path = out / "manifest.jsonl"
    written: list[dict[str, Any]] = []
    refused: list[tuple[str, str, str]] = []
    notes: list[tuple[str, str, str]] = []
    for n, row in opened.lines:
        for name, ops in pipelines.items():
            variant = Variant(name, tuple(ops))
            said: list[str] = []
            certify_it = not keep_uncertified
            try:
                written.append(
                    edit_row(
                        row,
                        opened.path.parent,
                        variant,
                        out,
                        require_certificate=certify_it,
                        notes=said,
                    )
                )
                notes.extend((str(row.get("id")), name, note) for note in said)
            except (EditError, VariantRejected) as exc:
                if strict:
                    raise EditError(
                        f"{opened.path}:{n}: row {row.get('id')!r}: {name}: {exc}"
                    ) from exc
                refused.append((str(row.get("id")), name, str(exc)))
            if on_done:
                on_done()
    report = EditReport(written, refused, path, notes)
    if refused and not written:
        reasons = "; ".join(f"{why} ({n}x)" for why, n in report.by_reason()[:3])
        raise EditError(f"{opened.path}: every edit was refused, nothing written: {reasons}")
    tried = {f"{row['id']}~{name}" for row in opened.rows for name in pipelines}
    earlier = read_jsonl(path) if path.is_file() else []
    rows = [r for r in earlier if r.get("id") not in tried] + written
    if all(is_manifest_row(r) for r in rows):
        write_manifest(path, rows)
    else:
        for n, r in enumerate(rows, 1):
            if is_manifest_row(r):
                validate_row(r, f"{path}:{n}")
        write_jsonl(path, rows)
    return report


def default_variants() -> list[Variant]:
    """The edits ``make dataset`` draws from: TOMATO's counterfactual, zoom and composite."""
    from tempogen.editing import parse_pipeline

    named = {
        "reverse": ["reverse"],
        "mirror_h": [{"mirror": "horizontal"}],
        "mirror_v": [{"mirror": "vertical"}],
        "rotate90": [{"rotate": 90}],
        "slow": [{"speed": 0.5}],
        "ramp_up": [{"speed_ramp": [0.6, 1.6]}],
        "zoom": [{"zoom_in": {"subject": "main", "margin": 0.25}}],
        "reverse_mirror": ["reverse", {"mirror": "horizontal"}],
        "reverse_mirror_zoom": ["reverse", {"mirror": "vertical"}, {"zoom_in": {"margin": 0.25}}],
    }
    out = [Variant(k, tuple(parse_pipeline(v, k))) for k, v in named.items()]
    out.append(Variant(THEN_REVERSED))
    return out


def plan_variants(
    rows: Sequence[dict[str, Any]], share: float, seed: int, variants: Sequence[Variant]
) -> list[tuple[dict[str, Any], list[Variant]]]:
    """For a seeded ``share`` of rows, the variants to try in order (the first that certifies
    wins). Gravity stays down: a 3D scene (a person, a bouncing ball) gets only upright edits."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 7919]))
    k = int(math.floor(share * len(rows) + 0.5))
    chosen = sorted(rng.choice(len(rows), size=k, replace=False).tolist()) if k else []
    plans = []
    for n, i in enumerate(chosen):
        if (rows[i].get("spec") or {}).get("encoding"):
            continue  # a noise clip is not edited: resampling would blend its noise cells
        start = n % len(variants)
        order = list(variants[start:]) + list(variants[:start])
        if is_3d(rows[i]):
            order = [v for v in order if v.upright]
        plans.append((rows[i], order))
    return plans


def is_3d(row: Mapping[str, Any]) -> bool:
    """Whether a row's clip was rendered as a 3D scene (a simulated human or 3D objects)."""
    return needs_motion(dict(row)) and row_motion(dict(row), "row").renderer != "2d"


def build_variant(
    plan: tuple[dict[str, Any], list[Variant]], out_dir: Path
) -> dict[str, Any] | None:
    """The first variant of the list that applies and certifies, or None."""
    row, order = plan
    for v in order:
        try:
            new = edit_row(row, out_dir, v, out_dir)
        except (EditError, VariantRejected):
            continue
        if is_3d(row) and not readable(new, out_dir):
            discard(new, out_dir)  # e.g. a zoom onto the feet leaves the gloves out of view
            continue
        return new
    return None


def readable(row: dict[str, Any], out_dir: Path) -> bool:
    """Whether the pixel audit reads a variant's answer back from its video, as
    ``audit verify`` will: a 3D scene's variant ships only if it does."""
    from tempogen.builders.audit.verify import verify_row

    verdict = verify_row(row, out_dir)
    return verdict is None or verdict.ok


def discard(row: dict[str, Any], out_dir: Path) -> None:
    """Remove an edited clip's record first (its commit), then its video and sheet."""
    for path in (
        inside(out_dir, "clips", f"{row['id']}.json"),
        inside(out_dir, row["video"]),
        inside(out_dir, "sheets", f"{row['id']}.png"),
    ):
        path.unlink(missing_ok=True)


def _source_video(plan: tuple[dict[str, Any], list[Variant]]) -> list[str]:
    return [plan[0]["video"]]


# An edited variant: its source clip's video is what a worker without the disk is sent.
VARIANTS = Stage("variants", build_variant, inputs=_source_video)


def build_variants(
    rows: Sequence[dict[str, Any]],
    out_dir: Path,
    share: float,
    seed: int,
    jobs: int,
    on_done: Callable[[dict[str, Any] | None], None] | None = None,
    executor: Executor | None = None,
) -> list[dict[str, Any]]:
    """Edited variants for a share of the rows, in a deterministic order (on ``executor``
    when given, else over ``jobs`` local processes)."""
    plans = plan_variants(rows, share, seed, default_variants())
    results: list[dict[str, Any]] = []
    for r in (executor or LocalExecutor(jobs)).imap(VARIANTS, plans, Path(out_dir)):
        if on_done:
            on_done(r)
        if r is not None:
            results.append(r)
    return results
