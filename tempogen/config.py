"""Dataset configuration: frozen dataclasses loaded from YAML and validated on load.

An unknown key, a wrong type or an out-of-range value is a :class:`ConfigError` whose message
names the file and the field (``configs/x.yaml: style.distractors: ...``).
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from tempogen.errors import ConfigurationError, InputFileError
from tempogen.questions import TASKS

BACKGROUNDS = ("solid", "gradient", "grid", "noise")


ConfigError = ConfigurationError  # the name this module has always raised


@dataclass(frozen=True)
class StyleConfig:
    """How clips look: distractor count range, misleading-text rate, backgrounds, and the
    share of each task's questions rendered as temporal-only noise."""

    distractors: tuple[int, int] = (0, 2)
    misleading_text: float = 0.15
    backgrounds: tuple[str, ...] = BACKGROUNDS
    temporal_noise: float = 0.0


@dataclass(frozen=True)
class EncodeConfig:
    """x264 settings of every written clip."""

    crf: int = 18
    preset: str = "ultrafast"


@dataclass(frozen=True)
class VariantsConfig:
    """Edited variants (counterfactual, zoom, composite) added for a share of the clips."""

    share: float = 0.25


@dataclass(frozen=True)
class VinogroundConfig:
    """Rendered two-event caption pairs exported in Vinoground's layout."""

    pairs: int = 12


@dataclass(frozen=True)
class Scenes3DConfig:
    """Clips rendered in 3D: the share of each task's questions shown by simulated humans and
    by 3D-object scenes (TOMATO's demonstration types; the rest are 2D), how long they last,
    and which body model poses the humans ("" = ``$TEMPOGEN_BODY_MODEL`` or the embedded one)."""

    humans: float = 0.4
    objects: float = 0.3
    duration: tuple[float, float] = (3.0, 5.0)
    body_model: str = ""


@dataclass(frozen=True)
class RetrievalConfig:
    """Offline caption pairs audited and matched against the dataset's own clips (0: off)."""

    pairs: int = 8
    top_k: int = 5
    # cosine below which a caption has no match (None: the calibrated
    # tempogen.retrieval.threshold.NO_MATCH_THRESHOLD)
    no_match_threshold: float | None = None


EXECUTORS = ("local", "ray")  # as tempogen.executor.EXECUTORS (config imports no executor)


@dataclass(frozen=True)
class ExecutorConfig:
    """Where the per-clip work runs: ``local`` (a fork pool) or ``ray`` (a cluster at
    ``address``; none: a local one). ``shared_out``: Ray workers write under ``--out``
    themselves (a path every node mounts) instead of sending files back. How a dataset is
    built, not what it is: left out of :meth:`DatasetConfig.to_json`, so it changes no byte."""

    kind: str = "local"
    address: str | None = None
    shared_out: bool = False


SHORTCUTS = ("fail", "warn", "off")  # what a blind baseline above chance does to a build


@dataclass(frozen=True)
class DatasetConfig:
    """Everything that determines a generated dataset (with the code version)."""

    seed: int = 2026
    size: tuple[int, int] = (640, 360)
    fps: float = 30.0
    duration: tuple[float, float] = (3.0, 10.0)
    samples_per_task: int | dict[str, int] = 60  # one count for all tasks, or per task
    tasks: tuple[str, ...] = TASKS
    motions: tuple[str, ...] = ()
    plugins: tuple[str, ...] = ()
    style: StyleConfig = field(default_factory=StyleConfig)
    encode: EncodeConfig = field(default_factory=EncodeConfig)
    variants: VariantsConfig = field(default_factory=VariantsConfig)
    vinoground: VinogroundConfig = field(default_factory=VinogroundConfig)
    retrieval: RetrievalConfig = field(default_factory=RetrievalConfig)
    scenes3d: Scenes3DConfig = field(default_factory=Scenes3DConfig)
    shortcuts: str = "fail"  # a blind baseline above chance: fail the build, warn, or off
    minimal_pairs: float = 0.0  # share of each task's questions that also get a rendered twin
    executor: ExecutorConfig = field(default_factory=ExecutorConfig, compare=False)
    source: str = field(default="<config>", compare=False, repr=False)  # for error messages

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("source")
        d.pop("executor")  # how it is built, not what: the same bytes either way
        return _listify(d)

    def samples_for(self, task: str) -> int:
        """How many questions ``task`` gets."""
        if isinstance(self.samples_per_task, dict):
            return self.samples_per_task.get(task, 0)
        return self.samples_per_task


