"""Plan and render the simulated clips of a dataset: specs, parallel workers, resumable output.

``plan`` turns a config into specs, one per clip, with each pattern's answers balanced over
its own keys and the right option's position balanced too. ``render_spec`` turns one spec into a
video, a contact sheet and a manifest row; a finished clip leaves a sidecar record keyed by
its spec hash (``tempogen.resume``), so a rerun after an interruption reuses it and redoes
only the rest.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from enum import IntEnum
from pathlib import Path
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.config import ConfigError, DatasetConfig
from tempogen.errors import GenerationError
from tempogen.executor import Executor, LocalExecutor, Stage
from tempogen.facts import FACTS, answer_of
from tempogen.generators.motion import (
    MOTIONS,
    SAMPLES,
    Certificate,
    Motion,
    Scene,
    Style,
    certify,
    get_motion,
    make_scene,
    motions_for,
)
from tempogen.generators.noise import ENCODINGS, TEMPORAL_NOISE, NotNoiseable
from tempogen.generators.render2d import Compositor, make_background
from tempogen.labels import Labels
from tempogen.manifest import Row
from tempogen.questions import VARIATION_KEYS, choose_options, num_options, option_text
from tempogen.resume import commit, discard_on_error, lookup, spec_hash, staging
from tempogen.video import VideoWriter, sha256_file

# Bump when rendering or labelling changes what a spec produces: old clips are then redone.
RENDER_VERSION = 3
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


_UNSET_OMITTED = ("pair", "twin_key", "encoding")


@dataclass(frozen=True)
class Spec:
    """Everything that determines one clip; its hash names the finished work."""

    id: str
    task: str
    motion: str
    answer_key: str
    seed: int
    width: int
    height: int
    fps: float
    num_frames: int
    distractors: int
    misleading_text: bool
    background: str
    answer_pos: int
    crf: int
    preset: str
    body: str = ""  # body model of a simulated human ("" = the embedded mannequin)
    pair: str = ""  # minimal pair: the original's id, on both members ("" = no pair)
    twin_key: str = ""  # the other member's answer key
    encoding: str = ""  # "temporal_noise": every frame alone is noise (generators/noise.py)

    def to_json(self) -> dict[str, Any]:
        # fields added later are left out when unset, so other clips keep their spec hashes
        return {
            k: getattr(self, k)
            for k in self.__dataclass_fields__
            if k not in _UNSET_OMITTED or getattr(self, k)
        }

    @property
    def hash(self) -> str:
        return spec_hash(self.to_json(), RENDER_VERSION)


class SeedStream(IntEnum):
    """The random streams a clip's seed spawns, by index: ``SeedSequence(seed).spawn(n)[i]``
    is the same stream for any ``n > i`` (:func:`seed_stream`).

    LABELS: the pattern's scene (states, distractors, misleading text; and the looks of a
    clip in no pair); BACKGROUND: the 2D background, or the 3D world's draws at render time;
    OPTIONS: which wrong options a question offers, in what order (a minimal pair's shared
    list draws from a fresh copy, the same for both members); LOOKS: a minimal pair's looks,
    drawn apart from its answer; NOISE: a noise clip's still texture and per-frame noise.

    An index is never reused, renumbered or removed: every clip already rendered (and its
    spec hash, which names no stream) would get other pixels, options or labels. A new stream
    takes the next free index.
    """

    LABELS = 0
    BACKGROUND = 1
    OPTIONS = 2
    LOOKS = 3
    NOISE = 4


def seed_stream(spec: Spec, stream: SeedStream) -> np.random.SeedSequence:
    """The spec's ``stream``: the same seed sequence wherever it is asked for."""
    return np.random.SeedSequence(spec.seed).spawn(len(SeedStream))[stream]


def check_config(cfg: DatasetConfig) -> None:
    """Check the names a config gives against the motion registry (plugins already loaded)."""
    for i, name in enumerate(cfg.motions):
        MOTIONS.lookup(name, f"{cfg.source}: motions[{i}]")


