"""Facts, one registry: what a question asks, how its answer is derived, keyed and worded.

A :class:`Fact` is one object per kind of answer (direction sequence, rotation senses, speed
trend, frequency trend, count, event order, trajectory shape, approach in depth). It derives
its value from a clip's per-frame states seen at chosen frames (through :mod:`tempogen.observe`), turns a value
into a stable answer *key* and back, lists the keys a question may offer, words a key as an
option or a caption phrase, and draws the options of a question. Questions, answers, captions,
Video-TT sets, edits and pixel verification all read facts from here, so no module has to
recover a fact by parsing English option text. States measured from pixels go through the same
:meth:`Fact.derive`, which is how ``tempogen audit verify`` re-answers a question.

A new fact is one subclass registered with :func:`register_fact` (see the README).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np

from tempogen import observe
from tempogen.errors import ConfigurationError
from tempogen.labels import Labels, Query
from tempogen.registry import Registry

DIRECTION_WORD = {"left": "Leftwards", "right": "Rightwards", "up": "Upwards", "down": "Downwards"}
ROTATION_TEXT = {
    "cw": "Clockwise throughout.",
    "ccw": "Counter-clockwise throughout.",
    "cw-ccw": "Clockwise then counter-clockwise.",
    "ccw-cw": "Counter-clockwise then clockwise.",
    "none": "No rotation.",
}
SPEED_TEXT = {
    "accelerating": "Accelerating.",
    "decelerating": "Decelerating.",
    "constant": "Constant speed.",
    "none": "No movement.",
}
FREQUENCY_TEXT = {
    "increasing": "The frequency increases.",
    "decreasing": "The frequency decreases.",
    "constant": "The frequency stays constant.",
    "none": "It does not happen at all.",
}
TRAJECTORY_TEXT = {
    "circle": "Circle.",
    "triangle": "Triangle.",
    "square": "Square/rectangle.",
    "trapezoid": "Trapezoid.",
    "diamond": "Diamond.",
    "infinity": "Infinity-shape.",
    "star": "Star.",
    "none": "Not drawing at all.",
}
APPROACH_TEXT = {
    "towards": "Towards the camera.",
    "away": "Away from the camera.",
    "towards-away": "Towards the camera, then away.",
    "away-towards": "Away from the camera, then back towards it.",
    "none": "It does not come closer or go farther.",
}
INVERT_APPROACH = {"towards": "away", "away": "towards"}
# what a person does (fact ``next``): an option, and the anchor as the question names it;
# a hand is named by its glove's colour (``meta["gloves"]``), never by its side
NEXT_TEXT = {
    "left_up": "Raises the {left} hand.",
    "right_up": "Raises the {right} hand.",
    "both_up": "Raises both hands.",
    "clap": "Claps.",
    "arms_out": "Holds both arms out to the sides.",
}
NEXT_ANCHOR = {
    "left_up": "raising the {left} hand",
    "right_up": "raising the {right} hand",
    "both_up": "raising both hands",
    "clap": "clapping",
    "arms_out": "holding both arms out to the sides",
}
COUNT_RANGE = range(0, 13)  # counts an answer may have (edits: a loop or a join adds up)


class FactError(ConfigurationError):
    """A fact name no registered fact has (in a pattern, a manifest or a plugin)."""


def describe(track_name: str, labels: Labels) -> str:
    """Noun phrase for an object: ``the red star``."""
    return str(labels.meta.get("nouns", {}).get(track_name, f"the {track_name}"))


def _named(track_name: str, labels: Labels) -> str:
    """An option that names an object: ``The red star.``"""
    phrase = describe(track_name, labels)
    return phrase[0].upper() + phrase[1:] + "."


class Fact:
    """One kind of answer. Subclasses set ``name`` and override what differs.

    ``options``: how many options a question shows (None: every candidate key).
    """

    name: ClassVar[str] = ""
    options: ClassVar[int | None] = None

    # -- value ----------------------------------------------------------------------------
    @staticmethod
    def frames(labels: Labels, idx: np.ndarray | None) -> np.ndarray:
        """The frame indices to read: ``idx``, or every frame when None."""
        return np.arange(labels.num_frames) if idx is None else np.asarray(idx, dtype=np.int64)

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        """The value the states at ``idx`` (default: every frame) show; None = undetermined."""
        raise NotImplementedError

    def key(self, value: Any) -> str:
        """Stable string key of a value (an undetermined value has none)."""
        if value is None:
            raise ValueError(f"fact {self.name!r} is undetermined: no answer key")
        return str(value)

    def value(self, key: str) -> Any:
        """The value a key stands for (inverse of :meth:`key` on the fact's answers)."""
        return key

    # -- wording --------------------------------------------------------------------------
    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        """Every answer key a question about this fact could have."""
        raise NotImplementedError

    def option_text(self, key: str, labels: Labels) -> str:
        """The option sentence a reader sees for ``key``."""
        raise NotImplementedError

    # -- minimal pairs --------------------------------------------------------------------
    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """The counterfactual key of a minimal pair: the same scene with this fact flipped,
        one of ``answers`` (the pattern's own keys); None when the fact has no sound flip
        (the base refuses: a new fact gets twins only once it says how it flips)."""
        return None

    def phrase(self, key: str, labels: Labels) -> str:
        """The answer as words inside a sentence: the option text, lower-cased, no full stop."""
        text = self.option_text(key, labels).strip().rstrip(".").strip()
        return text[:1].lower() + text[1:]

    def num_options(
        self, objects: tuple[str, ...] = (), answers: Sequence[str] | None = None
    ) -> int:
        """How many options a question about this fact shows (drawn from ``answers``, the
        pattern's own answer keys, when given: see :meth:`pool`)."""
        keys = self.keys(objects)
        n = len([k for k in keys if k in answers]) if answers else len(keys)
        return n if self.options is None else min(self.options, n)

    def pool(self, key: str, labels: Labels) -> list[str]:
        """The keys a question's options come from: the answers its pattern can give
        (``labels.meta["answer_keys"]``) when ``key`` is one of them, so no option is one
        a reader could rule out from the question's wording alone; else every key."""
        pool = self.keys(labels.query.objects)
        given = labels.meta.get("answer_keys")
        if given and key in given:
            return [p for p in pool if p in given]
        return pool

    # -- options --------------------------------------------------------------------------
    def distractors(
        self, key: str, others: list[str], k: int, rng: np.random.Generator
    ) -> list[str]:
        """``k - 1`` wrong keys for a question whose right key is ``key``."""
        rng.shuffle(others)
        return others[: k - 1]

    def choose_options(
        self, key: str, labels: Labels, rng: np.random.Generator, answer_pos: int | None = None
    ) -> list[str]:
        """Answer keys in display order: the right one plus distractors, shuffled by ``rng``.

        With ``answer_pos`` the right key lands at that position (builders balance positions).
        """
        pool = self.pool(key, labels)
        if key not in pool:
            raise ValueError(f"answer {key!r} is not a valid {self.name} option; valid: {pool}")
        k = len(pool) if self.options is None else min(self.options, len(pool))
        others = [p for p in pool if p != key]
        distract = list(self.distractors(key, others, k, rng))
        rng.shuffle(distract)
        pos = int(rng.integers(0, k)) if answer_pos is None else answer_pos % k
        return distract[:pos] + [key] + distract[pos:]


def _shift(
    key: str, answers: Sequence[str], fixed: tuple[str, ...] = ("none", "same")
) -> str | None:
    """``key``'s twin among ``answers`` (less ``fixed``) half the list away: a bijection, so
    twins of balanced answers stay balanced; None for a fixed key or a list of one."""
    pool = [a for a in answers if a not in fixed]
    if key not in pool or len(pool) < 2:
        return None
    return pool[(pool.index(key) + max(1, len(pool) // 2)) % len(pool)]


def _opposite(key: str, answers: Sequence[str], flip: dict[str, str]) -> str | None:
    """``key`` with every token of its sequence flipped by ``flip`` (order kept), if that
    is one of ``answers``; None for ``none`` or a token with no opposite."""
    tokens = key.split("-")
    if key == "none" or any(t not in flip for t in tokens):
        return None
    out = "-".join(flip[t] for t in tokens)
    return out if out in answers else None


class _Sequence(Fact):
    """A sequence of tokens (``("left", "up")``), keyed ``left-up``; empty = ``none``."""

    flip: ClassVar[dict[str, str]] = {}  # each token's opposite: a twin flips every token

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """Every token flipped, order kept (left then up: right then down)."""
        return _opposite(key, answers, self.flip)

    def key(self, value: Any) -> str:
        if value is None:
            raise ValueError(f"fact {self.name!r} is undetermined: no answer key")
        return "-".join(value) if value else "none"

    def value(self, key: str) -> tuple[str, ...]:
        return () if key == "none" else tuple(key.split("-"))


class Direction(_Sequence):
    """The dominant screen directions the subject moves in, in order."""

    name = "direction"
    options = 6
    flip = {"left": "right", "right": "left", "up": "down", "down": "up"}

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.direction(labels, self.frames(labels, idx), labels.subject)

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        singles = list(DIRECTION_WORD)
        return singles + [f"{a}-{b}" for a in singles for b in singles if a != b] + ["none"]

    def option_text(self, key: str, labels: Labels) -> str:
        if key == "none":
            return "No movements."
        words = [DIRECTION_WORD[t] for t in key.split("-")]
        return (words[0] if len(words) == 1 else words[0] + " then " + words[1].lower()) + "."


class Rotation(_Sequence):
    """The senses of turning (``cw``/``ccw``), of a spin or an orbit as the query says."""

    name = "rotation"
    flip = {"cw": "ccw", "ccw": "cw"}

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.rotation(labels, self.frames(labels, idx))

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(ROTATION_TEXT)

    def option_text(self, key: str, labels: Labels) -> str:
        return ROTATION_TEXT[key]


class Speed(Fact):
    """How the subject's speed (of position, or of turning) changes over the clip."""

    name = "speed"

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        kind = labels.query.kind or "position"
        return observe.speed(labels, self.frames(labels, idx), labels.subject, kind)

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(SPEED_TEXT)

    def option_text(self, key: str, labels: Labels) -> str:
        return SPEED_TEXT[key]

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """Accelerating and decelerating swap; a constant pace or none has no flip."""
        return _opposite(
            key, answers, {"accelerating": "decelerating", "decelerating": "accelerating"}
        )


class Frequency(Fact):
    """How often a repeated action happens: more often, less often, steadily, never."""

    name = "frequency"

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.frequency(labels, self.frames(labels, idx))

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(FREQUENCY_TEXT)

    def option_text(self, key: str, labels: Labels) -> str:
        return FREQUENCY_TEXT[key]

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """More and more often swaps with less and less; constant or none has no flip."""
        return _opposite(key, answers, {"increasing": "decreasing", "decreasing": "increasing"})


class Count(Fact):
    """How many times the repeated action happens."""

    name = "count"
    options = 6

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.count(labels, self.frames(labels, idx))

    def value(self, key: str) -> int:
        return int(key)

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return [str(i) for i in COUNT_RANGE]

    def option_text(self, key: str, labels: Labels) -> str:
        return key

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """Another count of the pattern's own, half its range away (1-6: 1 and 4, 2 and 5)."""
        return _shift(key, sorted(answers, key=int), fixed=())

    def choose_options(
        self, key: str, labels: Labels, rng: np.random.Generator, answer_pos: int | None = None
    ) -> list[str]:
        """Every count the clip's pattern can give (``labels.meta["answer_keys"]``) when they
        fit, so neither the set shown nor the answer's rank within it says anything; else
        (a count an edit made, outside that range) six consecutive counts with the answer at
        a rank drawn uniformly from those that keep them within ``COUNT_RANGE``."""
        try:
            c = int(key)
        except ValueError:
            raise ValueError(f"answer {key!r} is not a valid count option") from None
        if c < 0:
            raise ValueError(f"answer {key!r} is not a valid count option: below zero")
        pool = sorted(int(p) for p in self.pool(key, labels))  # every count if not the pattern's
        k = int(self.options or 6)
        if len(pool) <= k:
            values = pool
        else:
            top = COUNT_RANGE.stop - 1
            if c > top:
                raise ValueError(f"answer {key!r} is not a valid count option (0..{top})")
            rank = int(rng.integers(max(0, c + k - 1 - top), min(c, k - 1) + 1))
            values = list(range(c - rank, c - rank + k))
        others = [str(v) for v in values if v != c]
        rng.shuffle(others)
        pos = int(rng.integers(0, len(values))) if answer_pos is None else answer_pos % len(values)
        return others[:pos] + [key] + others[pos:]


class Order(Fact):
    """Which object starts its action first (or all at once, or none); the key names the first
    group: one object's name, ``same`` for a tie, ``none`` when nothing starts."""

    name = "order"

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.order(labels, self.frames(labels, idx))

    def key(self, value: Any) -> str:
        if value is None:
            raise ValueError(f"fact {self.name!r} is undetermined: no answer key")
        if not value:
            return "none"
        first = value[0]
        return first[0] if len(first) == 1 else "same"

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(objects) + ["same", "none"]

    def option_text(self, key: str, labels: Labels) -> str:
        n = len(labels.query.objects)
        if key == "same":
            return "Both at the same time." if n == 2 else "All at the same time."
        if key == "none":
            return "None of them." if n > 2 else "Neither of them."
        return _named(key, labels)

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """Another object goes first (two: the order reversed); a tie or none has no flip."""
        return _shift(key, answers)


class More(Fact):
    """Which of several actors repeats its action more times. The query's objects come in
    pairs, (track, the anchor its events are read against), one pair per actor; the key
    names the track with the strictly highest count (a tie has no answer)."""

    name = "more"

    @staticmethod
    def pairs(objects: tuple[str, ...]) -> list[tuple[str, str]]:
        """The (track, anchor) pairs of a query's objects."""
        if len(objects) < 4 or len(objects) % 2:
            raise ValueError(f"fact 'more' reads (track, anchor) pairs, got {objects}")
        return list(zip(objects[0::2], objects[1::2]))

    def actors(self, labels: Labels) -> dict[str, Labels]:
        """Per actor, the labels as a one-actor count query on its (track, anchor) pair."""
        q = labels.query
        return {
            name: replace(labels, query=Query("count", (name, anchor), q.kind))
            for name, anchor in self.pairs(q.objects)
        }

    def counts(self, labels: Labels, idx: np.ndarray | None = None) -> dict[str, int | None]:
        """Each actor's count, read by :func:`observe.count` on its own track and anchor."""
        at = self.frames(labels, idx)
        return {name: observe.count(one, at) for name, one in self.actors(labels).items()}

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        counts = self.counts(labels, idx)
        if any(c is None for c in counts.values()):
            return None
        top = max(counts.values())
        winners = [name for name, c in counts.items() if c == top]
        return winners[0] if len(winners) == 1 else None  # a tie names nobody

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return [name for name, _ in self.pairs(objects)] if objects else []

    def option_text(self, key: str, labels: Labels) -> str:
        return _named(key, labels)

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """The other actor repeats more."""
        return _shift(key, answers)


class Faster(Fact):
    """Which of several actors moves faster on average over the clip (its path length over
    the time, at its own depth); a near tie has no answer, so clips are drawn with a clear
    winner. The key names the winner's track."""

    name = "faster"

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.fastest(labels, self.frames(labels, idx))

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(objects)

    def option_text(self, key: str, labels: Labels) -> str:
        return _named(key, labels)

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """The other actor is the faster."""
        return _shift(key, answers)


class Trajectory(Fact):
    """The shape the subject's path draws over the clip."""

    name = "trajectory"
    options = 6

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.trajectory(labels, self.frames(labels, idx))

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(TRAJECTORY_TEXT)

    def option_text(self, key: str, labels: Labels) -> str:
        return TRAJECTORY_TEXT[key]

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """Another of the pattern's shapes drawn by the same subject; not drawing has none."""
        return _shift(key, answers)


class Approach(_Sequence):
    """Whether the subject comes towards the camera or goes away, in order: read from how its
    apparent size (the track's ``scale``) grows or shrinks, which one frame cannot show."""

    name = "approach"
    flip = {"towards": "away", "away": "towards"}

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.approach(labels, self.frames(labels, idx), labels.subject)

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(APPROACH_TEXT)

    def option_text(self, key: str, labels: Labels) -> str:
        return APPROACH_TEXT[key]


def gesture_words(template: str, labels: Labels) -> str:
    """A gesture's words with each hand named by its glove's colour."""
    gloves = labels.meta.get("gloves", {})
    return template.format(left=gloves.get("left", "left"), right=gloves.get("right", "right"))


class Next(Fact):
    """What a person does right after a named gesture (``query.kind``): the gestures are read
    per frame from the hands against the body's anchors (:func:`observe.gesture_frames`), rest
    ignored and repeats merged; the key is the gesture that follows the anchor. The options
    are the other gestures: the anchor itself is never offered."""

    name = "next"
    options = len(observe.GESTURES) - 1

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.next_gesture(labels, self.frames(labels, idx))

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return list(observe.GESTURES)

    def option_text(self, key: str, labels: Labels) -> str:
        return gesture_words(NEXT_TEXT[key], labels)

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """None: the gesture the question names is drawn with the answer, so a twin would
        ask another question; no sound minimal pair."""
        return None

    def choose_options(
        self, key: str, labels: Labels, rng: np.random.Generator, answer_pos: int | None = None
    ) -> list[str]:
        """Every gesture but the anchor: four options, the right one at ``answer_pos``."""
        anchor = labels.query.kind
        pool = [g for g in observe.GESTURES if g != anchor]
        if key not in pool:
            raise ValueError(f"answer {key!r} is not a valid next option; valid: {pool}")
        others = [g for g in pool if g != key]
        rng.shuffle(others)
        pos = int(rng.integers(0, len(pool))) if answer_pos is None else answer_pos % len(pool)
        return others[:pos] + [key] + others[pos:]


FACTS: Registry[Fact] = Registry("fact", FactError)


def register_fact(cls: type[Fact]) -> type[Fact]:
    """Class decorator: add a fact to the registry under its ``name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__}: set a name")
    FACTS.add(cls.name, cls())
    return cls


def get_fact(name: str) -> Fact:
    """The registered fact ``name``; an unknown name is an error naming the known ones."""
    return FACTS.lookup(name)


def fact_names() -> Iterator[str]:
    """Names of every registered fact, built-ins first."""
    return iter(list(FACTS))


def answer_of(labels: Labels, idx: np.ndarray | None = None) -> Any:
    """The value of the query's fact, from the states at ``idx`` (default: every frame)."""
    return get_fact(labels.query.fact).derive(labels, idx)


for _cls in (
    Direction,
    Rotation,
    Speed,
    Frequency,
    Count,
    Order,
    Trajectory,
    More,
    Faster,
    Approach,
    Next,
):
    register_fact(_cls)