def _listify(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _listify(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_listify(x) for x in v]
    return v


def _fail(src: str, path: str, msg: str) -> ConfigError:
    err = ConfigError(f"{src}: {path}: {msg}")
    err.field, err.detail = path, msg  # type: ignore[attr-defined]
    return err


def _number(
    src: str, path: str, v: Any, kind: type, lo: float | None = None, hi: float | None = None
) -> Any:
    if (
        isinstance(v, bool)
        or not isinstance(v, (int, float))
        or (kind is int and not isinstance(v, int))
    ):
        raise _fail(src, path, f"expected {kind.__name__}, got {v!r}")
    if isinstance(v, float) and not math.isfinite(v):
        raise _fail(src, path, f"must be a finite number, got {v!r}")
    if lo is not None and v < lo:
        raise _fail(src, path, f"must be >= {lo}, got {v!r}")
    if hi is not None and v > hi:
        raise _fail(src, path, f"must be <= {hi}, got {v!r}")
    return kind(v)


def _pair(
    src: str,
    path: str,
    v: Any,
    kind: type,
    lo: float,
    ordered: bool = True,
    hi: float | None = None,
) -> tuple[Any, Any]:
    if not isinstance(v, (list, tuple)) or len(v) != 2:
        raise _fail(src, path, f"expected a list of two numbers, got {v!r}")
    a, b = (_number(src, f"{path}[{i}]", x, kind, lo, hi) for i, x in enumerate(v))
    if ordered and a > b:
        raise _fail(src, path, f"first value must not exceed the second, got {v!r}")
    return a, b


def _strings(src: str, path: str, v: Any, allowed: tuple[str, ...] | None) -> tuple[str, ...]:
    if isinstance(v, str) or not isinstance(v, (list, tuple)):
        raise _fail(src, path, f"expected a list of names, got {v!r}")
    for i, x in enumerate(v):
        if not isinstance(x, str):
            raise _fail(src, f"{path}[{i}]", f"expected a name, got {x!r}")
        if allowed is not None and x not in allowed:
            raise _fail(src, f"{path}[{i}]", f"unknown name {x!r}; known: {', '.join(allowed)}")
    if len(set(v)) != len(v):
        raise _fail(src, path, f"names repeat in {list(v)}")
    return tuple(v)


def _choice(src: str, path: str, v: Any, allowed: tuple[str, ...]) -> str:
    """One of ``allowed``, else an error naming the field and the choices."""
    if v not in allowed:
        raise _fail(src, path, f"expected one of {', '.join(allowed)}, got {v!r}")
    return v


def _check_keys(src: str, prefix: str, data: dict[str, Any], cls: type) -> None:
    known = [f.name for f in fields(cls)]
    for k in data:
        if k not in known:
            raise _fail(src, f"{prefix}{k}", f"unknown field; known fields: {', '.join(known)}")


def _section(src: str, name: str, v: Any) -> dict[str, Any]:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise _fail(src, name, f"expected a mapping, got {v!r}")
    return v


MAX_SECONDS = 600.0  # clip length; TOMATO's longest is 73 s
MAX_SAMPLES = 100_000  # questions per task; far above TOMATO's largest task (403)


def _samples(src: str, v: Any) -> int | dict[str, int]:
    """``samples_per_task``: one count, or a mapping from task name to its count."""
    if not isinstance(v, dict):
        return _number(src, "samples_per_task", v, int, 1, MAX_SAMPLES)
    out = {}
    for task, n in v.items():
        if task not in TASKS:
            raise _fail(src, f"samples_per_task.{task}", f"unknown task; known: {', '.join(TASKS)}")
        out[task] = _number(src, f"samples_per_task.{task}", n, int, 0, MAX_SAMPLES)
    if not any(out.values()):
        raise _fail(src, "samples_per_task", "every task has 0 questions")
    return out


def _executor(src: str, v: Any) -> ExecutorConfig:
    """``executor:``: a name (``ray``), or a mapping of ``kind``, ``address``, ``shared_out``."""
    if isinstance(v, str):
        return ExecutorConfig(_choice(src, "executor", v, EXECUTORS))
    ex = _section(src, "executor", v)
    _check_keys(src, "executor.", ex, ExecutorConfig)
    kind = _choice(src, "executor.kind", ex.get("kind", "local"), EXECUTORS)
    address = ex.get("address")
    if address is not None and (not isinstance(address, str) or not address.strip()):
        raise _fail(
            src, "executor.address", f"expected HOST:PORT, auto or ray://..., got {address!r}"
        )
    if address is not None and kind != "ray":
        raise _fail(src, "executor.address", "only the ray executor connects to an address")
    shared = ex.get("shared_out", False)
    if not isinstance(shared, bool):
        raise _fail(src, "executor.shared_out", f"expected true or false, got {shared!r}")
    return ExecutorConfig(kind, address, shared)


def config_from_dict(data: Any, src: str = "<config>") -> DatasetConfig:
    """Validate a parsed mapping into a :class:`DatasetConfig`; defaults fill what is absent."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{src}: the top level must be a mapping, got {type(data).__name__}")
    _check_keys(src, "", data, DatasetConfig)
    base = DatasetConfig()
    kw: dict[str, Any] = {}
    if "seed" in data:
        kw["seed"] = _number(src, "seed", data["seed"], int, 0, 2**63 - 1)
    if "size" in data:
        w, h = _pair(src, "size", data["size"], int, 32, ordered=False, hi=7680)
        if w % 2 or h % 2:
            raise _fail(src, "size", f"width and height must be even (yuv420p), got {[w, h]}")
        kw["size"] = (w, h)
    if "fps" in data:
        kw["fps"] = _number(src, "fps", data["fps"], float, 1, 240)
    if "duration" in data:
        kw["duration"] = _pair(src, "duration", data["duration"], float, 1.0, hi=MAX_SECONDS)
    if "samples_per_task" in data:
        kw["samples_per_task"] = _samples(src, data["samples_per_task"])
    if "tasks" in data:
        kw["tasks"] = _strings(src, "tasks", data["tasks"], TASKS)
    if "minimal_pairs" in data:
        kw["minimal_pairs"] = _number(src, "minimal_pairs", data["minimal_pairs"], float, 0, 1)
    if "shortcuts" in data:
        kw["shortcuts"] = _choice(src, "shortcuts", data["shortcuts"], SHORTCUTS)
    if "executor" in data:
        kw["executor"] = _executor(src, data["executor"])
    if "plugins" in data:
        kw["plugins"] = _strings(src, "plugins", data["plugins"], None)
        import_plugins(kw["plugins"], src)
    if "motions" in data:  # names are checked against the registry by the generators
        kw["motions"] = _strings(src, "motions", data["motions"], None)
    style = _section(src, "style", data.get("style"))
    _check_keys(src, "style.", style, StyleConfig)
    skw: dict[str, Any] = {}
    if "distractors" in style:
        skw["distractors"] = _pair(src, "style.distractors", style["distractors"], int, 0)
        if skw["distractors"][1] > 4:
            raise _fail(src, "style.distractors", "at most 4 distractors fit a clip")
    if "misleading_text" in style:
        skw["misleading_text"] = _number(
            src, "style.misleading_text", style["misleading_text"], float, 0, 1
        )
    if "backgrounds" in style:
        skw["backgrounds"] = _strings(src, "style.backgrounds", style["backgrounds"], BACKGROUNDS)
        if not skw["backgrounds"]:
            raise _fail(src, "style.backgrounds", "name at least one background")
    if "temporal_noise" in style:
        skw["temporal_noise"] = _number(
            src, "style.temporal_noise", style["temporal_noise"], float, 0, 1
        )
    enc = _section(src, "encode", data.get("encode"))
    _check_keys(src, "encode.", enc, EncodeConfig)
    ekw: dict[str, Any] = {}
    if "crf" in enc:
        ekw["crf"] = _number(src, "encode.crf", enc["crf"], int, 0, 51)
    if "preset" in enc:
        presets = ("ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow")
        ekw["preset"] = _choice(src, "encode.preset", enc["preset"], presets)
    vino = _section(src, "vinoground", data.get("vinoground"))
    _check_keys(src, "vinoground.", vino, VinogroundConfig)
    if "pairs" in vino:
        kw["vinoground"] = VinogroundConfig(
            _number(src, "vinoground.pairs", vino["pairs"], int, 0, 10_000)
        )
    s3 = _section(src, "scenes3d", data.get("scenes3d"))
    _check_keys(src, "scenes3d.", s3, Scenes3DConfig)
    s3kw: dict[str, Any] = {}
    for share in ("humans", "objects"):
        if share in s3:
            s3kw[share] = _number(src, f"scenes3d.{share}", s3[share], float, 0, 1)
    if s3kw.get("humans", base.scenes3d.humans) + s3kw.get("objects", base.scenes3d.objects) > 1:
        raise _fail(src, "scenes3d", "the humans and objects shares add up to more than 1")
    if "duration" in s3:
        s3kw["duration"] = _pair(
            src, "scenes3d.duration", s3["duration"], float, 1.0, hi=MAX_SECONDS
        )
    if "body_model" in s3:
        bm = s3["body_model"]
        if bm is not None and not isinstance(bm, str):
            raise _fail(src, "scenes3d.body_model", f"expected a path or null, got {bm!r}")
        if bm and not Path(bm).expanduser().exists():
            raise _fail(src, "scenes3d.body_model", f"no such body model file or folder: {bm!r}")
        s3kw["body_model"] = bm or ""
    kw["scenes3d"] = Scenes3DConfig(**{**asdict(base.scenes3d), **s3kw})
    ret = _section(src, "retrieval", data.get("retrieval"))
    _check_keys(src, "retrieval.", ret, RetrievalConfig)
    rkw: dict[str, Any] = {}
    if "pairs" in ret:
        rkw["pairs"] = _number(src, "retrieval.pairs", ret["pairs"], int, 0, 500)
    if "top_k" in ret:
        rkw["top_k"] = _number(src, "retrieval.top_k", ret["top_k"], int, 1, 100)
    if ret.get("no_match_threshold") is not None:
        rkw["no_match_threshold"] = _number(
            src, "retrieval.no_match_threshold", ret["no_match_threshold"], float, -1, 1
        )
    kw["retrieval"] = RetrievalConfig(**{**asdict(base.retrieval), **rkw})
    var = _section(src, "variants", data.get("variants"))
    _check_keys(src, "variants.", var, VariantsConfig)
    if "share" in var:
        kw["variants"] = VariantsConfig(_number(src, "variants.share", var["share"], float, 0, 1))
    kw["style"] = StyleConfig(**{**asdict(base.style), **skw})
    kw["encode"] = EncodeConfig(**{**asdict(base.encode), **ekw})
    kw["source"] = src
    cfg = DatasetConfig(**{**{f.name: getattr(base, f.name) for f in fields(base)}, **kw})
    if not cfg.tasks:
        raise _fail(src, "tasks", "name at least one task")
    return cfg


def import_plugins(modules: tuple[str, ...], src: str = "<config>") -> None:
    """Import the modules a config's ``plugins:`` names (motion patterns, facts, ops,
    exports), looked for on Python's path and then beside the config; ``src`` names the
    config. The config was passed by the user, so its plugins are allowed (see
    :mod:`tempogen.plugins`)."""
    from tempogen.plugins import load_plugins

    folder = Path(src).resolve().parent if Path(src).is_file() else None
    load_plugins(modules, src, folder=folder)


def load_config(path: str | os.PathLike[str]) -> DatasetConfig:
    """Read and validate a YAML config file; every error names the file, line and field."""
    from tempogen.io import load_yaml

    p = Path(path)
    try:
        data, lines = load_yaml(p, "config")
    except InputFileError as exc:
        raise ConfigError(str(exc)) from exc
    try:
        return config_from_dict(data, str(p))
    except ConfigError as exc:
        field_ = getattr(exc, "field", None)
        if not field_:
            raise
        line = _line_of(field_, lines)
        if not line:
            raise
        raise type(exc)(f"{p}:{line}: {field_}: {exc.detail}") from exc  # type: ignore[attr-defined]


def _line_of(path: str, lines: dict[str, int]) -> int | None:
    """The line of a field's key, or of its nearest enclosing key (``a.b[2]`` -> ``a.b``)."""
    while path:
        if path in lines:
            return lines[path]
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""
    return None


