"""What an edit op does to each fact: preserved, mapped by a named kernel, or re-read from states.

Every op declares, per fact (:mod:`tempogen.facts`), one :class:`Effect`:

* ``PRESERVED``: the answer is the same after the edit (a zoom keeps every answer);
* ``mapped(name, kernel)``: the answer after the edit is ``kernel(fact, answer before)``
  (reverse maps a rotation sequence to its reversed opposite: kernel ``time_reversal``);
* ``FROM_STATES``: the op moves per-frame states exactly and this fact, read again from the
  moved states, is the edited clip's answer (who starts first in a reversed clip depends on
  when each action ends; only the states know). Clips with declared facts and no states refuse.

A fact an op does not declare is unknown, and the op refuses any question about it: a new op
is safe before anyone has thought about it. For clips with per-frame states the declaration is
also checked: the answer read from the edited states must equal what the declaration says, or
the edit is refused (a wrong label is the worst bug a benchmark can have).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tempogen.errors import EditError
from tempogen.facts import get_fact
from tempogen.labels import Labels

Kernel = Callable[[str, Any], Any]


@dataclass(frozen=True)
class Effect:
    """One op's declared effect on one fact (see the module docstring)."""

    kind: str  # "preserved", "mapped", "states" or "unknown"
    kernel_name: str = ""
    kernel: Kernel | None = None

    def map(self, fact: str, value: Any) -> Any:
        """The answer after the edit, from the answer before (preserved or mapped)."""
        if self.kind == "preserved":
            return value
        if self.kind == "mapped" and self.kernel is not None:
            return self.kernel(fact, value)
        raise ValueError(f"a {self.kind!r} effect has no kernel")

    def describe(self) -> str:
        """``preserved``, ``mapped by <kernel>``, ``read from states`` or ``unknown``."""
        return {
            "preserved": "preserved",
            "mapped": f"mapped by {self.kernel_name}",
            "states": "read again from the edited states",
        }.get(self.kind, "unknown")


PRESERVED = Effect("preserved")
FROM_STATES = Effect("states")
UNKNOWN = Effect("unknown")


def mapped(name: str, kernel: Kernel) -> Effect:
    """An effect that maps the answer through ``kernel(fact, value)``, named for messages."""
    return Effect("mapped", name, kernel)


def by_dict(kernel: Callable[[dict[str, Any]], dict[str, Any]]) -> Kernel:
    """A per-fact kernel from a kernel over a dict of declared facts (``editing.algebra``)."""
    return lambda fact, value: kernel({fact: value})[fact]


def refusal(op: str, fact: str, why: str) -> EditError:
    """The error of an op that will not answer a question about ``fact``."""
    return EditError(f"{op}: cannot transform label {fact!r} soundly: {why}")


def require(op: str, effect: Effect, fact: str, has_states: bool) -> None:
    """Refuse, naming op and fact, unless ``effect`` lets the op answer this fact's question."""
    if effect.kind == "unknown":
        raise refusal(
            op,
            fact,
            "the op does not declare what it does to this fact (declare it in its effects)",
        )
    if effect.kind == "states" and not has_states:
        raise refusal(op, fact, "its answer is read from per-frame states, which this clip lacks")


def check(op: str, effect: Effect, fact: str, expected: Any, edited: Labels) -> None:
    """Refuse when the edited states answer ``fact`` otherwise than the declaration says."""
    if effect.kind not in ("preserved", "mapped"):
        return
    f = get_fact(fact)
    seen = f.derive(edited)
    want = None if expected is None else f.key(expected)
    got = None if seen is None else f.key(seen)
    if want != got:
        raise refusal(
            op,
            fact,
            f"declared {effect.describe()} gives {want!r}, but the edited states show {got!r}",
        )
