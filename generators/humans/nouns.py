"""How questions name simulated people and their parts: a hand by its glove's colour, a
person by their clothes when someone else is in the scene ("left" and "right" are the
viewer's)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tempogen.generators.humans.look import HumanLook, body_color_name

if TYPE_CHECKING:
    from tempogen.generators.humans.rig import Rig


class Naming:
    """The English nouns of a rig (the fields are :class:`Rig`'s)."""

    look: HumanLook
    companion: Rig | None

    def hand_noun(self, side: str) -> str:
        """How a question names a hand: by its glove's colour (sides are ambiguous)."""
        return self.part_noun(f"{self.look.hands[side][0]} hand")

    @property
    def who(self) -> str:
        """How a question names this person: "the person", or by clothes beside a companion."""
        if self.companion is None:
            return "the person"
        return f"the person in {body_color_name(self.look.body)}"

    def part_noun(self, part: str) -> str:
        """How a question names a body part: "the person's feet", "the feet of the person in
        blue" beside a companion."""
        if self.companion is None:
            return f"the person's {part}"
        return f"the {part} of {self.who}"


def person_noun(side: str, rig: Rig) -> str:
    """How a question names one of two people: where the viewer sees them and their clothes."""
    return f"the person on the {side} (in {body_color_name(rig.look.body)})"
