"""Render the planned clips of a dataset: parallel workers, resumable output.

``render_spec`` turns one spec (``generators/planning.py``) into a video, a contact sheet and
a manifest row; a finished clip leaves a sidecar record keyed by its spec hash
(``tempogen.resume``), so a rerun after an interruption reuses it and redoes only the rest.
``render_all`` runs every spec on an executor (a local pool or a Ray cluster).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.errors import GenerationError
from tempogen.executor import Executor, LocalExecutor, Stage
from tempogen.facts import FACTS, answer_of
from tempogen.generators.motion import SAMPLES, Certificate, Motion, Scene, certify, get_motion
from tempogen.generators.planning import (
    DEMONSTRATIONS,
    RENDER_VERSION,
    TWIN_KINDS,
    SeedStream,
    Spec,
    add_twins,
    check_config,
    plan,
    seed_stream,
    spec_labels,
    spec_scene,
    twin_key,
)
from tempogen.generators.render2d import Compositor, make_background
from tempogen.kinds import DemonstrationType, Task
from tempogen.labels import Labels
from tempogen.manifest import Row
from tempogen.questions import VARIATION_KEYS, choose_options, option_text
from tempogen.resume import commit, discard_on_error, lookup, staging
from tempogen.video import VideoWriter, sha256_file

# the planning names that were this module's before planning moved out (their importers)
__all__ = [
    "DEMONSTRATIONS",
    "RENDER_VERSION",
    "TWIN_KINDS",
    "SeedStream",
    "Spec",
    "add_twins",
    "check_config",
    "plan",
    "seed_stream",
    "spec_labels",
    "spec_scene",
    "twin_key",
]

NOISE_NOTE = "temporal noise"  # the manifest's note (and TOMATO's) on a noise-encoded clip
SHEET_TILE = 240  # contact-sheet tile width in pixels (a 4x4 sheet is about 980 px wide)


def _jsonable(v: Any) -> Any:
    if isinstance(v, tuple | list):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, np.integer):
        return int(v)
    return v


def question_fields(
    motion: Motion,
    labels: Labels,
    key: str,
    rng: np.random.Generator,
    answer_pos: int | None,
    pair_keys: tuple[str, str] | None = None,
    rng_shared: np.random.Generator | None = None,
) -> dict[str, Any]:
    """Question, options, answer index and text, written from the labels' answer key.

    A minimal pair's members (``pair_keys``: the original's answer, then the twin's) show the
    same options in the same order when they can: the original's, with the twin's answer put
    in place of a distractor if it is missing."""
    keys = choose_options(motion.fact, key, labels, rng, answer_pos)
    if pair_keys is not None:
        keys = _pair_options(motion, labels, keys, key, pair_keys, rng_shared, answer_pos)
    return {
        "question": motion.question_text(labels),
        "options": [option_text(motion.fact, k, labels) for k in keys],
        "option_keys": keys,
        "answer": keys.index(key),
        "answer_text": option_text(motion.fact, key, labels),
        "answer_key": key,
    }


def _pair_options(
    motion: Motion,
    labels: Labels,
    own: list[str],
    key: str,
    pair_keys: tuple[str, str],
    rng: np.random.Generator | None,
    answer_pos: int | None,
) -> list[str]:
    """The options both members of a pair show (see :func:`question_fields`); ``own`` when
    the shared list does not suit this clip (an option its pattern may not offer here)."""
    original, twin = pair_keys
    if rng is None:
        return own
    shared = choose_options(motion.fact, original, labels, rng, answer_pos)
    # the twin's answer goes to a seeded place other than the original's (a fixed place, such
    # as the last one, would tell a twin's answer from the options alone)
    n, at = len(shared), shared.index(original)
    there = (at + 1 + int(rng.integers(n - 1))) % n if n > 1 else at
    if twin in shared:
        j = shared.index(twin)
        shared[j], shared[there] = shared[there], shared[j]
    else:
        shared[there] = twin
    allowed = set(FACTS[motion.fact].pool(key, labels)) | {key}
    if motion.fact == "next":  # the gesture the question names is never offered
        allowed.discard(labels.query.kind)
    if key not in shared or not set(shared) <= allowed or len(set(shared)) != len(shared):
        return own
    return shared


def certificate_json(cert: Certificate) -> dict[str, Any]:
    """A certificate as stored in the manifest."""
    return {
        "frames": SAMPLES,
        "sampled": _jsonable(cert.sampled),
        "first_frame_only": _jsonable(cert.first_only),
        "last_frame_only": _jsonable(cert.last_only),
        "max_turn_per_sample": round(cert.max_turn, 2),
        "sampled_80": _jsonable(cert.sampled_80),
    }


def labels_json(labels: Labels) -> dict[str, Any]:
    """Labels as stored in the manifest: states, query, and every fact derived from them."""
    d = labels.to_json()
    d["facts"] = _jsonable(observe.observe(labels))
    d["answer"] = _jsonable(answer_of(labels))
    return d


def render_spec(spec: Spec, out_dir: Path) -> dict[str, Any]:
    """Render, encode and record one clip (or reuse a finished one with the same spec hash)."""
    return render_or_reuse(spec, out_dir)[0]


def render_or_reuse(spec: Spec, out_dir: Path) -> tuple[dict[str, Any], bool]:
    """:func:`render_spec`'s row, and whether it was reused from an earlier run."""
    out_dir = Path(out_dir)
    record_path = out_dir / "clips" / f"{spec.id}.json"
    video_rel = f"videos/{spec.id}.mp4"
    video_path = out_dir / video_rel
    sheet_path = out_dir / "sheets" / f"{spec.id}.png"
    needed = [sheet_path, *(noise_pages(out_dir, spec.id) if spec.encoding else ())]
    reused = lookup(record_path, spec.hash, needed, {"video_sha256": video_path})
    if reused is not None:
        return reused, True
    return _render_new(spec, out_dir, video_path, video_rel, sheet_path, record_path), False