def plan(cfg: DatasetConfig) -> list[Spec]:
    """Specs for every clip of the config, deterministic in the config alone.

    Each task's questions go to patterns first (:func:`_patterns`); then every pattern's
    answers cycle through its own keys in a seeded order, so each answer a pattern can give
    gets the same share of its questions (within one). Balanced per pattern, not per task:
    knowing which pattern drew a clip (from the question's words, or the file's metadata)
    then says nothing about its answer. The right option's position cycles the same way.
    """
    check_config(cfg)
    specs: list[Spec] = []
    root = np.random.SeedSequence(cfg.seed)
    for t_index, task in enumerate(cfg.tasks):
        motions = [m for m in motions_for(task) if not cfg.motions or m.name in cfg.motions]
        n = cfg.samples_for(task)
        if not motions or not n:
            continue
        task_rng = np.random.default_rng(root.spawn(len(cfg.tasks))[t_index])
        answer_cycle: dict[str, list[str]] = {}
        position_cycle: dict[int, list[int]] = {}
        for i, motion in enumerate(_patterns(cfg, t_index, n, motions)):
            keys = answer_cycle.setdefault(motion.name, [])
            if not keys:
                own = motion.keys()
                keys.extend(own[j] for j in task_rng.permutation(len(own)))
            key = keys.pop()
            seed = int(task_rng.integers(0, 2**31 - 1))
            span = cfg.duration if motion.renderer == "2d" else cfg.scenes3d.duration
            duration = task_rng.uniform(*span)
            n_opts = num_options(motion.fact, motion.objects, motion.keys())
            cycle = position_cycle.setdefault(n_opts, [])
            if not cycle:
                cycle.extend(int(p) for p in task_rng.permutation(n_opts))
            lo, hi = cfg.style.distractors
            specs.append(
                Spec(
                    id=f"{task.replace('&', '_')}-{i:04d}",
                    task=task,
                    motion=motion.name,
                    answer_key=key,
                    seed=seed,
                    width=cfg.size[0],
                    height=cfg.size[1],
                    fps=cfg.fps,
                    num_frames=max(
                        SAMPLES * 2,
                        int(round(duration * cfg.fps)),
                        math.ceil(motion.min_seconds * cfg.fps),
                    ),
                    distractors=int(task_rng.integers(lo, hi + 1)),
                    misleading_text=bool(task_rng.random() < cfg.style.misleading_text),
                    background=str(task_rng.choice(list(cfg.style.backgrounds))),
                    answer_pos=cycle.pop(),
                    crf=cfg.encode.crf,
                    preset=cfg.encode.preset,
                    body=_body_model(cfg) if motion.renderer == "human" else "",
                )
            )
    if not specs:
        raise ConfigError(
            f"{cfg.source}: motions: {list(cfg.motions)} belong to none of the tasks "
            f"{list(cfg.tasks)} (with samples_per_task {cfg.samples_per_task}): nothing to build"
        )
    return add_twins(cfg, _noise_encoded(cfg, specs))


def twin_key(spec: Spec) -> str | None:
    """The answer a spec's minimal-pair twin shows (its fact's flip among the pattern's own
    answers), or None when the fact has no sound flip for it."""
    motion = get_motion(spec.motion)
    return FACTS[motion.fact].twin(spec.answer_key, motion.keys())


TWIN_KINDS = ("human", "object3d", "2d")  # one twin of each type per task first, then 2D ones


