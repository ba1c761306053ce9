"""Plan the simulated clips of a dataset: one spec per clip, its seeds, and its share of
patterns, answers, minimal pairs and noise clips. Nothing here renders a pixel.

``plan`` turns a config into specs, one per clip, with each pattern's answers balanced over
its own keys and the right option's position balanced too. ``spec_scene`` turns one spec into
its certified scene (labels, and the 3D world that will draw it); ``generators/build.py``
renders it. A spec's hash (with ``RENDER_VERSION``) names the finished work.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from enum import IntEnum
from pathlib import Path
from typing import Any

import numpy as np

from tempogen.config import ConfigError, DatasetConfig
from tempogen.errors import GenerationError
from tempogen.facts import FACTS
from tempogen.generators.mocap.plan import mocap_plan
from tempogen.generators.mocap.source import located, register_located
from tempogen.generators.motion import (
    SAMPLES,
    Motion,
    Scene,
    Style,
    get_motion,
    make_scene,
    motions_for,
)
from tempogen.generators.noise import ENCODINGS, TEMPORAL_NOISE, NotNoiseable
from tempogen.labels import Labels
from tempogen.questions import num_options
from tempogen.resume import spec_hash

# Bump when rendering or labelling changes what a spec produces: old clips are then redone.
RENDER_VERSION = 3

# Tags of the config-level random draws (``default_rng([cfg.seed, tag, task index])``), each
# apart from the others and from the tasks' own streams: which pattern each question gets,
# which questions get a twin, which become noise clips.
PATTERNS_DRAW = 3
TWINS_DRAW = 14
NOISE_DRAW = 15
# (tag 16, MOCAP_DRAW: which human questions come from motion files; generators/mocap/plan.py)

_UNSET_OMITTED = ("pair", "twin_key", "encoding", "source")
_NOT_HASHED = ("located",)


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
    source: str = ""  # a mocap clip's window of a motion file (generators/mocap/source.py)
    # where this machine holds the window's file (and joint map): carried to every worker, a
    # fresh Ray process included; not part of the spec's JSON or hash (paths differ by machine)
    located: str = ""

    def to_json(self) -> dict[str, Any]:
        # fields added later are left out when unset, so other clips keep their spec hashes
        return {
            k: getattr(self, k)
            for k in self.__dataclass_fields__
            if k not in _NOT_HASHED and (k not in _UNSET_OMITTED or getattr(self, k))
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
        get_motion(name, f"{cfg.source}: motions[{i}]")  # entry points loaded first


def plan(cfg: DatasetConfig, cache: Path | None = None) -> list[Spec]:
    """Specs for every clip of the config, deterministic in the config alone.

    Each task's questions go to patterns first (:func:`_patterns`); then every pattern's
    answers cycle through its own keys in a seeded order, so each answer a pattern can give
    gets the same share of its questions (within one). Balanced per pattern, not per task:
    knowing which pattern drew a clip (from the question's words, or the file's metadata)
    then says nothing about its answer. The right option's position cycles the same way.

    With ``mocap.share``, that share of each task's human questions is cut from the config's
    motion files (:func:`~tempogen.generators.mocap.plan.mocap_slots`); ``cache`` is the
    build's folder, where the catalogue of those files is kept for a rerun.
    """
    check_config(cfg)
    specs: list[Spec] = []
    root = np.random.SeedSequence(cfg.seed)
    mocap = mocap_plan(cfg, cache, RENDER_VERSION) if cfg.mocap.share > 0 else None
    for t_index, task in enumerate(cfg.tasks):
        motions = [m for m in motions_for(task) if not cfg.motions or m.name in cfg.motions]
        n = cfg.samples_for(task)
        if not motions or not n:
            continue
        task_rng = np.random.default_rng(root.spawn(len(cfg.tasks))[t_index])
        answer_cycle: dict[str, list[str]] = {}
        position_cycle: dict[int, list[int]] = {}
        slots = _patterns(cfg, t_index, n, motions)
        sources = [""] * n if mocap is None else mocap.assign(cfg, t_index, task, slots)
        for i, motion in enumerate(slots):
            if sources[i] and mocap is not None:
                motion, key, source = mocap.take(sources[i], task_rng)
            else:
                keys = answer_cycle.setdefault(motion.name, [])
                if not keys:
                    own = motion.keys()
                    keys.extend(own[j] for j in task_rng.permutation(len(own)))
                key, source = keys.pop(), ""
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
                    num_frames=mocap.frames(source)
                    if source and mocap is not None
                    else max(
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
                    source=source,
                    located=located(source) if source else "",
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
    answers), or None when the fact has no sound flip for it. A clip cut from a motion file
    has none: its answer is the recording's, which a twin could not flip and stay the same
    scene."""
    if spec.source:
        return None
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
        rng = np.random.default_rng([cfg.seed, TWINS_DRAW, t_index])
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
        rng = np.random.default_rng([cfg.seed, NOISE_DRAW, t_index])
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
    rng = np.random.default_rng([cfg.seed, PATTERNS_DRAW, t_index])
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
    if spec.located:
        register_located(spec.located)
    label_ss, bg_ss, opt_ss, look_ss = (
        seed_stream(spec, k)
        for k in (SeedStream.LABELS, SeedStream.BACKGROUND, SeedStream.OPTIONS, SeedStream.LOOKS)
    )
    style = Style(
        spec.distractors, spec.misleading_text, spec.background, spec.body, spec.encoding,
        spec.source,
    )  # fmt: skip
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
