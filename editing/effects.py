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

Clips with declared facts have no states to check against, but every op's time map is known
(output frame ``j`` shows input frame ``sel[j]``), so a declaration is checked against it
(:func:`check_time`): ``preserved`` needs the frames shown in order (a count, a drawn shape or
which object is faster also survive frames shown backwards); a mapped kernel states the time
map it is sound for (``forward`` by default, ``backward`` for time reversal, ``repeat`` for a
loop). An op that plays the second half first and declares a direction preserved is refused.
Its per-frame transforms are known too (:func:`check_space`): a direction declared preserved
under a flip or a turn of the picture, or a spin's sense under a flip, is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tempogen.editing.clip import similarity_parts
from tempogen.facts import FACTS, get_fact, kernels
from tempogen.labels import Labels

Kernel = Callable[[str, Any], Any]


@dataclass(frozen=True)
class Effect:
    """One op's declared effect on one fact (see the module docstring)."""

    kind: str  # "preserved", "mapped", "states" or "unknown"
    kernel_name: str = ""
    kernel: Kernel | None = None
    time: str = ""  # a mapped kernel: the time map it is sound for (FORWARD, BACKWARD, REPEAT)

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


# Time maps (output frame j shows input frame sel[j]) a declaration can be sound for.
FORWARD = "forward"  # never steps back: speed changes, trims, spatial ops
BACKWARD = "backward"  # never steps forward: time reversal
REPEAT = "repeat"  # one forward pass shown several times over: a loop
TIMES = (FORWARD, BACKWARD, REPEAT)
_TIME_WORDS = {
    FORWARD: "the frames shown in order",
    BACKWARD: "the frames shown in reverse order",
    REPEAT: "one pass in order, repeated",
}


def _flag(fact: str, name: str) -> bool:
    """A fact's own declaration (:class:`tempogen.facts.Fact`): ``order_free`` (the same
    answer whichever way time runs), ``orientation_free`` (no flip, turn or zoom changes it),
    ``turn_free`` (no turn does); false for a fact no module registered."""
    f = FACTS.get(fact)
    return bool(f is not None and getattr(f, name))


def mapped(name: str, kernel: Kernel, time: str = FORWARD) -> Effect:
    """An effect that maps the answer through ``kernel(fact, value)``, named for messages;
    ``time`` is the time map the kernel is sound for (checked on clips with declared facts)."""
    if time not in TIMES:
        raise ValueError(f"{name}: time must be one of {TIMES}, got {time!r}")
    return Effect("mapped", name, kernel, time)


def declared(edit: str, fact: str, kernel: Effect | None = None) -> Effect:
    """What the fact's own module declares an op does to its questions (``Fact.edits[edit]``,
    ``edit`` one of :data:`tempogen.facts.kernels.EDIT_NAMES`): preserved, read again from the
    states, or ``kernel`` (the op's mapped effect) where the fact says ``mapped``. A fact that
    says nothing for ``edit`` (or says mapped to an op with no kernel) is unknown: refused."""
    f = FACTS.get(fact)
    rule = f.edits.get(edit) if f is not None else None
    if rule == kernels.PRESERVED:
        return PRESERVED
    if rule == kernels.FROM_STATES:
        return FROM_STATES
    if rule == kernels.MAPPED and kernel is not None:
        return kernel
    return UNKNOWN


def by_dict(kernel: Callable[[dict[str, Any]], dict[str, Any]]) -> Kernel:
    """A per-fact kernel from a kernel over a dict of declared facts (``editing.algebra``)."""
    return lambda fact, value: kernel({fact: value})[fact]


refusal = kernels.refusal  # the error of an op that will not answer a question about a fact


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


def time_shapes(sel: np.ndarray | None) -> set[str]:
    """Which of :data:`TIMES` the time map ``sel`` is (none for an unknown map, or frames
    shown in any other order)."""
    if sel is None or len(sel) == 0:
        return set()
    step = np.diff(np.asarray(sel))
    out = set()
    if (step >= 0).all():
        out |= {FORWARD, REPEAT}
    if (step <= 0).all():
        out.add(BACKWARD)
    back = np.flatnonzero(step < 0) + 1
    if len(back) and len(sel) % back[0] == 0:
        first = sel[: back[0]]
        if np.array_equal(np.tile(first, len(sel) // back[0]), sel):
            out.add(REPEAT)
    return out


def needed_times(effect: Effect, fact: str) -> tuple[str, ...]:
    """The time maps under which ``effect`` on ``fact`` can hold (preserved or mapped)."""
    if effect.kind == "preserved":
        return (FORWARD, BACKWARD) if _flag(fact, "order_free") else (FORWARD,)
    if effect.kind == "mapped":
        return (effect.time or FORWARD,)
    return ()


def check_time(op: str, effect: Effect, fact: str, sel: np.ndarray | None) -> None:
    """Refuse a declared fact's effect that the op's time map ``sel`` (None: unknown) cannot
    keep: without per-frame states, nothing else can show the declaration wrong."""
    need = needed_times(effect, fact)
    if not need or time_shapes(sel) & set(need):
        return
    if sel is None:
        shown = "its output frames cannot be traced to the input's, so its time map is unknown"
    else:
        step = np.diff(np.asarray(sel))
        j = int(np.flatnonzero(step < 0 if need[0] != BACKWARD else step > 0)[0]) + 1
        shown = f"output frame {j} shows input frame {int(sel[j])} after {int(sel[j - 1])}"
    raise refusal(
        op,
        fact,
        f"declared {effect.describe()}, which holds only for "
        f"{' or '.join(_TIME_WORDS[t] for t in need)}, but {shown} (a clip without per-frame "
        "states has nothing else to check the declaration by)",
    )


def check_space(op: str, effect: Effect, fact: str, maps: np.ndarray) -> None:
    """Refuse ``preserved`` for a fact that the op's per-frame picture transforms ``maps``
    (output from input pixels) can change: a flip or a turn for a direction (and facts not
    known to be free of orientation), a flip for a spin's sense."""
    if effect.kind != "preserved" or _flag(fact, "orientation_free"):
        return
    for j, m in enumerate(maps):
        _, angle, reflected = similarity_parts(m)
        turned = not reflected and abs((angle + 180.0) % 360.0 - 180.0) > 1e-6
        if reflected or (turned and not _flag(fact, "turn_free")):
            what = "flips" if reflected else f"turns ({angle:.0f} degrees)"
            raise refusal(
                op,
                fact,
                f"declared preserved, but it {what} the picture at output frame {j}, which "
                "changes this answer (a clip without per-frame states has nothing else to "
                "check the declaration by)",
            )
