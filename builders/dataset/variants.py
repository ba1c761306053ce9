"""Edited variants of manifest rows: counterfactual, zoomed and composite clips with new answers.

An edit reads the source row's video and labels, runs an op pipeline, writes the new clip and
a new row whose question is regenerated from the moved labels. Simulated rows carry per-frame
states, so the new answer is re-derived and certified at 16 frames; external rows carry
declared facts (``rotation: [clockwise]``), which go through the label algebra.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.editing import Clip, EditError, concat, run_pipeline
from tempogen.editing.ops import Op, Reverse
from tempogen.generators.build import SHEET_TILE, certificate_json, labels_json
from tempogen.generators.motion import SAMPLES, certify, get_motion
from tempogen.io import content_hash
from tempogen.labels import Labels, Query
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

    def describe(self) -> list[dict[str, Any]]:
        if self.name == THEN_REVERSED:
            return [{"op": "concat", "with": "reverse"}]
        from dataclasses import asdict

        return [{"op": op.name, **asdict(op)} for op in self.ops]  # type: ignore[call-overload]


class VariantRejected(Exception):
    """A variant that is sound but unusable (its answer is not certified at 16 frames)."""


def normalise_facts(facts: dict[str, Any], where: str) -> dict[str, Any]:
    """Declared facts with TOMATO words mapped to tokens (``clockwise`` -> ``cw``)."""
    if not isinstance(facts, dict):
        raise EditError(f"{where}: labels must be a mapping of fact to value, got {facts!r}")
    out: dict[str, Any] = {}
    for k, v in facts.items():
        if k not in observe.FACTS:
            raise EditError(
                f"{where}: labels.{k}: unknown label; known: {', '.join(observe.FACTS)}"
            )
        if k in ("direction", "rotation"):
            if isinstance(v, str):
                v = [v]
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


def _question_fields(row: dict[str, Any], clip: Clip, rng: np.random.Generator) -> dict[str, Any]:
    """Question and options rewritten from the edited clip's answer."""
    if clip.labels is not None:
        motion = get_motion(row["generator"])
        fact = motion.fact
        value = observe.answer(clip.labels)
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


def edit_row(
    row: dict[str, Any],
    manifest_dir: Path,
    variant: Variant,
    out_dir: Path,
    *,
    require_certificate: bool = True,
) -> dict[str, Any]:
    """Apply a variant to one row, write its clip, contact sheet and record; return the row.

    Raises :class:`EditError` when an op refuses and :class:`VariantRejected` when the result
    is sound but not answerable from 16 uniform frames (and a certificate is required).
    """
    from tempogen.sheets import sheet_from_video

    vid = f"{row['id']}~{variant.name}"
    spec = {
        "source": row.get("spec_hash") or row.get("video_sha256"),
        "variant": variant.describe(),
    }
    spec_hash = content_hash(spec)
    record = out_dir / "clips" / f"{vid}.json"
    video_rel = f"videos/{vid}.mp4"
    sheet = out_dir / "sheets" / f"{vid}.png"
    cached = lookup(record, spec_hash, [sheet], {"video_sha256": out_dir / video_rel})
    if cached is not None:
        return cached
    clip = variant.apply(load_clip(row, manifest_dir))
    cert = None
    if clip.labels is not None:
        cert = certify(clip.labels)
        fact = get_motion(row["generator"]).fact
        if require_certificate and not cert.ok(
            fact, answer_key(fact, cert.full) if cert.full is not None else ""
        ):
            raise VariantRejected(f"{vid}: not answerable from {SAMPLES} frames: {cert}")
    rng = np.random.default_rng(int(spec_hash[:12], 16))
    try:
        q = _question_fields(row, clip, rng)
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
        new_labels = labels_json(clip.labels) if clip.labels is not None else clip.facts
        new = {
            **{k: v for k, v in row.items() if k not in ("certificate",)},
            **q,
            "id": vid,
            "video": video_rel,
            "labels": new_labels,
            "variation": flags,
            "source": row["id"],
            "edits": list(row.get("edits") or []) + variant.describe(),
            "spec": spec,
            "spec_hash": spec_hash,
            "video_sha256": sha256_file(partial),
            "num_frames": clip.num_frames,
            "fps": clip.fps,
            "width": clip.size[0],
            "height": clip.size[1],
        }
        if cert is not None:
            new["certificate"] = certificate_json(cert)
        commit(record, new, staged=[out_dir / video_rel])
    return new


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
    """For a seeded ``share`` of rows, the variants to try in order (the first that certifies wins)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 7919]))
    k = int(math.floor(share * len(rows) + 0.5))
    chosen = sorted(rng.choice(len(rows), size=k, replace=False).tolist()) if k else []
    plans = []
    for n, i in enumerate(chosen):
        start = n % len(variants)
        order = list(variants[start:]) + list(variants[:start])
        plans.append((rows[i], order))
    return plans


def build_variant(args: tuple[dict[str, Any], list[Variant], Path]) -> dict[str, Any] | None:
    """The first variant of the list that applies and certifies, or None."""
    row, order, out_dir = args
    for v in order:
        try:
            return edit_row(row, out_dir, v, out_dir)
        except (EditError, VariantRejected):
            continue
    return None


def build_variants(
    rows: Sequence[dict[str, Any]],
    out_dir: Path,
    share: float,
    seed: int,
    jobs: int,
    on_done: Callable[[dict[str, Any] | None], None] | None = None,
) -> list[dict[str, Any]]:
    """Edited variants for a share of the rows, in a deterministic order."""
    plans = plan_variants(rows, share, seed, default_variants())
    args = [(row, order, out_dir) for row, order in plans]
    results: list[dict[str, Any]] = []
    if jobs <= 1 or len(args) <= 1:
        it = map(build_variant, args)
        for r in it:
            if on_done:
                on_done(r)
            if r is not None:
                results.append(r)
        return results
    from tempogen.generators.build import process_pool

    with process_pool(jobs) as pool:
        for r in pool.imap(build_variant, args, chunksize=1):
            if on_done:
                on_done(r)
            if r is not None:
                results.append(r)
    return results
