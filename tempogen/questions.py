"""Questions and options in TOMATO's wording, written from a fact's value.

A fact value (``("left", "up")``, ``"accelerating"``, ``3``...) maps to an answer *key*
(``"left-up"``, ``"accelerating"``, ``"3"``); a key maps to option text. The wording and the
option drawing of each fact live in its :class:`~tempogen.facts.Fact`; these functions look the
fact up by name, so callers that hold only a name keep one short call.

An edit re-derives the answer from the moved states, but a question's own words may say when
or where things happen ("... before it stops?", "put down", "on the left"), and an edit
(reversal, a ramp, a cut, a join, a flip) can make them false. :func:`check_wording` is the one
check of those words: each time or side word of a question template is read by the answer's
fact, or checked against the edited states by a rule here, or refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.errors import EditError
from tempogen.facts import (  # noqa: F401  (re-exported wording tables)
    COUNT_RANGE,
    DIRECTION_WORD,
    FACTS,
    FREQUENCY_TEXT,
    ROTATION_TEXT,
    SPEED_TEXT,
    TRAJECTORY_TEXT,
    describe,
    get_fact,
)
from tempogen.facts.states import STILL_PX  # noqa: F401  (re-exported: patterns read it)
from tempogen.facts.states import moving as moves
from tempogen.kinds import Task
from tempogen.labels import Labels

# TOMATO's variation flags: what kind of edit made a clip (edit ops set them).
VARIATION_KEYS = ("counterfactual", "composite", "zoom", "first_person")
TASKS = tuple(t.value for t in Task)  # TOMATO's order: its data/*.json files, the index, the report


def answer_key(fact: str, value: Any) -> str:
    """Stable string key of a fact value (``None`` means undetermined and has no key)."""
    return get_fact(fact).key(value)


def all_direction_keys() -> list[str]:
    """Every direction answer key: single directions, ordered pairs, then ``none``."""
    return get_fact("direction").keys()


def option_text(fact: str, key: str, labels: Labels) -> str:
    """The option sentence a reader sees for an answer key."""
    return get_fact(fact).option_text(key, labels)


def candidate_keys(fact: str, objects: tuple[str, ...] = ()) -> list[str]:
    """Every answer key a question about this fact could have (``objects`` for ``order``)."""
    return get_fact(fact).keys(objects)


def choose_options(
    fact: str, key: str, labels: Labels, rng: np.random.Generator, answer_pos: int | None = None
) -> list[str]:
    """Answer keys in display order: the right one plus distractors, shuffled by ``rng``."""
    return get_fact(fact).choose_options(key, labels, rng, answer_pos)


def num_options(
    fact: str, objects: tuple[str, ...] = (), answers: Sequence[str] | None = None
) -> int:
    """How many options a question about this fact shows (from a pattern's ``answers``)."""
    return get_fact(fact).num_options(objects, answers)


# -- question words an edit can make false --------------------------------------------------
class WordingError(EditError):
    """An edited clip's question (or a noun it uses) would say something its states do not
    show: a time or side word the edit made false, or one no rule can check."""


# Words whose truth depends on when things happen, which way time runs, or which way the
# picture faces. Phrases first, so "lights up" is one phrase, not "up".
TIME_WORDS = re.compile(
    r"\b(?:right after|before it stops|after it starts|starts? (?:moving|turning|rolling)"
    r"|puts? down|picks? up|picked up|turns? on|turns? off|lights? up|speeds? up"
    r"|slows? down|counter-clockwise|anticlockwise|clockwise|towards|away"
    r"|starts?|started|starting|stops?|stopped|begins?|began|ends|ended|finish(?:es|ed)?"
    r"|first|last|then|next|before|after|until|while|again|earlier|later|finally|sooner"
    r"|faster|slower|leftwards|rightwards|upwards|downwards|left|right|up|down)\b",
    re.IGNORECASE,
)


def _samples(labels: Labels) -> np.ndarray:
    """The frames TOMATO's evaluator samples (16, uniformly)."""
    return observe.uniform_indices(labels.num_frames, 16)


def subject_stops(labels: Labels) -> str | None:
    """Whether "... before it stops" holds: the subject moves, then is still over the last
    sampled interval (a viewer of 16 frames sees it stop); None when it holds, else why not."""
    moving = moves(labels, labels.query.objects[0])
    if not moving.any():
        return "the subject never moves"
    if moving[int(_samples(labels)[-2]) :].any():
        return "the subject is still moving at the end, so it never stops"
    return None


def subject_starts(labels: Labels) -> str | None:
    """Whether "... after it starts" holds: the subject is still over the first sampled
    interval, then moves; None when it holds, else why not."""
    moving = moves(labels, labels.query.objects[0])
    if not moving.any():
        return "the subject never moves"
    if moving[: int(_samples(labels)[1])].any():
        return "the subject is moving from the first frame, so it never starts"
    return None


Rule = Callable[[Labels], str | None]


def fact_words(fact: str) -> tuple[re.Pattern[str] | None, Rule | None]:
    """The words ``fact``'s answer reads from the states (re-derived after every edit), and
    what the question then takes for granted of them: the fact's own :attr:`Fact.words` and
    :meth:`Fact.presumes`; none for a fact that reads no such word or is not registered."""
    f = FACTS.get(fact)
    if f is None or not f.words:
        return None, None
    return re.compile(f.words, re.I), f.presumes


# Words any question may use, each checked against the states.
WORD_RULES: dict[str, Rule] = {
    "before it stops": subject_stops,
    "after it starts": subject_starts,
}


def time_words(template: str) -> list[str]:
    """The time and side words of a question template's own text (``{slots}`` left out)."""
    return [m.group(0) for m in TIME_WORDS.finditer(re.sub(r"\{[^{}]*\}", " ", template))]


def check_declared_wording(question: str, fact: str) -> None:
    """Raise :class:`WordingError` when an edited clip that has declared facts but no states
    keeps a ``question`` with a time or side word its ``fact``'s answer does not read: nothing
    can show the word still holds (a user's "... before it stops?" played backwards)."""
    owned = fact_words(fact)[0]
    for word in time_words(question):
        if owned is None or not owned.match(word):
            raise WordingError(
                f"question {question!r}: {word!r} depends on time or on the picture's "
                f"orientation, and a clip without per-frame states cannot show it still holds"
            )


def check_wording(template: str, labels: Labels) -> None:
    """Raise :class:`WordingError` unless every time or side word of a question ``template``
    holds in ``labels`` (an edited clip's states).

    Only the template's own words are read: ``{slots}`` (nouns, and the words a pattern
    derives from the states, see ``Motion.wording``) are filled from the same labels. A word
    the query's fact reads (``first`` of ``order``) holds whenever the answer is determined,
    given what the fact takes for granted (every start shown); other words need a rule in
    :data:`WORD_RULES`; a word with neither cannot be shown to survive the edit and refuses.
    """
    fact = labels.query.fact
    owned, presumed = fact_words(fact)
    for word in time_words(template):
        if owned is not None and presumed is not None and owned.match(word):
            why = presumed(labels)
        elif word.lower() in WORD_RULES:
            why = WORD_RULES[word.lower()](labels)
        else:
            raise WordingError(
                f"question {template!r}: {word!r} depends on time or on the picture's "
                f"orientation, and no rule reads it from the edited states (the {fact!r} "
                "answer does not; a pattern derives such words in Motion.wording)"
            )
        if why is not None:
            raise WordingError(f"question {template!r}: {word!r} no longer holds: {why}")
