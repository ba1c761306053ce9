"""The event-order rule of the caption audit: split a caption into events around temporal
connectives and tell whether two captions are the same events in another order (the rule and
its limits: :mod:`tempogen.retrieval.audit`)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|,")

_FORWARD: tuple[tuple[str, ...], ...] = (
    ("and", "then"),
    ("and", "later"),
    ("followed", "by"),
    ("then",),
    ("before",),
)
_BACKWARD: tuple[tuple[str, ...], ...] = (("after",),)
# state-change connectives ("turning into", ...): the events they join are one object changing
TRANSFORM_CONNECTIVES: tuple[tuple[str, ...], ...] = tuple(
    tuple(c.split())
    for c in (
        "turning into",
        "turns into",
        "turned into",
        "turn into",
        "changing into",
        "changes into",
        "changed into",
        "transforming into",
        "transforms into",
        "morphing into",
        "morphs into",
        "becoming",
        "becomes",
    )
)
_CONNECTIVES = sorted(_FORWARD + _BACKWARD + TRANSFORM_CONNECTIVES, key=len, reverse=True)
_SIMULTANEOUS = ("while", "whilst", "as", "when", "meanwhile", "and")

_IGNORED = frozenset(
    "a an the he she it they him her them his its their hers theirs is are was were be "
    "been being am ,".split()
)


def words(text: str) -> list[str]:
    """Lower-case words without punctuation: what "the same words" compares."""
    return _WORD.findall(_plain(text))


def _plain(text: str) -> str:
    return text.lower().replace("\u2019", "'").replace("\u2018", "'")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(_plain(text))


# --------------------------------------------------------------------------- parsing


@dataclass(frozen=True)
class Events:
    """A caption read as events in time order, with the connective that ordered them."""

    connective: str
    events: tuple[tuple[str, ...], ...]
    context: tuple[str, ...] = ()

    def show(self) -> str:
        inner = " -> ".join(f"[{' '.join(e)}]" for e in self.events)
        return f"{' '.join(self.context)} from/to {inner}" if self.context else inner


def _strip(seg: Sequence[str]) -> tuple[str, ...]:
    return tuple(t for t in seg if t != ",")


def _find(tokens: Sequence[str], start: int = 1) -> list[tuple[int, tuple[str, ...]]]:
    """Connectives at positions >= start, longest match first, non-overlapping."""
    hits = []
    i = start
    while i < len(tokens):
        for conn in _CONNECTIVES:
            if tuple(tokens[i : i + len(conn)]) == conn:
                hits.append((i, conn))
                i += len(conn)
                break
        else:
            i += 1
    return hits


def parse_events(text: str) -> Events | str:
    """Split a caption into its events in time order, or say why it cannot be."""
    toks = _tokens(text)
    if not toks:
        return "is empty"
    if toks[0] in ("before", "after") and "," in toks:
        comma = toks.index(",")
        a, b = _strip(toks[1:comma]), _strip(toks[comma + 1 :])
        if a and b and not _find(list(b), 0):
            order = (b, a) if toks[0] == "before" else (a, b)
            return Events(f"{toks[0]} ..., ...", order)
    lead = 0
    if toks[0] == "first":
        lead = 1
    hits = _find(toks, lead + 1)
    if hits:
        kinds = {c for _, c in hits}
        if len(hits) > 1 and not kinds <= set(_FORWARD):
            names = ", ".join(sorted(" ".join(c) for c in kinds))
            return f"has {len(hits)} connectives ({names}); only a chain of 'then' is ordered"
        cuts = [lead] + [x for i, c in hits for x in (i, i + len(c))] + [len(toks)]
        segs = [_strip(toks[cuts[k] : cuts[k + 1]]) for k in range(0, len(cuts), 2)]
        if any(not s for s in segs):
            return f"has an empty event around '{' '.join(hits[0][1])}'"
        conn = " ".join(hits[0][1])
        if hits[0][1] in _BACKWARD:
            segs = segs[::-1]
        if lead:
            conn = f"first ... {conn}"
        return Events(conn, tuple(segs))
    if "from" in toks[1:] and "to" in toks[toks.index("from", 1) :]:
        f = toks.index("from", 1)
        t = toks.index("to", f)
        a, b = _strip(toks[f + 1 : t]), _strip(toks[t + 1 :])
        if a and b:
            return Events("from ... to", (a, b), _strip(toks[:f]))
    joiners = [w for w in _SIMULTANEOUS if w in toks[1:]]
    if joiners:
        return f"has no temporal connective; '{joiners[0]}' joins events without ordering them" + (
            " (write 'and then')" if joiners[0] == "and" else ""
        )
    return (
        "has no temporal connective (then, before, after, followed by, first ... then,"
        " turning into, from ... to)"
    )


def _content(event: Sequence[str]) -> tuple[str, ...]:
    return tuple(t for t in event if t not in _IGNORED)


def _subsequence(short: Sequence[str], long: Sequence[str]) -> bool:
    it = iter(long)
    return all(any(w == x for x in it) for w in short)


def same_event(a: Sequence[str], b: Sequence[str]) -> bool:
    """Events match when one's content words are a subsequence of the other's."""
    ca, cb = _content(a), _content(b)
    if not ca or not cb:
        return False
    return _subsequence(ca, cb) or _subsequence(cb, ca)


MAX_EVENTS = 16  # events per caption the audit accepts (documented in README, Caption audit)


def _perfect_matching(match: list[list[bool]]) -> bool:
    """Whether every row can be paired with its own column where ``match`` is true.

    Kuhn's augmenting paths, O(k^3): the audit asks whether neg's events are pos's in some
    order, and trying every order would take k! steps."""
    k = len(match)
    owner = [-1] * k  # column -> row

    def augment(i: int, seen: list[bool]) -> bool:
        for j in range(k):
            if match[i][j] and not seen[j]:
                seen[j] = True
                if owner[j] < 0 or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(augment(i, [False] * k) for i in range(k))


def temporal_problem(pos: str, neg: str) -> tuple[str | None, dict[str, Any]]:
    """None when neg is pos with its events reordered; else a message, plus parse details."""
    p, n = parse_events(pos), parse_events(neg)
    if isinstance(p, str) or isinstance(n, str):
        which = [f"pos {p}" for _ in [0] if isinstance(p, str)]
        which += [f"neg {n}" for _ in [0] if isinstance(n, str)]
        return (
            "; ".join(which)
            + ": a difference without an order of events (like 'a man is waving at a"
            " woman' / 'a woman is waving at a man') is visible in a single frame",
            {},
        )
    details = {"pos_events": p.show(), "neg_events": n.show(), "connective": p.connective}
    if len(p.events) != len(n.events):
        return (
            f"pos has {len(p.events)} events ({p.show()}) but neg has {len(n.events)} ({n.show()})",
            details,
        )
    if p.context != n.context:
        return (
            f"'{' '.join(p.context)}' / '{' '.join(n.context)}' differ before 'from ... to':"
            " not the same motion reversed",
            details,
        )
    k = len(p.events)
    identity = all(same_event(p.events[i], n.events[i]) for i in range(k))
    if identity:
        return (
            f"pos and neg give the same order of events ({p.show()}): they describe the same video",
            details,
        )
    if k > MAX_EVENTS:
        return (
            f"pos has {k} events, more than the {MAX_EVENTS} a caption pair may have "
            "(a video of that many ordered steps is beyond a short-clip benchmark)",
            details,
        )
    if _perfect_matching(
        [[same_event(p.events[i], n.events[j]) for j in range(k)] for i in range(k)]
    ):
        if k == 2 and same_event(p.events[0], p.events[1]):
            return f"the two events of pos are the same ({p.show()})", details
        return None, details
    swap = swap_across_time(p.events, n.events)
    if swap is not None:
        details["swap"] = swap
        return None, details
    return (
        f"pos and neg split around '{p.connective}' into different events"
        f" (pos {p.show()}; neg {n.show()}): the difference is who or what is in each"
        " event, visible in a single frame, not the order of the same events",
        details,
    )


def swap_across_time(pos: Sequence[Sequence[str]], neg: Sequence[Sequence[str]]) -> str | None:
    """Words traded between events ("old man works before young man plays" / "young man works
    before old man plays"), as "event 1: old -> young; event 2: young -> old"; None unless the
    difference is such a trade.

    The events hold the same content words in all, and every event that changed both gives
    words away and takes others in: who or what is in each event differs across time. A swap
    inside one event (same words per event) or one word moved one way is not a trade."""
    a, b = [Counter(_content(e)) for e in pos], [Counter(_content(e)) for e in neg]
    if sum(a, Counter()) != sum(b, Counter()) or a == b:
        return None
    gone = [x - y for x, y in zip(a, b)]
    came = [y - x for x, y in zip(a, b)]
    if any(bool(g) != bool(c) for g, c in zip(gone, came)):
        return None
    return "; ".join(
        f"event {i + 1}: {' '.join(sorted(g.elements()))} -> {' '.join(sorted(c.elements()))}"
        for i, (g, c) in enumerate(zip(gone, came))
        if g
    )


def word_difference(pos: str, neg: str) -> str | None:
    """None when both captions have the same words; else which words differ, precisely."""
    a, b = Counter(words(pos)), Counter(words(neg))
    if a == b:
        return None
    parts = []
    for w in sorted(set(a) | set(b)):
        if a[w] == b[w]:
            continue
        if not b[w]:
            parts.append(f"'{w}' appears in pos only" + (f" ({a[w]}x)" if a[w] > 1 else ""))
        elif not a[w]:
            parts.append(f"'{w}' in neg only" + (f" ({b[w]}x)" if b[w] > 1 else ""))
        else:
            parts.append(f"'{w}' {a[w]}x in pos, {b[w]}x in neg")
    return "; ".join(parts)