def add_twins(cfg: DatasetConfig, specs: list[Spec]) -> list[Spec]:
    """``specs`` with ``cfg.minimal_pairs`` of each task's questions paired with a twin.

    A twin is its original's spec (seed, length, style) with the answer flipped
    (:meth:`Fact.twin`); both carry the pair's id and each other's key. Each task takes one
    question of each 3D type it has, then 2D ones (3D clips cost ~20x more to render), from
    patterns not yet paired first (noise-encoded clips are not paired). A question is taken only when its twin's answer is one of
    its pattern's least given so far, so every pattern's answers stay balanced within one.
    """
    if not cfg.minimal_pairs:
        return specs
    given: dict[str, dict[str, int]] = {}
    for s in specs:
        keys = given.setdefault(s.motion, dict.fromkeys(get_motion(s.motion).keys(), 0))
        keys[s.answer_key] += 1
    chosen: dict[str, str] = {}  # original id -> twin key
    for t_index, task in enumerate(cfg.tasks):
        mine = [s for s in specs if s.task == task]
        want = math.ceil(cfg.minimal_pairs * len(mine) - 1e-9)
        rng = np.random.default_rng([cfg.seed, 14, t_index])
        pool = {
            k: [
                m for j in rng.permutation(len(mine)) if _kind(m := mine[j]) == k and not m.encoding
            ]
            for k in TWIN_KINDS
        }
        paired: set[str] = set()
        turn = [k for k in TWIN_KINDS if pool[k]]
        turn += ["2d"] * want if pool["2d"] else turn * want
        for kind in turn:
            if want <= 0:
                break
            pick = _pick_twin(pool[kind], given, paired)
            if pick is None:
                continue
            spec, key = pick
            pool[kind].remove(spec)
            given[spec.motion][key] += 1
            paired.add(spec.motion)
            chosen[spec.id] = key
            want -= 1
    out: list[Spec] = []
    for s in specs:
        if s.id not in chosen:
            out.append(s)
            continue
        key = chosen[s.id]
        out.append(replace(s, pair=s.id, twin_key=key))
        out.append(replace(s, id=f"{s.id}-twin", answer_key=key, pair=s.id, twin_key=s.answer_key))
    return out


def _kind(spec: Spec) -> str:
    return get_motion(spec.motion).renderer


def _pick_twin(
    pool: list[Spec], given: dict[str, dict[str, int]], paired: set[str]
) -> tuple[Spec, str] | None:
    """The first spec of ``pool`` (unpaired patterns first) whose twin answer is among its
    pattern's least given, with that answer; None if there is none."""
    for fresh in (True, False):
        for s in pool:
            if (s.motion not in paired) != fresh:
                continue
            key = twin_key(s)
            if key is not None and given[s.motion][key] == min(given[s.motion].values()):
                return s, key
    return None


def _noise_encoded(cfg: DatasetConfig, specs: list[Spec]) -> list[Spec]:
    """``style.temporal_noise`` of each task's questions (rounded, of its noise-encodable
    ones at most) turned into noise clips: picked by their own seeded generator, so answers,
    patterns and every other clip stay as planned; distractors and misleading text, which
    noise cannot show, are off for them."""
    share = cfg.style.temporal_noise
    if share <= 0:
        return specs
    out = list(specs)
    for t_index, task in enumerate(cfg.tasks):
        at = [i for i, s in enumerate(specs) if s.task == task]
        ok = [i for i in at if get_motion(specs[i].motion).temporal_noise]
        k = min(len(ok), int(math.floor(share * len(at) + 0.5)))
        rng = np.random.default_rng([cfg.seed, 15, t_index])  # apart from the twins' draw
        for j in rng.permutation(len(ok)):
            if k <= 0:
                break
            i = ok[int(j)]
            noisy = replace(specs[i], encoding=TEMPORAL_NOISE, distractors=0, misleading_text=False)
            try:  # this clip may move too fast for still noise to show it
                spec_scene(noisy)
            except NotNoiseable:
                continue
            out[i] = noisy
            k -= 1
    return out


DEMONSTRATIONS = ("human", "object3d")  # TOMATO's demonstration types drawn in 3D


def _patterns(cfg: DatasetConfig, t_index: int, n: int, motions: list[Motion]) -> list[Motion]:
    """The pattern of each of a task's ``n`` questions, in a seeded order.

    ``scenes3d.humans`` and ``scenes3d.objects`` of the questions (rounded up) go to simulated
    humans and 3D-object scenes, the rest to 2D patterns; a type the task (or the config's
    ``motions``) lacks leaves its share to the others. Within a type the patterns take turns,
    so each gets the same number of questions (within one).
    """
    rng = np.random.default_rng([cfg.seed, 3, t_index])
    kinds = {k: [m for m in motions if m.renderer == k] for k in ("2d", *DEMONSTRATIONS)}
    shares = {"human": cfg.scenes3d.humans, "object3d": cfg.scenes3d.objects}
    slots: list[str] = []
    for kind in DEMONSTRATIONS:
        if kinds[kind]:
            slots += [kind] * min(n - len(slots), math.ceil(shares[kind] * n - 1e-9))
    present = [k for k in kinds if kinds[k]]
    rest = ["2d"] if kinds["2d"] else present
    slots += [rest[j % len(rest)] for j in range(n - len(slots))]
    slots = [slots[j] for j in rng.permutation(n)]
    turns: dict[str, list[Motion]] = {k: [] for k in kinds}
    out = []
    for kind in slots:
        if not turns[kind]:
            turns[kind] = [kinds[kind][j] for j in rng.permutation(len(kinds[kind]))]
        out.append(turns[kind].pop())
    return out


