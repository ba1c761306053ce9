"""Facts: what a question asks, how its answer is derived, keyed, worded and edited.

A fact is one module here (``direction.py``, ``count.py``, ...): its :class:`Fact` subclass
(derivation, keys, wording, options, caption phrase, twin, library caption, what each edit op
does to its questions) and its label kernels (:mod:`tempogen.facts.kernels`), registered when
the module is imported. The registry and the base class live in :mod:`tempogen.facts.base`;
this package re-exports what callers use (``get_fact``, ``answer_of``, the wording tables).
A new fact is one file (a plugin, see the README's ``examples/last_direction.py``).
"""

from tempogen.facts.base import (
    FACTS,
    Fact,
    FactError,
    SequenceFact,
    answer_of,
    describe,
    fact_names,
    get_fact,
    named,
    opposite,
    register_fact,
    shift,
)
from tempogen.facts.caption import CaptionParts

# the built-ins, in registration order (the order ``fact_names`` and listings show)
from tempogen.facts.direction import DIRECTION_WORD, Direction  # isort: skip
from tempogen.facts.rotation import ROTATION_TEXT, Rotation  # isort: skip
from tempogen.facts.speed import SPEED_TEXT, Speed  # isort: skip
from tempogen.facts.frequency import FREQUENCY_TEXT, Frequency  # isort: skip
from tempogen.facts.count import COUNT_RANGE, Count  # isort: skip
from tempogen.facts.order import Order  # isort: skip
from tempogen.facts.trajectory import TRAJECTORY_TEXT, Trajectory  # isort: skip
from tempogen.facts.more import More  # isort: skip
from tempogen.facts.faster import Faster  # isort: skip
from tempogen.facts.approach import APPROACH_TEXT, INVERT_APPROACH, Approach  # isort: skip
from tempogen.facts.next_gesture import NEXT_ANCHOR, NEXT_TEXT, Next, gesture_words  # isort: skip

__all__ = [
    "APPROACH_TEXT",
    "COUNT_RANGE",
    "DIRECTION_WORD",
    "FACTS",
    "FREQUENCY_TEXT",
    "INVERT_APPROACH",
    "NEXT_ANCHOR",
    "NEXT_TEXT",
    "ROTATION_TEXT",
    "SPEED_TEXT",
    "TRAJECTORY_TEXT",
    "Approach",
    "CaptionParts",
    "Count",
    "Direction",
    "Fact",
    "FactError",
    "Faster",
    "Frequency",
    "More",
    "Next",
    "Order",
    "Rotation",
    "SequenceFact",
    "Speed",
    "Trajectory",
    "answer_of",
    "describe",
    "fact_names",
    "gesture_words",
    "get_fact",
    "named",
    "opposite",
    "register_fact",
    "shift",
]
