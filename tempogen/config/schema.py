"""The config's schema: frozen dataclasses with their defaults, the names each field may take,
and the bounds of its numbers. Each field's ``metadata`` documents it (``doc``; ``lo``/``hi``
bounds, of each number where the field is a list; ``choices``; ``note`` for a rule across
fields): :mod:`tempogen.config.reference` renders the docs' config reference from it, and a
test checks every documented bound and choice against the validator in
:mod:`tempogen.config.load`."""

from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from tempogen.choices import BACKGROUNDS, EXECUTORS
from tempogen.errors import ConfigurationError
from tempogen.questions import TASKS

ConfigError = ConfigurationError  # the name this module has always raised

MAX_SECONDS = 600.0  # clip length; TOMATO's longest is 73 s
MAX_SAMPLES = 100_000  # questions per task; far above TOMATO's largest task (403)
MAX_SIDE = 7680  # pixels a side (8K), as ``size`` accepts
MAX_FPS = 240.0
PRESETS = ("ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow")
SHORTCUTS = ("fail", "warn", "off")  # what a blind baseline above chance does to a build


def doc(default: Any = MISSING, text: str = "", *, factory: Any = MISSING, **meta: Any) -> Any:
    """A dataclass field whose ``metadata`` documents it: ``doc`` (``text``) and ``meta``
    (``lo``, ``hi``, ``choices``, ``note``, ``per_task``); the defaults stay the field's own."""
    extra = {k: meta.pop(k) for k in ("compare", "repr") if k in meta}
    return field(default=default, default_factory=factory, metadata={"doc": text, **meta}, **extra)


def limits(cls: type, name: str) -> tuple[Any, Any]:
    """The documented ``(lo, hi)`` bounds of field ``name`` of the dataclass ``cls``: what the
    loader checks, so that the reference and the check are one number."""
    meta = {f.name: f.metadata for f in fields(cls)}[name]
    return meta.get("lo"), meta.get("hi")


def per_task_limits() -> tuple[int, int]:
    """The documented bounds of each count of a per-task ``samples_per_task`` mapping."""
    meta = {f.name: f.metadata for f in fields(DatasetConfig)}["samples_per_task"]
    lo, hi = meta["per_task"]
    return lo, hi


def choices(cls: type, name: str) -> tuple[str, ...]:
    """The documented choices of field ``name`` of the dataclass ``cls``."""
    return tuple({f.name: f.metadata for f in fields(cls)}[name]["choices"])


@dataclass(frozen=True)
class StyleConfig:
    """How clips look: distractor count range, misleading-text rate, backgrounds, and the
    share of each task's questions rendered as temporal-only noise."""

    distractors: tuple[int, int] = doc(
        (0, 2), "Range of static distractor shapes (in other colours) drawn per clip.", lo=0, hi=4
    )
    misleading_text: float = doc(
        0.15, "Chance of a misleading word: on a block subject, or a sign in 3D.", lo=0, hi=1
    )
    backgrounds: tuple[str, ...] = doc(
        BACKGROUNDS, "Backgrounds a clip's is drawn from, one per clip; at least one.",
        choices=BACKGROUNDS,
    )  # fmt: skip
    temporal_noise: float = doc(
        0.0,
        "Share of each task's questions (of the patterns that allow it) rendered as "
        "temporal-only noise: one frame alone shows nothing.",
        lo=0,
        hi=1,
    )


@dataclass(frozen=True)
class EncodeConfig:
    """x264 settings of every written clip."""

    crf: int = doc(18, "x264 constant rate factor: 0 is lossless, 51 the worst.", lo=0, hi=51)
    preset: str = doc("ultrafast", "x264 preset: slower ones write smaller files.", choices=PRESETS)


@dataclass(frozen=True)
class VariantsConfig:
    """Edited variants (counterfactual, zoom, composite) added for a share of the clips."""

    share: float = doc(
        0.25,
        "Share of clips that also get an edited variant (reverse, mirror, rotate, speed, zoom, "
        "clip-then-reversed), certified like the rest.",
        lo=0,
        hi=1,
    )


