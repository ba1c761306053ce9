"""Motion patterns: the registry, the scene a pattern animates, and the rules every clip obeys.

A motion pattern is one registered class. It names its TOMATO task, the fact its question
asks about, the answers it can produce and the question; ``animate`` places objects and
gives them per-frame states. Everything else (appearance, distractors, labels, certificates,
rendering) is shared. See the README for a worked example.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Protocol

import numpy as np

from tempogen import observe
from tempogen.errors import GenerationError
from tempogen.facts import FACTS, answer_of
from tempogen.labels import Labels, Query, Track
from tempogen.questions import TASKS, WordingError, answer_key, check_wording
from tempogen.registry import Registry

SAMPLES = 16  # frames TOMATO's evaluator samples uniformly; every question is certified at it
MAX_TURN_PER_SAMPLE = 90.0  # degrees between two sampled frames: no wagon-wheel aliasing
# degrees a count of whole laps must end away from a whole lap: a reader a degree off (pixel
# centroids, another GL's rasteriser) would otherwise count one lap more or fewer
LAP_MARGIN = 10.0
VIDEOTT_SAMPLES = 80  # frames Video-TT samples: its question sets must hold at it too
EDGE = 0.3  # a change of direction or sense happens inside the middle 40% of the clip

COLORS: dict[str, tuple[int, int, int]] = {
    "red": (220, 38, 38),
    "blue": (37, 99, 235),
    "green": (22, 163, 74),
    "yellow": (250, 204, 21),
    "orange": (249, 115, 22),
    "purple": (147, 51, 234),
    "cyan": (6, 182, 212),
    "magenta": (219, 39, 119),
}
SHAPES = ("circle", "square", "triangle", "star", "arrow", "block")
NOUN = {"block": "block", "text_block": "block"}

MISLEADING = {
    "direction": ["LEFT", "RIGHT", "UP", "DOWN"],
    "rotation": ["CW", "CCW", "STOP"],
    "speed": ["FAST", "SLOW", "STOP"],
    "frequency": ["FAST", "SLOW"],
    "count": ["1", "2", "3", "4", "5", "6"],
    "trajectory": ["CIRCLE", "SQUARE", "STAR"],
    "order": ["FIRST", "LAST"],
    "approach": ["NEAR", "FAR", "CLOSER"],
}


@dataclass(frozen=True)
class Style:
    """Per-clip look options drawn from the config."""

    distractors: int = 0
    misleading_text: bool = False
    background: str = "solid"
    body: str = ""  # body model for simulated humans: a path, or "" for the default
    encoding: str = ""  # "temporal_noise": one silhouette only (no second person)


@dataclass
class Look:
    """Appearance of one object."""

    shape: str
    color_name: str
    color: tuple[int, int, int]
    size: float
    text: str = ""

    @property
    def noun(self) -> str:
        return f"the {self.color_name} {NOUN.get(self.shape, self.shape)}"


class World(Protocol):
    """What a 3D pattern hands to the renderer instead of the 2D compositor.

    A pattern that renders itself (a simulated human, a 3D object scene) sets ``scene.world``
    in ``animate``; the build then takes the clip's frames from ``frames`` and the labels from
    the tracks the pattern added (projected from the same 3D states), so both agree.
    """

    def solid_points(self) -> list[np.ndarray]:
        """World points (T, V, 3) of every mesh per frame, where a style's scenery (a sign,
        distractors: ``generators/decor3d.py``, set as the world's ``decor``) must not show."""
        ...

    def frames(self, background: str, rng: np.random.Generator) -> Iterator[np.ndarray]:
        """RGB uint8 frames (height, width, 3), one per clip frame, in order.

        ``background`` is the spec's background style name; ``rng`` draws the look (lights,
        colours) so the same spec renders the same pixels. A frame may reuse one buffer.
        """
        ...