# -- costs: what a build, a render or an edit would make, bounded before any frame is made --
MAX_SIDE = 7680  # pixels a side (8K), as ``size`` accepts
MAX_FPS = 240.0
MAX_CLIP_FRAMES = int(MAX_SECONDS * MAX_FPS)  # 144,000: the longest clip a config can ask for
MAX_MEMORY = 8 * 2**30  # bytes one process may be asked to hold at once
MAX_CPU_SECONDS = 24 * 3600.0  # one core's time for the whole job
REF_PIXELS = 640 * 360
# Frames a second on one core at 640x360, fitted to BENCHMARKS.md's whole builds (the default
# build: 633 frames/s on 2 cores; TOMATO scale: about 220 a core for its mix of 41% humans,
# 42% 3D objects); edits from mirror + crop's 340 frames/s at 1280x720.
RATES = {"2d": 400.0, "human": 150.0, "object3d": 300.0, "edit": 1360.0}
ALLOW_LARGE_ENV = "TEMPOGEN_ALLOW_LARGE"  # "1": past the limits anyway (commands without a flag)


@dataclass(frozen=True)
class Estimate:
    """What a job would make: ``frames`` of ``width`` x ``height`` (the longest clip
    ``longest`` frames), ``memory`` bytes held by one process at its peak, and ``seconds`` of
    one core's time (rough: the measured rates of BENCHMARKS.md scaled by pixels)."""

    frames: int
    width: int
    height: int
    longest: int
    memory: int
    seconds: float

    @property
    def raw_bytes(self) -> int:
        """The frames' size as raw RGB (what is rendered and encoded, not what is stored)."""
        return self.frames * self.width * self.height * 3

    def line(self) -> str:
        """One line for a user: frames, raw size, memory and time."""
        return (
            f"about {self.frames:,} frames of {self.width}x{self.height} "
            f"({_bytes(self.raw_bytes)} of raw frames; longest clip {self.longest:,} frames), "
            f"about {_bytes(self.memory)} of memory a process, "
            f"roughly {_duration(self.seconds)} of one core's time"
        )

    def excess(self) -> str | None:
        """Which limit the job passes, in words, or None."""
        if self.longest > MAX_CLIP_FRAMES:
            return (
                f"a clip of {self.longest:,} frames is longer than {MAX_CLIP_FRAMES:,} "
                f"({MAX_SECONDS:g} s at {MAX_FPS:g} fps)"
            )
        if self.memory > MAX_MEMORY:
            return f"{_bytes(self.memory)} of memory is more than {_bytes(MAX_MEMORY)}"
        if self.seconds > MAX_CPU_SECONDS:
            return (
                f"{_duration(self.seconds)} of one core's time is more than "
                f"{_duration(MAX_CPU_SECONDS)}"
            )
        return None