@dataclass(frozen=True)
class VinogroundConfig:
    """Rendered two-event caption pairs exported in Vinoground's layout."""

    pairs: int = doc(
        12, "Rendered two-event caption pairs (0: no vinoground/ export).", lo=0, hi=10_000
    )


@dataclass(frozen=True)
class Scenes3DConfig:
    """Clips rendered in 3D: the share of each task's questions shown by simulated humans and
    by 3D-object scenes (TOMATO's demonstration types; the rest are 2D), how long they last,
    and which body model poses the humans ("" = ``$TEMPOGEN_BODY_MODEL`` or the embedded one)."""

    humans: float = doc(
        0.4, "Share of each task's questions shown by simulated humans.", lo=0, hi=1,
        note="`humans` + `objects` at most 1",
    )  # fmt: skip
    objects: float = doc(
        0.3, "Share of each task's questions shown by 3D-object scenes.", lo=0, hi=1,
        note="`humans` + `objects` at most 1",
    )  # fmt: skip
    duration: tuple[float, float] = doc(
        (3.0, 5.0), "Seconds, drawn per 3D clip (first not above second).", lo=1.0, hi=MAX_SECONDS
    )
    body_model: str = doc(
        "",
        "An existing SMPL/SMPL-H/SMPL-X file or folder posing the humans; empty or null: "
        "`$TEMPOGEN_BODY_MODEL`, else the embedded mannequin (assets/smpl_mannequin.pkl).",
    )


@dataclass(frozen=True)
class RetrievalConfig:
    """Offline caption pairs audited and matched against the dataset's own clips (0: off)."""

    pairs: int = doc(
        8,
        "Offline caption pairs generated, audited (retrieval/audit.jsonl) and matched against "
        "captions written from this dataset's clips; 0: off.",
        lo=0,
        hi=500,
    )
    top_k: int = doc(
        5, "Candidate clips kept per caption (retrieval/candidates.jsonl).", lo=1, hi=100
    )
    no_match_threshold: float | None = doc(
        None,
        "Cosine below which a caption has no match in the clips; null: the calibrated "
        "`tempogen.retrieval.threshold.NO_MATCH_THRESHOLD` (scripts/calibrate_no_match.py).",
        lo=-1,
        hi=1,
    )


@dataclass(frozen=True)
class ExecutorConfig:
    """Where the per-clip work runs: ``local`` (a fork pool) or ``ray`` (a cluster at
    ``address``; none: a local one). ``shared_out``: Ray workers write under ``--out``
    themselves (a path every node mounts) instead of sending files back. How a dataset is
    built, not what it is: left out of :meth:`DatasetConfig.to_json`, so it changes no byte."""

    kind: str = doc(
        "local", "`local`: a fork pool on this machine; `ray`: a Ray cluster.", choices=EXECUTORS
    )
    address: str | None = doc(
        None,
        "The Ray cluster to join (`HOST:PORT`, `auto` or `ray://...`); null: start a local one.",
        note="only with `kind: ray`",
    )
    shared_out: bool = doc(
        False,
        "Ray workers write under `--out` themselves (a path every node mounts) instead of "
        "sending files back.",
    )


@dataclass(frozen=True)
class MocapConfig:
    """Questions cut from recorded motion: ``files`` (globs relative to the config's folder:
    BVH, AMASS or SMPL ``.npz``/``.pkl``), the ``share`` of each task's human questions they
    take (0: off), a joint map per glob or file (relative to the config), and the window
    length range in seconds (None: ``scenes3d.duration``)."""

    files: tuple[str, ...] = doc(
        (),
        "Globs relative to the config's folder, each matching at least one motion file "
        "(.bvh, .npz, .pkl, .pickle, .joblib: BVH, AMASS or SMPL).",
    )
    share: float = doc(
        0.0,
        "Share of each task's human questions cut from these files; 0: off.",
        lo=0,
        hi=1,
        note="above 0 needs `files`",
    )
    joint_maps: tuple[tuple[str, str], ...] = doc(
        (),
        "A mapping from a glob or file of `files` to its joint map (a YAML file relative to "
        "the config) naming its skeleton's joints.",
    )
    window: tuple[float, float] | None = doc(
        None,
        "Seconds a question's window lasts, drawn per question; null: `scenes3d.duration`.",
        lo=1.0,
        hi=MAX_SECONDS,
    )


