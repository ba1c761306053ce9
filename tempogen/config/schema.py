"""The config's schema: frozen dataclasses with their defaults, the names each field may take,
and the bounds of its numbers."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tempogen.choices import BACKGROUNDS
from tempogen.errors import ConfigurationError
from tempogen.questions import TASKS

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


@dataclass(frozen=True)
class ExecutorConfig:
    """Where the per-clip work runs: ``local`` (a fork pool) or ``ray`` (a cluster at
    ``address``; none: a local one). ``shared_out``: Ray workers write under ``--out``
    themselves (a path every node mounts) instead of sending files back. How a dataset is
    built, not what it is: left out of :meth:`DatasetConfig.to_json`, so it changes no byte."""

    kind: str = "local"
    address: str | None = None
    shared_out: bool = False


@dataclass(frozen=True)
class MocapConfig:
    """Questions cut from recorded motion: ``files`` (globs relative to the config's folder:
    BVH, AMASS or SMPL ``.npz``/``.pkl``), the ``share`` of each task's human questions they
    take (0: off), a joint map per glob or file (relative to the config), and the window
    length range in seconds (None: ``scenes3d.duration``)."""

    files: tuple[str, ...] = ()
    share: float = 0.0
    joint_maps: tuple[tuple[str, str], ...] = ()
    window: tuple[float, float] | None = None


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
    mocap: MocapConfig = field(default_factory=MocapConfig)
    executor: ExecutorConfig = field(default_factory=ExecutorConfig, compare=False)
    source: str = field(default="<config>", compare=False, repr=False)  # for error messages

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("source")
        d.pop("executor")  # how it is built, not what: the same bytes either way
        if self.mocap == MocapConfig():  # off: configs written before it keep their bytes
            d.pop("mocap")
        return {k: _listify(x) for k, x in d.items()}

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


def _listify(v: object) -> object:
    """``v`` with every tuple, nested or not, as a list (as JSON reads it back)."""
    if isinstance(v, dict):
        return {k: _listify(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_listify(x) for x in v]
    return v


MAX_SECONDS = 600.0  # clip length; TOMATO's longest is 73 s
MAX_SAMPLES = 100_000  # questions per task; far above TOMATO's largest task (403)
MAX_SIDE = 7680  # pixels a side (8K), as ``size`` accepts
MAX_FPS = 240.0
