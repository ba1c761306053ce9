"""Label kernels, registered per (kernel, fact): what an edit does to a declared answer.

Clips that carry declared facts (an external video with ``rotation: [cw]``) have no per-frame
states to re-read, so each edit maps their answers through a kernel: ``time_reversal``,
``mirror`` (per ``axis``), ``rotate`` (by ``degrees``), ``rate_ramp`` (``start`` to ``end``),
``speed`` (by ``factor``), ``repeat`` (``times``) and ``join`` (A's answer, B's answer). A fact's
module registers its own kernels, in the manner of torchvision's ``register_kernel``::

    @register_kernel("time_reversal", "direction")
    def _reverse(value): ...

An unregistered (kernel, fact) pair is refused with an :class:`EditError` naming the op and the
fact: a wrong label is the worst bug, so nothing passes through unmapped.

What an edit op does to a fact's *question* (the answer preserved, mapped by the op's kernel, or
read again from the edited states) is the fact's own declaration too: :attr:`Fact.edits`, keyed
by the op names below, with the values :data:`PRESERVED`, :data:`MAPPED`, :data:`FROM_STATES`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from tempogen.errors import EditError

KERNEL_NAMES = ("time_reversal", "mirror", "rotate", "rate_ramp", "speed", "repeat", "join")

# a fact's declaration per op (``Fact.edits``): the answer after the op is the answer before,
# the answer before mapped by the op's kernel, or the answer read again from the moved states
PRESERVED, MAPPED, FROM_STATES = "preserved", "mapped", "states"
RULES = (PRESERVED, MAPPED, FROM_STATES)
# the ops a fact declares itself for: ``speed`` and ``speed_ramp`` are declared apart for rates
# that drop frames (``speed_up``, ``speed_ramp_up``: a rate above 1 may hide a brief event) and
# rates that do not; ``zoom`` is ``crop`` and ``zoom_in``
EDIT_NAMES = (
    "reverse",
    "mirror",
    "rotate",
    "speed",
    "speed_up",
    "speed_ramp",
    "speed_ramp_up",
    "loop",
    "concat",
    "composite",
    "trim",
    "zoom",
)

# Each answer token and its opposite: the one table behind the facts' flips, time reversal,
# mirrors and the Video-TT "the other way" distractors.
SCREEN_OPPOSITE = {"left": "right", "right": "left", "up": "down", "down": "up"}
TURN_OPPOSITE = {"cw": "ccw", "ccw": "cw"}
DEPTH_OPPOSITE = {"towards": "away", "away": "towards"}
# the tokens a declared direction or rotation sequence may hold, each with its opposite
SCREEN_TOKENS = {**SCREEN_OPPOSITE, **TURN_OPPOSITE}
OPPOSITE = {**SCREEN_TOKENS, **DEPTH_OPPOSITE}

F = TypeVar("F", bound=Callable[..., Any])
KERNELS: dict[tuple[str, str], Callable[..., Any]] = {}


def register_kernel(kernel: str, *facts: str) -> Callable[[F], F]:
    """Decorator: ``fn`` is the ``kernel`` of each of ``facts`` (``fn(value, **params)``, or
    ``fn(a, b)`` for ``join``); it returns the edited answer or raises :func:`refusal`."""
    if kernel not in KERNEL_NAMES:
        raise ValueError(f"unknown label kernel {kernel!r}; known: {', '.join(KERNEL_NAMES)}")

    def add(fn: F) -> F:
        for fact in facts:
            if (kernel, fact) in KERNELS:
                raise ValueError(f"kernel {kernel!r} of fact {fact!r} is registered twice")
            KERNELS[(kernel, fact)] = fn
        return fn

    return add


def get_kernel(kernel: str, fact: str, op: str) -> Callable[..., Any]:
    """The ``kernel`` of ``fact``; an unregistered pair is refused, naming ``op`` and fact."""
    try:
        return KERNELS[(kernel, fact)]
    except (KeyError, TypeError):
        raise refusal(op, fact, "no rule for this label") from None


def has_kernel(kernel: str, fact: str) -> bool:
    """Whether ``fact`` registered a ``kernel``."""
    return (kernel, fact) in KERNELS


def refusal(op: str, fact: str, why: str) -> EditError:
    """The error of an op that will not map a declared ``fact``: it names both, and why."""
    return EditError(f"{op}: cannot transform label {fact!r} soundly: {why}")


def tokens(value: Any, fact: str, allowed: Iterable[str]) -> list[str]:
    """A declared sequence as a list of tokens from ``allowed``; anything else is refused."""
    allowed = set(allowed)
    if not isinstance(value, list | tuple) or any(t not in allowed for t in value):
        raise EditError(
            f"label {fact!r}: expected a list of tokens from {sorted(allowed)}, got {value!r}"
        )
    return list(value)


def merged(seq: list[str]) -> list[str]:
    """A joined sequence with each repeated neighbour merged (left, left, up: left, up)."""
    return [t for i, t in enumerate(seq) if i == 0 or seq[i - 1] != t]


class KernelRefusal(Exception):
    """A kernel's refusal of a declared answer, with the reason; the caller names the op."""


