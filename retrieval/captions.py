"""Temporal counterfactual caption pairs (Vinoground-style): the pair type, an offline
generator, and (from :mod:`tempogen.retrieval.caption_files`) readers/writers for user files.

A pair is two captions made of exactly the same words whose only difference is the order
of two events or states ("a man eats then watches tv" / "a man watches tv then eats").
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tempogen.errors import ConfigurationError
from tempogen.retrieval.caption_files import MAX_PAIRS, load_pairs, write_pairs

if TYPE_CHECKING:
    from tempogen.retrieval.embed import Encoder

from tempogen.retrieval.pairs import MAJORS, MINORS, CaptionPair

__all__ = [  # the file readers and writer live in caption_files
    "MAJORS",
    "MAX_PAIRS",
    "MINORS",
    "CaptionPair",
    "load_pairs",
    "offline_pairs",
    "write_pairs",
]

# (subject, subject pronoun)
_PEOPLE: tuple[tuple[str, str], ...] = (
    ("a man", "he"),
    ("a woman", "she"),
    ("a boy", "he"),
    ("a girl", "she"),
    ("an old man", "he"),
    ("a young woman", "she"),
    ("a chef", "she"),
    ("a teenager", "he"),
)

# unrelated actions of a person (third person singular), minor tags
_ACTIONS: tuple[str, ...] = (
    "eats",
    "watches tv",
    "jumps",
    "runs",
    "claps",
    "reads a book",
    "drinks water",
    "dances",
    "sings",
    "waves",
    "laughs",
    "stretches",
)

# inverse / procedural action pairs (cyclical): "sits down" then "stands up"
_CYCLES: tuple[tuple[str, str], ...] = (
    ("sits down", "stands up"),
    ("lies down", "gets up"),
    ("inhales", "exhales"),
    ("squats down", "jumps up"),
)

# a person changing how they interact with one object: {o} is "the X" or "it"
_INTERACTIONS: tuple[tuple[str, str, str, bool], ...] = (
    ("writes with {o}", "dips {o} into the ink", "the pen", True),
    ("throws {o}", "catches {o}", "the ball", True),
    ("opens {o}", "closes {o}", "the door", True),
    ("fills {o}", "empties {o}", "the glass", True),
    ("picks {o} up", "puts {o} down", "the box", True),
    ("washes {o}", "dries {o}", "the plate", True),
    ("kicks {o}", "picks {o} up", "the ball", False),
    ("paints {o}", "hangs {o} on the wall", "the picture", False),
    ("cuts {o}", "eats {o}", "the apple", False),
    ("folds {o}", "irons {o}", "the shirt", False),
)

# motion between two places (spatial): "runs from left to right"
_MOTIONS: tuple[str, ...] = ("runs", "walks", "swims", "crawls", "rides a bike")
_PLACES: tuple[tuple[str, str], ...] = (
    ("left", "right"),
    ("the door", "the window"),
    ("the car", "the house"),
    ("the bottom", "the top"),
)

# moving through changing surroundings (contextual): the subject looks still, the scene moves
_SCENES: tuple[tuple[str, str], ...] = (
    ("the biker", "he"),
    ("the skier", "she"),
    ("the driver", "he"),
)
_SCENE_EVENTS: tuple[str, ...] = (
    "rides down the street",
    "goes down the stairs",
    "passes through a tunnel",
    "crosses a bridge",
    "enters a forest",
)

# object state changes: X turning into Y, and things that change state on their own
_TRANSFORMS: tuple[tuple[str, str], ...] = (
    ("water", "ice"),
    ("water", "steam"),
    ("a caterpillar", "a butterfly"),
    ("a seed", "a flower"),
    ("dough", "bread"),
    ("a tadpole", "a frog"),
    ("a puddle", "mud"),
    ("a candle", "a puddle of wax"),
)
_THINGS: tuple[tuple[str, tuple[str, str], bool], ...] = (
    ("the traffic light", ("turns green", "turns red"), False),
    ("the balloon", ("inflates", "deflates"), True),
    ("the lamp", ("turns on", "turns off"), True),
    ("the flower", ("opens", "closes"), True),
    ("the screen", ("goes dark", "lights up"), False),
    ("the fountain", ("starts spraying", "stops spraying"), True),
)

# camera moves (viewpoint)
_CAMERA: tuple[str, ...] = (
    "zooms in",
    "zooms out",
    "pans left",
    "pans right",
    "tilts up",
    "tilts down",
    "moves closer",
    "cuts to a close-up",
)
_CAMERA_SUBJECTS: tuple[str, ...] = ("the camera", "the drone camera")

# connectives: (name, how to render pos for events a, b given subject s and pronoun p)
_CONNECTIVES: tuple[str, ...] = ("then", "and then", "before", "after", "first then")


def _sentence(conn: str, s: str, p: str, a: str, b: str) -> str:
    """Render "s a <conn> b" so that the event a happens first in time."""
    if conn == "then":
        return f"{s} {a} then {b}"
    if conn == "and then":
        return f"{s} {a} and then {b}"
    if conn == "before":
        return f"{s} {a} before {p} {b}"
    if conn == "after":  # "s b after p a": a happens first
        return f"{s} {b} after {p} {a}"
    if conn == "first then":
        return f"first {s} {a}, then {p} {b}"
    raise ValueError(f"unknown connective {conn!r}")


def _pair(
    conn: str, s: str, p: str, a: str, b: str, major: str, minor: Sequence[str], template: str
) -> CaptionPair:
    return CaptionPair(
        pos=_sentence(conn, s, p, a, b),
        neg=_sentence(conn, s, p, b, a),
        major=major,
        minor=tuple(minor),
        source="offline",
        provenance={"template": template, "connective": conn, "subject": s, "events": [a, b]},
    )


def _interaction_pair(
    conn: str, s: str, p: str, a: str, b: str, obj: str, minor: Sequence[str]
) -> CaptionPair:
    """Name the object in the first event and refer back with "it" in the second."""

    def render(first: str, second: str) -> str:
        return _sentence(conn, s, p, first.format(o=obj), second.format(o="it"))

    if conn == "after":  # the syntactically first event is the later one
        pos = _sentence(conn, s, p, a.format(o="it"), b.format(o=obj))
        neg = _sentence(conn, s, p, b.format(o="it"), a.format(o=obj))
    else:
        pos, neg = render(a, b), render(b, a)
    events = [a.format(o=obj), b.format(o=obj)]
    prov = {"template": "interaction", "connective": conn, "subject": s, "events": events}
    return CaptionPair(pos, neg, "action", tuple(minor), "offline", prov)


def _candidates() -> dict[str, list[CaptionPair]]:
    """Every offline pair, grouped into buckets by category so sampling covers them all."""
    b: dict[str, list[CaptionPair]] = {}
    add = b.setdefault
    for (s, p), (a, c), conn in itertools.product(
        _PEOPLE, itertools.combinations(_ACTIONS, 2), _CONNECTIVES
    ):
        add("action", []).append(_pair(conn, s, p, a, c, "action", (), "actions"))
    for (s, p), (a, c), conn in itertools.product(_PEOPLE, _CYCLES, _CONNECTIVES):
        add("action/cyclical", []).append(_pair(conn, s, p, a, c, "action", ["cyclical"], "cycle"))
    for (s, p), (a, c, obj, cyc), conn in itertools.product(_PEOPLE, _INTERACTIONS, _CONNECTIVES):
        minor = ["interaction", "cyclical"] if cyc else ["interaction"]
        add("/".join(["action", *minor]), []).append(
            _interaction_pair(conn, s, p, a, c, obj, minor)
        )
    for (s, _p), verb, (x, y) in itertools.product(_PEOPLE, _MOTIONS, _PLACES):
        add("action/spatial", []).append(
            CaptionPair(
                f"{s} {verb} from {x} to {y}",
                f"{s} {verb} from {y} to {x}",
                "action",
                ("spatial",),
                "offline",
                {
                    "template": "motion",
                    "connective": "from to",
                    "subject": f"{s} {verb}",
                    "events": [x, y],
                },
            )
        )
    for (s, p), (a, c), conn in itertools.product(
        _SCENES, itertools.combinations(_SCENE_EVENTS, 2), _CONNECTIVES
    ):
        add("action/contextual", []).append(
            _pair(conn, s, p, a, c, "action", ["contextual"], "scene")
        )
    for x, y in _TRANSFORMS:
        for form in ("turning into", "turns into", "slowly turning into"):
            add("object", []).append(
                CaptionPair(
                    f"{x} {form} {y}",
                    f"{y} {form} {x}",
                    "object",
                    (),
                    "offline",
                    {
                        "template": "transform",
                        "connective": form,
                        "subject": "",
                        "events": [x, y],
                    },
                )
            )
    for (thing, (a, c), cyc), conn in itertools.product(_THINGS, _CONNECTIVES):
        minor = ["cyclical"] if cyc else []
        key = "object/cyclical" if cyc else "object"
        add(key, []).append(_pair(conn, thing, "it", a, c, "object", minor, "state"))
    for s, (a, c), conn in itertools.product(
        _CAMERA_SUBJECTS, itertools.combinations(_CAMERA, 2), _CONNECTIVES
    ):
        add("viewpoint", []).append(_pair(conn, s, "it", a, c, "viewpoint", (), "camera"))
    return b


def offline_candidates() -> list[CaptionPair]:
    """Every pair the offline templates can give, unsampled (the no-match calibration's data)."""
    buckets = _candidates()
    return [pair for key in sorted(buckets) for pair in buckets[key]]


def _event_key(pair: CaptionPair) -> tuple[Any, ...]:
    """Template, subject and the set of events: equal keys are one pair worded twice."""
    prov = pair.provenance
    return (prov.get("template"), prov.get("subject"), frozenset(prov.get("events", ())))


def offline_pairs(
    n: int,
    seed: int = 0,
    *,
    near_dup: str = "embedding",
    encoder: Encoder | None = None,
) -> list[CaptionPair]:
    """``n`` distinct pairs from built-in templates, no network; deterministic per seed.

    Categories are drawn round-robin so every major and minor appears early. A candidate is
    skipped when it tells the same events as a chosen pair with another connective, or when
    the audit's near-duplicate rule (``near_dup``: "embedding", the audit's default, with a
    0.01 margin below its threshold; "jaccard"; or "off") finds it close to a chosen pair, so
    the result passes ``audit_pairs`` in that mode. Embeddings come from ``encoder`` (default:
    the shared default-model Encoder) in fixed chunks, so a smaller ``n`` gives a prefix.
    """
    from tempogen.retrieval.audit import (
        EMBEDDING_THRESHOLD,
        NEAR_DUP_MODES,
        NEAR_DUPLICATE_THRESHOLD,
        NearDuplicateIndex,
        pair_vectors,
    )

    if n < 0:
        raise ConfigurationError(f"-n: the number of pairs must be >= 0, got {n}")
    if near_dup not in NEAR_DUP_MODES:
        raise ConfigurationError(
            f"near_dup must be one of {', '.join(NEAR_DUP_MODES)}, got {near_dup!r}"
        )
    rng = random.Random(seed)
    buckets = _candidates()
    distinct = len({_event_key(p) for items in buckets.values() for p in items})
    if n > distinct:
        raise ConfigurationError(
            f"-n {n}: offline templates give only {distinct} distinct pairs, {n} asked for;"
            " use --source llm or a file for more"
        )
    queues = []
    for category in sorted(buckets):
        items = list(buckets[category])
        rng.shuffle(items)
        queues.append(items)
    order: list[CaptionPair] = []
    for row in itertools.zip_longest(*queues):
        order.extend(p for p in row if p is not None)
    index = NearDuplicateIndex(order, NEAR_DUPLICATE_THRESHOLD)
    embedder: Encoder | None = None  # set when near duplicates are judged by embeddings
    if near_dup == "embedding" and n > 0:
        from tempogen.retrieval.embed import shared_encoder

        embedder = encoder if encoder is not None else shared_encoder()
    vecs: dict[int, Any] = {}
    kept: np.ndarray | None = None  # the chosen pairs' vectors, one row each
    chosen: list[CaptionPair] = []
    seen: set[tuple[Any, ...]] = set()
    keys = [_event_key(p) for p in order]
    for i, pair in enumerate(order):
        if len(chosen) == n:
            break
        key = keys[i]
        if key in seen:  # the same events told with another connective: the same pair
            continue
        if near_dup == "jaccard" and index.query(i):
            continue
        if embedder is not None:
            if i not in vecs:  # the next candidates not already excluded by their events
                chunk = [k for k in range(i, len(order)) if keys[k] not in seen][:_CHUNK]
                vecs.update(zip(chunk, pair_vectors([order[k] for k in chunk], embedder)))
            vec = vecs[i]
            if kept is not None and float(np.max(kept @ vec)) >= EMBEDDING_THRESHOLD - 0.01:
                continue
            kept = vec[None] if kept is None else np.vstack([kept, vec])
        index.insert(i)
        seen.add(key)
        chosen.append(
            CaptionPair(
                pair.pos,
                pair.neg,
                pair.major,
                pair.minor,
                pair.source,
                {**pair.provenance, "seed": seed, "generator": "tempogen.offline"},
            )
        )
    if len(chosen) < n:
        raise ConfigurationError(
            f"-n {n}: offline templates give only {len(chosen)} distinct pairs (near_dup={near_dup!r}),"
            f" {n} asked for; use --source llm or a file for more"
        )
    return chosen


_CHUNK = 32  # candidates embedded at a time by offline_pairs
