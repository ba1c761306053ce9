"""The closed sets of names rows and labels carry, as enums the type checker can hold code to.

Each is a ``str`` enum whose members *are* their JSON strings: ``Task.COUNT == "count"``,
``f"{Task.COUNT}"`` is ``count`` and ``json.dumps`` writes ``"count"``, so a row or an export
holding a member writes the same bytes as one holding the plain string. Open sets (motion
patterns, facts, edit ops, formats, pair kinds) are registries instead: plugins extend them.
"""

from __future__ import annotations

from enum import Enum


class TextEnum(str, Enum):
    """A ``str`` enum that prints and formats as its value on every Python this package
    supports (3.11 made ``format()`` of a plain mixed-in enum ``Class.MEMBER``, an f-string
    of a row's task must not; ``enum.StrEnum`` is 3.11+). ``format()`` uses ``__str__``."""

    def __str__(self) -> str:
        return str(self.value)


class Task(TextEnum):
    """TOMATO's six reasoning types: every row's ``task``."""

    COUNT = "count"
    DIRECTION = "direction"
    ROTATION = "rotation"
    SHAPE_TREND = "shape&trend"
    VELOCITY_FREQUENCY = "velocity&frequency"
    VISUAL_CUES = "visual_cues"


class DemonstrationType(TextEnum):
    """What a clip shows, as TOMATO files it: every row's ``demonstration_type``."""

    HUMAN = "human"
    OBJECT = "object"
    SIMULATED = "simulated"


class EventKind(TextEnum):
    """Query kinds whose fact is a series of events (``labels.query.kind``)."""

    FLASH = "flash"
    BOUNCE = "bounce"
    RAISE = "raise"
    LOOP = "loop"


class VideoTTQuestion(TextEnum):
    """The five questions Video-TT asks of a clip, in the order its export writes them."""

    PRIMARY = "primary"
    REPHRASED = "rephrased"
    CORRECTLY_LED = "correctly_led"
    WRONGLY_LED = "wrongly_led"
    MULTIPLE_CHOICE = "multiple_choice"


__all__ = ["DemonstrationType", "EventKind", "Task", "TextEnum", "VideoTTQuestion"]
