"""A new fact in one file: the direction the subject moves in last."""

from tempogen import observe
from tempogen.facts import DIRECTION_WORD, Fact, register_fact


@register_fact
class LastDirection(Fact):
    """Where the subject heads at the end: the last of its screen directions."""

    name = "last_direction"

    def derive(self, labels, idx=None):
        seq = observe.direction(labels, self.frames(labels, idx), labels.subject)
        return None if seq is None else (seq[-1] if seq else "none")

    def keys(self, objects=()):
        return [*DIRECTION_WORD, "none"]

    def option_text(self, key, labels):
        return "It does not move." if key == "none" else f"{DIRECTION_WORD[key]}."