@dataclass
class Scene:
    """The workspace a pattern animates: canvas, time base, random generator and objects."""

    rng: np.random.Generator
    width: int
    height: int
    fps: float
    num_frames: int
    style: Style = field(default_factory=Style)
    tracks: list[Track] = field(default_factory=list)
    nouns: dict[str, str] = field(default_factory=dict)
    query: Query | None = None
    fact: str = ""
    world: World | None = None
    meta: dict[str, Any] = field(default_factory=dict)  # extra label metadata (JSON-ready)
    # Appearance (colours, shapes, sizes, people's looks, companions, camera angles, scenery)
    # is drawn from ``looks``, a stream the answer never touches, so a minimal pair's twin
    # (same seeds, the answer flipped) looks the same; None: from ``rng`` like the motion.
    looks: np.random.Generator | None = None
    twin_key: str = ""  # the answer of this scene's minimal-pair partner ("" = none)
    _colors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.looks is None:
            self.looks = self.rng
        self._colors = list(self.looks.permutation(list(COLORS)))

    @property
    def look_rng(self) -> np.random.Generator:
        """The generator appearance is drawn from (see ``looks``)."""
        assert self.looks is not None
        return self.looks

    # time -------------------------------------------------------------------------------
    @property
    def n(self) -> int:
        return self.num_frames

    @property
    def frames(self) -> np.ndarray:
        """Frame indices 0..n-1 as floats."""
        return np.arange(self.n, dtype=np.float64)

    @property
    def samples(self) -> np.ndarray:
        """The frames TOMATO's evaluator will look at."""
        return observe.uniform_indices(self.n, SAMPLES)

    def sample_frame(self, k: int) -> int:
        """Frame index of the k-th uniform sample (0..15)."""
        return int(self.samples[k])

    @property
    def interval(self) -> float:
        """Frames between two uniform samples."""
        return (self.n - 1) / (SAMPLES - 1)

    def switch_sample(self) -> int:
        """A sample index inside the middle of the clip, where a change may happen."""
        lo, hi = math.ceil(EDGE * (SAMPLES - 1)), math.floor((1 - EDGE) * (SAMPLES - 1))
        return int(self.rng.integers(lo, hi + 1))

    # appearance -------------------------------------------------------------------------
    @property
    def unit(self) -> float:
        """A length that scales with the canvas (1/20 of the shorter side)."""
        return min(self.width, self.height) / 20.0

    def look(self, shapes: Sequence[str] = SHAPES, size: float | None = None) -> Look:
        """A fresh colour (never reused in a clip) and a random shape and size."""
        if not self._colors:
            raise GenerationError("scene ran out of distinct colours")
        name = self._colors.pop()
        shape = str(self.look_rng.choice(list(shapes)))
        size = size if size is not None else float(self.look_rng.uniform(1.3, 2.0) * self.unit)
        return Look(shape, name, COLORS[name], size)

    def subject_look(self, shapes: Sequence[str] = SHAPES, size: float | None = None) -> Look:
        """The subject's look; a block may carry misleading text (TOMATO saw models fooled)."""
        lk = self.look(shapes, size)
        if lk.shape == "block" and self.style.misleading_text:
            lk.text = str(self.look_rng.choice(MISLEADING.get(self.fact, ["?"])))
            lk.size = max(lk.size, 2.0 * self.unit)
        return lk

    def add(
        self, name: str, look: Look, x: Any, y: Any, *, role: str = "subject", **states: Any
    ) -> Track:
        """Add an object with per-frame states (scalars broadcast)."""
        shape = "text_block" if look.text else look.shape
        tr = Track.build(
            name,
            self.n,
            x=x,
            y=y,
            role=role,
            shape=shape,
            color=look.color,
            size=look.size,
            text=look.text,
            **states,
        )
        self.tracks.append(tr)
        self.nouns[name] = look.noun
        return tr

    def add_floor(self, y: float, name: str = "floor") -> Track:
        """An invisible anchor for bounces: a line at height ``y`` with an upward normal."""
        tr = Track.build(
            name,
            self.n,
            x=self.width / 2,
            y=y,
            role="anchor",
            shape="floor",
            color=(60, 60, 60),
            size=0.0,
            angle=-90.0,
        )
        self.tracks.append(tr)
        self.nouns[name] = "the floor"
        return tr

    def ask(self, objects: Sequence[str], kind: str = "", **declared: Any) -> None:
        """Declare what the question reads (the fact comes from the pattern)."""
        self.query = Query(self.fact, tuple(objects), kind, tuple(sorted(declared.items())))

    # placement --------------------------------------------------------------------------
    def place(self, margin: float) -> tuple[float, float]:
        """A random point at least ``margin`` pixels inside the canvas."""
        return (
            float(self.rng.uniform(margin, self.width - margin)),
            float(self.rng.uniform(margin, self.height - margin)),
        )

    def add_distractors(self, k: int) -> None:
        """Static shapes in other colours, kept clear of every object's path; each takes the
        first of its places (all drawn from the look stream) that is clear, so a minimal
        pair's twin puts it in the same place whenever that place is clear of both paths."""
        for i in range(k):
            lk = self.look(size=float(self.look_rng.uniform(0.8, 1.3) * self.unit))
            m = lk.size * 1.5
            places = self.look_rng.uniform((m, m), (self.width - m, self.height - m), size=(30, 2))
            angle = float(self.look_rng.uniform(0, 360))
            for x, y in places:
                x, y = float(x), float(y)
                if all(
                    np.min(np.hypot(t.x - x, t.y - y) - t.size * t.scale) > lk.size * 1.6
                    for t in self.tracks
                    if t.role != "anchor"
                ) and all(
                    abs(y - t.y[0]) > lk.size * 1.5 for t in self.tracks if t.role == "anchor"
                ):
                    self.add(
                        f"distractor{i + 1}",
                        lk,
                        x,
                        y,
                        role="distractor",
                        angle=angle,
                    )
                    break

    def labels(self) -> Labels:
        if self.query is None:
            raise GenerationError("pattern did not call scene.ask(...)")
        return Labels(
            width=self.width,
            height=self.height,
            fps=self.fps,
            tracks=tuple(self.tracks),
            query=self.query,
            meta={"nouns": dict(self.nouns), **self.meta},
        )


