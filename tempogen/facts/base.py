"""The fact base class and registry: what a question asks, how its answer is derived, keyed
and worded. Each built-in fact is one module beside this one (``direction.py``, ``count.py``...).

A :class:`Fact` is one object per kind of answer (direction sequence, rotation senses, speed
trend, frequency trend, count, event order, trajectory shape, approach in depth). It derives
its value from a clip's per-frame states seen at chosen frames (through :mod:`tempogen.observe`), turns a value
into a stable answer *key* and back, lists the keys a question may offer, words a key as an
option or a caption phrase, and draws the options of a question. Questions, answers, captions,
Video-TT sets, edits and pixel verification all read facts from here, so no module has to
recover a fact by parsing English option text. States measured from pixels go through the same
:meth:`Fact.derive`, which is how ``tempogen audit verify`` re-answers a question.

A new fact is one subclass registered with :func:`register_fact` (docs/extend/fact.md), in one
file with its label kernels (:mod:`tempogen.facts.kernels`) and its library caption.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from tempogen.errors import ConfigurationError
from tempogen.facts.caption import CaptionParts
from tempogen.labels import Labels, LabelsMeta, Query
from tempogen.registry import Registry


class FactError(ConfigurationError):
    """A fact name no registered fact has (in a pattern, a manifest or a plugin)."""


def describe(track_name: str, labels: Labels) -> str:
    """Noun phrase for an object: ``the red star``."""
    return str(labels.meta.get("nouns", {}).get(track_name, f"the {track_name}"))


def named(track_name: str, labels: Labels) -> str:
    """An option that names an object: ``The red star.``"""
    phrase = describe(track_name, labels)
    return phrase[0].upper() + phrase[1:] + "."


class Fact:
    """One kind of answer. Subclasses set ``name`` and override what differs.

    ``options``: how many options a question shows (None: every candidate key).
    ``edits``: what each edit op does to a question about this fact, per op name
    (:data:`tempogen.facts.kernels.EDIT_NAMES`): ``preserved``, ``mapped`` (by the fact's
    label kernel, :mod:`tempogen.facts.kernels`) or ``states`` (read again from the edited
    states); an op the fact does not name refuses its questions.
    ``order_free``: the answer is the same with the frames shown backwards (a count).
    ``orientation_free``: no flip, turn or zoom of the picture changes the answer;
    ``turn_free``: no turn of the picture does (a spin's sense), though a flip may.
    """

    name: ClassVar[str] = ""
    options: ClassVar[int | None] = None
    edits: ClassVar[Mapping[str, str]] = {}
    # the time or side words of a question its answer reads (a regular expression matching
    # the whole word, any case: ``first`` of ``order``); none: every such word refuses an edit
    words: ClassVar[str] = ""
    order_free: ClassVar[bool] = False
    orientation_free: ClassVar[bool] = False
    turn_free: ClassVar[bool] = False

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

    def presumes(self, labels: Labels) -> str | None:
        """What a question using :attr:`words` takes for granted of the states beyond a
        determined answer (every start shown, for ``first``): None when it holds, else why
        not. By default nothing."""
        return None

    # -- declared answers (external clips) ----------------------------------------------------
    def declared(self, value: Any) -> Any:
        """A declared answer (a manifest's ``labels``) in this fact's own tokens."""
        return value

    def moments_needed(self, value: Any) -> int:
        """The fewest sampled moments that can show a declared answer: a change between every
        two steps of a sequence, three for a trend or a shape, two to see nothing moves."""
        if isinstance(value, list | tuple):
            return max(2, len(value) + 1)
        return 3

    def phrase_without_states(self, key: str, nouns: dict[str, str]) -> str:
        """The answer as words for a row without per-frame states: worded against labels that
        hold only the row's nouns (no tracks, no frames), which is all an option reads."""
        bare = Labels(0, 0, 0.0, (), Query(self.name, ()), LabelsMeta(nouns=dict(nouns)))
        return self.phrase(key, bare)

    # -- library caption ------------------------------------------------------------------
    def caption(self, parts: CaptionParts) -> str | None:
        """A one-sentence caption of a clip answering this fact (the retrieval library's);
        None: the question with its answer."""
        return None

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


def shift(
    key: str, answers: Sequence[str], fixed: tuple[str, ...] = ("none", "same")
) -> str | None:
    """``key``'s twin among ``answers`` (less ``fixed``) half the list away: a bijection, so
    twins of balanced answers stay balanced; None for a fixed key or a list of one."""
    pool = [a for a in answers if a not in fixed]
    if key not in pool or len(pool) < 2:
        return None
    return pool[(pool.index(key) + max(1, len(pool) // 2)) % len(pool)]


def opposite(key: str, answers: Sequence[str], flip: dict[str, str]) -> str | None:
    """``key`` with every token of its sequence flipped by ``flip`` (order kept), if that
    is one of ``answers``; None for ``none`` or a token with no opposite."""
    tokens = key.split("-")
    if key == "none" or any(t not in flip for t in tokens):
        return None
    out = "-".join(flip[t] for t in tokens)
    return out if out in answers else None


class SequenceFact(Fact):
    """A sequence of tokens (``("left", "up")``), keyed ``left-up``; empty = ``none``."""

    flip: ClassVar[dict[str, str]] = {}  # each token's opposite: a twin flips every token
    aliases: ClassVar[dict[str, str]] = {}  # TOMATO's words for tokens (``clockwise``: ``cw``)
    split_declared: ClassVar[bool] = False  # a declared string is a whole ``a-b`` sequence

    def declared(self, value: Any) -> Any:
        """A declared sequence as tokens: one word (``clockwise``), ``none``, or a list."""
        if isinstance(value, str):
            if value.lower() == "none":
                value = []
            else:
                value = value.split("-") if self.split_declared else [value]
        return [self.aliases.get(str(t).lower(), str(t).lower()) for t in value]

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """Every token flipped, order kept (left then up: right then down)."""
        return opposite(key, answers, self.flip)

    def key(self, value: Any) -> str:
        if value is None:
            raise ValueError(f"fact {self.name!r} is undetermined: no answer key")
        return "-".join(value) if value else "none"

    def value(self, key: str) -> tuple[str, ...]:
        return () if key == "none" else tuple(key.split("-"))


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