def scene_frames(scene: Scene, background: str, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """A scene's frames as a clip shows them: its 3D world's, else the 2D compositor's over a
    ``background`` drawn from ``rng`` (frames may share one buffer: copy what you keep)."""
    if scene.world is not None:
        return iter(scene.world.frames(background, rng))
    labels = scene.labels()
    comp = Compositor(labels, make_background(background, labels.width, labels.height, rng))
    return (comp.frame(i) for i in range(labels.num_frames))


def _render_new(
    spec: Spec, out_dir: Path, video_path: Path, video_rel: str, sheet_path: Path, record_path: Path
) -> dict[str, Any]:
    from tempogen.sheets import write_sheet

    scene, bg_rng, opt_rng = spec_scene(spec)
    labels = scene.labels()
    motion = get_motion(spec.motion)
    frames = scene_frames(scene, spec.background, bg_rng)
    idx = observe.uniform_indices(labels.num_frames, SAMPLES)
    wanted = {int(i): k for k, i in enumerate(idx)}
    noise = _noise_clip(scene, spec, bg_rng, idx) if spec.encoding else None
    if noise is not None:
        frames = noise.frames()
    sampled: dict[int, np.ndarray] = {}  # sample slot -> a copy of its frame
    # The clip's record is its commit: the video takes its final name only after the record
    # is written, so a kill or a full disk never leaves a finished-looking video unrecorded.
    partial = staging(video_path)
    with discard_on_error(partial):
        with VideoWriter(
            partial, spec.fps, spec.width, spec.height, crf=spec.crf, preset=spec.preset,
            background=True,
        ) as vw:  # fmt: skip
            written = 0
            for i, frame in enumerate(frames):
                vw.write(frame)
                written += 1
                if i in wanted:
                    sampled[wanted[i]] = frame.copy()
            if written != labels.num_frames:
                raise RuntimeError(
                    f"{spec.id}: motion {spec.motion!r} rendered {written} frames, "
                    f"its labels have {labels.num_frames}"
                )
        sheet = np.stack([sampled[k] for k in range(SAMPLES)])
        write_sheet(sheet_path, sheet, sorted(wanted), tile_width=SHEET_TILE)

        cert = certify(labels)
        cert_json = certificate_json(cert)
        if noise is not None:
            cert_json["temporal_noise"] = _certify_noise(noise, partial, out_dir, spec)
        row = Row(
            id=spec.id,
            video=video_rel,
            task=Task(spec.task),
            generator=spec.motion,
            demonstration_type=DemonstrationType.SIMULATED,
            **question_fields(
                motion,
                labels,
                spec.answer_key,
                opt_rng,
                spec.answer_pos,
                pair_keys=_pair_keys(spec),
                rng_shared=_opt_rng(spec),
            ),  # fmt: skip
            labels=labels_json(labels),
            # TOMATO's flags only; the labels' meta also counts distractors and misleading text
            variation={k: int(labels.meta.get("variation", {}).get(k, 0)) for k in VARIATION_KEYS},
            source=None,
            edits=(),
            seed=spec.seed,
            spec=spec.to_json(),
            spec_hash=spec.hash,
            video_sha256=sha256_file(partial),
            num_frames=labels.num_frames,
            fps=spec.fps,
            width=spec.width,
            height=spec.height,
            note=motion.note
            if noise is None
            else ", ".join(filter(None, [motion.note, NOISE_NOTE])),
            certificate=cert_json,
            pair=spec.pair or None,
            mocap=labels.meta.get("mocap"),
        ).to_json()
        commit(record_path, row, staged=[video_path])
    return row


def _pair_keys(spec: Spec) -> tuple[str, str] | None:
    """A pair member's (original's answer, twin's answer), or None outside a pair."""
    if not spec.pair:
        return None
    if spec.id == spec.pair:
        return spec.answer_key, spec.twin_key
    return spec.twin_key, spec.answer_key


def noise_pages(out_dir: Path, clip_id: str) -> tuple[Path, Path]:
    """A noise clip's clean contact sheet and its motion-signal sheet (for noise.html)."""
    folder = Path(out_dir) / "noise"
    return folder / f"{clip_id}-clean.png", folder / f"{clip_id}-motion.png"


def _noise_clip(scene: Scene, spec: Spec, bg_rng: np.random.Generator, idx: np.ndarray) -> Any:
    """The :class:`~tempogen.generators.noise.NoiseClip` of a noise spec: clean frames and
    the foreground's coverage come from one pass (the 3D world's, or the 2D compositor's)."""
    from tempogen.generators.noise import NoiseClip, foreground
    from tempogen.generators.render2d import Coverage

    labels = scene.labels()
    if scene.world is not None:
        # the World protocol (generators/motion.py, being restructured apart) does not yet
        # declare frames_and_masks; every world a noise spec can name has it
        pairs = scene.world.frames_and_masks(spec.background, bg_rng)  # type: ignore[attr-defined]
    else:
        cover = Coverage(labels, foreground(labels))
        clean = scene_frames(scene, spec.background, bg_rng)
        pairs = ((f, cover.frame(i)) for i, f in enumerate(clean))
    rng = np.random.default_rng(seed_stream(spec, SeedStream.NOISE))
    return NoiseClip(labels, pairs, rng, idx)


def _certify_noise(noise: Any, video: Path, out_dir: Path, spec: Spec) -> dict[str, Any]:
    """Certify a written noise clip from its decoded frames, and write its clean and
    motion-signal sheets; raises GenerationError (nothing ships) when it fails."""
    from tempogen.sheets import write_sheet
    from tempogen.video import read_video

    try:
        decoded = dict(zip(noise.read, read_video(video, noise.read)))
        cert, motion = noise.certify(decoded)
    except GenerationError as exc:
        raise GenerationError(f"{spec.id}: {exc}") from None
    clean_path, motion_path = noise_pages(out_dir, spec.id)
    idx = noise.idx
    write_sheet(clean_path, np.stack([noise.clean[i] for i in idx]), idx, tile_width=SHEET_TILE)
    c = noise.cell
    h, w = spec.height, spec.width
    still = [np.repeat(np.repeat(m, c, 0), c, 1)[:h, :w] for m in motion]
    sheet = np.stack([np.where(m[..., None], 255, 24).astype(np.uint8).repeat(3, 2) for m in still])
    write_sheet(motion_path, sheet, idx, tile_width=SHEET_TILE)
    return {"cell": c, **cert}


def _opt_rng(spec: Spec) -> np.random.Generator:
    """A fresh copy of the spec's option generator (the same for both members of a pair)."""
    return np.random.default_rng(seed_stream(spec, SeedStream.OPTIONS))


FRAME_COST_3D = 20.0  # a 3D frame's render time in 2D frames (for the longest-first order)


def _frame_cost(spec: Spec) -> float:
    """Rough cost of one frame relative to a 2D frame (3D frames render ~20x slower)."""
    return FRAME_COST_3D if _is_3d(spec) else 1.0


def _is_3d(spec: Spec) -> bool:
    return get_motion(spec.motion).renderer != "2d"


# A clip: rendered, encoded and recorded (3D ones in long-lived renderer actors on Ray).
CLIPS = Stage("clips", render_or_reuse, gl=_is_3d)


def render_all(
    specs: list[Spec],
    out_dir: Path,
    jobs: int | None = None,
    on_done: Callable[[dict[str, Any], bool], None] | None = None,
    executor: Executor | None = None,
) -> list[dict[str, Any]]:
    """Render specs over ``jobs`` processes (default: all cores), or on ``executor`` when
    given (``tempogen.executor``: a local pool or a Ray cluster); rows come back in spec order.
    ``on_done(row, reused)`` sees each clip as it finishes (reused: from an earlier run).

    Costliest clips (3D ones, then the longest) go first, so no worker is left finishing a long
    clip alone at the end.
    """
    executor = executor or LocalExecutor(jobs)
    longest_first = sorted(specs, key=lambda s: -s.num_frames * _frame_cost(s))
    done: dict[str, dict[str, Any]] = {}
    for row, reused in executor.imap(CLIPS, longest_first, Path(out_dir)):
        done[row["id"]] = row
        if on_done is not None:
            on_done(row, reused)
    return [done[s.id] for s in specs]