class Motion:
    """Base of every motion pattern; subclasses set the class attributes and ``animate``."""

    name: ClassVar[str] = ""
    task: ClassVar[str] = ""
    fact: ClassVar[str] = ""
    answers: ClassVar[tuple[Any, ...]] = ()
    question: ClassVar[str] = ""
    objects: ClassVar[tuple[str, ...]] = ("subject",)
    # "2d": drawn by the compositor from the tracks; "human" or "object3d": the pattern sets
    # ``scene.world`` and renders in 3D (see :class:`World`).
    renderer: ClassVar[str] = "2d"
    note: ClassVar[str] = ""  # the manifest's ``note`` (e.g. "simulated human")
    # Shortest clip the pattern can show its answer in; the planner never asks for less.
    min_seconds: ClassVar[float] = 0.0
    # Its answer shows in the silhouettes of the objects it draws alone (no colour, light,
    # painted mark or glove), so a clip may be rendered as temporal-only noise
    # (``generators/noise.py``); each clip is still checked for lights and speed.
    temporal_noise: ClassVar[bool] = False

    def animate(self, scene: Scene, answer: Any) -> None:
        raise NotImplementedError

    def pixel_states(
        self, frames: Sequence[np.ndarray], labels: Labels, idx: np.ndarray
    ) -> Labels | None:
        """States measured from decoded frames at ``idx``, for the pixel audit.

        ``None`` means "find each object by its flat colour" (the 2D tracker in
        ``builders/pixels.py``); 3D patterns, whose shading changes colours, read their own.
        """
        return None

    def wording(self, labels: Labels) -> dict[str, str]:
        """Words of the question read from the clip's states: its ``{slots}`` other than the
        nouns (``subject``, ``person``, ``o1``...). A word an edit can make false (a ball
        "put down" that reversal shows "picked up") goes here, so the question is computed
        from the labels like the answer; raise :class:`WordingError` when the states support
        no wording. Default: no slots."""
        return {}

    def question_text(self, labels: Labels) -> str:
        """The question with object nouns and :meth:`wording` filled in from the labels."""
        nouns = labels.meta.get("nouns", {})
        names = {f"o{i}": nouns.get(o, o) for i, o in enumerate(labels.query.objects)}
        return self.question.format(
            subject=nouns.get(labels.query.objects[0], "the object"),
            person=labels.meta.get("person", "the person"),  # a scene's people named apart
            **names,
            **self.wording(labels),
        )

    def reword(self, labels: Labels) -> Labels:
        """An edited clip's labels with the words of its row made true of its states, or
        :class:`WordingError`: nouns naming a side on screen are read again
        (:func:`side_nouns`), the question's own time words checked
        (:func:`~tempogen.questions.check_wording`) and its :meth:`wording` derived."""
        labels = side_nouns(labels)
        check_wording(self.question, labels)
        self.question_text(labels)
        return labels

    def keys(self) -> list[str]:
        return [answer_key(self.fact, a) for a in self.answers]

    def value_of(self, key: str) -> Any:
        for a in self.answers:
            if answer_key(self.fact, a) == key:
                return a
        raise KeyError(f"motion {self.name!r} cannot produce answer {key!r}; it can: {self.keys()}")


