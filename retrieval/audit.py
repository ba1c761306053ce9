"""Audit of temporal counterfactual caption pairs: is each pair the same words, in an order
that only the order of events tells apart, and not a near-copy of another pair?

Reason codes (a pair is ``ok`` when it has none):

- ``identical``: pos and neg are the same text (up to case and punctuation).
- ``word-multiset``: the captions are not made of the same words (case- and
  punctuation-insensitive, counting repeats); the message names the differing words.
  The temporal check is skipped for such a pair: its message would only repeat this one.
- ``not-temporal``: the difference is not the order of the same events. The rule: each
  caption must split into events around a temporal connective, then read in time order,
  and the two captions' events must be the same events in a different order.

  Connectives: "then", "and then", "followed by", "before", "and later" (A first);
  "after" (B first: "A after B"); leading "first A, then B", "before A, B", "after A, B";
  state changes "A turning into B" (turns/turned/changing/changes/transforming into,
  becomes/becoming, morphs into); and, when no connective is present, "from A to B" (the
  text before "from" must then be the same in both captions). "while", "as", "when" and a
  bare "and" join simultaneous or unordered events and do not count.

  Two events are "the same" when, after dropping articles, pronouns, possessives and forms
  of "to be", one's words are a subsequence of the other's: "he waves at her" matches
  "a man waves at a woman". So a subject moved between the events ("a man eats then
  watches tv" / "a man watches tv then eats") or a back-reference ("... before he dips it
  into the ink") is fine, while a swap of who does what, visible in any single frame,
  fails: "a man is waving at a woman" / "a woman is waving at a man" has no connective,
  and "the old man is working hard before the young man is playing" / "the young man is
  working hard before the old man is playing" splits into different events.

  Limits: connectives are found by words, not by parsing, so "stands before a mirror" or
  "runs after the ball" are read as temporal and may fail a good pair; chains of more than
  two events are handled for forward connectives only ("A then B then C"); pronouns are
  not resolved, only ignored.
- ``duplicate``: (file level, :func:`audit_pairs`) the pair is an earlier pair again: the same
  two captions up to case and punctuation, in either order (pos and neg swapped is the same
  pair). Found in every mode, ``off`` included.
- ``near-duplicate``: (file level) the pair says what an earlier pair says in other words.
  ``near_dup="embedding"`` (the default): each pair becomes one vector, the normalised sum of
  its two captions' sentence embeddings (so it ignores which caption is pos), and an exact
  FAISS inner-product range search finds every earlier pair with cosine >=
  :data:`EMBEDDING_THRESHOLD` (0.88). ``near_dup="jaccard"``: the Jaccard index of the pairs'
  word multisets >= :data:`NEAR_DUPLICATE_THRESHOLD` (0.8), fast and model-free, but it only
  finds rewordings that keep the words. ``near_dup="off"``: skip. Any ``neighbors`` callable
  can replace both. The later pair of a collision is flagged; the earlier one stays ok and
  lists its copies.

  How 0.88 was chosen: on 32 labelled rewordings of a pair (synonyms, another connective,
  "A then B" vs "B after A", added adverbs; ``tests/retrieval/test_near_duplicates.py``) and 32
  different pairs that share most words (another subject, one event changed, another
  direction), the embedding cosine of rewordings spans 0.67-1.00 and of different pairs
  0.24-0.97; 0.88 catches 62% of the rewordings and flags 9% (3) of the different pairs, the
  best trade with at most 10% false alarms (0.80 would catch 91% but flag 22%). Jaccard >= 0.8
  catches 3% of the rewordings there (only the swapped copy). all-MiniLM-L6-v2 hardly
  tells in from out or left from right ("the camera zooms in then pans left" / "... pans right":
  0.97), so pairs that differ only in a direction word can be flagged: read the similarity
  and the pair named in the message.

Each verdict also suggests a major and minor category from keyword rules (see
:func:`suggest_categories`).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from tempogen.retrieval.captions import MAJORS, MINORS, CaptionPair

if TYPE_CHECKING:
    from tempogen.retrieval.embed import Encoder

NEAR_DUPLICATE_THRESHOLD = 0.8
"""Jaccard index of two pairs' word multisets at or above which the later is a near-duplicate."""
EMBEDDING_THRESHOLD = 0.88
"""Cosine of two pair embeddings at or above which the later is a near-duplicate (see above)."""

NearDupMode = Literal["embedding", "jaccard", "off"]
NEAR_DUP_MODES: tuple[str, ...] = ("embedding", "jaccard", "off")

