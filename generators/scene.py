"""The scene a motion pattern animates: the canvas, the time base TOMATO samples, the random
streams (motion and look apart), the objects with their looks and per-frame states, and the
question's declaration (see :mod:`tempogen.generators.motion` for the patterns and the rules
a clip obeys)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from tempogen import observe
from tempogen.errors import GenerationError
from tempogen.labels import Labels, LabelsMeta, Query, Track

SAMPLES = 16  # frames TOMATO's evaluator samples uniformly; every question is certified at it
EDGE = 0.3  # a change of direction or sense happens inside the middle 40% of the clip
UNITS = 20.0  # scene units (:attr:`Scene.unit`) across the canvas's shorter side
LOOK_SIZE = (1.3, 2.0)  # an object's radius, in scene units
TEXT_SIZE = 2.0  # least radius of a block carrying text, in scene units (the text must show)
DISTRACTOR_SIZE = (0.8, 1.3)  # a distractor's radius, in scene units
DISTRACTOR_MARGIN = 1.5  # distractor radii kept from the canvas's edge and from any anchor line
DISTRACTOR_CLEAR = 1.6  # distractor radii kept clear of every object's path
DISTRACTOR_TRIES = 30  # places drawn for each distractor (the first clear one is taken)

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
    source: str = ""  # a recorded motion's window (generators/mocap): what the clip is cut from


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
    """The workspace a pattern animates: canvas, time base, random generator and objects.

    ``rng``: the motion's random generator, seeded per clip (appearance draws from
    :attr:`look_rng`). ``width``, ``height``: the canvas in pixels; ``fps``, ``num_frames``:
    the time base. ``style``: the clip's look options. ``tracks``, ``nouns``: the objects
    added so far and how the question names them. ``query``: set by :meth:`ask`. ``fact``:
    the pattern's fact, set by the framework. ``world``: a 3D pattern's renderer. ``meta``:
    extra label metadata. ``twin_key``: the answer of this clip's minimal-pair partner."""

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
    meta: LabelsMeta = field(default_factory=LabelsMeta)  # extra label metadata (JSON-ready)
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
        """The clip's number of frames (``num_frames``): frame ``i`` is shown at ``i / fps``."""
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
        return min(self.width, self.height) / UNITS

    def look(self, shapes: Sequence[str] = SHAPES, size: float | None = None) -> Look:
        """A fresh colour (never reused in a clip) and a random shape and size."""
        if not self._colors:
            raise GenerationError("scene ran out of distinct colours")
        name = self._colors.pop()
        shape = str(self.look_rng.choice(list(shapes)))
        size = size if size is not None else float(self.look_rng.uniform(*LOOK_SIZE) * self.unit)
        return Look(shape, name, COLORS[name], size)

    def subject_look(self, shapes: Sequence[str] = SHAPES, size: float | None = None) -> Look:
        """The subject's look; a block may carry misleading text (TOMATO saw models fooled)."""
        lk = self.look(shapes, size)
        if lk.shape == "block" and self.style.misleading_text:
            lk.text = str(self.look_rng.choice(MISLEADING.get(self.fact, ["?"])))
            lk.size = max(lk.size, TEXT_SIZE * self.unit)
        return lk

    def add(
        self, name: str, look: Look, x: Any, y: Any, *, role: str = "subject", **states: Any
    ) -> Track:
        """Add an object named ``name`` with per-frame states and return its track.

        ``x``, ``y`` (pixels; ``y`` grows downwards) and the optional states ``angle``
        (cumulative degrees, clockwise positive), ``scale``, ``visible`` and ``lit`` are
        arrays of ``n`` values or scalars broadcast to every frame (see
        :class:`~tempogen.labels.Track`). ``role`` is ``subject``, ``cue``, ``prop``,
        ``distractor`` or ``anchor``; the question names the object by ``look``'s noun."""
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
        """Declare what the question reads: the names of the objects it asks about, the
        subject first (see :class:`~tempogen.labels.Query` for what each fact reads from
        them), the ``kind`` that refines the fact, and ``declared`` answers no state can
        show. The fact comes from the pattern. Every pattern must call it."""
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
            lk = self.look(size=float(self.look_rng.uniform(*DISTRACTOR_SIZE) * self.unit))
            m = lk.size * DISTRACTOR_MARGIN
            places = self.look_rng.uniform(
                (m, m), (self.width - m, self.height - m), size=(DISTRACTOR_TRIES, 2)
            )
            angle = float(self.look_rng.uniform(0, 360))
            for x, y in places:
                x, y = float(x), float(y)
                if all(
                    np.min(np.hypot(t.x - x, t.y - y) - t.size * t.scale)
                    > lk.size * DISTRACTOR_CLEAR
                    for t in self.tracks
                    if t.role != "anchor"
                ) and all(
                    abs(y - t.y[0]) > lk.size * DISTRACTOR_MARGIN
                    for t in self.tracks
                    if t.role == "anchor"
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
        """The clip's labels: the tracks added so far, the query and the nouns (the
        framework calls it after ``animate``; an error if ``ask`` was never called)."""
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