# A noun that names an object by its side on screen: "the person on the left (in blue)",
# "the left shape". A flip or a turn of the picture moves the side, so it is read again.
SIDE_NOUN = re.compile(r"\b(?:on the (left|right)\b|the (left|middle|right) (?=\w))")
SIDE_WORDS = {2: ("left", "right"), 3: ("left", "middle", "right")}


def side_nouns(labels: Labels) -> Labels:
    """The labels with every noun that names a side on screen naming its object's side in
    these states; :class:`WordingError` when those objects are not side by side throughout
    (a picture turned a quarter puts one above the other)."""
    nouns = dict(labels.meta.get("nouns", {}))
    sided = [n for n, noun in nouns.items() if SIDE_NOUN.search(noun)]
    if not sided:
        return labels
    words = SIDE_WORDS.get(len(sided))
    xs = {n: np.asarray(labels.track(n).x, float) for n in sided}
    ys = {n: np.asarray(labels.track(n).y, float) for n in sided}
    order = sorted(sided, key=lambda n: float(xs[n].mean()))
    apart = words is not None and all(
        np.all(xs[b] > xs[a]) and np.mean(np.abs(xs[b] - xs[a])) > np.mean(np.abs(ys[b] - ys[a]))
        for a, b in zip(order[:-1], order[1:])
    )
    if not apart:
        raise WordingError(
            f"{', '.join(repr(nouns[n]) for n in sided)}: these objects are not side by side "
            "in every frame of the edited clip, so no noun can name them by their side"
        )
    for name, word in zip(order, words):
        nouns[name] = SIDE_NOUN.sub(
            lambda m, w=word: f"on the {w}" if m.group(1) else f"the {w} ", nouns[name]
        )
    if nouns == labels.meta.get("nouns"):
        return labels
    return replace(labels, meta={**labels.meta, "nouns": nouns})


MOTIONS: Registry[Motion] = Registry("motion")


def register_motion(cls: type[Motion]) -> type[Motion]:
    """Class decorator: add a pattern to the registry under its ``name``."""
    if not cls.name or cls.task not in TASKS or cls.fact not in tuple(FACTS):
        raise ValueError(f"{cls.__name__}: set name, a task from {TASKS} and a fact")
    MOTIONS.add(cls.name, cls())
    return cls


def get_motion(name: str) -> Motion:
    """The registered pattern ``name``; an unknown name is an error naming the known ones."""
    _load_builtin()
    return MOTIONS.lookup(name)


def motions_for(task: str) -> list[Motion]:
    _load_builtin()
    if task not in TASKS:
        raise KeyError(f"unknown task {task!r}; tasks: {list(TASKS)}")
    return [m for m in MOTIONS.values() if m.task == task]


def _load_builtin() -> None:
    # The built-in patterns register when the package is imported (generators/__init__.py),
    # so this module never imports them: the registry sits below the patterns, not beside.
    _load_entry_points()


_ENTRY_POINTS_LOADED: list[bool] = []


def _load_entry_points() -> None:
    """Third-party patterns register through the ``tempogen.motions`` entry point group."""
    if _ENTRY_POINTS_LOADED:
        return
    _ENTRY_POINTS_LOADED.append(True)
    from importlib.metadata import entry_points

    for ep in entry_points(group="tempogen.motions"):
        ep.load()


@dataclass(frozen=True)
class Certificate:
    """Why a clip's question is sound: the answer from every frame, from 16 uniform samples
    (TOMATO's) and from 80 (Video-TT's), and from the first or last frame alone (which must
    not determine it)."""

    full: Any
    sampled: Any
    first_only: Any
    last_only: Any
    max_turn: float
    sampled_80: Any = None
    lap_margin: float | None = None  # loop counts: degrees from the sampled total to a whole lap

    def ok(self, fact: str, key: str) -> bool:
        def is_key(v: Any) -> bool:
            return v is not None and answer_key(fact, v) == key

        return (
            is_key(self.full)
            and is_key(self.sampled)
            and is_key(self.sampled_80)
            and self.first_only is None
            and self.last_only is None
            and self.max_turn <= MAX_TURN_PER_SAMPLE
            and (self.lap_margin is None or self.lap_margin >= LAP_MARGIN)
        )


