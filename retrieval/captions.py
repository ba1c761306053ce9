"""Temporal counterfactual caption pairs (Vinoground-style): the pair type, an offline
generator, and readers/writers for user files.

A pair is two captions made of exactly the same words whose only difference is the order
of two events or states ("a man eats then watches tv" / "a man watches tv then eats").
"""

from __future__ import annotations

import csv
import io
import itertools
import os
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tempogen.errors import ConfigurationError, InputFileError, MissingFileError
from tempogen.io import read_jsonl_lines, read_text, write_jsonl

if TYPE_CHECKING:
    from tempogen.retrieval.embed import Encoder

from tempogen.retrieval.pairs import MAJORS, MINORS, CaptionPair

__all__ = [
    "MAJORS",
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
    for key in sorted(buckets):
        items = list(buckets[key])
        rng.shuffle(items)
        queues.append(items)
    order: list[CaptionPair] = []
    for row in itertools.zip_longest(*queues):
        order.extend(p for p in row if p is not None)
    index = NearDuplicateIndex(order, NEAR_DUPLICATE_THRESHOLD)
    embed = near_dup == "embedding" and n > 0
    if embed and encoder is None:
        from tempogen.retrieval.embed import shared_encoder

        encoder = shared_encoder()
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
        if embed:
            if i not in vecs:  # the next candidates not already excluded by their events
                chunk = [k for k in range(i, len(order)) if keys[k] not in seen][:_CHUNK]
                vecs.update(zip(chunk, pair_vectors([order[k] for k in chunk], encoder)))
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


# --------------------------------------------------------------------------- files


def _file_format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    with open(path, "rb") as f:
        for line in itertools.islice(f, 1000):
            if line.strip():
                return "jsonl" if line.lstrip(b"\xef\xbb\xbf \t").startswith(b"{") else "csv"
    return "jsonl"


MAX_PAIRS = 10_000
"""The most pairs one ``captions generate -n`` asks for (Vinoground has 500): more would be
thousands of LLM requests, so it is refused up front."""


def load_pairs(path: str | os.PathLike[str]) -> list[CaptionPair]:
    """Read a CSV (header with ``pos,neg``, optional ``major,minor``) or JSONL file of pairs.

    Vinoground's own ``vinoground.csv`` columns ``pos_cal,neg_cal`` are accepted too. Both go
    through the project's readers (:mod:`tempogen.io`): bytes that are not UTF-8, bad JSON, a
    repeated key, a lone surrogate or a bad pair are an :class:`InputFileError` naming
    ``file:line``.
    """
    path = Path(path)
    if not path.exists():
        raise MissingFileError(f"{path}: no such file")
    if path.is_dir():
        raise InputFileError(f"{path}: is a folder, expected a CSV or JSONL file of pairs")
    source = f"file:{path.name}"
    pairs: list[CaptionPair] = []
    if _file_format(path) == "csv":
        text = read_text(path, "caption pairs")
        reader = csv.reader(io.StringIO(text, newline=""))
        try:
            header = next(reader, None)
            if header is None:
                raise InputFileError(f"{path}:1: empty file, expected a header with pos,neg")
            cols = [h.strip().lower() for h in header]
            pos_col = _column(cols, ("pos", "pos_cal"))
            neg_col = _column(cols, ("neg", "neg_cal"))
            if pos_col is None or neg_col is None:
                raise InputFileError(
                    f"{path}:1: header must name columns pos and neg, found {', '.join(cols)}"
                )
            named = {k: i for i, k in enumerate(cols)}
            for row in reader:
                line = reader.line_num
                if not any(c.strip() for c in row):
                    continue
                rec: dict[str, Any] = {k: row[i] if i < len(row) else "" for k, i in named.items()}
                rec["pos"], rec["neg"] = _cell(row, pos_col), _cell(row, neg_col)
                rec["source"] = source
                rec["provenance"] = {"file": str(path), "line": line}
                pairs.append(_located(path, line, rec))
        except csv.Error as exc:
            raise InputFileError(f"{path}:{reader.line_num}: not valid CSV: {exc}") from exc
    else:
        for line, rec in read_jsonl_lines(path):
            rec.setdefault("source", source)
            if not rec.get("provenance"):
                rec["provenance"] = {"file": str(path), "line": line}
            pairs.append(_located(path, line, rec))
    return pairs


def _column(cols: list[str], names: Iterable[str]) -> int | None:
    for name in names:
        if name in cols:
            return cols.index(name)
    return None


def _cell(row: list[str], i: int) -> str:
    return row[i] if i < len(row) else ""


def _located(path: Path, line: int, rec: dict[str, Any]) -> CaptionPair:
    try:
        return CaptionPair.from_json(rec)
    except (ValueError, TypeError, AttributeError) as exc:
        raise InputFileError(f"{path}:{line}: {exc}") from exc


def write_pairs(path: str | os.PathLike[str], pairs: Iterable[CaptionPair]) -> None:
    """Write pairs as JSON lines, atomically (complete file or none)."""
    write_jsonl(path, (p.to_json() for p in pairs))
