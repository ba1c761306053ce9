"""Questions and options in TOMATO's wording, written from a fact's value.

A fact value (``("left", "up")``, ``"accelerating"``, ``3``...) maps to an answer *key*
(``"left-up"``, ``"accelerating"``, ``"3"``); a key maps to option text. The wording and the
option drawing of each fact live in its :class:`~tempogen.facts.Fact`; these functions look the
fact up by name, so callers that hold only a name keep one short call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tempogen.facts import (  # noqa: F401  (re-exported wording tables)
    COUNT_RANGE,
    DIRECTION_WORD,
    FREQUENCY_TEXT,
    ROTATION_TEXT,
    SPEED_TEXT,
    TRAJECTORY_TEXT,
    describe,
    get_fact,
)
from tempogen.labels import Labels

# TOMATO's variation flags: what kind of edit made a clip (edit ops set them).
VARIATION_KEYS = ("counterfactual", "composite", "zoom", "first_person")
TASKS = ("count", "direction", "rotation", "shape&trend", "velocity&frequency", "visual_cues")


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