@dataclass(frozen=True)
class DatasetConfig:
    """Everything that determines a generated dataset (with the code version)."""

    seed: int = doc(2026, "Seed of every random draw: one seed, one dataset.", lo=0, hi=2**63 - 1)
    size: tuple[int, int] = doc(
        (640, 360), "Width and height of every clip in pixels.", lo=32, hi=MAX_SIDE,
        note="both even (yuv420p)",
    )  # fmt: skip
    fps: float = doc(30.0, "Frames per second of every clip.", lo=1, hi=int(MAX_FPS))
    duration: tuple[float, float] = doc(
        (3.0, 10.0), "Seconds, drawn per 2D clip (first not above second).", lo=1.0, hi=MAX_SECONDS
    )
    samples_per_task: int | dict[str, int] = doc(
        60,
        "Questions per task, answers balanced over each task's classes: one count for every "
        "task, or a mapping from task to its count (a task left out gets none; not all 0).",
        lo=1,
        hi=MAX_SAMPLES,
        per_task=(0, MAX_SAMPLES),
    )
    tasks: tuple[str, ...] = doc(TASKS, "The tasks built; at least one.", choices=TASKS)
    motions: tuple[str, ...] = doc(
        (),
        "Only these motion patterns (names from `tempogen motions`); empty: all of each task's.",
    )
    plugins: tuple[str, ...] = doc(
        (),
        "Python modules imported before the build (motion patterns, facts, ops, exports), "
        "looked for on Python's path, then beside the config.",
    )
    style: StyleConfig = field(default_factory=StyleConfig)
    encode: EncodeConfig = field(default_factory=EncodeConfig)
    variants: VariantsConfig = field(default_factory=VariantsConfig)
    vinoground: VinogroundConfig = field(default_factory=VinogroundConfig)
    retrieval: RetrievalConfig = field(default_factory=RetrievalConfig)
    scenes3d: Scenes3DConfig = field(default_factory=Scenes3DConfig)
    shortcuts: str = doc(
        "fail",
        "What a blind baseline answering above chance does to a build: fail it, warn, or off "
        "(not measured).",
        choices=SHORTCUTS,
    )
    minimal_pairs: float = doc(
        0.0,
        "Share of each task's questions that also get a rendered twin: the same scene with the "
        "answer flipped (scored by instance accuracy).",
        lo=0,
        hi=1,
    )
    mocap: MocapConfig = field(default_factory=MocapConfig)
    executor: ExecutorConfig = doc(
        factory=ExecutorConfig,
        text="A name alone (`executor: ray`) is short for `{kind: ray}`.",
        compare=False,
    )
    source: str = doc(
        "<config>", "The config's file, for error messages.", internal=True, compare=False,
        repr=False,
    )  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("source")
        d.pop("executor")  # how it is built, not what: the same bytes either way
        if self.mocap == MocapConfig():  # off: configs written before it keep their bytes
            d.pop("mocap")
        return {k: json_lists(x) for k, x in d.items()}

    @property
    def folder(self) -> Path:
        """The folder paths in the config are relative to: its file's, else the working one."""
        p = Path(self.source)
        return p.resolve().parent if p.is_file() else Path.cwd()

    def samples_for(self, task: str) -> int:
        """How many questions ``task`` gets."""
        if isinstance(self.samples_per_task, dict):
            return self.samples_per_task.get(task, 0)
        return self.samples_per_task


def json_lists(v: object) -> object:
    """``v`` with every tuple, nested or not, as a list (as JSON reads it back)."""
    if isinstance(v, dict):
        return {k: json_lists(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_lists(x) for x in v]
    return v
