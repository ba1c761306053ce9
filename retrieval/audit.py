"""Audit of temporal counterfactual caption pairs: is each pair the same words, in an order
that only the order of events tells apart, and not a near-copy of another pair?

Reason codes (a pair is ``ok`` when it has none):

- ``identical``: pos and neg are the same text (up to case and punctuation).
- ``word-multiset``: the captions are not made of the same words (case- and
  punctuation-insensitive, counting repeats); the message names the differing words.
  The temporal check is skipped for such a pair: its message would only repeat this one.
- ``not-temporal``: the difference is not an order in time. The rule: each caption must
  split into events around a temporal connective, then read in time order, and the two
  captions' events must be the same events in a different order, or the same words traded
  between events (a role, subject or object swap across time, ``details["swap"]``).

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
  into the ink") is fine, while a swap of who does what within one instant fails: "a man
  is waving at a woman" / "a woman is waving at a man" has no connective, and "the red ball
  hits the blue ball then stops" / "the blue ball hits the red ball then stops" keeps each
  event's words. A swap across time passes (Vinoground's own "an old man is working before
  a young man is playing" / "a young man is working before an old man is playing"): each
  changed event gives words away and takes others in; one word moved one way ("eats
  quickly then watches tv" / "eats then quickly watches tv") is not a trade.

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
  can replace both. Only pairs that pass every other check are searched, so a good pair is
  never flagged for resembling a rejected one. The later pair of a collision is flagged; the
  earlier one stays ok and lists its copies.

  How 0.88 was chosen: on 32 labelled rewordings of a pair (synonyms, another connective,
  "A then B" vs "B after A", added adverbs; ``tests/retrieval/test_near_duplicates.py``) and 32
  different pairs that share most words (another subject, one event changed, another
  direction), the embedding cosine of rewordings spans 0.67-1.00 and of different pairs
  0.24-0.97; 0.88 catches 62% of the rewordings and flags 9% (3) of the different pairs, the
  best trade with at most 10% false alarms (0.80 would catch 91% but flag 22%). Jaccard >= 0.8
  catches 3% of the rewordings there (only the swapped copy). all-MiniLM-L6-v2 hardly
  tells in from out or left from right ("the camera zooms in then pans left" / "... pans right":
  0.97), so in this mode two pairs where one names a direction and the other its opposite
  (left/right, in/out, up/down, ...: :func:`opposite_directions`) are never near-duplicates.

Each verdict also suggests a major and minor category from keyword rules (see
:func:`suggest_categories`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tempogen.retrieval.categories import suggest_categories
from tempogen.retrieval.events import Events, parse_events, temporal_problem, word_difference, words
from tempogen.retrieval.near_duplicates import (
    EMBEDDING_THRESHOLD,
    NEAR_DUPLICATE_THRESHOLD,
    NearDuplicateIndex,
    NearDupMode,
    NeighborFn,
    embedding_neighbors,
    jaccard,
    jaccard_neighbors,
    opposite_directions,
    pair_items,
    pair_vectors,
)
from tempogen.retrieval.pairs import MAJORS, MINORS, CaptionPair

__all__ = [
    "EMBEDDING_THRESHOLD",
    "NEAR_DUPLICATE_THRESHOLD",
    "NEAR_DUP_MODES",
    "REASONS",
    "Events",
    "NearDuplicateIndex",
    "Verdict",
    "audit_pair",
    "audit_pairs",
    "embedding_neighbors",
    "jaccard",
    "jaccard_neighbors",
    "pair_items",
    "pair_vectors",
    "parse_events",
    "report_rows",
    "suggest_categories",
    "summary_table",
    "words",
]

if TYPE_CHECKING:
    from tempogen.retrieval.embed import Encoder


NEAR_DUP_MODES: tuple[str, ...] = ("embedding", "jaccard", "off")

REASONS: tuple[str, ...] = (
    "identical",
    "word-multiset",
    "not-temporal",
    "duplicate",
    "near-duplicate",
)


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
    """'pair 3' or, for a pair read from a file, 'pair 3 (line 5)': pairs count from 1, as a
    reader counts them (``i`` is the 0-based index)."""
    line = pair.provenance.get("line") if isinstance(pair.provenance, dict) else None
    return f"pair {i + 1} (line {line})" if isinstance(line, int) else f"pair {i + 1}"


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
    module docstring; ``neighbors`` replaces the built-in search). Only the pairs that pass
    every other check are searched, in file order.

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
    # only pairs that pass so far are searched: a copy is reported once, as such, and a good
    # pair is never held against a rejected one
    kept = [j for j, v in enumerate(verdicts) if v.ok]
    searched = [items[j] for j in kept]
    if neighbors is not None:
        t = NEAR_DUPLICATE_THRESHOLD if threshold is None else threshold
        found = neighbors(searched, t)
        method = getattr(neighbors, "__name__", "custom")
    elif near_dup == "embedding":
        t = EMBEDDING_THRESHOLD if threshold is None else threshold
        found = [
            (a, b, score)
            for a, b, score in embedding_neighbors(
                searched, t, encoder=encoder, cache_dir=cache_dir
            )
            if not opposite_directions(searched[a], searched[b])
        ]
        method = "embedding"
    elif near_dup == "jaccard":
        t = NEAR_DUPLICATE_THRESHOLD if threshold is None else threshold
        found = jaccard_neighbors(searched, t)
        method = "jaccard"
    else:
        found, method = [], "off"
    later: dict[int, list[tuple[int, float]]] = {}
    for a, b, score in found:
        i, j = kept[min(a, b)], kept[max(a, b)]
        if i == j:
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
    """One JSON-ready row per pair: its 0-based ``index`` (the messages number pairs from 1),
    pos, neg, ok, reasons, details, suggestions, labels."""
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