REASONS: tuple[str, ...] = (
    "identical",
    "word-multiset",
    "not-temporal",
    "duplicate",
    "near-duplicate",
)

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
_TRANSFORM: tuple[tuple[str, ...], ...] = tuple(
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
_CONNECTIVES = sorted(_FORWARD + _BACKWARD + _TRANSFORM, key=len, reverse=True)
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
    for perm in itertools.permutations(range(k)):
        if all(same_event(p.events[i], n.events[perm[i]]) for i in range(k)):
            if k == 2 and same_event(p.events[0], p.events[1]):
                return f"the two events of pos are the same ({p.show()})", details
            return None, details
    return (
        f"pos and neg split around '{p.connective}' into different events"
        f" (pos {p.show()}; neg {n.show()}): the difference is who or what is in each"
        " event, visible in a single frame, not the order of the same events",
        details,
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


# --------------------------------------------------------------------------- categories

_VIEWPOINT = frozenset(
    "camera cameras zooms zoom zooming panning dolly viewpoint perspective footage".split()
)
# camera words that also name what people do ("tilts his head", "cuts the apple")
_VIEWPOINT_WEAK = frozenset("pans pan tilts tilt tilting lens shot close angle cuts".split())
_AGENTS = frozenset(
    "man woman men women boy boys girl girls person people child children kid kids baby "
    "guy lady chef cook player players teenager teen athlete dancer singer worker student "
    "teacher doctor calligrapher painter artist biker cyclist rider skier surfer skater "
    "driver runner swimmer climber musician mother father mom dad he she they someone "
    "dog cat horse bird puppy kitten monkey".split()
)
_DIRECTIONS = frozenset(
    "left right toward towards away across forward forwards backward backwards upward "
    "upwards downward downwards clockwise counterclockwise anticlockwise above below "
    "behind top bottom".split()
)
_SCENERY = frozenset(
    "street streets stairs staircase tunnel bridge forest road background scenery scene "
    "sky city field beach mountain mountains river hallway corridor highway trail park "
    "landscape town village".split()
)
_INVERSES: tuple[tuple[str, str], ...] = (
    ("opens", "closes"),
    ("open", "close"),
    ("on", "off"),
    ("up", "down"),
    ("in", "out"),
    ("inflates", "deflates"),
    ("throws", "catches"),
    ("sits", "stands"),
    ("inhales", "exhales"),
    ("fills", "empties"),
    ("writes", "dips"),
    ("picks", "puts"),
    ("washes", "dries"),
    ("pushes", "pulls"),
    ("starts", "stops"),
    ("enters", "exits"),
    ("enters", "leaves"),
    ("raises", "lowers"),
    ("lifts", "drops"),
    ("ties", "unties"),
    ("locks", "unlocks"),
    ("wraps", "unwraps"),
    ("plugs", "unplugs"),
    ("rises", "falls"),
    ("climbs", "descends"),
    ("appears", "disappears"),
    ("wakes", "sleeps"),
)


def suggest_categories(pos: str, neg: str = "") -> tuple[str, tuple[str, ...]]:
    """Suggest Vinoground's major and minor categories from keyword rules.

    Major: ``viewpoint`` when a camera word appears (camera, zooms, ...; pans, tilts, cuts
    only when no agent is named);
    ``object`` when a state-change connective joins the events ("turning into", ...) or no
    agent (person, animal, subject pronoun) is named; ``action`` otherwise.
    Minors, not for viewpoint: ``spatial`` for a direction word (left, toward, across, ...)
    or an agent moving "from A to B"; ``interaction`` for an agent acting on an object
    referred back to ("it", "them"); ``cyclical`` when one event holds a word and the other
    its inverse (opens/closes, up/down, throws/catches, ...); ``contextual`` for an agent
    moving through scenery (street, stairs, tunnel, ...).
    """
    toks = words(pos) + words(neg)
    ts = set(toks)
    parsed = parse_events(pos)
    events = parsed.events if isinstance(parsed, Events) else ()
    conn = parsed.connective if isinstance(parsed, Events) else ""
    agent = bool(ts & _AGENTS)
    if ts & _VIEWPOINT or (ts & _VIEWPOINT_WEAK and not agent):
        return "viewpoint", ()
    transform = tuple(conn.split()) in _TRANSFORM
    major = "object" if transform or not agent else "action"
    minor: list[str] = []
    if ts & {"it", "them"} and agent:
        minor.append("interaction")
    if len(events) == 2:
        e0, e1 = set(events[0]), set(events[1])
        if any((x in e0 and y in e1) or (y in e0 and x in e1) for x, y in _INVERSES):
            minor.append("cyclical")
    if (ts & _DIRECTIONS) or (conn == "from ... to" and major == "action"):
        minor.append("spatial")
    if agent and ts & _SCENERY:
        minor.append("contextual")
    return major, tuple(m for m in MINORS if m in minor)


# --------------------------------------------------------------------------- similarity

NeighborFn = Callable[[Sequence[CaptionPair], float], Iterable[tuple[int, int, float]]]
"""Finds similar pairs: (pairs, threshold) -> (i, j, score) with i < j and score >= threshold.
The built-in ones are :func:`embedding_neighbors` and :func:`jaccard_neighbors`."""


def pair_vectors(
    pairs: Sequence[CaptionPair], encoder: Encoder, cache_dir: Any = None
) -> np.ndarray:
    """One unit vector per pair: the normalised sum of its pos and neg caption embeddings."""
    emb = encoder.encode_cached([c for p in pairs for c in (p.pos, p.neg)], cache_dir)
    vec = emb[0::2] + emb[1::2]
    vec /= np.maximum(np.linalg.norm(vec, axis=1, keepdims=True), 1e-12)
    return np.ascontiguousarray(vec, dtype=np.float32)


def embedding_neighbors(
    pairs: Sequence[CaptionPair],
    threshold: float = EMBEDDING_THRESHOLD,
    *,
    encoder: Encoder | None = None,
    cache_dir: str | Path | None = None,
) -> list[tuple[int, int, float]]:
    """All (i, j, cosine), i < j, of pairs whose embeddings (:func:`pair_vectors`) are at least
    ``threshold`` similar, by an exact FAISS inner-product range search."""
    import faiss

    from tempogen.retrieval.embed import shared_encoder

    if not -1 <= threshold <= 1:
        raise ValueError(f"threshold must be a cosine in [-1, 1], got {threshold}")
    if len(pairs) < 2:
        return []
    vec = pair_vectors(pairs, encoder or shared_encoder(), cache_dir)
    index = faiss.IndexFlatIP(vec.shape[1])
    index.add(vec)
    # faiss keeps scores strictly above the radius; the margin keeps ">= threshold" for equal
    # pairs whose cosine rounds to just under 1.0
    lims, scores, ids = index.range_search(vec, threshold - 1e-5)
    out = []
    for i in range(len(pairs)):
        for score, j in zip(scores[lims[i] : lims[i + 1]], ids[lims[i] : lims[i + 1]]):
            if i < j and score >= threshold - 1e-5:
                out.append((i, int(j), min(float(score), 1.0)))
    out.sort()
    return out


def pair_items(pair: CaptionPair) -> Counter[str]:
    """The pair's word multiset (pos and neg together): what near-duplicates compare."""
    return Counter(words(pair.pos)) + Counter(words(pair.neg))


def jaccard(a: Counter[str], b: Counter[str]) -> float:
    """Multiset Jaccard index: shared counts over total counts."""
    inter = sum((a & b).values())
    union = sum((a | b).values())
    return inter / union if union else 1.0


class NearDuplicateIndex:
    """Incremental exact search for pairs at Jaccard >= threshold, by prefix filtering.

    Every multiset becomes a set of (word, k-th occurrence) items ordered rarest first; two
    sets at Jaccard >= t must share an item among their first |x| - ceil(t|x|) + 1.
    """

    def __init__(self, pairs: Sequence[CaptionPair], threshold: float) -> None:
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.threshold = threshold
        self.items = [
            frozenset((w, k) for w, c in pair_items(p).items() for k in range(c)) for p in pairs
        ]
        df: Counter[tuple[str, int]] = Counter()
        for items in self.items:
            df.update(items)
        rank = {item: r for r, item in enumerate(sorted(df, key=lambda x: (df[x], x)))}
        self._prefixes = []
        for items in self.items:
            ordered = sorted(items, key=rank.__getitem__)
            keep = len(ordered) - math.ceil(threshold * len(ordered) - 1e-9) + 1
            self._prefixes.append(ordered[: max(keep, 1)])
        self._postings: dict[tuple[str, int], list[int]] = {}
        self.added: list[int] = []

    def query(self, i: int) -> list[tuple[int, float]]:
        """Already added pairs similar to pair ``i``, as (index, score), index order."""
        seen: set[int] = set()
        for item in self._prefixes[i]:
            seen.update(self._postings.get(item, ()))
        out = []
        a = self.items[i]
        for j in sorted(seen):
            b = self.items[j]
            inter = len(a & b)
            union = len(a) + len(b) - inter
            score = inter / union if union else 1.0
            if score >= self.threshold:
                out.append((j, score))
        return out

    def insert(self, i: int) -> None:
        for item in self._prefixes[i]:
            self._postings.setdefault(item, []).append(i)
        self.added.append(i)

    def add(self, i: int) -> bool:
        """Insert pair ``i`` unless it is similar to one already added; say whether added."""
        if self.query(i):
            return False
        self.insert(i)
        return True


def jaccard_neighbors(
    pairs: Sequence[CaptionPair], threshold: float = NEAR_DUPLICATE_THRESHOLD
) -> list[tuple[int, int, float]]:
    """All (i, j, score), i < j, whose word multisets have Jaccard >= threshold."""
    index = NearDuplicateIndex(pairs, threshold)
    out = []
    for j in range(len(pairs)):
        out.extend((i, j, score) for i, score in index.query(j))
        index.insert(j)
    return out


# --------------------------------------------------------------------------- verdicts


@dataclass
class Verdict:
    """The audit of one pair: ``ok`` when ``reasons`` is empty; messages in ``details``."""

    ok: bool
    reasons: list[str]
    details: dict[str, Any] = field(default_factory=dict)
    major: str = ""
    minor: tuple[str, ...] = ()

    @property
    def messages(self) -> list[str]:
        return list(self.details.get("messages", []))


def _as_pair(pair: CaptionPair | tuple[str, str]) -> CaptionPair:
    return pair if isinstance(pair, CaptionPair) else CaptionPair(pair[0], pair[1])


def audit_pair(pair: CaptionPair | tuple[str, str]) -> Verdict:
    """Audit one pair alone (every reason except the file-level ``near-duplicate``)."""
    pair = _as_pair(pair)
    reasons: list[str] = []
    messages: list[str] = []
    details: dict[str, Any] = {}
    if words(pair.pos) == words(pair.neg):
        reasons.append("identical")
        same = pair.pos.strip() == pair.neg.strip()
        messages.append(
            "identical: pos and neg are the same text"
            + ("" if same else " up to case and punctuation")
        )
    else:
        diff = word_difference(pair.pos, pair.neg)
        if diff is not None:
            reasons.append("word-multiset")
            messages.append(f"word-multiset: {diff}")
            details["word_difference"] = diff
        else:
            problem, parse = temporal_problem(pair.pos, pair.neg)
            details.update(parse)
            if problem is not None:
                reasons.append("not-temporal")
                messages.append(f"not-temporal: {problem}")
    major, minor = suggest_categories(pair.pos, pair.neg)
    details["messages"] = messages
    return Verdict(not reasons, reasons, details, major, minor)


def _where(i: int, pair: CaptionPair) -> str:
    """'pair 3' or, for a pair read from a file, 'pair 3 (line 5)'."""
    line = pair.provenance.get("line") if isinstance(pair.provenance, dict) else None
    return f"pair {i} (line {line})" if isinstance(line, int) else f"pair {i}"


def _pair_key(pair: CaptionPair) -> tuple[tuple[str, ...], ...]:
    """Equal for the same two captions up to case and punctuation, in either order."""
    a, b = tuple(words(pair.pos)), tuple(words(pair.neg))
    return (a, b) if a <= b else (b, a)


def audit_pairs(
    pairs: Sequence[CaptionPair | tuple[str, str]],
    threshold: float | None = None,
    neighbors: NeighborFn | None = None,
    *,
    near_dup: NearDupMode = "embedding",
    encoder: Encoder | None = None,
    cache_dir: str | Path | None = None,
) -> list[Verdict]:
    """Audit every pair, then flag repeats of an earlier pair: ``duplicate`` (the same
    captions) and ``near-duplicate`` (similarity >= ``threshold`` by ``near_dup``: see the
    module docstring; ``neighbors`` replaces the built-in search).

    ``encoder`` (default: the shared default-model Encoder) and ``cache_dir`` (embedding
    cache) serve the embedding mode. ``details["duplicate_of"]`` / ``["near_duplicate_of"]``
    on the later pair and ``details["duplicates"]`` / ``["near_duplicates"]`` on the earlier
    one hold the colliding indices (0-based); similarities are in ``details["similarity"]``.
    """
    if near_dup not in NEAR_DUP_MODES:
        raise ValueError(f"near_dup must be one of {', '.join(NEAR_DUP_MODES)}, got {near_dup!r}")
    items = [_as_pair(p) for p in pairs]
    verdicts = [audit_pair(p) for p in items]
    first: dict[tuple[tuple[str, ...], ...], int] = {}
    dup_of: dict[int, int] = {}
    for j, p in enumerate(items):
        if "identical" in verdicts[j].reasons:
            continue
        i = first.setdefault(_pair_key(p), j)
        if i != j:
            dup_of[j] = i
    for j, i in dup_of.items():
        v, other = verdicts[j], items[i]
        swapped = words(items[j].pos) != words(other.pos)
        v.details["duplicate_of"] = [i]
        verdicts[i].details.setdefault("duplicates", []).append(j)
        v.reasons.append("duplicate")
        v.details["messages"].append(
            f"duplicate: the same captions as {_where(i, other)} ('{other.pos}' / '{other.neg}')"
            + (", pos and neg swapped" if swapped else "")
        )
        v.ok = False
    if neighbors is not None:
        found = neighbors(items, threshold if threshold is not None else NEAR_DUPLICATE_THRESHOLD)
        method = getattr(neighbors, "__name__", "custom")
    elif near_dup == "embedding":
        t = EMBEDDING_THRESHOLD if threshold is None else threshold
        found = embedding_neighbors(items, t, encoder=encoder, cache_dir=cache_dir)
        method = "embedding"
    elif near_dup == "jaccard":
        t = NEAR_DUPLICATE_THRESHOLD if threshold is None else threshold
        found = jaccard_neighbors(items, t)
        method = "jaccard"
    else:
        found, method = [], "off"
    later: dict[int, list[tuple[int, float]]] = {}
    for i, j, score in found:
        i, j = min(i, j), max(i, j)
        if i == j or j in dup_of or i in dup_of:  # a copy is reported as such, once
            continue
        later.setdefault(j, []).append((i, score))
        verdicts[i].details.setdefault("near_duplicates", []).append(j)
    for j, hits in sorted(later.items()):
        hits.sort()
        v = verdicts[j]
        v.details["near_duplicate_of"] = [i for i, _ in hits]
        v.details["similarity"] = {str(i): round(s, 3) for i, s in hits}
        v.details["near_duplicate_method"] = method
        i, s = max(hits, key=lambda h: (h[1], -h[0]))
        other = items[i]
        more = f" (and {len(hits) - 1} more)" if len(hits) > 1 else ""
        v.reasons.append("near-duplicate")
        v.details["messages"].append(
            f"near-duplicate: {s:.0%} similar to {_where(i, other)} "
            f"('{other.pos}' / '{other.neg}'){more}"
        )
        v.ok = False
    for v in verdicts:
        for key in ("duplicates", "near_duplicates"):
            if key in v.details:
                v.details[key] = sorted(set(v.details[key]))
    return verdicts


def report_rows(
    pairs: Sequence[CaptionPair | tuple[str, str]], verdicts: Sequence[Verdict]
) -> list[dict[str, Any]]:
    """One JSON-ready row per pair: pos, neg, ok, reasons, details, suggestions, labels."""
    if len(pairs) != len(verdicts):
        raise ValueError(f"{len(pairs)} pairs but {len(verdicts)} verdicts")
    rows = []
    for i, (p, v) in enumerate(zip(pairs, verdicts)):
        p = _as_pair(p)
        rows.append(
            {
                "index": i,
                "pos": p.pos,
                "neg": p.neg,
                "ok": v.ok,
                "reasons": list(v.reasons),
                "details": v.details,
                "suggested_major": v.major,
                "suggested_minor": list(v.minor),
                "major": p.major,
                "minor": list(p.minor),
            }
        )
    return rows


def summary_table(verdicts: Sequence[Verdict]) -> str:
    """A plain-text table: pairs ok, counts per reason, per suggested major and minor."""
    total = len(verdicts)
    ok = sum(v.ok for v in verdicts)
    reasons = Counter(r for v in verdicts for r in v.reasons)
    majors = Counter(v.major for v in verdicts)
    minors = Counter(m for v in verdicts for m in v.minor)
    rows: list[tuple[str, str, int]] = [("pairs", "total", total), ("pairs", "ok", ok)]
    rows += [("reason", r, reasons[r]) for r in REASONS]
    rows += [("major (suggested)", m, majors[m]) for m in MAJORS]
    rows += [("minor (suggested)", m, minors[m]) for m in MINORS]
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    wn = max(len(str(total)), 5)
    lines = [f"{'group':<{w0}}  {'name':<{w1}}  {'count':>{wn}}  share"]
    for group, name, count in rows:
        share = f"{count / total:6.1%}" if total else "     -"
        lines.append(f"{group:<{w0}}  {name:<{w1}}  {count:>{wn}}  {share}")
    return "\n".join(lines) + "\n"
