"""Motion patterns: the registry, the base class a pattern subclasses, and the rules every clip
obeys (certification at TOMATO's and Video-TT's samples).

A motion pattern is one registered class. It names its TOMATO task, the fact its question
asks about, the answers it can produce and the question; ``animate`` places objects and
gives them per-frame states on a :class:`~tempogen.generators.scene.Scene`. Everything else
(appearance, distractors, labels, certificates, rendering) is shared. The worked example is
``examples/zigzag.py`` (docs/extend/motion-pattern.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np

from tempogen import observe
from tempogen.errors import GenerationError
from tempogen.facts import FACTS, answer_of

# The scene lives in generators/scene.py; its names stay importable from here, the path
# plugins, the README and the other stages use.
from tempogen.generators.scene import (  # noqa: F401
    COLORS,
    EDGE,
    MISLEADING,
    NOUN,
    SAMPLES,
    SHAPES,
    Look,
    Scene,
    Style,
    World,
)
from tempogen.labels import Labels
from tempogen.questions import TASKS, WordingError, answer_key, check_wording
from tempogen.registry import Registry

MAX_TURN_PER_SAMPLE = 90.0  # degrees between two sampled frames: no wagon-wheel aliasing
# degrees a count of whole laps must end away from a whole lap: a reader a degree off (pixel
# centroids, another GL's rasteriser) would otherwise count one lap more or fewer
LAP_MARGIN = 10.0
VIDEOTT_SAMPLES = 80  # frames Video-TT samples: its question sets must hold at it too


class Motion:
    """Base of every motion pattern; subclasses set the class attributes and ``animate``.

    ``name``: the pattern's name (configs' ``motions:``, rows' ``generator``). ``task``: one
    of :data:`~tempogen.questions.TASKS`. ``fact``: the registered fact that answers the
    question. ``answers``: the answer values it can produce (two at least: a question's
    options are drawn from them). ``question``: the question, ``{subject}`` the first
    object's noun, ``{o0}``, ``{o1}``... each asked object's, other slots from
    :meth:`wording`. ``objects``: the names the question reads. ``renderer``: ``"2d"`` (the
    compositor draws the tracks) or ``"human"``/``"object3d"`` (``animate`` sets
    ``scene.world``). ``min_seconds``: the shortest clip that shows the answer.
    ``temporal_noise``: the answer shows in silhouettes alone. ``note``: the rows' ``note``.
    ``needs_source``: cut from a recorded motion (mocap patterns only)."""

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
    # Its clip is cut from a recorded motion the spec names (``Style.source``, see
    # generators/mocap): it cannot animate without one, so only the mocap planner uses it.
    needs_source: ClassVar[bool] = False

    def animate(self, scene: Scene, answer: Any) -> None:
        """Add the clip's objects to ``scene`` with states that show ``answer`` and declare
        the question with :meth:`Scene.ask`.

        ``answer`` is one entry of :attr:`answers`, the value whose key the planner asked
        for: a tuple of tokens for a sequence fact (``("right", "left")``), else the key
        itself (``"accelerating"``). It is read back from the states, never stored, and a
        clip whose states show another answer stops the build."""
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
        """The answer keys of :attr:`answers`, in order (``right-left``, ``3``): what rows
        and options carry."""
        return [answer_key(self.fact, a) for a in self.answers]

    def value_of(self, key: str) -> Any:
        """The entry of :attr:`answers` whose key is ``key`` (what :meth:`animate` gets)."""
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
    if words is None or not apart:
        raise WordingError(
            f"{', '.join(repr(nouns[n]) for n in sided)}: these objects are not side by side "
            "in every frame of the edited clip, so no noun can name them by their side"
        )
    for name, word in zip(order, words):

        def side(m: re.Match[str], w: str = word) -> str:
            return f"on the {w}" if m.group(1) else f"the {w} "

        nouns[name] = SIDE_NOUN.sub(side, nouns[name])
    if nouns == labels.meta.get("nouns"):
        return labels
    return replace(labels, meta={**labels.meta, "nouns": nouns})


MOTIONS: Registry[Motion] = Registry("motion")


def register_motion(cls: type[Motion]) -> type[Motion]:
    """Class decorator: add a pattern to the registry under its ``name``."""
    if not cls.name or cls.task not in TASKS or cls.fact not in tuple(FACTS):
        raise ValueError(f"{cls.__name__}: set name, a task from {TASKS} and a fact")
    motion = cls()
    keys = motion.keys()
    if len(set(keys)) < 2:  # a question's options are drawn from its pattern's answers
        raise ValueError(
            f"{cls.__name__}: a pattern needs at least two answers (its questions offer its "
            f"answers as options, and a question needs two); it has {keys}"
        )
    MOTIONS.add(cls.name, motion)
    return cls


def get_motion(name: str, where: str = "") -> Motion:
    """The registered pattern ``name`` (an installed package's too: the ``tempogen.motions``
    entry points load first); an unknown name is an error naming the known ones, prefixed
    with ``where`` (a file and field)."""
    _load_builtin()
    return MOTIONS.lookup(name, where)


def motions_for(task: str, sourced: bool = False) -> list[Motion]:
    """The patterns of ``task``: those that animate on their own, or (``sourced``) those cut
    from a recorded motion (:attr:`Motion.needs_source`)."""
    _load_builtin()
    if task not in TASKS:
        raise KeyError(f"unknown task {task!r}; tasks: {list(TASKS)}")
    return [m for m in MOTIONS.values() if m.task == task and m.needs_source == sourced]


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
    if labels.query.about_turning:
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