def estimate(
    frames: float,
    width: int,
    height: int,
    *,
    kind: str = "2d",
    longest: float | None = None,
    held_frames: int = 8,
    held_bytes: float = 0,
) -> Estimate:
    """The one cost estimate (generate, human render, edit): ``frames`` frames of
    ``width`` x ``height`` made at the measured rate of ``kind`` (a key of :data:`RATES`, or a
    mapping of kind to share), ``held_frames`` RGB frames plus ``held_bytes`` held at once."""
    shares = {kind: 1.0} if isinstance(kind, str) else dict(kind)
    # a small frame still costs a pose, a decode, a warp, an encode call: floor at 320x180
    scale = max(width * height / REF_PIXELS, 0.25)
    per_frame = sum(share / RATES[k] for k, share in shares.items()) * scale
    return Estimate(
        frames=int(math.ceil(frames)),
        width=int(width),
        height=int(height),
        longest=int(math.ceil(frames if longest is None else longest)),
        memory=int(held_bytes + held_frames * width * height * 3),
        seconds=float(frames * per_frame),
    )


def check_estimate(
    est: Estimate, where: str, allow: bool = False, how: str = "", error: type = ConfigError
) -> Estimate:
    """``est``, or ``error`` naming ``where``, the estimate and the limit it passes; ``allow``
    (or ``$TEMPOGEN_ALLOW_LARGE=1``) lets it through, and ``how`` says how to ask for that."""
    why = est.excess()
    if why is None or allow or os.environ.get(ALLOW_LARGE_ENV) == "1":
        return est
    how = how or f"set {ALLOW_LARGE_ENV}=1"
    raise error(f"{where}: {est.line()}: {why}; {how} to make it anyway")


