"""Edited variants of manifest rows: counterfactual, zoomed and composite clips with new answers.

An edit reads the source row's video and labels, runs an op pipeline, writes the new clip and
a new row whose question is regenerated from the moved labels. Simulated rows carry per-frame
states, so the new answer is re-derived and certified at 16 frames; external rows carry
declared facts (``rotation: [clockwise]``), which go through the label algebra.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tempogen.builders.dataset.build import check_writable, claim_edit_folder, cleanup_on_stop
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
from tempogen.facts import FACTS, answer_of
from tempogen.generators.build import SHEET_TILE, certificate_json, labels_json
from tempogen.generators.motion import SAMPLES, Motion, certify
from tempogen.io import content_hash, folder_lock, read_jsonl, write_jsonl
from tempogen.labels import Labels, Query
from tempogen.manifest import Row, is_manifest_row, validate_row, write_manifest
from tempogen.paths import check_ids, inside
from tempogen.questions import VARIATION_KEYS, answer_key, choose_options, option_text
from tempogen.resume import commit, discard_on_error, lookup, staging
from tempogen.video import sha256_file

TOKEN_ALIASES = {
    "clockwise": "cw",
    "counter-clockwise": "ccw",
    "counterclockwise": "ccw",
    "anticlockwise": "ccw",
    "leftwards": "left",
    "rightwards": "right",
    "upwards": "up",
    "downwards": "down",
}
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


class VariantRejected(EditError):
    """A variant that is sound but unusable (its answer is not certified at 16 frames)."""


def normalise_facts(facts: dict[str, Any], where: str) -> dict[str, Any]:
    """Declared facts with TOMATO words mapped to tokens (``clockwise`` -> ``cw``)."""
    if not isinstance(facts, dict):
        raise EditError(f"{where}: labels must be a mapping of fact to value, got {facts!r}")
    out: dict[str, Any] = {}
    for k, v in facts.items():
        if k not in tuple(FACTS):
            raise EditError(f"{where}: labels.{k}: unknown label; known: {', '.join(tuple(FACTS))}")
        if k in ("direction", "rotation", "approach"):
            if isinstance(v, str):
                v = [] if v.lower() == "none" else v.split("-") if k == "approach" else [v]
            v = [TOKEN_ALIASES.get(str(t).lower(), str(t).lower()) for t in v]
        out[k] = v
    return out


def load_clip(row: dict[str, Any], manifest_dir: Path) -> Clip:
    """A row's video with its labels: per-frame states when present, else declared facts."""
    where = f"row {row.get('id', '?')}"
    if "video" not in row:
        raise EditError(f"{where}: missing field 'video'")
    video = manifest_dir / row["video"]
    labels = row.get("labels") or {}
    if "tracks" in labels:
        return Clip.from_video(video, Labels.from_json(labels))
    return Clip.from_video(video, facts=normalise_facts(labels, where))


def _question_fields(
    row: dict[str, Any], clip: Clip, rng: np.random.Generator, motion: Motion | None
) -> dict[str, Any]:
    """Question and options rewritten from the edited clip's answer (``motion``: the source
    row's pattern, for clips with per-frame labels)."""
    if clip.labels is not None and motion is not None:
        fact = motion.fact
        value = answer_of(clip.labels)
        if value is None:
            raise VariantRejected("the edited states do not determine an answer")
        key = answer_key(fact, value)
        keys = choose_options(fact, key, clip.labels, rng)
        return {
            "question": motion.question_text(clip.labels),
            "options": [option_text(fact, k, clip.labels) for k in keys],
            "option_keys": keys,
            "answer": keys.index(key),
            "answer_text": option_text(fact, key, clip.labels),
            "answer_key": key,
        }
    fact = row.get("fact") or (next(iter(clip.facts)) if len(clip.facts) == 1 else None)
    if fact is None or fact not in clip.facts or "question" not in row:
        return {}
    key = answer_key(fact, clip.facts[fact])
    dummy = Labels(clip.size[0], clip.size[1], clip.fps, (), Query(fact, ()), {})
    keys = choose_options(fact, key, dummy, rng)
    return {
        "question": row["question"],
        "options": [option_text(fact, k, dummy) for k in keys],
        "option_keys": keys,
        "answer": keys.index(key),
        "answer_text": option_text(fact, key, dummy),
        "answer_key": key,
    }


def edited_row(source: Row | dict[str, Any], /, **changes: Any) -> dict[str, Any]:
    """The row of an edited clip: the source row with ``changes`` (``None`` drops a field).

    A manifest row (a :class:`Row`) gives a manifest row again; a user's clip record (a dict)
    keeps its own fields, as given, with the changes on top.
    """
    changes = {"pair": None, **changes}  # a variant of a minimal pair's member is in no pair
    if isinstance(source, Row):
        return source.edited(**changes).to_json()
    kept = {k: v for k, v in source.items() if k not in changes}
    return {**kept, **{k: v for k, v in changes.items() if v is not None}}


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
    is sound but not answerable from 16 uniform frames (and a certificate is required).
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
    if cached is not None:
        if notes is not None:
            notes.extend(edit_notes(variant.apply(load_clip(row, manifest_dir))))
        return cached
    loaded = load_clip(row, manifest_dir)
    if loaded.labels is None and not loaded.facts and row.get("question"):
        raise EditError(
            f"{where}: its answer {row.get('answer_text', '')!r} is not a fact tempogen reads "
            "(free words), so no edit can be shown to keep it right"
        )
    clip = variant.apply(loaded)
    if notes is not None:
        notes.extend(edit_notes(clip))
    cert = None
    if clip.labels is not None and motion is not None:  # per-frame labels: certify the answer
        cert = certify(clip.labels)
        fact = motion.fact
        if require_certificate and not cert.ok(
            fact, answer_key(fact, cert.full) if cert.full is not None else ""
        ):
            raise VariantRejected(f"{vid}: not answerable from {SAMPLES} frames: {cert}")
    rng = np.random.default_rng(int(spec_hash[:12], 16))
    try:
        q = _question_fields(row, clip, rng, motion)
    except ValueError as exc:
        raise VariantRejected(f"{vid}: {exc}") from exc
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
            certificate=certificate_json(cert) if cert is not None else None,
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

    def by_reason(self) -> list[tuple[str, int]]:
        """Refusals counted by reason (the op's message without the row's own id), most first."""
        counts: dict[str, int] = {}
        for rid, name, why in self.refused:
            key = f"{name}: {why.replace(rid, '<row>')}"
            counts[key] = counts.get(key, 0) + 1
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def edit_manifest(
    manifest: str | os.PathLike[str],
    pipelines: Mapping[str, Sequence[Op]],
    out_dir: str | os.PathLike[str],
    plugins: Sequence[str] = (),
    *,
    strict: bool = False,
    on_done: Callable[[], None] | None = None,
) -> EditReport:
    """Apply every named pipeline to every row of a manifest (``tempogen edit``); write the
    edited clips and ``out_dir/manifest.jsonl``; report the rows written and the refusals.

    An edit an op refuses (it cannot move that clip's labels soundly) is skipped and reported,
    unless ``strict``, which stops at the first with the row named. The motion plugins the
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
            return _edit_rows(opened, pipelines, out, strict, on_done)


def _edit_rows(
    opened: OpenManifest,
    pipelines: Mapping[str, Sequence[Op]],
    out: Path,
    strict: bool,
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
            try:
                written.append(
                    edit_row(
                        row, opened.path.parent, variant, out, require_certificate=False, notes=said
                    )  # fmt: skip
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