def certify(labels: Labels) -> Certificate:
    """Answer the labels' query from all frames, from TOMATO's and Video-TT's samples and from
    one frame."""
    n = labels.num_frames
    idx = observe.uniform_indices(n, SAMPLES)
    max_turn = 0.0
    lap_margin = None
    if labels.query.fact == "rotation" or labels.query.kind in ("orbit", "loop"):
        steps = observe.turn_steps(labels, idx)
        max_turn = float(np.abs(steps).max()) if len(steps) else 0.0
        if labels.query.kind == "loop":
            past = abs(float(steps.sum())) % 360.0
            lap_margin = min(past, 360.0 - past)
    return Certificate(
        full=answer_of(labels),
        sampled=answer_of(labels, idx),
        first_only=answer_of(labels, np.array([0])),
        last_only=answer_of(labels, np.array([n - 1])),
        max_turn=max_turn,
        sampled_80=answer_of(labels, observe.uniform_indices(n, min(VIDEOTT_SAMPLES, n))),
        lap_margin=lap_margin,
    )


def _in_view(labels: Labels) -> bool:
    """Every object the question reads stays wholly inside the frame in every frame."""
    for name in labels.query.objects:
        t = labels.track(name)
        if t.role == "anchor":
            continue
        b = t.bbox()
        if (
            b[:, 0].min() < 0
            or b[:, 1].min() < 0
            or b[:, 2].max() > labels.width
            or b[:, 3].max() > labels.height
        ):
            return False
    return True


def make_labels(motion: Motion, key: str, rng: np.random.Generator, **kw: Any) -> Labels:
    """Labels of a certified clip of ``motion`` answering ``key`` (see :func:`make_scene`)."""
    return make_scene(motion, key, rng, **kw).labels()


def make_scene(
    motion: Motion,
    key: str,
    rng: np.random.Generator,
    *,
    width: int,
    height: int,
    fps: float,
    num_frames: int,
    style: Style,
    attempts: int = 12,
    looks: np.random.SeedSequence | None = None,
    twin_key: str = "",
) -> Scene:
    """Animate a pattern until its clip certifies for the requested answer.

    A clip whose every-frame answer differs from the requested one is a bug in the pattern and
    raises at once; a clip that fails only the sampling rules is drawn again. Given ``looks``,
    every attempt draws its appearance afresh from that seed (see :attr:`Scene.looks`), so the
    look does not depend on the answer or on how many attempts it took; ``twin_key`` is the
    answer of the minimal-pair partner, which scenery must not state either.
    """
    value = motion.value_of(key)
    if num_frames < motion.min_seconds * fps:
        raise GenerationError(
            f"motion {motion.name!r} needs at least {motion.min_seconds:g} s "
            f"({math.ceil(motion.min_seconds * fps)} frames at {fps:g} fps); asked for {num_frames}"
        )
    last: Certificate | None = None
    for _ in range(attempts):
        look_rng = None if looks is None else np.random.default_rng(looks)
        scene = Scene(rng, width, height, fps, num_frames, style, looks=look_rng, twin_key=twin_key)
        scene.fact = motion.fact
        scene.meta["answer_keys"] = list(motion.keys())  # what its options may offer
        motion.animate(scene, value)
        if motion.renderer == "2d":
            scene.add_distractors(style.distractors)
        labels = scene.labels()
        if not _in_view(labels):
            continue
        cert = certify(labels)
        if cert.full is None or answer_key(motion.fact, cert.full) != key:
            raise GenerationError(
                f"motion {motion.name!r} asked for {key!r} but its states show {cert.full!r}"
            )
        if cert.ok(motion.fact, key):
            if motion.renderer != "2d":  # a sign and distractors behind the 3D meshes
                from tempogen.generators.decor3d import decorate

                decorate(scene, motion, key)
            return scene
        last = cert
    raise GenerationError(f"motion {motion.name!r} could not certify {key!r}: {last}")