def config_estimate(cfg: DatasetConfig) -> Estimate:
    """A config's build, from the config alone (before any planning): its clips (and twins)
    at their mean lengths by kind of scene, edited variants, and Vinoground pairs."""
    clips = sum(cfg.samples_for(t) for t in cfg.tasks) * (1 + cfg.minimal_pairs)
    s3 = cfg.scenes3d
    flat = max(0.0, 1.0 - s3.humans - s3.objects)
    # a clip holds at least twice the 16 sampled frames
    flat_clip = max(sum(cfg.duration) / 2 * cfg.fps, 32)
    clip3d = max(sum(s3.duration) / 2 * cfg.fps, 32)
    made = {
        "2d": clips * flat * flat_clip + cfg.vinoground.pairs * 6.0 * cfg.fps,  # two 3 s clips
        "human": clips * s3.humans * clip3d,
        "object3d": clips * s3.objects * clip3d,
    }
    rendered = made["human"] + made["object3d"] + clips * flat * flat_clip
    # edited variants of a share of the clips; each pair again with a 2 s black gap between
    made["edit"] = cfg.variants.share * rendered + cfg.vinoground.pairs * 8.0 * cfg.fps
    frames = sum(made.values())
    kinds = {k: v / frames for k, v in made.items()}
    spans = [cfg.duration[1]] * (flat > 0) + [s3.duration[1]] * (s3.humans + s3.objects > 0)
    longest = max(max(spans, default=0.0) * cfg.fps, 32)
    return estimate(frames, *cfg.size, kind=kinds, longest=longest, held_bytes=300 * 2**20)


def _bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1000
    return f"{n} B"  # unreachable


def _duration(s: float) -> str:
    if s < 1:
        return "under 1 s"
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    if s < 3 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:,.0f} days"
