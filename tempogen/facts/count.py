"""``count``: how many times the repeated action happens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.facts.base import Fact, register_fact, shift
from tempogen.facts.caption import KIND_VERB, CaptionParts, agree
from tempogen.facts.kernels import (
    FROM_STATES,
    MAPPED,
    PRESERVED,
    frames_kept,
    kept,
    register_kernel,
)
from tempogen.labels import Labels

COUNT_RANGE = range(0, 13)  # counts an answer may have (edits: a loop or a join adds up)


@register_fact
class Count(Fact):
    """How many times the repeated action happens."""

    name = "count"
    options = 6
    order_free = orientation_free = turn_free = True  # the same count backwards, flipped
    edits = {
        "reverse": PRESERVED,
        "mirror": PRESERVED,
        "rotate": PRESERVED,
        "speed": PRESERVED,
        "speed_up": FROM_STATES,  # dropped frames may hide an event
        "speed_ramp": PRESERVED,
        "speed_ramp_up": FROM_STATES,
        "loop": MAPPED,
        "concat": MAPPED,
        "composite": PRESERVED,
        "trim": FROM_STATES,
        "zoom": PRESERVED,
    }

    def derive(self, labels: Labels, idx: np.ndarray | None = None) -> Any:
        return observe.count(labels, self.frames(labels, idx))

    def value(self, key: str) -> int:
        return int(key)

    def keys(self, objects: tuple[str, ...] = ()) -> list[str]:
        return [str(i) for i in COUNT_RANGE]

    def option_text(self, key: str, labels: Labels) -> str:
        return key

    def moments_needed(self, value: Any) -> int:
        """One sampled moment more than the events counted."""
        return value + 1 if isinstance(value, int) else super().moments_needed(value)

    def caption(self, parts: CaptionParts) -> str | None:
        kind, key, other = parts.kind, parts.key, parts.other
        if kind not in KIND_VERB and kind:
            return None
        if kind == "loop":
            loops = {"0": "no full loop", "1": "1 full loop"}.get(key, f"{key} full loops")
            return parts.says(f"makes {loops} around {other or 'a centre'}")
        verb = KIND_VERB.get(kind, "acts")
        if kind == "bounce":
            verb += f" on {other or 'the floor'}"
        if key == "0":
            return parts.says(f"never {agree(parts.subject, verb)}")
        return parts.says(f"{verb} {({'1': 'once', '2': 'twice'}).get(key, f'{key} times')}")

    def twin(self, key: str, answers: Sequence[str]) -> str | None:
        """Another count of the pattern's own, half its range away (1-6: 1 and 4, 2 and 5)."""
        return shift(key, sorted(answers, key=int), fixed=())

    def choose_options(
        self, key: str, labels: Labels, rng: np.random.Generator, answer_pos: int | None = None
    ) -> list[str]:
        """Every count the clip's pattern can give (``labels.meta["answer_keys"]``) when they
        fit, so neither the set shown nor the answer's rank within it says anything; else
        (a count an edit made, outside that range) six consecutive counts with the answer at
        a rank drawn uniformly from those that keep them within ``COUNT_RANGE``."""
        try:
            c = int(key)
        except ValueError:
            raise ValueError(f"answer {key!r} is not a valid count option") from None
        if c < 0:
            raise ValueError(f"answer {key!r} is not a valid count option: below zero")
        pool = sorted(int(p) for p in self.pool(key, labels))  # every count if not the pattern's
        k = int(self.options or 6)
        if len(pool) <= k:
            values = pool
        else:
            top = COUNT_RANGE.stop - 1
            if c > top:
                raise ValueError(f"answer {key!r} is not a valid count option (0..{top})")
            rank = int(rng.integers(max(0, c + k - 1 - top), min(c, k - 1) + 1))
            values = list(range(c - rank, c - rank + k))
        others = [str(v) for v in values if v != c]
        rng.shuffle(others)
        pos = int(rng.integers(0, len(values))) if answer_pos is None else answer_pos % len(values)
        return others[:pos] + [key] + others[pos:]


@register_kernel("repeat", "count")
def _repeat(value: Any, times: int) -> int:
    """Looped: the count multiplies."""
    return int(value) * times


@register_kernel("join", "count")
def _join(a: Any, b: Any) -> int:
    """A then B: the counts add."""
    return int(a) + int(b)


for _kernel in ("time_reversal", "mirror", "rotate", "rate_ramp"):
    register_kernel(_kernel, "count")(kept)
register_kernel("speed", "count")(frames_kept("count"))
