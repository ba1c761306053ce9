"""A new fact in one file, with its edits: the direction the subject moves in first."""

from tempogen import observe
from tempogen.facts import DIRECTION_WORD, Fact, register_fact
from tempogen.facts.kernels import FROM_STATES, MAPPED, PRESERVED, register_kernel

TURN = {"right": "down", "down": "left", "left": "up", "up": "right"}  # a quarter clockwise
FLIP = {"horizontal": {"left": "right", "right": "left"}, "vertical": {"up": "down", "down": "up"}}


@register_fact
class FirstDirection(Fact):
    """Where the subject heads first: the first of its screen directions."""

    name = "first_direction"
    words = r"^first$"  # "... move first?": the one time word its answer reads
    edits = {  # what each op does to its questions (an op left out refuses them)
        "mirror": MAPPED,
        "rotate": MAPPED,
        "reverse": FROM_STATES,  # backwards, the first direction is the last one turned round
        "speed": PRESERVED,
        "zoom": PRESERVED,
        "trim": FROM_STATES,
    }

    def derive(self, labels, idx=None):
        seq = observe.direction(labels, self.frames(labels, idx), labels.subject)
        return None if seq is None else (seq[0] if seq else "none")

    def keys(self, objects=()):
        return [*DIRECTION_WORD, "none"]

    def option_text(self, key, labels):
        return "It does not move." if key == "none" else f"{DIRECTION_WORD[key]}."

    def caption(self, parts):  # the retrieval library's caption of a clip
        return parts.says("does not move" if parts.key == "none" else f"heads {parts.answer} first")


@register_kernel("mirror", "first_direction")
def mirror(value, axis):
    return FLIP[axis].get(value, value)


@register_kernel("rotate", "first_direction")
def rotate(value, degrees):
    for _ in range(degrees // 90):
        value = TURN.get(value, value)
    return value