def through(kernel: str, op: str, facts: dict[str, Any], **params: Any) -> dict[str, Any]:
    """Every declared answer in ``facts`` through its fact's ``kernel`` (``params`` passed on);
    a fact without one, or a kernel's refusal, is refused naming ``op`` and the fact."""
    out: dict[str, Any] = {}
    for fact, value in facts.items():
        fn = get_kernel(kernel, fact, op)
        try:
            out[fact] = fn(value, **params)
        except KernelRefusal as why:
            raise refusal(op, fact, str(why)) from None
    return out


def kept(value: Any, **_: Any) -> Any:
    """The kernel of an answer the edit leaves as it is."""
    return value


def once(value: Any, times: int) -> Any:
    """The ``repeat`` kernel of an answer a loop would break (a sequence gains a jump at each
    seam): kept when played once, refused otherwise."""
    if times == 1:
        return value
    raise KernelRefusal("the clip restarts at each seam")


def frames_kept(fact: str) -> Callable[..., Any]:
    """The ``speed`` kernel of an answer that dropped frames may change (a brief event hidden,
    a fast turn aliased): kept when slowed down, refused when sped up."""

    def kernel(value: Any, factor: float) -> Any:
        if factor > 1:
            raise KernelRefusal("dropped frames may hide events or alias a turn")
        return value

    kernel.__doc__ = f"The ``speed`` kernel of {fact}: see :func:`frames_kept`."
    return kernel


# -- trends (speed, frequency): rising, falling, steady (``constant``) or nothing (``none``) ---
STEADY = ("constant", "none")


def trend_kernels(fact: str, rising: str, falling: str) -> None:
    """Register a trend fact's kernels: played backwards the trend swaps; a rate ramp makes a
    steady trend rise or fall with it; a loop or a join keeps only a steady trend."""
    swap = {rising: falling, falling: rising}

    @register_kernel("time_reversal", fact)
    def _reverse(value: Any) -> Any:
        return swap.get(value, value)

    @register_kernel("rate_ramp", fact)
    def _ramp(value: Any, start: float, end: float) -> Any:
        if math.isclose(start, end):
            return value
        up = end > start
        if value == "constant" or value == (rising if up else falling):
            return rising if up else falling
        if value == "none":
            return value
        raise KernelRefusal(f"{value} motion under a {'rising' if up else 'falling'} rate")

    @register_kernel("repeat", fact)
    def _repeat(value: Any, times: int) -> Any:
        return value if value in STEADY else once(value, times)

    @register_kernel("join", fact)
    def _join(a: Any, b: Any) -> Any:
        if a == b and a in STEADY:
            return a
        raise KernelRefusal(f"joining {a!r} and {b!r}")

    register_kernel("mirror", fact)(kept)
    register_kernel("rotate", fact)(kept)