def _body_model(cfg: DatasetConfig) -> str:
    """The body model humans are posed with: the config's, else ``$TEMPOGEN_BODY_MODEL``."""
    return cfg.scenes3d.body_model or os.environ.get("TEMPOGEN_BODY_MODEL", "")


def spec_labels(spec: Spec) -> tuple[Labels, np.random.Generator, np.random.Generator]:
    """Labels of a spec, plus the generators for its background and its options."""
    scene, bg_rng, opt_rng = spec_scene(spec)
    return scene.labels(), bg_rng, opt_rng


def spec_scene(spec: Spec) -> tuple[Scene, np.random.Generator, np.random.Generator]:
    """The certified scene of a spec (labels, and the 3D world if it has one), plus the
    generators for its background and its options."""
    label_ss, bg_ss, opt_ss, look_ss = (
        seed_stream(spec, k)
        for k in (SeedStream.LABELS, SeedStream.BACKGROUND, SeedStream.OPTIONS, SeedStream.LOOKS)
    )
    style = Style(spec.distractors, spec.misleading_text, spec.background, spec.body, spec.encoding)
    scene = make_scene(
        get_motion(spec.motion),
        spec.answer_key,
        np.random.default_rng(label_ss),
        width=spec.width,
        height=spec.height,
        fps=spec.fps,
        num_frames=spec.num_frames,
        style=style,
        # a minimal pair's members draw their looks apart from the answer (clips in no pair
        # keep drawing them from the one stream, as before pairs existed)
        looks=look_ss if spec.pair else None,
        twin_key=spec.twin_key,
    )
    if spec.encoding:
        _noise_scene(scene, spec)
    return scene, np.random.default_rng(bg_ss), np.random.default_rng(opt_ss)


def _noise_scene(scene: Scene, spec: Spec) -> None:
    """Make a certified scene a noise clip's: refuse a pattern noise cannot show, name its
    objects without colour and record the encoding in the labels' meta."""
    from tempogen.generators.noise import cell_size, check_eligible, encoding_meta, noise_nouns

    if spec.encoding not in ENCODINGS:
        raise GenerationError(f"{spec.id}: unknown encoding {spec.encoding!r}; known: {ENCODINGS}")
    motion = get_motion(spec.motion)
    labels = scene.labels()
    check_eligible(motion, labels)
    if scene.world is not None and not hasattr(scene.world, "frames_and_masks"):
        raise GenerationError(
            f"motion {motion.name!r} cannot be noise-encoded: its 3D world gives no mask"
        )
    nouns, tell = noise_nouns(labels, "shape" if motion.renderer == "2d" else "object")
    scene.nouns.update(nouns)
    scene.meta["encoding"] = encoding_meta(labels, cell_size(spec.width, spec.height), tell)


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
    sampled: list[np.ndarray] = [None] * SAMPLES  # type: ignore[list-item]
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
        write_sheet(sheet_path, np.stack(sampled), sorted(wanted), tile_width=SHEET_TILE)

        cert = certify(labels)
        cert_json = certificate_json(cert)
        if noise is not None:
            cert_json["temporal_noise"] = _certify_noise(noise, partial, out_dir, spec)
        row = Row(
            id=spec.id,
            video=video_rel,
            task=spec.task,
            generator=spec.motion,
            demonstration_type="simulated",
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


def _frame_cost(spec: Spec) -> float:
    """Rough cost of one frame relative to a 2D frame (3D frames render ~20x slower)."""
    return 20.0 if _is_3d(spec) else 1.0


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
